import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedKeyValue } from '../../src/store/embedded-kv.js';
import { HOME_VIEW_MEMORY_MS, HomeViewStore } from '../../src/store/home-view-store.js';
import { Keys } from '../../src/store/keys.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';

/** The order of a person's Home builds and the hash of the one on screen, whichever store holds them. */
describe('HomeViewStore', () => {
  let redis: TestRedis | undefined;
  let dir: string | undefined;
  let embedded: EmbeddedKeyValue | undefined;
  afterEach(async () => {
    await redis?.cleanup();
    await embedded?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    redis = undefined;
    embedded = undefined;
    dir = undefined;
  });

  const expectOrder = async (store: HomeViewStore) => {
    expect(await store.published('T1', 'U1')).toEqual({ build: 0, hash: null });
    const first = await store.takeBuildNumber('T1', 'U1');
    const second = await store.takeBuildNumber('T1', 'U1');
    expect(first).toEqual({ build: 1, published: { build: 0, hash: null } });
    expect(second.build).toBe(2);
    // The newer build lands first; the older one, recorded after it, is not.
    expect(await store.recordPublished('T1', 'U1', { build: 2, hash: 'h2' })).toBe(true);
    expect(await store.recordPublished('T1', 'U1', { build: 1, hash: 'h1' })).toBe(false);
    expect(await store.published('T1', 'U1')).toEqual({ build: 2, hash: 'h2' });
    // The next build is told which Home is on screen, and is numbered after every build before.
    expect(await store.takeBuildNumber('T1', 'U1')).toEqual({
      build: 3,
      published: { build: 2, hash: 'h2' },
    });
    // Each person and workspace has an order of their own.
    expect((await store.takeBuildNumber('T1', 'U2')).build).toBe(1);
    expect((await store.takeBuildNumber('T2', 'U1')).build).toBe(1);
  };

  it('in Redis: numbers only grow, an older publish never replaces a newer one; the record has a short TTL', async () => {
    redis = await makeTestRedis();
    const store = new HomeViewStore(new RedisKeyValue(redis.redis), redis.keys);
    await expectOrder(store);
    const ttl = await redis.redis.pttl(redis.keys.homeView('T1', 'U1'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(HOME_VIEW_MEMORY_MS);
    // The build counter outlives the record it numbers.
    expect(await redis.redis.pttl(redis.keys.homeBuilds('T1', 'U1'))).toBeGreaterThan(HOME_VIEW_MEMORY_MS);
  });

  it('in Redis, three replicas at once: every build number handed out once; the highest publish recorded', async () => {
    redis = await makeTestRedis();
    const test = redis;
    const replicas = [test.redis, test.connect(), test.connect()].map(
      (r) => new HomeViewStore(new RedisKeyValue(r), test.keys),
    );
    const at = (i: number) => replicas[i % replicas.length] as HomeViewStore;
    const taken = await Promise.all(Array.from({ length: 60 }, (_, i) => at(i).takeBuildNumber('T1', 'U1')));
    expect(taken.map((t) => t.build).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
    // Three publishes recorded at once (Slack takes one person's checked publishes one at a time: more is rarer).
    const recorded = await Promise.all(
      [58, 60, 59].map((build, i) => at(i).recordPublished('T1', 'U1', { build, hash: `h${build}` })),
    );
    expect(recorded).toContain(true);
    expect(await at(0).published('T1', 'U1')).toEqual({ build: 60, hash: 'h60' });
  });

  it('a damaged record is none: the next build publishes without a hash, and a good record is written', async () => {
    redis = await makeTestRedis();
    await redis.redis.set(redis.keys.homeView('T1', 'U1'), '{not json');
    const store = new HomeViewStore(new RedisKeyValue(redis.redis), redis.keys);
    expect(await store.takeBuildNumber('T1', 'U1')).toEqual({
      build: 1,
      published: { build: 0, hash: null },
    });
    expect(await store.recordPublished('T1', 'U1', { build: 1, hash: 'h1' })).toBe(true);
    expect(await store.published('T1', 'U1')).toEqual({ build: 1, hash: 'h1' });
  });

  it('in the embedded store (local mode): the same order, forgotten once the record expired', async () => {
    let clock = 1_000_000;
    dir = await mkdtemp(join(tmpdir(), 'estoque-home-view-'));
    embedded = await EmbeddedKeyValue.open({ file: join(dir, 'store.json'), now: () => clock });
    const store = new HomeViewStore(embedded, new Keys('test:'));
    await expectOrder(store);
    clock += HOME_VIEW_MEMORY_MS + 1;
    expect(await store.published('T1', 'U1')).toEqual({ build: 0, hash: null });
    // Numbers still grow past the record's end: a build numbered later is never taken for an older one.
    expect((await store.takeBuildNumber('T1', 'U1')).build).toBe(4);
  });
});
