import { describe, expect, it } from 'vitest';
import { fold } from '../../src/lib/text.js';
import { COMPANY_1, COMPANY_2 } from '../../src/sandbox/catalog.js';
import { parseCompras, parseEstoque, parseSolicitacao } from '../../src/slack/parse/commands.js';
import { editDistance, nearMiss, SUBCOMMAND_WORDS } from '../../src/slack/parse/did-you-mean.js';

const suggestionOf = (parsed: ReturnType<typeof parseEstoque>) =>
  parsed.ok && parsed.command.kind === 'material-search' ? (parsed.command.suggestion ?? null) : null;

describe('edit distance', () => {
  it('counts a letter missing, added, changed, or two swapped as one', () => {
    expect(editDistance('status', 'status')).toBe(0);
    expect(editDistance('statu', 'status')).toBe(1);
    expect(editDistance('statuss', 'status')).toBe(1);
    expect(editDistance('staths', 'status')).toBe(1);
    expect(editDistance('stauts', 'status')).toBe(1);
    expect(editDistance('vinculo', 'vincular')).toBe(2);
    expect(editDistance('', 'tipos')).toBe(5);
  });
});

describe('near misses of a subcommand', () => {
  const estoque = SUBCOMMAND_WORDS.estoque;

  it('allow one typo up to 7 letters and two from 8, with accents and case folded', () => {
    expect(nearMiss('almoxarifado', estoque)).toBe('almoxarifados');
    expect(nearMiss('Almoxarifádo', estoque)).toBe('almoxarifados');
    expect(nearMiss('almoxarfado', estoque)).toBe('almoxarifados');
    expect(nearMiss('categoria', estoque)).toBe('categorias');
    expect(nearMiss('STATU', estoque)).toBe('status');
    expect(nearMiss('resumos', estoque)).toBe('resumo');
    expect(nearMiss('tipo', estoque)).toBe('tipos');
    expect(nearMiss('vinculo', estoque)).toBe('vincular');
    expect(nearMiss('ajdua', estoque)).toBe('ajuda');
    expect(nearMiss('minha', SUBCOMMAND_WORDS.solicitacao)).toBe('minhas');
    expect(nearMiss('pendente', SUBCOMMAND_WORDS.compras)).toBe('pendentes');
    expect(nearMiss('entrada', SUBCOMMAND_WORDS.compras)).toBe('entradas');
  });

  it('refuse words further away, words too short, exact words and ties', () => {
    for (const word of ['tubos', 'pinos', 'tip', 'st', 'lampada', 'stats1', 'almox', 'minhass1'])
      expect(nearMiss(word, [...estoque, ...SUBCOMMAND_WORDS.solicitacao]), word).toBeNull();
    expect(nearMiss('tipos', estoque)).toBeNull();
    expect(nearMiss('abcf', ['abcd', 'abce'])).toBeNull();
  });

  it('leave every word of the demo materials alone, but “tipo”, which is one letter from `tipos`', () => {
    const words = new Set(
      [...COMPANY_1.materials, ...COMPANY_2.materials].flatMap(([name]) =>
        fold(name)
          .split(/[^\p{L}\d]+/u)
          .filter((w) => w !== ''),
      ),
    );
    expect(words.size).toBeGreaterThan(100);
    const taken = [...words].filter((word) =>
      Object.values(SUBCOMMAND_WORDS).some((list) => nearMiss(word, list) !== null),
    );
    expect(taken).toEqual(['tipo']);
  });
});

describe('did you mean, where the search is chosen', () => {
  it('/estoque: still a material search, with the subcommand it probably meant', () => {
    expect(parseEstoque('almoxarifado')).toEqual({
      ok: true,
      command: {
        kind: 'material-search',
        text: 'almoxarifado',
        page: 1,
        suggestion: { text: 'almoxarifados', command: { kind: 'stockrooms', page: 1 } },
      },
    });
    expect(suggestionOf(parseEstoque('Categoria'))).toEqual({
      text: 'categorias',
      command: { kind: 'categories', page: 1 },
    });
    expect(suggestionOf(parseEstoque('statu'))).toEqual({ text: 'status', command: { kind: 'status' } });
    expect(suggestionOf(parseEstoque('vincula'))).toEqual({ text: 'vincular', command: { kind: 'link' } });
    expect(suggestionOf(parseEstoque('resumos listar'))).toEqual({
      text: 'resumo listar',
      command: { kind: 'digest-list' },
    });
    // `resumo` alone needs what to do: suggested, with no command to run.
    expect(suggestionOf(parseEstoque('resumos'))).toEqual({ text: 'resumo', command: null });
  });

  it('/estoque: no suggestion when the corrected text is no command, or nothing is near', () => {
    for (const text of ['lampada', 'tipo de cabo', 'almoxarifado central', 'tubos', 'lâmpada almox:2'])
      expect(suggestionOf(parseEstoque(text)), text).toBeNull();
    // A filter first is not a subcommand position.
    expect(suggestionOf(parseEstoque('almox:2 almoxarifado'))).toBeNull();
  });

  it('/solicitacao and /compras: the free-text list, with the subcommand and the filters typed', () => {
    expect(parseSolicitacao('minha status:1')).toEqual({
      ok: true,
      command: {
        kind: 'request-list',
        filters: { status: [1], text: 'minha' },
        page: 1,
        suggestion: {
          text: 'minhas status:1',
          command: { kind: 'request-mine', filters: { status: [1] }, page: 1 },
        },
      },
    });
    expect(parseCompras('pendente almox:2')).toMatchObject({
      command: {
        kind: 'purchase-list',
        suggestion: {
          text: 'pendentes almox:2',
          command: { kind: 'purchases-pending', stockroomId: 2, page: 1 },
        },
      },
    });
    expect(parseCompras('entrada')).toMatchObject({
      command: { suggestion: { text: 'entradas', command: { kind: 'receipt-list' } } },
    });
    // Words `pendentes` does not take: no suggestion.
    expect(parseCompras('pendente de entrega')).toEqual({
      ok: true,
      command: { kind: 'purchase-list', filters: { text: 'pendente de entrega' }, page: 1 },
    });
    expect(parseSolicitacao('torre')).toEqual({
      ok: true,
      command: { kind: 'request-list', filters: { text: 'torre' }, page: 1 },
    });
  });

  it('every subcommand word is a command of its own, or a family that needs more', () => {
    for (const word of SUBCOMMAND_WORDS.estoque) {
      const parsed = parseEstoque(word);
      if (word === 'resumo' || word === 'alertas') expect(parsed.ok).toBe(false);
      else expect(parsed.ok && parsed.command.kind !== 'material-search', word).toBe(true);
    }
    for (const word of SUBCOMMAND_WORDS.solicitacao)
      expect(parseSolicitacao(word), word).toMatchObject({
        ok: true,
        command: { kind: expect.not.stringMatching(/^request-list$/) },
      });
    for (const word of SUBCOMMAND_WORDS.compras)
      expect(parseCompras(word)).toMatchObject({
        ok: true,
        command: { kind: expect.not.stringMatching(/^purchase-list$/) },
      });
  });
});
