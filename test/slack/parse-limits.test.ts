import { describe, expect, it } from 'vitest';
import {
  decodeRoute,
  encodeRoute,
  MAX_STATUS_VALUES,
  type Route,
  routeSchema,
} from '../../src/domain/routes.js';
import { routeOfCompras, routeOfEstoque, routeOfSolicitacao } from '../../src/slack/commands/routes-of.js';
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

describe('numbers in the parser’s messages are written in pt-BR (1.234)', () => {
  it('the text and search lengths and the page range', () => {
    expect(parseSolicitacao('a'.repeat(MAX_COMMAND_TEXT + 1))).toEqual({
      ok: false,
      problem: 'texto longo demais (1.001 caracteres; o máximo é 1.000)',
    });
    expect(parseEstoque('a'.repeat(MAX_COMMAND_TEXT))).toEqual({
      ok: false,
      problem: 'busca longa demais (1.000 caracteres; o máximo é 200)',
    });
    expect(parseSolicitacao('pagina:0')).toEqual({
      ok: false,
      problem: '`pagina:0` não é válida (use um número de 1 a 100.000)',
    });
  });
});

describe('whatever a command accepts fits the route its answer is (its buttons carry it)', () => {
  const int32 = 2_147_483_647;
  // Twenty distinct statuses, the highest, and one of them twice: repeats count once.
  const statuses = [0, ...Array.from({ length: 19 }, (_, i) => int32 - i), int32].join(',');
  // The longest search, of the character that takes the most room in a button value (`\u0001` is 6 in JSON).
  const search = '\u0001'.repeat(MAX_SEARCH_TEXT);
  const dates = 'de:01/01/2100 ate:31/12/2100';

  it.each([
    [
      '/solicitacao',
      () =>
        parseSolicitacao(
          `almox:${int32} status:${statuses} ${dates} compra:${int32} pagina:100000 ${search}`,
        ),
      routeOfSolicitacao,
    ],
    [
      '/solicitacao minhas',
      () =>
        parseSolicitacao(
          `minhas almox:${int32} status:${statuses} ${dates} compra:${int32} pagina:100000 ${search}`,
        ),
      routeOfSolicitacao,
    ],
    [
      '/compras',
      () =>
        parseCompras(
          `almox:${int32} status:${statuses} fornecedor:${int32} ${dates} pagina:100000 ${search}`,
        ),
      routeOfCompras,
    ],
    [
      '/compras entradas',
      () => parseCompras(`entradas almox:${int32} oc:${int32} ${dates} pagina:100000`),
      routeOfCompras,
    ],
    ['/estoque', () => parseEstoque(`${search} almox:${int32} pagina:100000`), routeOfEstoque],
    ['/compras pendentes', () => parseCompras(`pendentes almox:${int32} pagina:100000`), routeOfCompras],
    ['/compras <número>', () => parseCompras(`${int32} pagina:100000`), routeOfCompras],
    ['/solicitacao <número>', () => parseSolicitacao(`${int32} pagina:100000`), routeOfSolicitacao],
    [
      '/solicitacao <número> historico',
      () => parseSolicitacao(`${int32} historico pagina:100000`),
      routeOfSolicitacao,
    ],
    ['/solicitacao acompanhando', () => parseSolicitacao('acompanhando pagina:100000'), routeOfSolicitacao],
  ] as const)(
    '%s at every limit: the route passes the schema and comes back from its button value',
    (_, parse, routeOf) => {
      const parsed = parse();
      if (!parsed.ok) throw new Error(parsed.problem);
      const route = (routeOf as (command: unknown) => Route | null)(parsed.command);
      expect(route).not.toBeNull();
      expect(routeSchema.safeParse(route).success).toBe(true);
      if (route) expect(decodeRoute(encodeRoute(route))).toEqual(route);
    },
  );

  it('takes twenty distinct statuses, repeats counted once, and refuses a twenty-first with the limit', () => {
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(parseSolicitacao(`status:${[...twenty, 1, 2].join(',')}`)).toMatchObject({
      ok: true,
      command: { filters: { status: twenty } },
    });
    const over = `status:${[...twenty, 21].join(',')} de:01/01/2026`;
    for (const parse of [parseSolicitacao, parseCompras])
      expect(parse(over)).toEqual({
        ok: false,
        problem: `\`status:\` aceita no máximo ${MAX_STATUS_VALUES} valores diferentes (foram 21)`,
      });
  });
});
