import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { BudgetExhaustedError } from '../../src/upstream/budget-errors.js';
import { fetchAllPages } from '../../src/upstream/client.js';
import {
  AuthRejectedError,
  CredentialsExpiredError,
  InvalidArgumentError,
  UpstreamBadRequestError,
  UpstreamForbiddenError,
  UpstreamNetworkError,
  UpstreamNotFoundError,
  UpstreamRateLimitedError,
  UpstreamServerError,
  UpstreamTimeoutError,
} from '../../src/upstream/errors.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';
import {
  captureLogger,
  credentialFor,
  makeStack,
  type Stack,
  type StackOptions,
} from '../helpers/upstream-stack.js';

const C1 = DEMO_FACTS.company1;

let sandbox: Sandbox;
let redis: TestRedis;
let stack: Stack;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  redis = await makeTestRedis();
  sandbox.calls.length = 0;
  sandbox.faults.clear();
  stack = stackOn({ timeoutMs: 1_000 });
});

/** One process's client over the test's Redis and the sandbox. */
const stackOn = (options: Partial<StackOptions> = {}) =>
  makeStack({
    redis: redis.redis,
    keys: redis.keys,
    baseUrl: sandbox.baseUrl,
    authUrl: sandbox.authUrl,
    ...options,
  });
afterEach(async () => {
  await stack.close();
  await redis.cleanup();
});

const demo = () => credentialFor(sandbox.authUrl, C1.login, C1.password, C1.empresa);
const ctx = () => ({ credential: demo(), priority: 'interactive' as const });
const dataCalls = () => sandbox.calls.filter((c) => c.kind === 'data');

/** The pauses the budget logged (ms), in order: one per 429 that paused the credential. */
const pausesLogged = (lines: string[]) =>
  lines
    .map((line) => JSON.parse(line) as { msg: string; pausedMs?: number })
    .filter((line) => line.msg.startsWith('upstream budget paused'))
    .map((line) => line.pausedMs);

/** Every page of the request list read in pages of 100 as asked: every row, each once. */
async function expectEveryRequestRead(): Promise<void> {
  const all = await fetchAllPages(
    (page) => stack.client.listRequests(ctx(), { pageSize: 100, page }),
    20,
    (r) => r.solicitacaoMaterialId,
  );
  expect(all.rows).toHaveLength(all.totalRows);
  expect(all.complete).toBe(true);
}

describe('every endpoint of the stockroom area, against the sandbox', () => {
  it('reads users, stockrooms, materials, types and categories', async () => {
    const users = await stack.client.listUsers(ctx());
    expect(users.find((u) => u.usuario === C1.user.usuario)?.email).toBe(C1.user.email);
    const stockrooms = await stack.client.listStockrooms(ctx());
    expect(stockrooms.map((s) => s.almoxarifado)).toEqual(C1.activeStockrooms.map((s) => s.almoxarifado));
    const materials = await stack.client.listMaterials(ctx(), { codigo: C1.material.codigo });
    expect(materials.map((m) => m.nome)).toEqual([C1.material.nome]);
    expect((await stack.client.listMaterialTypes(ctx())).length).toBeGreaterThan(0);
    expect((await stack.client.listMaterialCategories(ctx())).length).toBeGreaterThan(0);
    // One login, then one call per endpoint; EmpresaId went as a header on every data call.
    expect(sandbox.calls.map((c) => c.kind)).toEqual(['login', 'data', 'data', 'data', 'data', 'data']);
  });

  it('reads requests with filters, items, history and pagination by totalRows', async () => {
    const first = await stack.client.listRequests(ctx(), { pageSize: 10, page: 1 });
    expect(first.rows).toHaveLength(10);
    expect(first.totalRows).toBeGreaterThan(10);
    expect(first.totalPages).toBe(Math.ceil(first.totalRows / 10));
    const all = await fetchAllPages((page) => stack.client.listRequests(ctx(), { pageSize: 50, page }));
    expect(all.rows).toHaveLength(all.totalRows);
    expect(all.complete).toBe(true);
    const [withBelowMinimum] = C1.requestsWithItemsBelowMinimum;
    const items = await stack.client.listRequestItems(ctx(), withBelowMinimum);
    expect(items.some((i) => i.estoqueMinimo !== null && i.estoqueAtual < i.estoqueMinimo)).toBe(true);
    const history = await stack.client.listRequestHistory(ctx(), withBelowMinimum, { page: 1, pageSize: 50 });
    const dates = history.rows.map((h) => Date.parse(h.data));
    expect([...dates].sort((a, b) => a - b)).toEqual(dates);
    const filtered = await stack.client.listRequests(ctx(), {
      compraMaterialId: C1.purchaseWithRequests.compraMaterialId,
    });
    expect(filtered.rows.map((r) => r.solicitacaoMaterialId).sort()).toEqual(
      [...C1.purchaseWithRequests.requestIds].sort(),
    );
    const status = dataCalls().find((c) => c.url.includes('CompraMaterialId='));
    expect(status?.url).toContain(`CompraMaterialId=${C1.purchaseWithRequests.compraMaterialId}`);
  });

  it('reads every row from a service that serves fewer rows a page than asked (the allowed PageSize is undocumented)', async () => {
    sandbox.servePagesOf(20);
    try {
      const first = await stack.client.listRequests(ctx(), { pageSize: 100, page: 1 });
      expect(first.rows).toHaveLength(20);
      expect(first.pageSize).toBe(20);
      expect(first.totalPages).toBe(Math.ceil(first.totalRows / 20));
      // A later page says the size it was served at by its first rowNumber.
      const third = await stack.client.listRequests(ctx(), { pageSize: 100, page: 3 });
      expect(third.rows[0]?.rowNumber).toBe(41);
      expect(third.pageSize).toBe(20);
      await expectEveryRequestRead();
    } finally {
      sandbox.servePagesOf(null);
    }
  });

  it('a service that refuses a PageSize over 50 with a 400 is asked again at 50 (the documented default), and from then on at 50', async () => {
    sandbox.servePagesOf(50, 'refuse');
    try {
      const sizesAsked = (path: string) =>
        dataCalls()
          .filter((c) => c.path === path)
          .map((c) => new URL(c.url, 'http://x').searchParams.get('PageSize'));
      const first = await stack.client.listRequests(ctx(), { pageSize: 100, page: 1 });
      expect(first.rows).toHaveLength(50);
      expect(first.pageSize).toBe(50);
      expect(first.totalPages).toBe(Math.ceil(first.totalRows / 50));
      expect(sizesAsked('/v1/solicitacoes-materiais')).toEqual(['100', '50']);
      // Learnt: the next pages are asked at 50 at once, and every row is read.
      await expectEveryRequestRead();
      expect(sizesAsked('/v1/solicitacoes-materiais').slice(2)).not.toContain('100');
      // Each list learns for itself; a size the service takes is asked as it is.
      const purchases = await stack.client.listPurchases(ctx(), { pageSize: 100 });
      expect(purchases.pageSize).toBe(50);
      expect(sizesAsked('/v1/compras-materiais')).toEqual(['100', '50']);
      await stack.client.listReceipts(ctx(), { pageSize: 20 });
      expect(sizesAsked('/v1/entradas-materiais')).toEqual(['20']);
    } finally {
      sandbox.servePagesOf(null);
    }
  });

  it('a refusal whose cause names no field (in words of its own) is asked again at 50, and learnt once served', async () => {
    // The document shows neither the allowed PageSize range nor how a refusal reads: a cause in prose, in English or
    // Portuguese, names no field the bot could match. Asked again at the documented default, a list that is then
    // served says the size was the cause.
    const refusal = (detail: string) => ({
      path: '/v1/solicitacoes-materiais',
      status: 400 as const,
      body: { title: 'Bad Request', status: 400, detail },
    });
    const sizesAsked = () => dataCalls().map((c) => new URL(c.url, 'http://x').searchParams.get('PageSize'));
    sandbox.faults.next(refusal('Page size must be between 1 and 50'));
    const page = await stack.client.listRequests(ctx(), { pageSize: 100 });
    expect(page.pageSize).toBe(50);
    expect(page.rows).toHaveLength(50);
    await stack.client.listRequests(ctx(), { pageSize: 100, page: 2 });
    expect(sizesAsked()).toEqual(['100', '50', '50']);

    sandbox.faults.next({
      ...refusal('O tamanho da página deve ser no máximo 50.'),
      path: '/v1/compras-materiais',
    });
    const purchases = await stack.client.listPurchases(ctx(), { pageSize: 100 });
    expect(purchases.pageSize).toBe(50);
  });

  it('a 400 in prose of its own that names no cause (Parâmetros inválidos.) is asked once more at 50: it may be the page size', async () => {
    // The allowed range is not shown, nor how its refusal reads: a service that answers a PageSize over its range
    // with a cause of its own must not fail every list.
    sandbox.faults.next({
      path: '/v1/solicitacoes-materiais',
      status: 400,
      body: { title: 'Bad Request', status: 400, detail: 'Parâmetros inválidos.' },
    });
    const page = await stack.client.listRequests(ctx(), { pageSize: 100 });
    expect(page.pageSize).toBe(50);
    sandbox.faults.next({
      path: '/v1/compras-materiais',
      status: 400,
      body: { title: 'Bad Request', status: 400, detail: 'O valor 100 excede o máximo permitido (50).' },
    });
    expect((await stack.client.listPurchases(ctx(), { pageSize: 100 })).pageSize).toBe(50);
    expect(dataCalls().map((c) => new URL(c.url, 'http://x').searchParams.get('PageSize'))).toEqual([
      '100',
      '50',
      '100',
      '50',
    ]);
  });

  it('a 400 in prose that states another cause is final: asked once, its error stands and nothing is learnt', async () => {
    // upstream-api.md Errors rule 6: no automatic retry of a 400; its message states the cause.
    sandbox.faults.next({
      path: '/v1/solicitacoes-materiais',
      status: 400,
      body: { title: 'Bad Request', status: 400, detail: 'O período da consulta é limitado a 12 meses.' },
    });
    await expect(stack.client.listRequests(ctx(), { pageSize: 100 })).rejects.toMatchObject({
      detail: 'O período da consulta é limitado a 12 meses.',
    });
    expect(dataCalls()).toHaveLength(1);
    const page = await stack.client.listRequests(ctx(), { pageSize: 100 });
    expect(page.pageSize).toBe(100);
    expect(dataCalls().map((c) => new URL(c.url, 'http://x').searchParams.get('PageSize'))).toEqual([
      '100',
      '100',
    ]);
  });

  it('a 400 whose title alone names the page size is asked again at 50; the history list learns for itself', async () => {
    sandbox.faults.next({
      path: `/v1/solicitacoes-materiais/${C1.requestsWithItemsBelowMinimum[0]}/historico`,
      status: 400,
      body: { title: 'Invalid pageSize', status: 400, detail: 'Valor fora do intervalo.' },
    });
    const history = await stack.client.listRequestHistory(ctx(), C1.requestsWithItemsBelowMinimum[0] ?? 0, {
      page: 1,
      pageSize: 100,
    });
    expect(history.pageSize).toBe(50);
    expect(dataCalls().map((c) => new URL(c.url, 'http://x').searchParams.get('pageSize'))).toEqual([
      '100',
      '50',
    ]);
  });

  it('a 400 for another cause than PageSize is not asked again, and teaches nothing about page sizes', async () => {
    sandbox.faults.next({
      path: '/v1/solicitacoes-materiais',
      status: 400,
      body: {
        title: 'One or more validation errors occurred.',
        status: 400,
        errors: { Search: ['Busca inválida.'] },
      },
    });
    await expect(stack.client.listRequests(ctx(), { pageSize: 100 })).rejects.toBeInstanceOf(
      UpstreamBadRequestError,
    );
    const page = await stack.client.listRequests(ctx(), { pageSize: 100 });
    expect(page.pageSize).toBe(100);
    expect(dataCalls().map((c) => new URL(c.url, 'http://x').searchParams.get('PageSize'))).toEqual([
      '100',
      '100',
    ]);
  });

  it('a link to one unit asks the request list for that unit (SiteId), whose requests it can then open', async () => {
    const unit = C1.unitServedOnlyBy3;
    const unitCtx = () => ({ credential: { ...demo(), unidadeId: unit }, priority: 'interactive' as const });
    const page = await stack.client.listRequests(unitCtx(), { pageSize: 100 });
    expect(page.rows.length).toBeGreaterThan(0);
    expect(new Set(page.rows.map((r) => r.almoxarifado))).toEqual(new Set([3]));
    const asked = dataCalls().filter((c) => c.path === '/v1/solicitacoes-materiais');
    expect(asked.at(-1)?.url).toContain(`SiteId=${unit}`);
    // A request of the list opens under the unit's UnidadeId.
    const first = page.rows[0];
    if (!first) throw new Error('no row');
    await stack.client.listRequestItems(unitCtx(), first.solicitacaoMaterialId);
    // Without a unit, no SiteId: the company's whole list.
    await stack.client.listRequests(ctx(), { pageSize: 10 });
    expect(
      dataCalls()
        .filter((c) => c.path === '/v1/solicitacoes-materiais')
        .at(-1)?.url,
    ).not.toContain('SiteId');
  });

  it('reads purchases, linked requests, receipts and pending purchases', async () => {
    const purchases = await fetchAllPages((page) =>
      stack.client.listPurchases(ctx(), { page, pageSize: 50 }),
    );
    const ids = purchases.rows.map((p) => p.compraMaterialId);
    for (const grouped of C1.groupedPurchases) expect(ids).not.toContain(grouped.compraMaterialId);
    // Every status asked for by name (`Status=0`, "0 = all"): the document states no default for this list, as it
    // does for the request list's.
    const purchaseCalls = dataCalls().filter((c) => c.path === '/v1/compras-materiais');
    expect(purchaseCalls.map((c) => new URL(c.url, 'http://x').searchParams.get('Status'))).toEqual(
      purchaseCalls.map(() => '0'),
    );
    await stack.client.listPurchases(ctx(), { status: [2, 3] });
    expect(dataCalls().at(-1)?.url).toContain('Status=2%2C3');
    // Undocumented fields are kept.
    expect(Object.keys(purchases.rows[0] ?? {}).length).toBeGreaterThan(3);
    const linked = await stack.client.listPurchaseRequests(ctx(), C1.purchaseWithRequests.compraMaterialId);
    expect(linked.map((r) => r.solicitacaoMaterialId).sort()).toEqual(
      [...C1.purchaseWithRequests.requestIds].sort(),
    );
    const receipts = await stack.client.listReceipts(ctx(), { page: 1, pageSize: 20 });
    expect(receipts.rows.length).toBeGreaterThan(0);
    const pending = await stack.client.listPendingPurchases(ctx(), 2);
    expect(pending.map((p) => p.compraMaterialId).sort()).toEqual([...C1.pendingPurchases[2]].sort());
  });
});

describe('arguments refused before any budget is spent', () => {
  it('refuses a period over 12 months, a page size out of range and bad ids', async () => {
    await expect(
      stack.client.listRequests(ctx(), {
        dataInicial: '2024-01-01T00:00:00',
        dataFinal: '2025-06-01T00:00:00',
      }),
    ).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(stack.client.listRequests(ctx(), { pageSize: 0 })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    await expect(stack.client.listPurchases(ctx(), { pageSize: 101 })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    await expect(stack.client.listRequestItems(ctx(), 0)).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(stack.client.listRequestHistory(ctx(), 5, { page: 0 })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    expect(sandbox.calls).toHaveLength(0);
    expect((await stack.budget.usage(demo().id)).used).toBe(0);
  });
});

describe('fetchAllPages', () => {
  const row = (id: number) => ({ id, totalRows: 4 });
  const page = (rows: { id: number; totalRows: number }[]) => ({
    rows,
    page: 1,
    pageSize: 2,
    totalRows: 4,
    totalPages: 2,
  });

  it('counts a row once when the list moved between two pages (pages read at different times)', async () => {
    // A new row pushed row 2 from page 1 to page 2 between the two reads, and row 4 out of both.
    const pages = [page([row(1), row(2)]), page([row(2), row(3)])];
    const all = await fetchAllPages(
      async (n) => pages[n - 1] ?? page([]),
      10,
      (r) => r.id,
    );
    expect(all.rows.map((r) => r.id)).toEqual([1, 2, 3]);
    expect(all.complete).toBe(false);
  });
});

describe('tokens', () => {
  it('logs in once and reuses the token', async () => {
    await stack.client.listStockrooms(ctx());
    await stack.client.listMaterialTypes(ctx());
    expect(sandbox.calls.filter((c) => c.kind === 'login')).toHaveLength(1);
  });

  it('refreshes after a 401 when the token expired mid-session, then retries once', async () => {
    await stack.client.listStockrooms(ctx());
    sandbox.expireAccessTokens(C1.login);
    await stack.client.listMaterialTypes(ctx());
    expect(sandbox.calls.map((c) => `${c.kind}:${c.status}`)).toEqual([
      'login:200',
      'data:200',
      'data:401',
      'refresh:200',
      'data:200',
    ]);
    expect(stack.client.counters.unauthorized).toBe(1);
  });

  it('logs in again with the stored password when the refresh token has expired', async () => {
    await stack.client.listStockrooms(ctx());
    sandbox.expireAccessTokens(C1.login);
    sandbox.expireRefreshTokens(C1.login);
    await stack.client.listStockrooms(ctx());
    const kinds = sandbox.calls.map((c) => `${c.kind}:${c.status}`);
    expect(kinds).toEqual(['login:200', 'data:200', 'data:401', 'refresh:401', 'login:200', 'data:200']);
  });

  it('logs in again when the refresh endpoint answers something that is not a token answer', async () => {
    await stack.client.listStockrooms(ctx());
    // A 200 that is not JSON, then a 404: neither refuses the refresh token, neither can ever renew it.
    for (const fault of [
      { status: 200 as const, body: '<html>manutenção</html>', contentType: 'text/html' },
      { status: 404 as const },
    ]) {
      sandbox.calls.length = 0;
      sandbox.expireAccessTokens(C1.login);
      sandbox.faults.next({ path: '/auth/v1/auth/refresh', ...fault });
      await expect(stack.client.listStockrooms(ctx())).resolves.toBeDefined();
      expect(sandbox.calls.map((c) => `${c.kind}:${c.status}`)).toEqual([
        'data:401',
        `refresh:${fault.status}`,
        'login:200',
        'data:200',
      ]);
    }
  });

  it("keeps the issuer's message when a refusal leaves out hasActiveSession", async () => {
    sandbox.faults.next({
      path: '/auth/v1/auth/',
      status: 200,
      body: { success: false, message: 'Usuário ou senha inválidos.' },
    });
    const refusal = await stack.tokens.login(demo()).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AuthRejectedError);
    expect((refusal as AuthRejectedError).upstreamMessage).toBe('Usuário ou senha inválidos.');
    expect((refusal as AuthRejectedError).hasActiveSession).toBe(false);
  });

  it("a login refused with an ASP.NET validation body keeps the field's message, not the generic title", async () => {
    sandbox.faults.next({
      path: '/auth/v1/auth/',
      status: 400,
      body: {
        title: 'One or more validation errors occurred.',
        status: 400,
        errors: { Plataform: ['The Plataform field is required.'] },
      },
    });
    const refusal = await stack.tokens.login(demo()).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AuthRejectedError);
    expect((refusal as AuthRejectedError).upstreamMessage).toBe(
      'Plataform: The Plataform field is required.',
    );
  });

  it("retries a 5xx of the issuer's login and refresh like the data calls' (bounded), and gives up with the hash", async () => {
    sandbox.faults.next({ path: '/auth/v1/auth/', status: 503 });
    await expect(stack.tokens.login(demo())).resolves.toMatchObject({ jti: expect.any(String) });
    sandbox.expireAccessTokens(C1.login);
    sandbox.faults.next({ path: '/auth/v1/auth/refresh', status: 500 });
    await expect(stack.client.listStockrooms(ctx())).resolves.toHaveLength(3);
    expect(sandbox.calls.map((c) => `${c.kind}:${c.status}`)).toEqual([
      'login:503',
      'login:200',
      'data:401',
      'refresh:500',
      'refresh:200',
      'data:200',
    ]);
    sandbox.calls.length = 0;
    sandbox.faults.next({ path: '/auth/v1/auth/', status: 500, times: 10 });
    const error = await stack.tokens.login(demo()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamServerError);
    expect((error as UpstreamServerError).hash).toMatch(/\w+/);
    // The retry policy's 3 retries: 4 logins in all.
    expect(sandbox.calls.map((c) => `${c.kind}:${c.status}`)).toEqual(Array(4).fill('login:500'));
    sandbox.faults.clear();
  });

  it('refreshes ahead of expiry without a 401', async () => {
    let clock = Date.now();
    await stack.close();
    stack = stackOn({ now: () => clock });
    await stack.client.listStockrooms(ctx());
    const before = await stack.tokens.expiries(demo().id);
    clock += 2 * 3_600_000 - 60_000; // one minute before the token's expiry: inside the refresh-ahead zone
    await stack.client.listMaterialTypes(ctx());
    // The renewal runs in the background, after the answer.
    await vi.waitFor(() => expect(sandbox.calls.filter((c) => c.kind === 'refresh')).toHaveLength(1), {
      timeout: 10_000,
    });
    expect(sandbox.calls.some((c) => c.status === 401)).toBe(false);
    const stored = await stack.tokens.expiries(demo().id);
    expect(stored?.expiresAt).toBeGreaterThan(before?.expiresAt ?? Number.POSITIVE_INFINITY);
  });

  it('renews once across two processes that find the token expired together', async () => {
    await stack.client.listStockrooms(ctx());
    sandbox.expireAccessTokens(C1.login);
    const other = stackOn({ redis: redis.connect(), box: stack.box });
    try {
      // Both hold the same (now expired) token; the second process loads it from the store.
      await Promise.all([stack.client.listMaterialTypes(ctx()), other.client.listMaterialCategories(ctx())]);
      expect(sandbox.calls.filter((c) => c.kind === 'refresh' && c.status === 200)).toHaveLength(1);
      expect(sandbox.calls.filter((c) => c.kind === 'login')).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('a call that waited for its slot sends the token a renewal brought meanwhile, not the one it was granted', async () => {
    let hold: Promise<void> | null = null;
    let release = () => {};
    let waiting = false;
    await stack.close();
    stack = stackOn({
      wrapBudget: (budget) => ({
        schedule: async (credentialId, priority, fn, options) => {
          if (hold) {
            const held = hold;
            hold = null;
            waiting = true;
            await held;
          }
          return budget.schedule(credentialId, priority, fn, options);
        },
        pause: (credentialId, ms) => budget.pause(credentialId, ms),
        pauseAfter429: (credentialId, retryAfterMs) => budget.pauseAfter429(credentialId, retryAfterMs),
        usage: (credentialId) => budget.usage(credentialId),
        close: () => budget.close(),
      }),
    });
    await stack.client.listStockrooms(ctx());
    sandbox.expireAccessTokens(C1.login);
    // The call gets its token, then waits for a slot.
    hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const call = stack.client.listMaterialTypes(ctx());
    await vi.waitFor(() => expect(waiting).toBe(true));
    // Meanwhile the process renews (another call met a 401 with that token).
    const granted = await stack.tokens.accessToken(demo(), 'interactive');
    stack.tokens.invalidate(demo(), granted);
    const renewed = await stack.tokens.accessToken(demo(), 'interactive');
    expect(renewed).not.toBe(granted);
    release();
    await expect(call).resolves.toBeDefined();
    // No slot spent on a 401 with the token it was granted before the wait.
    expect(sandbox.calls.map((c) => `${c.kind}:${c.status}`)).toEqual([
      'login:200',
      'data:200',
      'refresh:200',
      'data:200',
    ]);
  });

  it('renews once across two processes when the issuer takes longer than the renewal lock lives', async () => {
    await stack.close();
    stack = stackOn({ lockTtlMs: 150 });
    await stack.client.listStockrooms(ctx());
    sandbox.expireAccessTokens(C1.login);
    const other = stackOn({ redis: redis.connect(), box: stack.box, lockTtlMs: 150 });
    try {
      sandbox.faults.next({ path: '/auth/v1/auth/refresh', delayMs: 600 });
      // The first renews (slowly); the second comes while it is at it, and must wait for it rather than renew too.
      const first = stack.client.listMaterialTypes(ctx());
      await vi.waitFor(() => expect(sandbox.calls.some((c) => c.kind === 'refresh')).toBe(true));
      await Promise.all([first, other.client.listMaterialCategories(ctx())]);
      expect(sandbox.calls.filter((c) => c.kind === 'refresh')).toHaveLength(1);
      expect(sandbox.calls.filter((c) => c.kind === 'login')).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('turns a wrong password into CredentialsExpiredError, and login() into AuthRejectedError', async () => {
    const wrong = credentialFor(sandbox.authUrl, C1.login, 'senha-errada', C1.empresa);
    await expect(
      stack.client.listStockrooms({ credential: wrong, priority: 'interactive' }),
    ).rejects.toBeInstanceOf(CredentialsExpiredError);
    const refusal = await stack.tokens.login(wrong).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AuthRejectedError);
    expect((refusal as AuthRejectedError).upstreamMessage).toBeTruthy();
  });

  it('reports an active session and ends it when asked', async () => {
    const session = credentialFor(
      sandbox.authUrl,
      DEMO_FACTS.activeSessionLogin.login,
      DEMO_FACTS.activeSessionLogin.password,
      1,
    );
    const refusal = await stack.tokens.login(session).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AuthRejectedError);
    expect((refusal as AuthRejectedError).hasActiveSession).toBe(true);
    await expect(stack.tokens.login(session, { expireCurrentSession: true })).resolves.toMatchObject({
      jti: expect.any(String),
    });
  });
});

describe('errors and retries', () => {
  it('does not retry 403 and 404', async () => {
    const foreign = credentialFor(sandbox.authUrl, C1.login, C1.password, DEMO_FACTS.company2.empresa);
    await expect(
      stack.client.listStockrooms({ credential: foreign, priority: 'interactive' }),
    ).rejects.toBeInstanceOf(UpstreamForbiddenError);
    await expect(stack.client.listRequestItems(ctx(), C1.unknownRequestId)).rejects.toBeInstanceOf(
      UpstreamNotFoundError,
    );
    expect(dataCalls().map((c) => c.status)).toEqual([403, 404]);
    expect(stack.client.counters.retries).toBe(0);
  });

  it('retries a 500 and succeeds; gives up with the hash when it persists', async () => {
    sandbox.faults.next({ path: '/v1/almoxarifados', status: 500 });
    await expect(stack.client.listStockrooms(ctx())).resolves.toHaveLength(3);
    expect(stack.client.counters.retries).toBe(1);
    sandbox.faults.next({ path: '/v1/materiais/tipos', status: 500, times: 10 });
    const error = await stack.client.listMaterialTypes(ctx()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamServerError);
    expect((error as UpstreamServerError).hash).toMatch(/\w+/);
    expect(dataCalls().filter((c) => c.path === '/v1/materiais/tipos')).toHaveLength(4);
  });

  it('pauses the credential on a 429 and retries after the pause', async () => {
    sandbox.faults.next({ path: '/v1/almoxarifados', status: 429 });
    await expect(stack.client.listStockrooms(ctx())).resolves.toHaveLength(3);
    expect(stack.client.counters.rateLimited).toBe(1);
    const stats = await redis.redis.hgetall(redis.keys.budgetStats(demo().id));
    expect(Number(stats.paused)).toBe(1);
  });

  it("grows one credential's pause over its own 429s in a row, whatever other credentials meanwhile get", async () => {
    await stack.close();
    stack = stackOn({ limit: { count: 1_000, windowMs: 15_000 } });
    const C2 = DEMO_FACTS.company2;
    const other = credentialFor(sandbox.authUrl, C2.login, C2.password, C2.empresa);
    const pauses: number[] = [];
    const pauseAfter429 = stack.budget.pauseAfter429.bind(stack.budget);
    vi.spyOn(stack.budget, 'pauseAfter429').mockImplementation(async (id, retryAfterMs) => {
      const ms = await pauseAfter429(id, retryAfterMs);
      pauses.push(ms);
      if (pauses.length === 1) {
        // While the first credential waits out its 429, another one is answered; then the first's retry is refused again.
        await stack.client.listMaterialTypes({ credential: other, priority: 'interactive' });
        sandbox.faults.next({ path: '/v1/almoxarifados', status: 429 });
      }
      return ms;
    });
    sandbox.faults.next({ path: '/v1/almoxarifados', status: 429 });
    await expect(stack.client.listStockrooms(ctx())).resolves.toHaveLength(3);
    expect(pauses).toEqual([250, 500]);
  });

  it('a 429 with Retry-After: 0 or a date already past still pauses the credential on every replica, for the backoff', async () => {
    await stack.close();
    const { logger, lines } = captureLogger('warn');
    // A 15 s window: the backoff starts at 250 ms and doubles with each 429 in a row.
    stack = stackOn({ logger, limit: { count: 1_000, windowMs: 15_000 } });
    const replicaB = stackOn({ limit: { count: 1_000, windowMs: 15_000 } });
    try {
      const past = new Date(Date.now() - 60_000).toUTCString();
      sandbox.faults.next({ path: '/v1/almoxarifados', status: 429, headers: { 'Retry-After': '0' } });
      sandbox.faults.next({ path: '/v1/almoxarifados', status: 429, headers: { 'Retry-After': past } });
      sandbox.faults.next({
        path: '/v1/almoxarifados',
        status: 429,
        times: 2,
        headers: { 'Retry-After': '0' },
      });
      const error = await stack.client.listStockrooms(ctx()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UpstreamRateLimitedError);

      // The last 429's pause is still in force, and holds replica B too.
      expect((await replicaB.budget.usage(demo().id)).pausedUntil).not.toBeNull();
      const refused = await replicaB.client
        .listStockrooms({ credential: demo(), priority: 'background' })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(BudgetExhaustedError);
      expect(dataCalls().map((c) => c.status)).toEqual([429, 429, 429, 429]);
      // Every 429 paused the credential, each for the backoff of the 429s in a row.
      expect(pausesLogged(lines)).toEqual([250, 500, 1_000, 2_000]);
    } finally {
      await replicaB.close();
    }
  });

  it("keeps a credential's streak of 429s across replicas and past a 2xx", async () => {
    await stack.close();
    const { logger, lines } = captureLogger('warn');
    stack = stackOn({ logger, limit: { count: 1_000, windowMs: 15_000 } });
    const replicaB = stackOn({ logger, limit: { count: 1_000, windowMs: 15_000 } });
    try {
      sandbox.faults.next({ path: '/v1/almoxarifados', status: 429 });
      await expect(stack.client.listStockrooms(ctx())).resolves.toHaveLength(3);
      // The retry's 200 above, and another one: neither ends the streak. Then the other replica meets a 429.
      await expect(stack.client.listMaterialTypes(ctx())).resolves.toBeDefined();
      sandbox.faults.next({ path: '/v1/almoxarifados', status: 429 });
      await expect(replicaB.client.listStockrooms(ctx())).resolves.toHaveLength(3);

      expect(dataCalls().map((c) => `${c.path}:${c.status}`)).toEqual([
        '/v1/almoxarifados:429',
        '/v1/almoxarifados:200',
        '/v1/materiais/tipos:200',
        '/v1/almoxarifados:429',
        '/v1/almoxarifados:200',
      ]);
      expect(pausesLogged(lines)).toEqual([250, 500]);
    } finally {
      await replicaB.close();
    }
  });

  it("logs the upstream's trace id on each failed attempt, and keeps it on the error it gives up with", async () => {
    const { logger, lines } = captureLogger('warn');
    await stack.close();
    stack = stackOn({ logger, limit: { count: 1_000, windowMs: 1_000 } });
    const traceId = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    sandbox.faults.next({ path: '/v1/almoxarifados', status: 429, times: 4, body: { status: 429, traceId } });
    const error = await stack.client.listStockrooms(ctx()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamRateLimitedError);
    expect((error as UpstreamRateLimitedError).traceId).toBe(traceId);
    const retried = lines
      .map((line) => JSON.parse(line) as { msg: string; err?: { traceId?: string } })
      .filter((line) => line.msg === 'upstream call failed; retrying');
    expect(retried).toHaveLength(3);
    for (const line of retried) expect(line.err?.traceId).toBe(traceId);
  });

  it('says until when it paused the credential on the 429 it gives up on', async () => {
    await stack.close();
    // A 1 s window: each pause is 250 ms, so the four attempts are over soon.
    stack = stackOn({ limit: { count: 1_000, windowMs: 1_000 } });
    sandbox.faults.next({ path: '/v1/almoxarifados', status: 429, times: 4 });
    const before = Date.now();
    const error = await stack.client.listStockrooms(ctx()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamRateLimitedError);
    expect(dataCalls().filter((c) => c.status === 429)).toHaveLength(4);
    // The last pause: 250 ms from the last 429, not the 60 s a 429 without Retry-After used to be shown as.
    const { pausedUntil } = error as UpstreamRateLimitedError;
    expect(pausedUntil).toBeGreaterThan(before);
    expect(pausedUntil).toBeLessThanOrEqual(Date.now() + 250);
  });

  it('a 429 from the token issuer pauses the credential too, and the login is tried again only after it', async () => {
    await stack.close();
    // A 1 s window: a pause without Retry-After is 250 ms.
    stack = stackOn({ limit: { count: 1_000, windowMs: 1_000 } });
    const pauses: number[] = [];
    const pauseAfter429 = stack.budget.pauseAfter429.bind(stack.budget);
    vi.spyOn(stack.budget, 'pauseAfter429').mockImplementation(async (id, retryAfterMs) => {
      const ms = await pauseAfter429(id, retryAfterMs);
      pauses.push(ms);
      return ms;
    });
    sandbox.faults.next({ path: /\/auth\/v1\/auth\/?$/, status: 429 });
    await expect(stack.client.listStockrooms(ctx())).resolves.toHaveLength(3);
    expect(pauses).toEqual([250]);
    expect(sandbox.calls.filter((c) => c.kind === 'login').map((c) => c.status)).toEqual([429, 200]);
  });

  it("a token 429 with Retry-After: 0 pauses for the backoff, in the same streak as the data calls' 429s", async () => {
    await stack.close();
    const { logger, lines } = captureLogger('warn');
    // A 15 s window: the backoff starts at 250 ms and doubles.
    stack = stackOn({ logger, limit: { count: 1_000, windowMs: 15_000 } });
    sandbox.faults.next({ path: /\/auth\/v1\/auth\/?$/, status: 429, headers: { 'Retry-After': '0' } });
    sandbox.faults.next({ path: '/v1/almoxarifados', status: 429, headers: { 'Retry-After': '0' } });
    await expect(stack.client.listStockrooms(ctx())).resolves.toHaveLength(3);

    expect(sandbox.calls.map((c) => `${c.kind}:${c.status}`)).toEqual([
      'login:429',
      'login:200',
      'data:429',
      'data:200',
    ]);
    expect(pausesLogged(lines)).toEqual([250, 500]);
  });

  it('a token call that keeps failing is retried by the token manager alone, not again for each data attempt', async () => {
    sandbox.faults.next({ path: /\/auth\/v1\/auth\/?$/, dropConnection: true, times: 50 });
    await expect(stack.client.listStockrooms(ctx())).rejects.toBeInstanceOf(UpstreamNetworkError);
    // The retry policy's 3 retries: 4 logins in all, not 4 for each of the data call's 4 attempts.
    expect(sandbox.calls.filter((c) => c.kind === 'login')).toHaveLength(4);
    expect(dataCalls()).toHaveLength(0);
    sandbox.faults.clear();
  });

  it('times out a call that does not answer, retrying a bounded number of times', async () => {
    // Logged in with the usual bound; then a process with a short one, which finds the token in the store.
    await stack.client.listStockrooms(ctx());
    await stack.close();
    stack = stackOn({ timeoutMs: 200, box: stack.box });
    sandbox.faults.next({ path: '/v1/almoxarifados', delayMs: 3_000, times: 4 });
    await expect(stack.client.listStockrooms(ctx())).rejects.toBeInstanceOf(UpstreamTimeoutError);
    expect(stack.client.counters.retries).toBe(3);
    sandbox.faults.clear();
  });

  it('never retries a 400', async () => {
    sandbox.faults.next({ path: '/v1/compras-materiais', status: 400 });
    await expect(stack.client.listPurchases(ctx())).rejects.toMatchObject({ status: 400 });
    expect(dataCalls()).toHaveLength(1);
  });
});

describe('identical calls in flight', () => {
  it('are made once', async () => {
    await stack.client.listStockrooms(ctx());
    sandbox.calls.length = 0;
    const [a, b, c] = await Promise.all([
      stack.client.listRequestItems(ctx(), C1.requestIds.first),
      stack.client.listRequestItems(ctx(), C1.requestIds.first),
      stack.client.listRequestItems(ctx(), C1.requestIds.first + 1),
    ]);
    expect(a).toEqual(b);
    expect(c).not.toEqual(a);
    expect(dataCalls()).toHaveLength(2);
    expect(stack.client.counters.coalesced).toBe(1);
  });

  it('are joined only at the same or a lower priority: a command never waits behind a digest call', async () => {
    await stack.client.listStockrooms(ctx());
    sandbox.calls.length = 0;
    const id = C1.requestIds.first;
    const at = (priority: 'interactive' | 'digest' | 'background') => ({ credential: demo(), priority });
    const before = stack.client.counters.coalesced;
    await Promise.all([
      stack.client.listRequestItems(at('digest'), id),
      stack.client.listRequestItems(at('interactive'), id),
      stack.client.listRequestItems(at('background'), id),
    ]);
    // The command made its own call; the background one joined the command's, the newest at a higher priority.
    expect(dataCalls()).toHaveLength(2);
    expect(stack.client.counters.coalesced - before).toBe(1);
  });
});

describe('secrets', () => {
  it('never writes a password, token, refresh token or jti to logs or to Redis in plain text', async () => {
    const { logger, lines } = captureLogger('trace');
    await stack.close();
    stack = stackOn({ logger });
    await stack.client.listStockrooms(ctx());
    sandbox.expireAccessTokens(C1.login);
    await stack.client.listMaterialTypes(ctx());
    const pair = (await stack.box) && (await import('../../src/store/token-store.js'));
    expect(pair).toBeTruthy();
    const stored = await redis.redis.get(redis.keys.tokens(demo().id));
    expect(stored).toBeTruthy();
    const opened = JSON.parse(stack.box.open(stored ?? '', `tokens:${demo().id}`)) as Record<string, string>;
    const secrets = [
      opened.token,
      opened.refreshToken,
      opened.jti,
      C1.password === 'demo' ? 'Password' : C1.password,
    ];
    const logText = lines.join('\n');
    expect(lines.length).toBeGreaterThan(0);
    for (const secret of secrets.slice(0, 3)) {
      expect(secret && secret.length > 8).toBe(true);
      expect(logText).not.toContain(secret);
    }
    const allKeys = await redis.redis.keys(`${redis.prefix}*`);
    for (const key of allKeys) {
      const type = await redis.redis.type(key);
      const dump =
        type === 'string' ? await redis.redis.get(key) : JSON.stringify(await redis.redis.dump(key));
      for (const secret of secrets.slice(0, 3)) expect(dump ?? '').not.toContain(secret);
    }
  });
});
