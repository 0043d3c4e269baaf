import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FeedSnapshotStore } from '../../src/store/feed-snapshot-store.js';
import { type KeyValue, RedisKeyValue } from '../../src/store/kv.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';

/**
 * The feed round's lease, against the real Redis: one process holds a workspace's round; renewing it is one step, so
 * another replica's attempt to take the round can never land in the middle of a renewal.
 */

const WS = 'T0LEASE';

let redis: TestRedis;

beforeEach(async () => {
  redis = await makeTestRedis();
});
afterEach(async () => {
  await redis.cleanup();
});

/** The store's KeyValue, with a hook that runs after each of its commands resolves (before the caller goes on). */
function interleaved(kv: KeyValue, after: (method: string) => Promise<void>): KeyValue {
  return new Proxy(kv, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        await after(String(property));
        return result;
      };
    },
  });
}

describe('FeedSnapshotStore: the round lease', () => {
  it('a renewal keeps the lease even when another replica tries to take the round at every step of it', async () => {
    const other = new FeedSnapshotStore(new RedisKeyValue(redis.connect()), redis.keys);
    const attempts: boolean[] = [];
    let renewing = false;
    const mine = new FeedSnapshotStore(
      interleaved(new RedisKeyValue(redis.redis), async () => {
        if (renewing) attempts.push(await other.takeRound(WS, 'replica-b', 60_000));
      }),
      redis.keys,
    );
    expect(await mine.takeRound(WS, 'replica-a', 60_000)).toBe(true);

    renewing = true;
    const renewed = await mine.renewRound(WS, 'replica-a', 120_000);
    renewing = false;

    expect(renewed).toBe(true);
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.every((took) => !took)).toBe(true);
    expect(await redis.redis.get(redis.keys.feedRoundLease(WS))).toBe('replica-a');
    // The renewal set the new time to live (well above the first 60 s).
    expect(await redis.redis.pttl(redis.keys.feedRoundLease(WS))).toBeGreaterThan(60_000);
  });

  it('a lease that went to another process is not renewed, nor taken back', async () => {
    const store = new FeedSnapshotStore(new RedisKeyValue(redis.redis), redis.keys);
    expect(await store.takeRound(WS, 'replica-b', 60_000)).toBe(true);
    expect(await store.renewRound(WS, 'replica-a', 120_000)).toBe(false);
    expect(await redis.redis.get(redis.keys.feedRoundLease(WS))).toBe('replica-b');
    // Nor one that expired and nobody holds.
    await redis.redis.del(redis.keys.feedRoundLease(WS));
    expect(await store.renewRound(WS, 'replica-a', 120_000)).toBe(false);
    expect(await redis.redis.get(redis.keys.feedRoundLease(WS))).toBeNull();
  });
});
