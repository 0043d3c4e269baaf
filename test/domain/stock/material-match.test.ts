import { describe, expect, it } from 'vitest';
import { matchMaterials } from '../../../src/domain/stock/material-search.js';
import type { Material } from '../../../src/upstream/schemas.js';

const material = (id: number, codigo: string | null, nome: string): Material =>
  ({ material: id, codigo, nome, nomeFormatted: null }) as Material;

describe('matchMaterials', () => {
  it('the code equal to the text, or the name holding every word: both, code matches first', () => {
    const list = [
      material(1, '1000', 'Disjuntor 20A'),
      material(2, 'DJ-20', 'Disjuntor 1000 W'),
      material(3, 'LP-1', 'Lâmpada 1000 lm'),
      material(4, 'X', 'Cabo'),
    ];
    expect(matchMaterials(list, '1000').map((m) => m.material)).toEqual([1, 2, 3]);
    expect(matchMaterials(list, 'dj-20').map((m) => m.material)).toEqual([2]);
    expect(matchMaterials(list, 'lampada 1000').map((m) => m.material)).toEqual([3]);
    expect(matchMaterials(list, '  ')).toEqual([]);
  });

  it('lists a material matched both ways once', () => {
    const list = [material(1, 'cabo', 'Cabo flexível')];
    expect(matchMaterials(list, 'cabo').map((m) => m.material)).toEqual([1]);
  });
});

describe('matchMaterials, compatibility forms', () => {
  const list = [
    material(1, 'CIM-50', 'Cimento CP-II 50 kg'),
    material(2, 'CB-25', 'Cabo flexível 2,5mm² azul'),
    material(3, 'LP-1', 'Lâmpada LED'),
  ];

  it('finds full-width letters typed as the plain ones, by name and by code (until 2026-11-27 nothing)', () => {
    expect(matchMaterials(list, 'ｃｉｍｅｎｔｏ').map((m) => m.material)).toEqual([1]);
    expect(matchMaterials(list, 'ＬＡＭＰＡＤＡ ｌｅｄ').map((m) => m.material)).toEqual([3]);
    expect(matchMaterials(list, 'ｃｉｍ－５０').map((m) => m.material)).toEqual([1]);
  });

  it('`mm²` as typed still finds `mm²`, and so does `mm2`', () => {
    expect(matchMaterials(list, 'cabo 2,5mm²').map((m) => m.material)).toEqual([2]);
    expect(matchMaterials(list, 'cabo 2,5mm2').map((m) => m.material)).toEqual([2]);
  });
});
