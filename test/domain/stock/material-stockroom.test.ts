import { afterEach, describe, expect, it } from 'vitest';
import { RequestService } from '../../../src/domain/requests/request-service.js';
import { CatalogService } from '../../../src/domain/stock/catalog-service.js';
import { MaterialSearchService } from '../../../src/domain/stock/material-search.js';
import { DEMO_FACTS } from '../../../src/sandbox/facts.js';
import { CacheStore } from '../../../src/store/cache-store.js';
import { RedisKeyValue } from '../../../src/store/kv.js';
import { MaterialListReads } from '../../../src/store/material-list-reads.js';
import { type Harness, saoPaulo, startDigestHarness, WS } from '../../helpers/digest-harness.js';

const C1 = DEMO_FACTS.company1;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start() {
  harness = await startDigestHarness(saoPaulo(2026, 11, 23, 8));
  const h = harness;
  const domain = h.replica().domain;
  const ws = await domain.workspaces.resolve(WS, 'interactive');
  const catalog = new CatalogService(domain);
  const materials = new MaterialSearchService(
    domain,
    catalog,
    new MaterialListReads(new RedisKeyValue(h.redis.redis), h.redis.keys),
  );
  const callsFrom = (before: number) => h.dataCalls().slice(before);
  return { h, domain, ws, catalog, materials, callsFrom };
}

describe('MaterialSearchService, last known stock per stockroom', () => {
  it("`almox:N` answers N's balance; without it, the newest and each other stockroom's, with the saved names", async () => {
    const { domain, ws, catalog, materials } = await start();
    await catalog.stockrooms(ws);
    const requests = new RequestService(domain);
    // Pliers (1058): request 1316 (Torre Norte, 2) at 18, then request 1319 (Central, 1) at 10.
    await requests.detail(ws, 1316, 1);
    await requests.detail(ws, 1319, 1);
    const pliers = async (stockroomId?: number) => {
      const answer = await materials.search(ws, {
        text: 'alicate',
        page: 1,
        ...(stockroomId && { stockroomId }),
      });
      const [match] = answer.data.matches;
      return {
        own: match?.lastKnown && [
          match.lastKnown.stockroomId,
          match.lastKnown.current,
          match.lastKnown.requestId,
        ],
        others: match?.otherStock?.map((e) => [e.stockroomId, e.current, e.requestId]),
        names: match?.stockroomNames,
      };
    };
    // Until 2026-11-27 every one of these was [undefined, 10, 1319]: Central's, whatever stockroom was asked.
    expect(await pliers(2)).toMatchObject({ own: [2, 18, 1316], others: [] });
    expect(await pliers(3)).toMatchObject({ own: null, others: [[1, 10, 1319]] });
    const all = await pliers();
    expect(all).toMatchObject({ own: [1, 10, 1319], others: [[2, 18, 1316]] });
    expect(all.names?.get(2)).toBe(C1.activeStockrooms[1].nome);
    // The Buscar material modal (byId) shows what `/estoque` without `almox:` shows.
    const picked = (await materials.byId(ws, 1058)).data;
    expect(picked?.lastKnown?.requestId).toBe(1319);
    expect(picked?.otherStock?.map((e) => e.requestId)).toEqual([1316]);
  });
});

describe('MaterialSearchService, `almox:` not among the active stockrooms', () => {
  it('with the list saved: answered with no call; a listed N searches as before', async () => {
    const { ws, catalog, materials, callsFrom, h } = await start();
    await catalog.stockrooms(ws);
    let before = h.dataCalls().length;
    const unknown = await materials.search(ws, { text: 'alicate', stockroomId: 99, page: 1 });
    expect(unknown.data).toMatchObject({ stockroomState: 'inactive', matches: [] });
    expect(callsFrom(before)).toEqual([]);
    before = h.dataCalls().length;
    const listed = await materials.search(ws, { text: 'alicate', stockroomId: 2, page: 1 });
    expect(listed.data).toMatchObject({
      stockroomState: 'active',
      stockroomName: C1.activeStockrooms[1].nome,
    });
    expect(callsFrom(before)).not.toContain('/v1/almoxarifados');
    expect(callsFrom(before)).toContain('/v1/materiais?almoxarifadoId=2');
  });

  it('with none saved: the list first, one call then cached; an empty list or an unreadable one leaves N unchecked', async () => {
    const { ws, materials, callsFrom, h } = await start();
    let before = h.dataCalls().length;
    expect(
      (await materials.search(ws, { text: 'alicate', stockroomId: 99, page: 1 })).data.stockroomState,
    ).toBe('inactive');
    expect(callsFrom(before)).toEqual(['/v1/almoxarifados']);
    before = h.dataCalls().length;
    await materials.search(ws, { text: 'alicate', stockroomId: 98, page: 1 });
    expect(callsFrom(before)).toEqual([]);

    // An empty list is the sign of a lost company context, not of an unknown stockroom: N is searched.
    await new CacheStore(new RedisKeyValue(h.redis.redis), h.redis.keys).clear(WS);
    h.sandbox.faults.next({ path: '/v1/almoxarifados', status: 200, body: [] });
    before = h.dataCalls().length;
    const empty = await materials.search(ws, { text: 'alicate', stockroomId: 2, page: 1 });
    expect(empty.data.stockroomState).toBe('unchecked');
    expect(callsFrom(before)).toContain('/v1/materiais?almoxarifadoId=2');

    await new CacheStore(new RedisKeyValue(h.redis.redis), h.redis.keys).clear(WS);
    h.sandbox.faults.next({ path: '/v1/almoxarifados', status: 500, times: 20 });
    const failing = await materials.search(ws, { text: 'alicate', stockroomId: 2, page: 1 });
    expect(failing.data.stockroomState).toBe('unchecked');
    expect(failing.data.matches.map((m) => m.material.material)).toEqual([1058]);
  });
});
