import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CACHE_TTL_MS, CachedReader } from '../../src/domain/cached-reader.js';
import { makeLogger } from '../../src/lib/logger.js';
import { CacheStore } from '../../src/store/cache-store.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';

describe('CachedReader TTLs', () => {
  let store: TestRedis;
  let clock: number;
  let calls: number;
  const fetch = async () => {
    calls += 1;
    return { n: calls };
  };
  const reader = (ttlScale?: number) =>
    new CachedReader(
      new CacheStore(new RedisKeyValue(store.redis), store.keys),
      makeLogger({ level: 'silent' }),
      () => clock,
      true,
      ttlScale,
    );

  beforeEach(async () => {
    store = await makeTestRedis();
    clock = Date.UTC(2026, 10, 22, 12);
    calls = 0;
  });
  afterEach(async () => {
    await store.cleanup();
  });

  it('answers from the cache within the TTL and asks upstream past it', async () => {
    const r = reader();
    expect((await r.read('T1', 'requestItems', { id: 1 }, fetch)).data).toEqual({ n: 1 });
    clock += CACHE_TTL_MS.requestItems - 1;
    const cached = await r.read('T1', 'requestItems', { id: 1 }, fetch);
    expect(cached.freshness.fromCache).toBe(true);
    expect(cached.data).toEqual({ n: 1 });
    clock += 1;
    expect((await r.read('T1', 'requestItems', { id: 1 }, fetch)).data).toEqual({ n: 2 });
  });

  it('scales every TTL by ttlScale (the benchmark shrinks them with the budget window)', async () => {
    const r = reader(1 / 12);
    await r.read('T1', 'requestItems', { id: 1 }, fetch);
    clock += CACHE_TTL_MS.requestItems / 12 - 1;
    expect((await r.read('T1', 'requestItems', { id: 1 }, fetch)).freshness.fromCache).toBe(true);
    clock += 1;
    const refetched = await r.read('T1', 'requestItems', { id: 1 }, fetch);
    expect(refetched.freshness.fromCache).toBe(false);
    expect(refetched.data).toEqual({ n: 2 });
  });

  it('refuses a scale that would make TTLs longer or vanish', () => {
    expect(() => reader(0)).toThrow(RangeError);
    expect(() => reader(2)).toThrow(RangeError);
  });
});
