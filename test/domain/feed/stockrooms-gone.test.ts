import { describe, expect, it } from 'vitest';
import type { ReceiptEvent } from '../../../src/domain/feed/types.js';
import type { ReceiptChange } from '../../../src/sandbox/server.js';
import { feedHarnessPerTest, INTERVAL_MS, recorded, WS } from '../../helpers/feed-harness.js';

/**
 * A stockroom that leaves the active list (`GET /v1/almoxarifados` lists active ones only): what the feed keeps of it
 * in Redis. Until 2026-11-27 its last read time stayed in `feed:<ws>:snap:stockrooms` for good, one field per
 * stockroom that ever was active.
 */
const HOUR = 3_600_000;
const start = feedHarnessPerTest();

async function receiptsRecorded() {
  const h = await start();
  const a = h.feedReplica();
  await h.listeners.upsertChannel({
    workspaceId: WS,
    channelId: 'C-RECEIPTS',
    stockroomId: null,
    kinds: ['recebimentos'],
    subscribedBy: 'U1',
  });
  await recorded(h, a.engine);
  return { h, a };
}

describe('stockrooms that left the active list', () => {
  it('their read times leave the snapshot at the next round that reads the active list; the others stay', async () => {
    const { h, a } = await receiptsRecorded();
    const key = h.redis.keys.feedSnapshotStockrooms(WS);
    const readBefore = (await h.redis.redis.hkeys(key)).map(Number).sort((x, y) => x - y);
    expect(readBefore).toHaveLength(3);
    const [gone, ...kept] = readBefore;
    const stockroom = h.sandbox.data.company(1)?.stockrooms.find((s) => s.record.almoxarifado === gone);
    if (!stockroom) throw new Error('no such stockroom');
    stockroom.record.status = 0;

    // Past the stockroom list's 6 h in the cache: the next receipts round reads the list again.
    h.clock.advance(7 * HOUR);
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true, round: { complete: true } });
    expect(h.dataCalls().filter((url) => url.includes('/v1/almoxarifados')).length).toBeGreaterThan(0);
    expect((await h.redis.redis.hkeys(key)).map(Number).sort((x, y) => x - y)).toEqual(kept);
    // The rounds after it go on as before, and do not bring it back.
    h.clock.advance(3 * INTERVAL_MS);
    await a.engine.runIfDue(WS);
    expect((await h.redis.redis.hkeys(key)).map(Number).sort((x, y) => x - y)).toEqual(kept);
  });

  it('their pending purchases leave the snapshot in the same round, told as nothing; one that comes back is recorded again', async () => {
    const { h, a } = await receiptsRecorded();
    const purchasesKey = h.redis.keys.feedSnapshotPurchases(WS);
    const stockroomsOf = async () => {
      const byStockroom = new Map<number, number[]>();
      for (const [id, raw] of Object.entries(await h.redis.redis.hgetall(purchasesKey))) {
        const stockroomId = (JSON.parse(raw) as { stockroomId: number }).stockroomId;
        byStockroom.set(stockroomId, [...(byStockroom.get(stockroomId) ?? []), Number(id)]);
      }
      return byStockroom;
    };
    const before = await stockroomsOf();
    const [gone, goneIds] = [...before].sort(([x], [y]) => x - y)[0] ?? [];
    if (gone === undefined || goneIds === undefined) throw new Error('no pending purchases recorded');
    expect(goneIds.length).toBeGreaterThan(0);
    const kept = [...before].filter(([id]) => id !== gone).flatMap(([, ids]) => ids);
    const stockroom = h.sandbox.data.company(1)?.stockrooms.find((s) => s.record.almoxarifado === gone);
    if (!stockroom) throw new Error('no such stockroom');
    const posted = () => a.poster.posts.flatMap((post) => post.events.map((event) => event.id));
    const postedBefore = posted();
    stockroom.record.status = 0;

    h.clock.advance(7 * HOUR);
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true, round: { complete: true, detected: 0 } });
    // Until 2026-11-27 its purchases stayed in the snapshot for good once its read time was pruned.
    expect((await stockroomsOf()).has(gone)).toBe(false);
    expect((await h.redis.redis.hkeys(purchasesKey)).map(Number).sort((x, y) => x - y)).toEqual(
      [...kept].sort((x, y) => x - y),
    );
    // Their leaving is no receipt: nothing in the outbox, nothing posted.
    expect(await a.snapshots.outbox(WS)).toEqual([]);
    expect(posted()).toEqual(postedBefore);

    // Active again: its first reading records its purchases, and reports nothing.
    stockroom.record.status = 1;
    h.clock.advance(7 * HOUR);
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true, round: { detected: 0 } });
    expect((await stockroomsOf()).get(gone)?.sort((x, y) => x - y)).toEqual(
      [...goneIds].sort((x, y) => x - y),
    );
    expect(posted()).toEqual(postedBefore);
  });

  it('an empty stockroom list (the API’s answer to a wrong company context) prunes nothing: receipts made after it are told', async () => {
    const { h, a } = await receiptsRecorded();
    const purchasesKey = h.redis.keys.feedSnapshotPurchases(WS);
    const stockroomsKey = h.redis.keys.feedSnapshotStockrooms(WS);
    const purchasesBefore = (await h.redis.redis.hkeys(purchasesKey)).sort();
    const readsBefore = (await h.redis.redis.hkeys(stockroomsKey)).sort();
    const stockrooms = h.sandbox.data.company(1)?.stockrooms ?? [];
    for (const stockroom of stockrooms) stockroom.record.status = 0;
    h.clock.advance(7 * HOUR);
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true });
    expect((await h.redis.redis.hkeys(purchasesKey)).sort()).toEqual(purchasesBefore);
    expect((await h.redis.redis.hkeys(stockroomsKey)).sort()).toEqual(readsBefore);

    // The list is whole again, and goods arrive before the next reading of the pending purchases.
    for (const stockroom of stockrooms) stockroom.record.status = 1;
    const receipts = h.sandbox
      .advance({ changes: 3, kinds: ['recebimentos'] })
      .filter((c): c is ReceiptChange => c.kind === 'recebimentos');
    expect(receipts.length).toBeGreaterThan(0);
    h.clock.advance(7 * HOUR);
    await a.engine.runIfDue(WS);
    h.clock.advance(3 * INTERVAL_MS);
    await a.engine.runIfDue(WS);
    const reported = a.poster.posts
      .flatMap((post) => post.events)
      .filter((event): event is ReceiptEvent => event.kind === 'recebimentos')
      .map((event) => event.purchaseId);
    expect([...new Set(reported)].sort()).toEqual(
      [...new Set(receipts.map((c) => c.compraMaterialId))].sort(),
    );
  });

  it('a receipt of one waiting for its links leaves the waiting list at the next round, told, not kept for good', async () => {
    const { h, a } = await receiptsRecorded();
    const stockroom = h.sandbox.data.company(1)?.stockrooms[0];
    if (!stockroom) throw new Error('no stockroom');
    // A round found a receipt of that stockroom and could not read its links (its share ran out) ...
    const waiting: ReceiptEvent = {
      id: `${WS}:recebimentos:990001:done`,
      workspaceId: WS,
      kind: 'recebimentos',
      detectedAt: h.clock.now(),
      stockroomId: stockroom.record.almoxarifado,
      purchaseId: 990001,
      supplierName: null,
      complete: true,
      requestIds: [],
      requesterEmails: [],
    };
    await a.snapshots.saveReceiptsWaiting(WS, [waiting]);
    // ... and the stockroom left the active list since.
    stockroom.record.status = 0;
    h.clock.advance(7 * HOUR);
    await a.engine.runIfDue(WS);

    expect(await h.redis.redis.hkeys(h.redis.keys.feedReceiptsWaiting(WS))).toEqual([]);
    expect(a.poster.posts.flatMap((post) => post.events.map((event) => event.id))).toContain(waiting.id);
  });
});
