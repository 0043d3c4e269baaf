import { describe, expect, it } from 'vitest';
import { fold } from '../../src/lib/text.js';

describe('fold', () => {
  it('folds accents and case', () => {
    expect(fold('HISTÓRICO')).toBe('historico');
    expect(fold('Histórico')).toBe(fold('historico'));
    expect(fold('Lâmpada ÇÃO')).toBe('lampada cao');
  });

  it('folds compatibility forms to their plain letters: full-width, ligatures (until 2026-11-27 left as typed)', () => {
    expect(fold('ｃｉｍｅｎｔｏ')).toBe('cimento');
    expect(fold('ＬÂＭＰＡＤＡ')).toBe('lampada');
    expect(fold('Ｌａ\u0302ｍｐａｄａ')).toBe('lampada');
    expect(fold('ﬁo')).toBe('fio');
    // Both sides of a comparison fold alike: `mm²` and `mm2` are the same word, whichever was typed.
    expect(fold('2,5mm²')).toBe(fold('2,5mm2'));
  });
});
