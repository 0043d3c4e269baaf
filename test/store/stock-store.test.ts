import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RedisKeyValue } from '../../src/store/kv.js';
import { StockStore } from '../../src/store/stock-store.js';
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
