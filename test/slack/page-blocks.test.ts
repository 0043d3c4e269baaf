import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RECENT_PAGE_SIZE } from '../../src/domain/requests/request-service.js';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import type { SandboxCall } from '../../src/sandbox/server.js';
import { findButton, type Harness, startHarness, TEAM, textOf, USERS } from '../helpers/bot-harness.js';
import { request } from '../render/fixtures.js';
import { get, login } from '../sandbox/helpers.js';

/*
 * One upstream read of a block of rows answers several pages of 10 (src/domain/page-blocks.ts): the request
 * list's pages come out of one page of 100, `Histórico`'s pages out of the page of 50 a request's detail reads
 * for its header. The pages shown are the rows upstream gives for that page of 10, in its order.
 */

const C1 = DEMO_FACTS.company1;
const REQUESTS = '/v1/solicitacoes-materiais';
let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

async function ask(command: string, text: string) {
  const result = await h.command(command, text);
  return h.nextMessage(result.sentAt, { userId: USERS.member });
}

async function click(message: Awaited<ReturnType<typeof ask>>, text: string) {
  const since = Date.now();
  const result = await h.click(message, { text });
  expect(result.status).toBe(200);
  return h.nextMessage(since, { userId: USERS.member });
}

const dataCalls = (path: (p: string) => boolean): SandboxCall[] =>
  h.sandbox.calls.filter((c) => c.kind === 'data' && path(c.path));

/** What upstream answers for `url` with its page and page size replaced (asked after the bot is done). */
async function upstreamPage<T>(url: string, names: [string, string], page: number, pageSize: number) {
  const query = new URL(url, 'http://sandbox.local');
  query.searchParams.set(names[0], String(page));
  query.searchParams.set(names[1], String(pageSize));
  const { token } = await login(h.sandbox.authUrl);
  const { status, body } = await get<T[]>(h.sandbox.baseUrl, `${query.pathname}${query.search}`, token, {
    EmpresaId: String(C1.empresa),
  });
  expect(status).toBe(200);
  return body;
}

/** The numbers in `text` of the ids given, in the order they appear there. */
function orderIn(text: string, ids: readonly number[]): number[] {
  return ids
    .map((id) => ({ id, at: text.search(new RegExp(`\\b${id}\\b`)) }))
    .filter((x) => x.at >= 0)
    .sort((a, b) => a.at - b.at)
    .map((x) => x.id);
}

describe('pages of 10 cut out of one upstream read', () => {
  it('answers Próxima from the page of 100 the first page read, with the rows upstream gives for page 2', async () => {
    const first = await ask('/solicitacao', '');
    const listCalls = dataCalls((p) => p === REQUESTS);
    expect(listCalls).toHaveLength(1);
    const [call] = listCalls as [SandboxCall];
    const read = new URL(call.url, 'http://sandbox.local').searchParams;
    expect(read.get('Page')).toBe('1');
    expect(read.get('PageSize')).toBe('100');

    const second = await click(first, 'Próxima');
    const third = await click(second, 'Próxima');
    expect(dataCalls((p) => p === REQUESTS)).toHaveLength(1);

    type Row = { solicitacaoMaterialId: number };
    for (const [page, message] of [
      [1, first],
      [2, second],
      [3, third],
    ] as const) {
      const expected = (await upstreamPage<Row>(call.url, ['Page', 'PageSize'], page, 10)).map(
        (r) => r.solicitacaoMaterialId,
      );
      expect(expected).toHaveLength(10);
      expect(orderIn(textOf(message), expected)).toEqual(expected);
      expect(textOf(message)).toContain(`Página ${page} de`);
    }
    expect(textOf(second)).not.toContain(String(C1.requestIds.last));
  });

  it.each([
    [20, 'serve'],
    [50, 'refuse'],
  ] as const)(
    'a service that pages by %i rows (%s a larger PageSize): every page still shows the rows upstream gives for it',
    async (rows, over) => {
      // The allowed PageSize of the stockroom lists is not documented: this service serves at most `rows` a page,
      // or refuses a larger PageSize with a 400.
      h.sandbox.servePagesOf(rows, over);
      const first = await ask('/solicitacao', '');
      const total = Number(/Página 1 de (\d+)/.exec(textOf(first))?.[1]);
      expect(total).toBeGreaterThan(3);
      const [call] = dataCalls((p) => p === REQUESTS) as [SandboxCall];
      type Row = { solicitacaoMaterialId: number };
      // Within the first read (page 2), past it (page 3), and the last page (its block guessed wrong, then read again).
      for (const page of [2, 3, total]) {
        const message = await ask('/solicitacao', `pagina:${page}`);
        const expected = (await upstreamPage<Row>(call.url, ['Page', 'PageSize'], page, 10)).map(
          (r) => r.solicitacaoMaterialId,
        );
        expect(expected.length).toBeGreaterThan(0);
        expect(orderIn(textOf(message), expected)).toEqual(expected);
        expect(textOf(message)).toContain(`Página ${page} de ${total}`);
      }
    },
  );

  it('shares the page of 100 with the digest and the change feed when the filters are the default', async () => {
    await ask('/solicitacao', '');
    const [call] = dataCalls((p) => p === REQUESTS) as [SandboxCall];
    const query = new URL(call.url, 'http://sandbox.local').searchParams;
    // recentPage's query: the 30-day start, the page and its size, nothing else.
    expect([...query.keys()].sort()).toEqual(['DataInicial', 'Page', 'PageSize']);
    expect(query.get('PageSize')).toBe(String(RECENT_PAGE_SIZE));
  });

  it("answers Histórico from the page of 50 the detail's header read, with upstream's rows of that page", async () => {
    const id = C1.requestsWithItemsBelowMinimum[0];
    const detail = await ask('/solicitacao', String(id));
    const historyCalls = dataCalls((p) => p === `${REQUESTS}/${id}/historico`);
    expect(historyCalls).toHaveLength(1);
    const history = await click(detail, 'Histórico');
    expect(dataCalls((p) => p === `${REQUESTS}/${id}/historico`)).toHaveLength(1);

    type Entry = { andamentoSolicitacao: number; statusAndamentoSolicitacao_Nome: string | null };
    const [call] = historyCalls as [SandboxCall];
    const expected = await upstreamPage<Entry>(call.url, ['page', 'pageSize'], 1, 10);
    expect(expected.length).toBeGreaterThan(0);
    for (const entry of expected) {
      if (entry.statusAndamentoSolicitacao_Nome)
        expect(textOf(history)).toContain(entry.statusAndamentoSolicitacao_Nome);
    }
    expect(textOf(history)).toContain(`Histórico da solicitação ${id}`);
  });

  it('rows whose totalRows says 0 are shown with their count and a way to the next page', async () => {
    const rows = Array.from({ length: 12 }, (_, i) =>
      request({ solicitacaoMaterialId: 5000 + i, rowNumber: i + 1, totalRows: 0 }),
    );
    h.sandbox.faults.next({ path: REQUESTS, status: 200, body: rows });
    const first = await ask('/solicitacao', '');
    expect(textOf(first)).toContain('12 solicitações');
    expect(textOf(first)).toContain('Página 1 de 2');
    const second = await click(first, 'Próxima');
    expect(textOf(second)).toContain('5011');
  });
});

describe('a total no list can hold (rows that say 2,000,000,000)', () => {
  const LIE = 2_000_000_000;
  const rowsOf = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) =>
      request({ solicitacaoMaterialId: from + i, rowNumber: from - 4999 + i, totalRows: LIE }),
    );
  /** The list's upstream page `page` (of 100, as the bot reads it) answers `body`, as often as it is asked. */
  const servePage = (page: number | 'other', body: unknown) =>
    h.sandbox.faults.next({
      path: new RegExp(`${REQUESTS}\\?.*[?&]Page=${page === 'other' ? '(?![12]&)\\d+' : page}&`),
      status: 200,
      body,
      times: 50,
    });

  it('a page of 10 is the whole list: no absurd page count, no Próxima to empty pages', async () => {
    servePage(1, rowsOf(5000, 10));
    servePage('other', []);
    const first = await ask('/solicitacao', '');
    expect(textOf(first)).toContain('10 solicitações');
    expect(textOf(first)).not.toContain('2.000.000.000');
    expect(textOf(first)).not.toContain('Página 1 de');
    expect(findButton(first, { text: 'Próxima' })).toBeUndefined();
    expect(dataCalls((p) => p === REQUESTS)).toHaveLength(1);
  });

  it('full pages are shown as "pelo menos", with Próxima while pages come full; the first short page ends it', async () => {
    servePage(1, rowsOf(5000, 100));
    servePage(2, rowsOf(5100, 30));
    servePage('other', rowsOf(9000, 100));
    const first = await ask('/solicitacao', '');
    expect(textOf(first)).toContain('Página 1 · pelo menos 100 solicitações');
    expect(textOf(first)).not.toContain('2.000.000.000');
    const tenth = await ask('/solicitacao', 'pagina:10');
    expect(findButton(tenth, { text: 'Próxima' })).toBeDefined();
    const eleventh = await click(tenth, 'Próxima');
    expect(textOf(eleventh)).toContain('5100');
    expect(textOf(eleventh)).toContain('Página 11 de 13 · 130 solicitações');
    const last = await ask('/solicitacao', 'pagina:13');
    expect(findButton(last, { text: 'Próxima' })).toBeUndefined();
  });

  it('at the last page a route can name (pagina:100000), no Próxima leads past it', async () => {
    servePage('other', rowsOf(9000, 100));
    const last = await ask('/solicitacao', 'pagina:100000');
    expect(textOf(last)).toContain('Página 100.000');
    expect(findButton(last, { text: 'Anterior' })).toBeDefined();
    expect(findButton(last, { text: 'Próxima' })).toBeUndefined();
  });
});

describe('a page past the end that the service refuses (400 or 404 for a page after the first)', () => {
  // The digest and the change feed already took such a refusal for the end of the list (isPastLastPage); until
  // 2026-11-27 the pages a person asks for did not: "não encontrada" for a request that exists, and "recusou a
  // consulta… 12 meses" for a list page.
  it('historico pagina:7 refused with a 404: an empty page with Anterior, not "não encontrada"', async () => {
    const id = C1.requestsWithItemsBelowMinimum[0];
    // Page 7 of 10 lies in the history's second block of 50.
    h.sandbox.faults.next({
      path: new RegExp(`^${REQUESTS}/${id}/historico\\?.*\\bpage=2\\b`),
      status: 404,
      body: { title: 'Not Found', status: 404 },
    });
    const message = await ask('/solicitacao', `${id} historico pagina:7`);
    expect(textOf(message)).toContain('Nenhum registro nesta página.');
    expect(textOf(message)).not.toContain('não encontrada');
    expect(findButton(message, { text: 'Anterior' })).toBeDefined();
  });

  it.each([400, 404] as const)(
    'a list page refused with a %i (pagina:50, a stale Próxima): an empty page with Anterior',
    async (status) => {
      // Page 50 of 10 lies in the list's fifth block of 100; every page after the first is refused, at any size
      // (a 400 on a page of 100 is asked again at the default 50).
      h.sandbox.faults.next({ path: new RegExp(`^${REQUESTS}\\?.*[?&]Page=(?!1&)\\d+&`), status, times: 10 });
      const message = await ask('/solicitacao', 'pagina:50');
      expect(textOf(message)).toContain('Nenhuma solicitação nesta página.');
      expect(textOf(message)).not.toContain('recusou');
      expect(findButton(message, { text: 'Anterior' })).toBeDefined();
    },
  );

  it('a first page refused is still the refusal it is', async () => {
    h.sandbox.faults.next({ path: new RegExp(`^${REQUESTS}\\?.*[?&]Page=1&`), status: 400, times: 2 });
    const message = await ask('/solicitacao', '');
    expect(textOf(message)).toContain('recusou a consulta');
  });
});
