import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CachedReader, cacheParamsKey, linkScope, NoSavedDataError } from '../../src/domain/cached-reader.js';
import { Workspaces } from '../../src/domain/workspace.js';
import { makeLogger } from '../../src/lib/logger.js';
import { CacheStore } from '../../src/store/cache-store.js';
import { SecretBox } from '../../src/store/crypto.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { LinkStore } from '../../src/store/link-store.js';
import { BudgetExhaustedError } from '../../src/upstream/budget-errors.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';
import { testWorkspace } from '../helpers/workspace.js';

let store: TestRedis;
let clock: number;

function readerOn(maxEntryBytes?: number): CachedReader {
  const kv = new RedisKeyValue(store.redis);
  return new CachedReader({
    cache: new CacheStore(kv, store.keys, maxEntryBytes),
    workspaces: new Workspaces(new LinkStore(kv, store.keys, new SecretBox(randomBytes(32))), () => clock),
    logger: makeLogger({ level: 'silent' }),
    now: () => clock,
  });
}

beforeEach(async () => {
  store = await makeTestRedis();
  clock = Date.UTC(2026, 10, 22, 12);
});
afterEach(async () => {
  await store.cleanup();
});

describe('answers over the cap are never cached', () => {
  it('an answer larger than the cache entry cap is served but not stored', async () => {
    const reader = readerOn(1_000);
    let calls = 0;
    const big = async () => {
      calls += 1;
      return 'x'.repeat(2_000);
    };
    expect((await reader.read(testWorkspace('T1'), 'materials', null, big)).data).toHaveLength(2_000);
    expect(
      await store.redis.exists(
        store.keys.cache('T1', 'materials', cacheParamsKey(null, linkScope(testWorkspace('T1')))),
      ),
    ).toBe(0);
    await reader.read(testWorkspace('T1'), 'materials', null, big);
    expect(calls).toBe(2);
  });

  it('an answer under the cap is stored', async () => {
    const reader = readerOn(1_000);
    await reader.read(testWorkspace('T1'), 'materials', null, async () => 'small');
    expect(
      await store.redis.exists(
        store.keys.cache('T1', 'materials', cacheParamsKey(null, linkScope(testWorkspace('T1')))),
      ),
    ).toBe(1);
  });
});

describe('savedOnly reads', () => {
  it('answer with what is saved, whatever its age, and never ask upstream', async () => {
    const reader = readerOn();
    await reader.read(testWorkspace('T1'), 'requestItems', { id: 1 }, async () => 'old');
    clock += 3_600_000;
    const saved = await reader.read(
      testWorkspace('T1'),
      'requestItems',
      { id: 1 },
      async () => {
        throw new Error('must not be asked');
      },
      { savedOnly: true },
    );
    expect(saved).toEqual({
      data: 'old',
      freshness: { fetchedAt: clock - 3_600_000, fromCache: true, degraded: null },
    });
  });

  it('throw NoSavedDataError when nothing is saved', async () => {
    const reader = readerOn();
    await expect(
      reader.read(testWorkspace('T1'), 'requestItems', { id: 2 }, async () => 'fresh', { savedOnly: true }),
    ).rejects.toBeInstanceOf(NoSavedDataError);
  });
});

describe('saved data served when the budget is spent', () => {
  it('says when the budget frees, as the refusal says', async () => {
    const reader = readerOn();
    await reader.read(testWorkspace('T1'), 'requestItems', { id: 3 }, async () => 'saved');
    clock += 120_000;
    const retryAt = clock + 90_000;
    const answer = await reader.read(testWorkspace('T1'), 'requestItems', { id: 3 }, async () => {
      throw new BudgetExhaustedError(retryAt, 'interactive');
    });
    expect(answer.freshness).toEqual({
      fetchedAt: clock - 120_000,
      fromCache: true,
      degraded: 'budget',
      retryAt,
    });
  });
});
