import { afterEach, describe, expect, it } from 'vitest';
import { PurchaseService } from '../../../src/domain/purchases/purchase-service.js';
import { CatalogService } from '../../../src/domain/stock/catalog-service.js';
import { renderDigest } from '../../../src/render/digest.js';
import {
  renderPendingPurchases,
  renderPurchaseList,
  renderReceiptList,
} from '../../../src/render/purchases.js';
import { DEMO_FACTS } from '../../../src/sandbox/facts.js';
import { type Harness, saoPaulo, startDigestHarness, WS } from '../../helpers/digest-harness.js';

/**
 * `/compras pendentes` and the digest's pending purchases read every active stockroom (PurchaseService.pending):
 * what they say when the stockroom list comes back empty, and which stockrooms they could not read, and why.
 */

const DAY = 86_400_000;
const FIVE_MINUTES = 5 * 60_000;
const C1 = DEMO_FACTS.company1;
const [CENTRAL, NORTE, DEPOSITO] = C1.activeStockrooms;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start() {
  harness = await startDigestHarness(saoPaulo(2026, 11, 27, 8));
  const h = harness;
  const replica = h.replica();
  const purchases = new PurchaseService(replica.domain, new CatalogService(replica.domain));
  const ws = () => replica.domain.workspaces.resolve(WS, 'interactive');
  const pendingCalls = (stockroomId?: number) =>
    h
      .dataCalls()
      .filter((url) => url.startsWith('/v1/entradas-materiais/compras'))
      .filter((url) => stockroomId === undefined || url.endsWith(`almoxarifadoId=${stockroomId}`));
  return { h, replica, purchases, ws, pendingCalls };
}

describe('pending purchases when the stockroom list comes back empty', () => {
  it('say that the linked company shows no active stockroom (not "none pending"), for 5 minutes only', async () => {
    const { h, purchases, ws, pendingCalls } = await start();
    h.sandbox.faults.next({ path: '/v1/almoxarifados', status: 200, body: [] });
    const empty = await purchases.pending(await ws(), null, 1);
    // Until 2026-11-27: `{ groups: [] }` alone, which read as "Nenhuma compra com saldo a receber", kept 6 h.
    expect(empty.data.noActiveStockrooms).toEqual({ empresaId: C1.empresa, unidadeId: null });
    expect(empty.data.groups).toEqual([]);
    expect(pendingCalls()).toEqual([]);

    h.clock.advance(FIVE_MINUTES - 1);
    const cached = await purchases.pending(await ws(), null, 1);
    expect(cached.data.noActiveStockrooms).toEqual({ empresaId: C1.empresa, unidadeId: null });
    expect(h.dataCalls().filter((url) => url === '/v1/almoxarifados')).toHaveLength(1);

    // Access mended upstream: the list is asked again 5 minutes on, not 6 hours.
    h.clock.advance(1);
    const mended = await purchases.pending(await ws(), null, 1);
    expect(mended.data.noActiveStockrooms).toBeUndefined();
    expect(mended.data.groups.map((group) => group.stockroom.almoxarifado)).toEqual([1, 2, 3]);
    expect(h.dataCalls().filter((url) => url === '/v1/almoxarifados')).toHaveLength(2);
  });

  it('the digest says the same in its pending section, and is not "nada a relatar"', async () => {
    const { h, replica } = await start();
    h.sandbox.faults.next({ path: '/v1/almoxarifados', status: 200, body: [] });
    // Nothing else to report either: only the empty stockroom list is news.
    h.sandbox.faults.next({ path: /\/v1\/solicitacoes-materiais\?/, status: 200, body: [], times: 10 });
    const view = await replica.digests.build({
      workspaceId: WS,
      stockroomId: null,
      since: h.clock.now() - DAY,
    });
    expect(view.pending.noActiveStockrooms).toEqual({ empresaId: C1.empresa, unidadeId: null });
    const message = renderDigest(view, { timeZone: 'America/Sao_Paulo', now: h.clock.now() });
    const text = JSON.stringify(message);
    expect(text).not.toContain('nada a relatar');
    expect(text).toContain('não mostra nenhum almoxarifado ativo');
    expect(text).toContain(`empresa ${C1.empresa}`);
    expect(text).toContain('/estoque status');
  });
});

describe('stockrooms a pending read could not read', () => {
  it('each is named with why: refused (403) apart from failing now (500)', async () => {
    const { h, purchases, ws } = await start();
    h.sandbox.faults.next({ path: /\/v1\/entradas-materiais\/compras\?.*almoxarifadoId=2$/, status: 403 });
    h.sandbox.faults.next({
      path: /\/v1\/entradas-materiais\/compras\?.*almoxarifadoId=3$/,
      status: 500,
      times: 10,
    });
    const answer = await purchases.pending(await ws(), null, 1);
    // Until 2026-11-27: `unread: 2`, no stockroom named, every cause "tente de novo mais tarde".
    expect(answer.data.unread).toEqual([
      { stockroom: NORTE, reason: 'forbidden' },
      { stockroom: DEPOSITO, reason: 'later' },
    ]);
    expect(answer.data.groups.map((group) => group.stockroom.almoxarifado)).toEqual([CENTRAL?.almoxarifado]);
  });

  it('a stockroom that answered 403 is not asked again for 5 minutes: the refusal costs no more than an answer', async () => {
    const { h, purchases, ws, pendingCalls } = await start();
    h.sandbox.faults.next({
      path: /\/v1\/entradas-materiais\/compras\?.*almoxarifadoId=2$/,
      status: 403,
      times: 1_000,
    });
    await purchases.pending(await ws(), null, 1);
    expect(pendingCalls(2)).toHaveLength(1);
    // The other stockrooms' answers are fresh for 5 minutes too: within them nothing is asked at all.
    h.clock.advance(FIVE_MINUTES - 1);
    const again = await purchases.pending(await ws(), null, 1);
    // Until 2026-11-27 stockroom 2 was asked again (4 calls), and at every command after.
    expect(pendingCalls()).toHaveLength(3);
    expect(again.data.unread).toEqual([{ stockroom: NORTE, reason: 'forbidden' }]);
    // `Atualizar` asks it again at once.
    await purchases.pending(await ws(), null, 1, { bypassCache: true });
    expect(pendingCalls(2)).toHaveLength(2);
    h.clock.advance(FIVE_MINUTES);
    await purchases.pending(await ws(), null, 1);
    expect(pendingCalls(2)).toHaveLength(3);
  });
});

describe('pending purchases of one stockroom not among the active ones', () => {
  it('are read (an inactive stockroom may still await goods), and the answer says it is not active', async () => {
    const { h, purchases, ws, pendingCalls } = await start();
    // The saved list holds 1-3; 99 is none of them.
    await new CatalogService(h.replica().domain).stockrooms(await ws());
    const answer = await purchases.pending(await ws(), 99, 1);
    expect(pendingCalls(99)).toHaveLength(1);
    // Until 2026-11-27: nothing said it, and the answer read as a bare "Nenhuma compra … em Almoxarifado 99".
    expect(answer.data.stockroomNotActive).toBe(true);
    const shown = JSON.stringify(
      renderPendingPurchases(answer, { timeZone: 'America/Sao_Paulo', now: h.clock.now() }),
    );
    expect(shown).toContain('O almoxarifado 99 não está entre os ativos desta empresa');
    const known = await purchases.pending(await ws(), NORTE.almoxarifado, 1);
    expect(known.data.stockroomNotActive).toBeUndefined();
  });

  it('say nothing of it when no stockroom list is saved (no call is made to find out)', async () => {
    const { h, purchases, ws } = await start();
    const answer = await purchases.pending(await ws(), 99, 1);
    expect(answer.data.stockroomNotActive).toBeUndefined();
    expect(h.dataCalls().filter((url) => url === '/v1/almoxarifados')).toEqual([]);
  });
});

describe('the purchase and receipt lists of one stockroom not among the active ones', () => {
  it('are read as asked, and an empty first page says the stockroom is not active', async () => {
    const { h, purchases, ws } = await start();
    await new CatalogService(h.replica().domain).stockrooms(await ws());
    const ctx = { timeZone: 'America/Sao_Paulo', now: h.clock.now() };
    const list = await purchases.list(await ws(), { stockroomId: 99 }, 1);
    expect(h.dataCalls().some((url) => url.startsWith('/v1/compras-materiais?') && url.includes('99'))).toBe(
      true,
    );
    // Until 2026-11-27: a bare "Nenhuma compra encontrada."
    expect(list.data.stockroomNotActive).toBe(true);
    expect(JSON.stringify(renderPurchaseList(list, ctx))).toContain(
      'O almoxarifado 99 não está entre os ativos desta empresa',
    );
    const receipts = await purchases.receipts(await ws(), { stockroomId: 99 }, 1);
    expect(receipts.data.stockroomNotActive).toBe(true);
    expect(JSON.stringify(renderReceiptList(receipts, ctx))).toContain(
      'O almoxarifado 99 não está entre os ativos desta empresa',
    );
    // A known stockroom's lists say nothing of it.
    const known = await purchases.list(await ws(), { stockroomId: NORTE.almoxarifado }, 1);
    expect(known.data.stockroomNotActive).toBeUndefined();
  });
});
