import { describe, expect, it } from 'vitest';
import { parseCompras, parseEstoque, parseSolicitacao } from '../../src/slack/parse/commands.js';
import { MAX_COMMAND_TEXT, MAX_SEARCH_TEXT } from '../../src/slack/parse/tokens.js';

const twentyKb = 'parafuso '.repeat(2_300);

describe('the longest text a command reads', () => {
  it.each([
    ['/estoque', parseEstoque],
    ['/solicitacao', parseSolicitacao],
    ['/compras', parseCompras],
  ] as const)('%s refuses a 20 KB text with the usage', (_, parse) => {
    const parsed = parse(twentyKb);
    expect(parsed).toEqual({ ok: false, problem: expect.stringContaining('texto longo demais') });
  });

  it('a text of the longest length is still read', () => {
    const text = `almox:1 ${'a'.repeat(MAX_COMMAND_TEXT - 8)}`;
    expect(text).toHaveLength(MAX_COMMAND_TEXT);
    // Read, then refused for its search length, not its command length.
    expect(parseEstoque(text)).toEqual({ ok: false, problem: expect.stringContaining('busca longa demais') });
  });

  it.each([
    ['/estoque', parseEstoque],
    ['/solicitacao', parseSolicitacao],
    ['/compras', parseCompras],
  ] as const)('%s refuses a search longer than %i characters, and takes one of that length', (_, parse) => {
    const words = (n: number) =>
      'cimento '
        .repeat(Math.ceil(n / 8))
        .slice(0, n)
        .trim();
    expect(parse(words(MAX_SEARCH_TEXT + 8))).toEqual({
      ok: false,
      problem: expect.stringContaining('busca longa demais'),
    });
    expect(parse(words(MAX_SEARCH_TEXT)).ok).toBe(true);
  });
});
