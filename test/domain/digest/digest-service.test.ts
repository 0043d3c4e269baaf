import { afterEach, describe, expect, it } from 'vitest';
import { looksClosed } from '../../../src/domain/digest/digest-service.js';
import { RequestService } from '../../../src/domain/requests/request-service.js';
import { CatalogService } from '../../../src/domain/stock/catalog-service.js';
import { renderDigest } from '../../../src/render/digest.js';
import { DEMO_FACTS } from '../../../src/sandbox/facts.js';
import { type Harness, saoPaulo, startDigestHarness, WS } from '../../helpers/digest-harness.js';

const DAY = 86_400_000;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('DigestService', () => {
  it('reads the items of at most 10 new requests, records their stock, and lists what is below the minimum', async () => {
    harness = await startDigestHarness(saoPaulo(2026, 11, 23, 8));
    const h = harness;
    const replica = h.replica();
    const view = await replica.digests.build({
      workspaceId: WS,
      stockroomId: null,
      since: h.clock.now() - 8 * DAY,
    });

    expect(view.opened.total).toBeGreaterThan(10);
    expect(view.opened.rows).toHaveLength(5);
    expect(view.belowMinimum).toMatchObject({ itemListsRead: 10, newRequests: view.opened.total });
    const itemCalls = h.dataCalls().filter((url) => url.includes('/itens'));
    expect(itemCalls).toHaveLength(10);

    const stock = await replica.domain.stock.all({ workspaceId: WS, empresaId: DEMO_FACTS.company1.empresa });
    expect(stock.size).toBeGreaterThan(0);
    expect(view.belowMinimum.total).toBeGreaterThan(0);
    const below = DEMO_FACTS.company1.requestsWithItemsBelowMinimum as readonly number[];
    for (const row of view.belowMinimum.rows) {
      expect(row.stock.current).toBeLessThan(row.stock.minimum!);
      expect(below).toContain(row.stock.requestId);
      expect(row.name).toBeTruthy();
    }

    // Counts of open requests leave closed ones out.
    expect(view.inProgress.total).toBeGreaterThan(0);
    expect(view.inProgress.statuses.map((s) => s.name)).not.toContain('Atendida');
    expect(view.inProgress.statuses.map((s) => s.name)).not.toContain('Cancelada');
    expect(view.pending.total).toBe(
      Object.values(DEMO_FACTS.company1.pendingPurchases).reduce((sum, ids) => sum + ids.length, 0),
    );
    expect(view.pending.stockrooms).toBe(3);
    expect(view.coveredUntil).toBe(h.clock.now());
    expect(view.freshness.fromCache).toBe(false);

    // Asked again within a minute: every part comes from the cache, no call made.
    const calls = h.dataCalls().length;
    const again = await replica.digests.build({
      workspaceId: WS,
      stockroomId: null,
      since: h.clock.now() - 8 * DAY,
    });
    expect(h.dataCalls().length).toBe(calls);
    expect(again.freshness.fromCache).toBe(true);
  });

  it('a stockroom digest lists what is below minimum in its stockroom however the bot read it, even a month later', async () => {
    harness = await startDigestHarness(saoPaulo(2026, 11, 23, 8));
    const h = harness;
    const replica = h.replica();
    const ws = await replica.domain.workspaces.resolve(WS, 'interactive');
    const scope = { workspaceId: WS, empresaId: DEMO_FACTS.company1.empresa };
    // The stockroom list was read earlier (`/estoque almoxarifados`, a digest of every stockroom): it is saved.
    await new CatalogService(replica.domain).stockrooms(ws);
    // `/solicitacao <id>`: the items of a request of one stockroom, read outside any digest.
    const [id] = DEMO_FACTS.company1.requestsWithItemsBelowMinimum;
    const stockroomId = h.sandbox.data.company(1)?.requests.find((r) => r.record.solicitacaoMaterialId === id)
      ?.record.almoxarifado;
    const other = DEMO_FACTS.company1.activeStockrooms.find(
      (s) => s.almoxarifado !== stockroomId,
    )!.almoxarifado;
    const detail = await new RequestService(replica.domain).detail(ws, id!, 1);
    const below = detail.data.items
      .filter((item) => item.estoqueMinimo !== null && item.estoqueAtual < item.estoqueMinimo)
      .map((item) => item.material);
    expect(below.length).toBeGreaterThan(0);
    // The last known stock records whose stockroom it is.
    const stock = await replica.domain.stock.all(scope);
    for (const material of below) expect(stock.get(material)).toMatchObject({ requestId: id, stockroomId });

    // A month and more later the request is no longer among the 30 days a digest reads; nothing is new.
    h.clock.advance(40 * DAY);
    const digest = (stockroom: number) =>
      replica.digests.build({ workspaceId: WS, stockroomId: stockroom, since: h.clock.now() });
    const own = await digest(stockroomId!);
    expect(own.belowMinimum.itemListsRead).toBe(0);
    // Until 2026-11-27 a stockroom digest kept only what its own item reads had seen: none of these.
    expect(own.belowMinimum.rows.map((row) => row.stock.materialId)).toEqual(expect.arrayContaining(below));
    const elsewhere = await digest(other);
    for (const row of elsewhere.belowMinimum.rows) expect(row.stock.requestId).not.toBe(id);
  });

  it("uses each stockroom's own balance of a material: below minimum in one stockroom, above it in another read later", async () => {
    harness = await startDigestHarness(saoPaulo(2026, 11, 23, 8));
    const h = harness;
    const replica = h.replica();
    const ws = await replica.domain.workspaces.resolve(WS, 'interactive');
    await new CatalogService(replica.domain).stockrooms(ws);
    // Request 1319 (Central, 1) shows the paint roller (1032) at 1, minimum 4; request 1321 (Vila Olímpia, 3),
    // read after it, at 33, minimum 15.
    const roller = 1032;
    const [central, , vilaOlimpia] = DEMO_FACTS.company1.activeStockrooms;
    const requests = new RequestService(replica.domain);
    await requests.detail(ws, 1319, 1);
    await requests.detail(ws, 1321, 1);

    h.clock.advance(40 * DAY);
    const digest = (stockroomId: number | null) =>
      replica.digests.build({ workspaceId: WS, stockroomId, since: h.clock.now() });
    const rollerRows = (view: Awaited<ReturnType<typeof digest>>) =>
      view.belowMinimum.rows.filter((row) => row.stock.materialId === roller);
    // Until 2026-11-27 one balance per material, the newest (Vila Olímpia's 33): Central's digest missed it, and
    // so did the digest of every stockroom.
    const own = await digest(central.almoxarifado);
    expect(rollerRows(own).map((row) => [row.stock.current, row.stock.requestId])).toEqual([[1, 1319]]);
    expect(rollerRows(await digest(vilaOlimpia.almoxarifado))).toEqual([]);
    const every = await digest(null);
    expect(
      rollerRows(every).map((row) => [row.stock.current, row.stock.stockroomId, row.stockroomName]),
    ).toEqual([[1, central.almoxarifado, central.nome]]);
    const text = renderDigest(every, { timeZone: 'America/Sao_Paulo', now: h.clock.now() })
      .blocks.map((block) => JSON.stringify(block))
      .join('\n');
    expect(text).toContain(`${central.nome} (${central.almoxarifado}) · visto na solicitação 1319`);
  });

  it('a stock whose stockroom was not known when read takes it from the rows a digest reads; one kept before, from its note', async () => {
    harness = await startDigestHarness(saoPaulo(2026, 11, 23, 8));
    const h = harness;
    const replica = h.replica();
    const ws = await replica.domain.workspaces.resolve(WS, 'interactive');
    const scope = { workspaceId: WS, empresaId: DEMO_FACTS.company1.empresa };
    // No stockroom list saved: the detail cannot tell its stockroom's id from its name.
    const [id] = DEMO_FACTS.company1.requestsWithItemsBelowMinimum;
    const stockroomId = h.sandbox.data.company(1)?.requests.find((r) => r.record.solicitacaoMaterialId === id)
      ?.record.almoxarifado;
    const detail = await new RequestService(replica.domain).detail(ws, id!, 1);
    const below = detail.data.items
      .filter((item) => item.estoqueMinimo !== null && item.estoqueAtual < item.estoqueMinimo)
      .map((item) => item.material);
    for (const material of below)
      expect((await replica.domain.stock.all(scope)).get(material)?.stockroomId).toBeNull();
    // A material kept before stockrooms were kept with the stock (2026-11-27), which the digest noted then.
    const legacy = { materialId: 99_001, current: 0, minimum: 3, maximum: null, requestId: 1, seenAt: 1 };
    await h.redis.redis.hset(
      h.redis.keys.lastKnownStock(WS, scope.empresaId),
      String(legacy.materialId),
      JSON.stringify(legacy),
    );
    await h.redis.redis.hset(
      h.redis.keys.digestMaterials(WS, scope.empresaId),
      String(legacy.materialId),
      JSON.stringify({ stockroomId }),
    );

    // The request is among the 30 days the stockroom's digest reads: its row names the stockroom.
    const view = await replica.digests.build({
      workspaceId: WS,
      stockroomId: stockroomId!,
      since: h.clock.now(),
    });
    expect(view.belowMinimum.total).toBe(new Set(below).size + 1);
    expect(view.belowMinimum.rows.map((row) => row.stock.materialId)).toContain(legacy.materialId);
    // And it is kept: a digest once the request has left those 30 days still finds it.
    const stock = await replica.domain.stock.all(scope);
    for (const material of below) expect(stock.get(material)?.stockroomId).toBe(stockroomId);
  });

  it('a request whose items upstream refuses for good is skipped: the digest reads the others and is built', async () => {
    harness = await startDigestHarness(saoPaulo(2026, 11, 23, 8));
    const h = harness;
    // The first item list read (the newest new request) answers 403, as a link limited to a unit may get.
    h.sandbox.faults.next({ path: /\/v1\/solicitacoes-materiais\/\d+\/itens/, status: 403 });
    const view = await h.replica().digests.build({
      workspaceId: WS,
      stockroomId: null,
      since: h.clock.now() - 8 * DAY,
    });
    expect(view.opened.total).toBeGreaterThan(10);
    expect(view.belowMinimum.itemListsRead).toBe(9);
    expect(h.dataCalls().filter((url) => url.includes('/itens'))).toHaveLength(10);
  });

  it('a stockroom whose pending purchases cannot be read now is left out and counted; the digest is built', async () => {
    harness = await startDigestHarness(saoPaulo(2026, 11, 23, 8));
    const h = harness;
    // Stockroom 2's pending purchases answer 500 on every retry; the other two answer.
    h.sandbox.faults.next({
      path: /\/v1\/entradas-materiais\/compras\?.*almoxarifadoId=2/,
      status: 500,
      times: 10,
    });
    const view = await h.replica().digests.build({
      workspaceId: WS,
      stockroomId: null,
      since: h.clock.now() - 8 * DAY,
    });
    const pending = DEMO_FACTS.company1.pendingPurchases;
    expect(view.pending.unread).toEqual([
      { stockroom: DEMO_FACTS.company1.activeStockrooms[1], reason: 'later' },
    ]);
    expect(view.pending.total).toBe(pending[1].length + pending[3].length);
    const text = JSON.stringify(
      renderDigest(view, { timeZone: 'America/Sao_Paulo', now: h.clock.now() }).blocks,
    );
    expect(text).toContain('1 almoxarifado não pôde ser consultado agora');
  });

  it('a stockroom digest counts that stockroom only, and spends no call (nor fails) on the stockroom list', async () => {
    harness = await startDigestHarness(saoPaulo(2026, 11, 23, 8));
    const h = harness;
    // The stockroom list failing: the digest is built all the same, the name taken from its requests' rows.
    h.sandbox.faults.next({ path: '/v1/almoxarifados', status: 500, times: 20 });
    const view = await h
      .replica()
      .digests.build({ workspaceId: WS, stockroomId: 2, since: h.clock.now() - 8 * DAY });
    expect(view.stockroomName).toBe('Almoxarifado Torre Norte');
    expect(view.pending.total).toBe(DEMO_FACTS.company1.pendingPurchases[2].length);
    expect(view.opened.rows.every((row) => row.almoxarifado === 2)).toBe(true);
    expect(
      h.dataCalls().every((url) => !url.includes('almoxarifadoId=1') && !url.includes('almoxarifadoId=3')),
    ).toBe(true);
    expect(h.dataCalls().filter((url) => url.includes('/v1/almoxarifados'))).toEqual([]);
  });

  it('counts a request met on two pages of the in-progress read once (pages of different ages)', async () => {
    harness = await startDigestHarness(saoPaulo(2026, 11, 23, 8));
    const h = harness;
    // Four open requests over two pages of the list; the list moved between the two reads, so the second page
    // repeats the last row of the first.
    const open = (h.sandbox.data.company(1)?.requests ?? [])
      .map((r) => r.record)
      .filter((r) => !looksClosed(r))
      .slice(0, 4);
    expect(open).toHaveLength(4);
    // 101 in all: two pages of 100 (the rest of page 1 left out, so only these four count).
    const rows = open.map((r, i) => ({ ...r, rowNumber: i + 1, totalRows: 101 }));
    // The 30-day read's pages (from the start of a day), not the new requests' page (from the last digest).
    const page = (n: number) =>
      new RegExp(`/v1/solicitacoes-materiais\\?.*DataInicial=[^&]*T00%3A00%3A00&Page=${n}&PageSize=100(&|$)`);
    h.sandbox.faults.next({ path: page(1), status: 200, body: rows.slice(0, 3) });
    h.sandbox.faults.next({ path: page(2), status: 200, body: rows.slice(2, 4) });
    const view = await h
      .replica()
      .digests.build({ workspaceId: WS, stockroomId: null, since: h.clock.now() - 8 * DAY });
    expect(h.dataCalls().filter((url) => page(2).test(url))).toHaveLength(1);
    expect(view.inProgress.total).toBe(4);
  });

  it('shows the newest new requests first, whatever order the list comes in (the document gives it none)', async () => {
    harness = await startDigestHarness(saoPaulo(2026, 11, 23, 8));
    const h = harness;
    const records = (h.sandbox.data.company(1)?.requests ?? []).map((r) => r.record).slice(0, 8);
    const ascending = [...records]
      .sort((a, b) => a.solicitacaoMaterialId - b.solicitacaoMaterialId)
      .map((r, i) => ({ ...r, rowNumber: i + 1, totalRows: records.length }));
    h.sandbox.faults.next({
      path: /\/v1\/solicitacoes-materiais\?.*DataInicial=/,
      status: 200,
      body: ascending,
    });
    const view = await h
      .replica()
      .digests.build({ workspaceId: WS, stockroomId: null, since: h.clock.now() - 8 * DAY });
    const newest = ascending.map((r) => r.solicitacaoMaterialId).sort((a, b) => b - a);
    expect(view.opened.rows.map((r) => r.solicitacaoMaterialId)).toEqual(newest.slice(0, 5));
  });

  it('asks the new requests in one page of 100: against a list that comes oldest first it still holds the newest', async () => {
    harness = await startDigestHarness(saoPaulo(2026, 11, 23, 8));
    const h = harness;
    await h.replica().digests.build({ workspaceId: WS, stockroomId: null, since: h.clock.now() - 8 * DAY });
    // Since the last digest (08:00 eight days ago); the other list read is the 30-day one, from midnight.
    const opened = h
      .dataCalls()
      .filter((url) => /\/v1\/solicitacoes-materiais\?.*DataInicial=[^&]*T08%3A00/.test(url));
    expect(opened).toHaveLength(1);
    expect(new URL(opened[0]!, 'http://upstream').searchParams.get('PageSize')).toBe('100');
  });

  it('past 100 new requests the last page is read too: the newest are shown from a list that comes oldest first', async () => {
    harness = await startDigestHarness(saoPaulo(2026, 11, 23, 8));
    const h = harness;
    const template = (h.sandbox.data.company(1)?.requests ?? [])[0]!.record;
    const total = 250;
    // 250 new requests (5001..5250), served oldest first in pages of 100.
    const rows = Array.from({ length: total }, (_, i) => ({
      ...template,
      solicitacaoMaterialId: 5001 + i,
      rowNumber: i + 1,
      totalRows: total,
    }));
    for (const page of [1, 2, 3]) {
      h.sandbox.faults.next({
        path: new RegExp(`/v1/solicitacoes-materiais\\?.*DataInicial=[^&]*T08%3A00.*[?&]Page=${page}(&|$)`),
        status: 200,
        body: rows.slice((page - 1) * 100, page * 100),
      });
    }
    const view = await h
      .replica()
      .digests.build({ workspaceId: WS, stockroomId: null, since: h.clock.now() - 8 * DAY });
    expect(view.opened.total).toBe(total);
    expect(view.opened.rows.map((r) => r.solicitacaoMaterialId)).toEqual([5250, 5249, 5248, 5247, 5246]);
    // Two reads: page 1 and the last; the middle page is never asked.
    const opened = h
      .dataCalls()
      .filter((url) => /\/v1\/solicitacoes-materiais\?.*DataInicial=[^&]*T08%3A00/.test(url));
    expect(opened.map((url) => new URL(url, 'http://upstream').searchParams.get('Page'))).toEqual(['1', '3']);
  });

  it.each([
    [10, 10, 'Novas solicitações desde 15/11/2026 08:00:* 10'],
    [100, 100, 'Novas solicitações desde 15/11/2026 08:00:* pelo menos 100'],
  ])(
    'rows that say 2,000,000,000 are not believed (page 1 of %i rows): no "last page" read, the count is the rows',
    async (count, total, line) => {
      harness = await startDigestHarness(saoPaulo(2026, 11, 23, 8));
      const h = harness;
      const template = (h.sandbox.data.company(1)?.requests ?? [])[0]!.record;
      const rows = Array.from({ length: count }, (_, i) => ({
        ...template,
        solicitacaoMaterialId: 5001 + i,
        rowNumber: i + 1,
        totalRows: 2_000_000_000,
      }));
      const opened = /\/v1\/solicitacoes-materiais\?.*DataInicial=[^&]*T08%3A00/;
      h.sandbox.faults.next({ path: opened, status: 200, body: rows, times: 10 });
      const view = await h
        .replica()
        .digests.build({ workspaceId: WS, stockroomId: null, since: h.clock.now() - 8 * DAY });
      expect(view.opened.total).toBe(total);
      const pages = h
        .dataCalls()
        .filter((url) => opened.test(url))
        .map((url) => new URL(url, 'http://upstream').searchParams.get('Page'));
      expect(pages).toEqual(['1']);
      const text = JSON.stringify(renderDigest(view, { timeZone: 'America/Sao_Paulo', now: h.clock.now() }));
      expect(text).toContain(line);
      expect(text).not.toContain('2.000.000.000');
    },
  );

  it('the closed-status heuristic', () => {
    const closed = (name: string | null, concluidoComRessalvas = false) =>
      looksClosed({ statusAndamentoSolicitacao_Nome: name, concluidoComRessalvas });
    expect(closed('Atendida')).toBe(true);
    expect(closed('ATENDIDA TOTALMENTE')).toBe(true);
    expect(closed('Atendida parcialmente')).toBe(false);
    expect(closed('Cancelada')).toBe(true);
    expect(closed('Concluída')).toBe(true);
    expect(closed('Finalizado')).toBe(true);
    expect(closed('Recusada')).toBe(true);
    // Other names a service may give a closed request.
    expect(closed('Encerrada')).toBe(true);
    expect(closed('Fechada')).toBe(true);
    expect(closed('Baixada')).toBe(true);
    expect(closed('Entregue')).toBe(true);
    expect(closed('Entregue parcialmente')).toBe(false);
    expect(closed('Não entregue')).toBe(false);
    expect(closed('A ser entregue')).toBe(false);
    expect(closed('Não atendida')).toBe(false);
    expect(closed('Aguardando ser atendida')).toBe(false);
    expect(closed('Rejeitada pelo gestor')).toBe(true);
    expect(closed('Aberta')).toBe(false);
    expect(closed('Em separação')).toBe(false);
    expect(closed('Aguardando compra')).toBe(false);
    expect(closed(null)).toBe(false);
    expect(closed('Aberta', true)).toBe(true);
  });
});
