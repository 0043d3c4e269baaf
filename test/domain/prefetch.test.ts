import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CACHE_TTL_MS, CachedReader } from '../../src/domain/cached-reader.js';
import { Prefetcher, type PrefetchOptions } from '../../src/domain/prefetch.js';
import { StorePrefetchClaims } from '../../src/domain/prefetch-claims.js';
import { Workspaces } from '../../src/domain/workspace.js';
import { makeLogger } from '../../src/lib/logger.js';
import { CacheStore } from '../../src/store/cache-store.js';
import { SecretBox } from '../../src/store/crypto.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { LinkStore } from '../../src/store/link-store.js';
import type { Budget, Priority } from '../../src/upstream/budget.js';
import { createMemoryBudget } from '../../src/upstream/budget-memory.js';
import type { CallContext } from '../../src/upstream/client.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';
import { testWorkspace } from '../helpers/workspace.js';

const logger = makeLogger({ level: 'silent' });
const T0 = Date.UTC(2026, 10, 23, 12);
const TTL = CACHE_TTL_MS.requestItems; // 60 s
/** Refreshed 20% of the TTL (12 s) before it goes stale. */
const REFRESH_AT = T0 + TTL - 12_000;

let store: TestRedis;
let clock: number;
let links: LinkStore;
let budget: Budget;
/** The priority of every upstream call that got a budget slot. */
let upstreamCalls: Priority[];

beforeEach(async () => {
  store = await makeTestRedis();
  clock = T0;
  links = new LinkStore(new RedisKeyValue(store.redis), store.keys, new SecretBox(randomBytes(32)));
  await links.save(testWorkspace('T1').link);
  // 10 calls a minute: background calls get a slot only below 7.
  budget = createMemoryBudget({ limit: { count: 10, windowMs: 60_000 } });
  upstreamCalls = [];
});
afterEach(async () => {
  await budget.close();
  await store.cleanup();
});

/** An upstream call through the budget, at the priority of the call context it is handed. */
const fetchItems = (id: number) => (call: CallContext) =>
  budget.schedule(call.credential.id, call.priority, async () => {
    upstreamCalls.push(call.priority);
    return { id, readAt: clock };
  });

/** One replica: its cached reader and its prefetcher, over the test's Redis. */
function replica(
  options: { claims?: boolean; enabled?: boolean; ttlScale?: number; prefetch?: PrefetchOptions } = {},
) {
  const now = () => clock;
  const kv = new RedisKeyValue(store.redis);
  const workspaces = new Workspaces(links, now);
  const features = {
    ...(options.enabled !== undefined && { enabled: options.enabled }),
    ...(options.ttlScale !== undefined && { ttlScale: options.ttlScale }),
  };
  const reader = new CachedReader({
    cache: new CacheStore(kv, store.keys),
    workspaces,
    logger,
    now,
    ...features,
  });
  const prefetcher = new Prefetcher({
    reader,
    workspaces,
    logger,
    now,
    ...features,
    ...(options.claims !== false && { claims: new StorePrefetchClaims(kv, store.keys) }),
    ...(options.prefetch && { options: options.prefetch }),
  });
  /** A command reading request items, as the services do. */
  const read = (id: number) =>
    prefetcher.reader.read(testWorkspace('T1'), 'requestItems', { id }, fetchItems(id));
  return { prefetcher, read };
}

describe('Prefetcher', () => {
  it('refreshes an entry people keep reading shortly before it goes stale, at background priority', async () => {
    const { prefetcher, read } = replica();
    for (let i = 0; i < 3; i += 1) await read(7);
    expect(upstreamCalls).toEqual(['interactive']);

    clock = REFRESH_AT - 1;
    expect(await prefetcher.tick()).toBe(0);
    clock = REFRESH_AT;
    expect(await prefetcher.tick()).toBe(1);
    expect(upstreamCalls).toEqual(['interactive', 'background']);

    // Past the first answer's TTL, the next reader gets the refreshed answer from the cache.
    clock = T0 + TTL + 1;
    const answer = await read(7);
    expect(answer.freshness.fromCache).toBe(true);
    expect(answer.data).toEqual({ id: 7, readAt: REFRESH_AT });
    expect(upstreamCalls).toHaveLength(2);
    expect(prefetcher.counters).toMatchObject({ refreshed: 1, deniedByBudget: 0, failed: 0 });
  });

  it('leaves alone an entry read only once', async () => {
    const { prefetcher, read } = replica();
    await read(7);
    clock = REFRESH_AT;
    expect(await prefetcher.tick()).toBe(0);
    expect(upstreamCalls).toEqual(['interactive']);
  });

  it('refreshes nothing when the budget has no background slot, and stops the tick there', async () => {
    const { prefetcher, read } = replica();
    for (const id of [7, 8]) for (let i = 0; i < 3; i += 1) await read(id);
    // 2 calls made; 5 more interactive calls leave the window at the background capacity (7 of 10).
    for (let i = 0; i < 5; i += 1) await budget.schedule('cred-T1', 'interactive', async () => undefined);

    clock = REFRESH_AT;
    expect(await prefetcher.tick()).toBe(0);

    expect(upstreamCalls).toEqual(['interactive', 'interactive']);
    expect(prefetcher.counters).toMatchObject({ refreshed: 0, deniedByBudget: 1 });
    // The readers still find the answer they had.
    expect((await read(7)).data).toEqual({ id: 7, readAt: T0 });
  });

  it('skips an entry whose claim another replica holds: the entry is refreshed once', async () => {
    const [a, b] = [replica(), replica()];
    for (let i = 0; i < 3; i += 1) {
      await a.read(7);
      await b.read(7);
    }
    clock = REFRESH_AT;
    expect(await a.prefetcher.tick()).toBe(1);
    expect(await b.prefetcher.tick()).toBe(0);

    expect(upstreamCalls).toEqual(['interactive', 'background']);
    expect(b.prefetcher.counters).toMatchObject({ refreshed: 0, skippedClaimed: 1 });
    expect(await store.redis.keys(`${store.keys.prefix}prefetch:T1:requestItems:*`)).toHaveLength(1);
  });

  it('drops the entries of a workspace that was unlinked, or whose link broke', async () => {
    const { prefetcher, read } = replica();
    for (let i = 0; i < 3; i += 1) await read(7);
    await links.delete('T1');
    clock = REFRESH_AT;
    expect(await prefetcher.tick()).toBe(0);
    expect(prefetcher.counters).toMatchObject({ refreshed: 0, failed: 1, tracked: 0 });

    await links.save(testWorkspace('T1').link);
    for (let i = 0; i < 3; i += 1) await read(8);
    await links.markBroken('T1', clock);
    clock += TTL;
    expect(await prefetcher.tick()).toBe(0);
    expect(prefetcher.counters).toMatchObject({ failed: 2, tracked: 0 });
    expect(upstreamCalls).toEqual(['interactive', 'interactive']);
  });

  it('refreshes on the scaled TTLs, as the cached reader goes stale on them', async () => {
    // 1/12: requestItems live 5 s; the lead is its floor of 2 s.
    const { prefetcher, read } = replica({ ttlScale: 1 / 12 });
    for (let i = 0; i < 3; i += 1) await read(7);
    clock = T0 + 3_000 - 1;
    expect(await prefetcher.tick()).toBe(0);
    clock = T0 + 3_000;
    expect(await prefetcher.tick()).toBe(1);
    expect(upstreamCalls).toEqual(['interactive', 'background']);
  });

  it('tracks nothing when the cache is off (a refresh would store nothing)', async () => {
    const { prefetcher, read } = replica({ enabled: false });
    for (let i = 0; i < 3; i += 1) await read(7);
    expect(upstreamCalls).toEqual(['interactive', 'interactive', 'interactive']);
    clock = REFRESH_AT;
    expect(await prefetcher.tick()).toBe(0);
    expect(prefetcher.counters.tracked).toBe(0);
  });
});
