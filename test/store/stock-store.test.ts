import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RedisKeyValue } from '../../src/store/kv.js';
import {
  type LastKnownStock,
  MAX_STOCKROOMS_PER_MATERIAL,
  StockStore,
  standingBalances,
} from '../../src/store/stock-store.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';

let redis: TestRedis;
let store: StockStore;

beforeEach(async () => {
  redis = await makeTestRedis();
  store = new StockStore(new RedisKeyValue(redis.redis), redis.keys);
});
afterEach(async () => {
  await redis.cleanup();
});

const T1 = { workspaceId: 'T1', empresaId: 1 };
const T2 = { workspaceId: 'T2', empresaId: 1 };
const T3 = { workspaceId: 'T3', empresaId: 1 };

const stock = (materialId: number, seenAt: number) => ({
  materialId,
  current: 1,
  minimum: 5,
  maximum: null,
  requestId: 1312,
  seenAt,
});

describe('StockStore names', () => {
  it('keeps the newest name per workspace and material; a blank or missing one never replaces it', async () => {
    await store.recordNames(T1, [
      [1014, '  Luva nitrílica M  '],
      [1015, 'Fita isolante'],
    ]);
    await store.recordNames(T1, [
      [1014, 'Luva nitrílica tamanho M'],
      [1015, null],
      [1016, '   '],
    ]);
    await store.recordNames(T2, [[1014, 'Outra empresa']]);
    expect(await store.names(T1)).toEqual(
      new Map([
        [1014, 'Luva nitrílica tamanho M'],
        [1015, 'Fita isolante'],
      ]),
    );
    expect((await store.names(T2)).get(1014)).toBe('Outra empresa');
    expect(await redis.redis.hgetall(redis.keys.materialNames('T1', 1))).toEqual({
      '1014': 'Luva nitrílica tamanho M',
      '1015': 'Fita isolante',
    });
  });

  it('cuts a name from upstream that is far too long, and writes nothing for nothing', async () => {
    await store.recordNames(T1, [[7, 'x'.repeat(10_000)]]);
    expect((await store.names(T1)).get(7)).toHaveLength(200);
    await store.recordNames(T3, []);
    expect(await redis.redis.exists(redis.keys.materialNames('T3', 1))).toBe(0);
  });

  it('forget removes the stock and the names of that workspace only', async () => {
    await store.record(T1, [stock(1014, 1)]);
    await store.recordNames(T1, [[1014, 'Luva']]);
    await store.record(T2, [stock(1014, 1)]);
    await store.recordNames(T2, [[1014, 'Luva']]);
    await store.forget(T1);
    expect(await store.all(T1)).toEqual(new Map());
    expect(await store.names(T1)).toEqual(new Map());
    expect((await store.all(T2)).size).toBe(1);
    expect((await store.names(T2)).size).toBe(1);
  });
});

describe('StockStore stock', () => {
  it('keeps the newest balance per material, in one read and one write, whatever order the entries come in', async () => {
    await store.record(T1, [stock(1, 10), stock(2, 10)]);
    await store.record(T1, [
      { ...stock(1, 5), current: 99 },
      { ...stock(2, 20), current: 7 },
      { ...stock(3, 1), current: 3 },
      { ...stock(3, 2), current: 4 },
    ]);
    const all = await store.all(T1);
    expect([...all.entries()].map(([id, e]) => [id, e.current, e.seenAt])).toEqual([
      [1, 1, 10],
      [2, 7, 20],
      [3, 4, 2],
    ]);
    await store.record(T1, []);
  });

  it("keeps the stockroom of each balance's request; a read of the same request that does not know it keeps it", async () => {
    await store.record(T1, [
      { ...stock(1, 10), stockroomId: 2 },
      { ...stock(2, 10), stockroomId: 2 },
    ]);
    // The same request read again later by someone who does not know its stockroom (a `/solicitacao`); material 2
    // then seen in another request, whose stockroom is not known either.
    await store.record(T1, [
      { ...stock(1, 20), stockroomId: null },
      { ...stock(2, 20), requestId: 1400, stockroomId: null },
    ]);
    const all = await store.all(T1);
    expect(all.get(1)).toMatchObject({ seenAt: 20, requestId: 1312, stockroomId: 2 });
    expect(all.get(2)).toMatchObject({ seenAt: 20, requestId: 1400, stockroomId: null });
  });

  it("place gives a request's stockroom to the entries still from that request, and to no other", async () => {
    await store.record(T1, [
      { ...stock(1, 10), stockroomId: null },
      { ...stock(2, 10), requestId: 1400, stockroomId: null },
      { ...stock(3, 10), stockroomId: 3 },
      // Kept before stockrooms were (2026-11-27): no field at all.
      stock(4, 10),
    ]);
    await store.place(
      T1,
      [1, 2, 3, 4, 5].map((materialId) => ({ materialId, requestId: 1312 })),
      () => 1,
    );
    const all = await store.all(T1);
    expect([...all.values()].map((e) => [e.materialId, e.stockroomId])).toEqual([
      [1, 1],
      [2, null],
      [3, 3],
      [4, 1],
    ]);
    // Nothing else of the entries moves.
    expect(all.get(1)).toEqual({ ...stock(1, 10), stockroomId: 1 });
    await store.place(T1, [], () => 1);
  });

  it('asks for the stockroom only when an entry of that request still needs it', async () => {
    await store.record(T1, [
      { ...stock(1, 10), stockroomId: 3 },
      { ...stock(2, 10), requestId: 1400, stockroomId: null },
    ]);
    const asked: number[] = [];
    const stockroomOf = (requestId: number) => {
      asked.push(requestId);
      return 1;
    };
    await store.place(
      T1,
      [
        { materialId: 1, requestId: 1312 },
        { materialId: 2, requestId: 1312 },
      ],
      stockroomOf,
    );
    expect(asked).toEqual([]);
    await store.place(T1, [{ materialId: 2, requestId: 1400 }], stockroomOf);
    expect(asked).toEqual([1400]);
    expect((await store.all(T1)).get(2)?.stockroomId).toBe(1);
  });

  it('a damaged entry is replaced by a readable one, not a reason to keep nothing', async () => {
    await redis.redis.hset(redis.keys.lastKnownStock('T1', 1), '1', '{not json');
    await store.record(T1, [stock(1, 3)]);
    expect((await store.all(T1)).get(1)?.seenAt).toBe(3);
  });

  it('is kept per company: another company linked to the workspace sees none of it; forget goes by company', async () => {
    const other = { workspaceId: 'T1', empresaId: 2 };
    await store.record(T1, [stock(1014, 1)]);
    await store.recordNames(T1, [[1014, 'Luva']]);
    await redis.redis.hset(redis.keys.digestMaterials('T1', 1), '1014', '{"stockroomId":3}');
    expect(await store.all(other)).toEqual(new Map());
    expect(await store.names(other)).toEqual(new Map());
    await store.record(other, [stock(1014, 2)]);
    await store.forget(T1);
    expect(await store.all(T1)).toEqual(new Map());
    expect(await store.names(T1)).toEqual(new Map());
    expect(await redis.redis.exists(redis.keys.digestMaterials('T1', 1))).toBe(0);
    // What was kept per workspace alone before (an upgrade) goes too.
    await redis.redis.hset(redis.keys.legacyMaterialKeys('T1')[0] as string, '1014', '{}');
    await store.forget(T1);
    expect(await redis.redis.exists(...redis.keys.legacyMaterialKeys('T1'))).toBe(0);
    expect((await store.all(other)).get(1014)?.seenAt).toBe(2);
  });
});

describe('StockStore stock per stockroom', () => {
  // Request 1316 (Torre Norte, 2) shows the pliers at 18; request 1319 (Central, 1), read later, at 10.
  const pliers = (
    requestId: number,
    stockroomId: number | null | undefined,
    current: number,
    seenAt: number,
  ) => ({
    materialId: 1058,
    current,
    minimum: 6,
    maximum: 18,
    requestId,
    ...(stockroomId !== undefined && { stockroomId }),
    seenAt,
  });

  it("keeps each stockroom's newest balance of a material, newest first; the newest per material is still there", async () => {
    await store.record(T1, [pliers(1316, 2, 18, 10)]);
    await store.record(T1, [pliers(1319, 1, 10, 20)]);
    // An older read of stockroom 2 (another request) changes nothing; a newer one replaces its balance only.
    await store.record(T1, [pliers(1290, 2, 30, 5)]);
    const balances = await store.balances(T1);
    // Until 2026-11-27 one balance per material: Central's 10 replaced Torre Norte's 18.
    expect(balances.get(1058)?.map((e) => [e.stockroomId, e.current, e.requestId])).toEqual([
      [1, 10, 1319],
      [2, 18, 1316],
    ]);
    expect((await store.all(T1)).get(1058)).toEqual(pliers(1319, 1, 10, 20));
    await store.record(T1, [pliers(1324, 2, 7, 30)]);
    expect((await store.balances(T1)).get(1058)?.map((e) => [e.stockroomId, e.current])).toEqual([
      [2, 7],
      [1, 10],
    ]);
  });

  it('of two read at the same instant the one recorded later is the newest, and stays so when read again', async () => {
    await store.record(T1, [pliers(1316, 2, 18, 10)]);
    await store.record(T1, [pliers(1319, 1, 10, 10)]);
    expect((await store.all(T1)).get(1058)?.requestId).toBe(1319);
    await store.record(T1, [pliers(1321, 3, 33, 10), pliers(1324, 2, 7, 10)]);
    expect((await store.balances(T1)).get(1058)?.map((e) => e.requestId)).toEqual([1324, 1321, 1319]);
  });

  it('several stockrooms of a material in one record: one read and one write, each kept', async () => {
    await store.record(T1, [pliers(1319, 1, 10, 20), pliers(1316, 2, 18, 10), pliers(1321, 3, 4, 15)]);
    expect((await store.balances(T1)).get(1058)?.map((e) => e.stockroomId)).toEqual([1, 3, 2]);
  });

  it(`keeps at most ${MAX_STOCKROOMS_PER_MATERIAL} stockrooms per material, the newest, and one balance of unknown stockroom`, async () => {
    for (let room = 1; room <= MAX_STOCKROOMS_PER_MATERIAL + 3; room += 1)
      await store.record(T1, [pliers(2000 + room, room, room, room)]);
    await store.record(T1, [pliers(3000, null, 1, 1), pliers(3001, null, 2, 2)]);
    const kept = (await store.balances(T1)).get(1058) ?? [];
    const rooms = kept.filter((e) => typeof e.stockroomId === 'number').map((e) => e.stockroomId);
    expect(rooms).toEqual(Array.from({ length: MAX_STOCKROOMS_PER_MATERIAL }, (_, i) => 11 - i));
    // The newest balance whose stockroom is not known, waiting to be placed (older than the others here).
    expect(kept.filter((e) => typeof e.stockroomId !== 'number').map((e) => e.requestId)).toEqual([3001]);
    expect(kept).toHaveLength(MAX_STOCKROOMS_PER_MATERIAL + 1);
  });

  it('a balance whose stockroom is unknown takes its place once known, and stands only while it is the newest', async () => {
    await store.record(T1, [pliers(1316, 2, 18, 10), pliers(1319, null, 10, 20)]);
    let kept = (await store.balances(T1)).get(1058) ?? [];
    // Newest: it stands, and says nothing of a stockroom.
    expect(standingBalances(kept).map((e) => [e.requestId, e.stockroomId])).toEqual([
      [1319, null],
      [1316, 2],
    ]);
    await store.record(T1, [pliers(1321, 3, 33, 30)]);
    kept = (await store.balances(T1)).get(1058) ?? [];
    // Older than a balance read since: it could be any stockroom's, so it stands for none.
    expect(standingBalances(kept).map((e) => e.requestId)).toEqual([1321, 1316]);
    await store.place(T1, [{ materialId: 1058, requestId: 1319 }], () => 1);
    kept = (await store.balances(T1)).get(1058) ?? [];
    expect(standingBalances(kept).map((e) => [e.requestId, e.stockroomId])).toEqual([
      [1321, 3],
      [1319, 1],
      [1316, 2],
    ]);
  });

  it('reads the entries kept before 2026-11-27 (one per material, with or without a stockroom), and keeps them beside new ones', async () => {
    const key = redis.keys.lastKnownStock('T1', 1);
    await redis.redis.hset(key, '1058', JSON.stringify(pliers(1316, 2, 18, 10)));
    await redis.redis.hset(
      key,
      '1032',
      JSON.stringify({ ...pliers(1319, undefined, 1, 10), materialId: 1032 }),
    );
    expect((await store.balances(T1)).get(1058)).toEqual([pliers(1316, 2, 18, 10)]);
    expect((await store.balances(T1)).get(1032)).toEqual([
      { ...pliers(1319, undefined, 1, 10), materialId: 1032 },
    ]);
    await store.record(T1, [pliers(1319, 1, 10, 20), { ...pliers(1321, 3, 33, 20), materialId: 1032 }]);
    const balances = await store.balances(T1);
    expect(balances.get(1058)?.map((e) => e.stockroomId)).toEqual([1, 2]);
    // The one kept without a stockroom is kept too (a digest may still place it by its request).
    expect(balances.get(1032)?.map((e) => [e.requestId, e.stockroomId])).toEqual([
      [1321, 3],
      [1319, undefined],
    ]);
  });

  it("keeps the newest balance as the field's value, as before 2026-11-27, so a replica of before then reads it", async () => {
    await store.record(T1, [pliers(1316, 2, 18, 10), pliers(1319, 1, 10, 20)]);
    const raw = await redis.redis.hget(redis.keys.lastKnownStock('T1', 1), '1058');
    expect(JSON.parse(raw as string) as LastKnownStock).toMatchObject(pliers(1319, 1, 10, 20));
  });
});
