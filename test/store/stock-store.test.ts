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
    await store.recordNames('T1', [
      [1014, '  Luva nitrílica M  '],
      [1015, 'Fita isolante'],
    ]);
    await store.recordNames('T1', [
      [1014, 'Luva nitrílica tamanho M'],
      [1015, null],
      [1016, '   '],
    ]);
    await store.recordNames('T2', [[1014, 'Outra empresa']]);
    expect(await store.names('T1')).toEqual(
      new Map([
        [1014, 'Luva nitrílica tamanho M'],
        [1015, 'Fita isolante'],
      ]),
    );
    expect((await store.names('T2')).get(1014)).toBe('Outra empresa');
    expect(await redis.redis.hgetall(redis.keys.materialNames('T1'))).toEqual({
      '1014': 'Luva nitrílica tamanho M',
      '1015': 'Fita isolante',
    });
  });

  it('cuts a name from upstream that is far too long, and writes nothing for nothing', async () => {
    await store.recordNames('T1', [[7, 'x'.repeat(10_000)]]);
    expect((await store.names('T1')).get(7)).toHaveLength(200);
    await store.recordNames('T3', []);
    expect(await redis.redis.exists(redis.keys.materialNames('T3'))).toBe(0);
  });

  it('forget removes the stock and the names of that workspace only', async () => {
    await store.record('T1', [stock(1014, 1)]);
    await store.recordNames('T1', [[1014, 'Luva']]);
    await store.record('T2', [stock(1014, 1)]);
    await store.recordNames('T2', [[1014, 'Luva']]);
    await store.forget('T1');
    expect(await store.all('T1')).toEqual(new Map());
    expect(await store.names('T1')).toEqual(new Map());
    expect((await store.all('T2')).size).toBe(1);
    expect((await store.names('T2')).size).toBe(1);
  });
});
