import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CACHE_TTL_MS,
  CachedReader,
  cacheParamsKey,
  linkScope,
  NoSavedDataError,
} from '../../src/domain/cached-reader.js';
import { LinkBrokenError } from '../../src/domain/errors.js';
import { Workspaces } from '../../src/domain/workspace.js';
import { makeLogger } from '../../src/lib/logger.js';
import { CacheStore } from '../../src/store/cache-store.js';
import { SecretBox } from '../../src/store/crypto.js';
import { type KeyValue, RedisKeyValue } from '../../src/store/kv.js';
import { LinkStore } from '../../src/store/link-store.js';
import type { Demand, Priority } from '../../src/upstream/budget.js';
import { BudgetExhaustedError } from '../../src/upstream/budget-errors.js';
import { SharedCallObserver } from '../../src/upstream/call-observer.js';
import { CredentialsExpiredError, UpstreamForbiddenError } from '../../src/upstream/errors.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';
import { testWorkspace } from '../helpers/workspace.js';

const ws = (workspaceId: string, priority: Priority = 'interactive') => testWorkspace(workspaceId, priority);

const unusedBox = new SecretBox(randomBytes(32));
const FIVE_MINUTES = 5 * 60_000;

/** A reader over the test's Redis; its Workspaces only matter to fetches that find the credential expired. */
function readerOn(store: TestRedis, now: () => number, ttlScale?: number): CachedReader {
  const kv = new RedisKeyValue(store.redis);
  return new CachedReader({
    cache: new CacheStore(kv, store.keys),
    workspaces: new Workspaces(new LinkStore(kv, store.keys, unusedBox), now),
    logger: makeLogger({ level: 'silent' }),
    now,
    ...(ttlScale !== undefined && { ttlScale }),
  });
}

describe('CachedReader TTLs', () => {
  let store: TestRedis;
  let clock: number;
  let calls: number;
  const fetch = async () => {
    calls += 1;
    return { n: calls };
  };
  const reader = (ttlScale?: number) => readerOn(store, () => clock, ttlScale);

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
    expect((await r.read(ws('T1'), 'requestItems', { id: 1 }, fetch)).data).toEqual({ n: 1 });
    clock += CACHE_TTL_MS.requestItems - 1;
    const cached = await r.read(ws('T1'), 'requestItems', { id: 1 }, fetch);
    expect(cached.freshness.fromCache).toBe(true);
    expect(cached.data).toEqual({ n: 1 });
    clock += 1;
    expect((await r.read(ws('T1'), 'requestItems', { id: 1 }, fetch)).data).toEqual({ n: 2 });
  });

  it('savedOnly: answers the entry whatever its age with its fetch time, never asks upstream, NoSavedDataError without one', async () => {
    const r = reader();
    await expect(r.read(ws('T1'), 'materials', null, fetch, { savedOnly: true })).rejects.toBeInstanceOf(
      NoSavedDataError,
    );
    expect(calls).toBe(0);
    const fetchedAt = clock;
    await r.read(ws('T1'), 'materials', null, fetch);
    clock += CACHE_TTL_MS.materials * 50;
    const old = await r.read(ws('T1'), 'materials', null, fetch, { savedOnly: true });
    expect(old.data).toEqual({ n: 1 });
    expect(old.freshness).toEqual({ fetchedAt, fromCache: true, degraded: null });
    expect(calls).toBe(1);
  });

  it('scales every TTL by ttlScale (the benchmark shrinks them with the budget window)', async () => {
    const r = reader(1 / 12);
    await r.read(ws('T1'), 'requestItems', { id: 1 }, fetch);
    clock += CACHE_TTL_MS.requestItems / 12 - 1;
    expect((await r.read(ws('T1'), 'requestItems', { id: 1 }, fetch)).freshness.fromCache).toBe(true);
    clock += 1;
    const refetched = await r.read(ws('T1'), 'requestItems', { id: 1 }, fetch);
    expect(refetched.freshness.fromCache).toBe(false);
    expect(refetched.data).toEqual({ n: 2 });
  });

  it('takes an entry fetched before freshSince as stale, and throws instead of serving stale when asked to', async () => {
    const r = reader();
    await r.read(ws('T1'), 'requestList', { page: 1 }, fetch);
    clock += 1_000;
    const fresh = await r.read(ws('T1'), 'requestList', { page: 1 }, fetch, { freshSince: clock - 1_000 });
    expect(fresh.freshness.fromCache).toBe(true);
    const newer = await r.read(ws('T1'), 'requestList', { page: 1 }, fetch, { freshSince: clock - 999 });
    expect(newer).toMatchObject({ data: { n: 2 }, freshness: { fromCache: false } });

    clock += CACHE_TTL_MS.requestList;
    const refused = async () => {
      throw new BudgetExhaustedError(clock + 60_000, 'feed');
    };
    const stale = await r.read(ws('T1'), 'requestList', { page: 1 }, refused);
    expect(stale).toMatchObject({ data: { n: 2 }, freshness: { fromCache: true, degraded: 'budget' } });
    await expect(
      r.read(ws('T1'), 'requestList', { page: 1 }, refused, { serveStale: false }),
    ).rejects.toBeInstanceOf(BudgetExhaustedError);
  });

  it('keeps an empty stockroom list fresh for 5 minutes only, a list with stockrooms for hours', async () => {
    // An empty list is what a company or unit that does not hold for the login gets (upstream-api.md), or a login
    // that lost access: until 2026-11-27 it was kept for the hours of a real list, and a mended access did not show.
    const r = reader();
    let rows: { almoxarifado: number; nome: string }[] = [];
    const list = async () => {
      calls += 1;
      return rows;
    };
    await r.read(ws('T1'), 'stockrooms', null, list);
    clock += FIVE_MINUTES - 1;
    expect((await r.read(ws('T1'), 'stockrooms', null, list)).freshness.fromCache).toBe(true);
    expect(calls).toBe(1);
    clock += 1;
    rows = [{ almoxarifado: 1, nome: 'Central' }];
    expect(await r.read(ws('T1'), 'stockrooms', null, list)).toMatchObject({
      data: rows,
      freshness: { fromCache: false },
    });
    expect(calls).toBe(2);
    clock += CACHE_TTL_MS.stockrooms - 1;
    expect((await r.read(ws('T1'), 'stockrooms', null, list)).freshness.fromCache).toBe(true);
    expect(calls).toBe(2);
    // Other lists keep their TTL when empty.
    const none = async () => {
      calls += 1;
      return [];
    };
    await r.read(ws('T1'), 'types', null, none);
    clock += FIVE_MINUTES;
    expect((await r.read(ws('T1'), 'types', null, none)).freshness.fromCache).toBe(true);
    expect(calls).toBe(3);
  });

  it('refuses a scale that would make TTLs longer or vanish', () => {
    expect(() => reader(0)).toThrow(RangeError);
    expect(() => reader(2)).toThrow(RangeError);
  });
});

describe('CachedReader across replicas', () => {
  let store: TestRedis;
  let calls: number;
  const clock = Date.UTC(2026, 10, 22, 12);
  /** One reader per replica: its own in-process state, the same Redis. */
  const replica = () => readerOn(store, () => clock);
  /** A fetch that counts as asking upstream and then answers (or fails) only when the test says. */
  const heldFetch = () => {
    let started = (): void => undefined;
    let settle: (outcome: { ok: true } | { ok: false; error: Error }) => void = () => undefined;
    const startedPromise = new Promise<void>((resolve) => {
      started = resolve;
    });
    const outcome = new Promise<{ ok: true } | { ok: false; error: Error }>((resolve) => {
      settle = resolve;
    });
    return {
      started: startedPromise,
      answer: () => settle({ ok: true }),
      fail: (error: Error) => settle({ ok: false, error }),
      fetch: async () => {
        calls += 1;
        const n = calls;
        started();
        const result = await outcome;
        if (!result.ok) throw result.error;
        return { n };
      },
    };
  };
  const slowFetch = (ms: number) => async () => {
    calls += 1;
    const n = calls;
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { n };
  };

  beforeEach(async () => {
    store = await makeTestRedis();
    calls = 0;
  });
  afterEach(async () => {
    await store.cleanup();
  });

  it('asks upstream once when replicas read the same missing entry at once, and all get its answer', async () => {
    const readers = [replica(), replica(), replica()];
    const answers = await Promise.all(
      readers.flatMap((r) => [
        r.read(ws('T1'), 'requestItems', { id: 7 }, slowFetch(200)),
        r.read(ws('T1'), 'requestItems', { id: 7 }, slowFetch(200)),
      ]),
    );
    expect(calls).toBe(1);
    for (const answer of answers) {
      expect(answer.data).toEqual({ n: 1 });
      expect(answer.freshness.fromCache).toBe(false);
    }
    expect(await store.redis.keys(`${store.keys.prefix}cache-fill:*`)).toEqual([]);
  });

  it('keeps workspaces and parameters apart', async () => {
    const [a, b] = [replica(), replica()];
    await Promise.all([
      a.read(ws('T1'), 'requestItems', { id: 7 }, slowFetch(50)),
      b.read(ws('T2'), 'requestItems', { id: 7 }, slowFetch(50)),
      b.read(ws('T1'), 'requestItems', { id: 8 }, slowFetch(50)),
    ]);
    expect(calls).toBe(3);
  });

  it('asks upstream itself when the replica holding the lease fails', async () => {
    const [holder, waiter] = [replica(), replica()];
    const asking = heldFetch();
    const failing = holder.read(ws('T1'), 'requestItems', { id: 7 }, asking.fetch);
    await asking.started; // the holder has the lease and is asking upstream
    const waiting = waiter.read(ws('T1'), 'requestItems', { id: 7 }, slowFetch(10));
    asking.fail(new Error('upstream said no'));
    await expect(failing).rejects.toThrow('upstream said no');
    expect((await waiting).data).toEqual({ n: 2 });
    expect(calls).toBe(2);
  });

  it('respects the lease of a replica that died holding it, and asks upstream once it expires', async () => {
    const fillKey = store.keys.cacheFill(
      'T1',
      'requestItems',
      cacheParamsKey({ id: 9 }, linkScope(ws('T1'))),
    );
    await store.redis.set(fillKey, 'a replica that died', 'PX', 300);
    const started = Date.now();
    const answer = await replica().read(ws('T1'), 'requestItems', { id: 9 }, slowFetch(10));
    expect(answer.data).toEqual({ n: 1 });
    expect(calls).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it.each([
    ['in its own process', false],
    ['on another replica', true],
  ])('lets a command ask upstream itself rather than wait behind a digest refresh %s', async (_, apart) => {
    const holder = replica();
    const reader = apart ? replica() : holder;
    const refresh = heldFetch();
    const digest = holder.read(ws('T1', 'digest'), 'requestItems', { id: 5 }, refresh.fetch);
    await refresh.started; // the digest's refresh holds the entry (waiting for a budget slot, say)
    const command = reader.read(ws('T1'), 'requestItems', { id: 5 }, slowFetch(10));
    // Answered while the digest's refresh is still held: the command did not wait behind it.
    expect((await command).data).toEqual({ n: 2 });
    refresh.answer();
    expect((await digest).data).toEqual({ n: 1 });
    expect(calls).toBe(2);
    expect(await store.redis.keys(`${store.keys.prefix}cache-fill:*`)).toEqual([]);
  });

  it('a refresh that outlived its lease does not overwrite the answer a newer refresh stored meanwhile', async () => {
    // A slow upstream (a timeout and a retry) can hold a refresh past its 30 s lease; another replica then takes the
    // lease, asks upstream and stores a newer answer. The first one's answer, asked before it, landing after it,
    // was stored over it with a later fetch time: readers (the change feed's rounds included) took the older data for
    // the newer, and a round saw a status go back and forth (B → A, then A → B) that never moved.
    const [slow, other] = [replica(), replica()];
    const params = { id: 11 };
    const fillKey = store.keys.cacheFill('T1', 'requestItems', cacheParamsKey(params, linkScope(ws('T1'))));
    const asking = heldFetch();
    const first = slow.read(ws('T1'), 'requestItems', params, asking.fetch);
    await asking.started;
    await store.redis.del(fillKey); // its lease expired
    const newer = await other.read(ws('T1'), 'requestItems', params, slowFetch(1));
    expect(newer.data).toEqual({ n: 2 });
    asking.answer();
    expect((await first).data).toEqual({ n: 1 }); // its own reader gets what it asked for
    const later = await replica().read(ws('T1'), 'requestItems', params, slowFetch(1));
    expect(later).toMatchObject({ data: { n: 2 }, freshness: { fromCache: true } });
    expect(calls).toBe(2);
  });

  it('shares a refresh made at the same or a higher priority, in a process and across replicas', async () => {
    const [a, b] = [replica(), replica()];
    const answers = await Promise.all([
      a.read(ws('T1'), 'requestItems', { id: 6 }, slowFetch(200)),
      a.read(ws('T1', 'digest'), 'requestItems', { id: 6 }, slowFetch(200)),
      b.read(ws('T1', 'background'), 'requestItems', { id: 6 }, slowFetch(200)),
      b.read(ws('T1', 'digest'), 'requestItems', { id: 6 }, slowFetch(200)),
    ]);
    expect(calls).toBe(1);
    for (const answer of answers) expect(answer.data).toEqual({ n: 1 });
  });
});

describe('CachedReader calls', () => {
  let store: TestRedis;
  const clock = Date.UTC(2026, 10, 22, 12);

  beforeEach(async () => {
    store = await makeTestRedis();
  });
  afterEach(async () => {
    await store.cleanup();
  });

  it('hands the fetch function the call context of the workspace it reads for', async () => {
    const reader = readerOn(store, () => clock);
    const seen: unknown[] = [];
    const fetch = async (call: unknown) => {
      seen.push(call);
      return 'answer';
    };
    await reader.read(ws('T1', 'digest'), 'requestItems', { id: 1 }, fetch);
    await reader.read(ws('T1', 'background'), 'requestItems', { id: 1 }, fetch, { bypassCache: true });
    // Its own context, with the observer that tells every reader sharing this refresh where its calls stand, and
    // how many readers wait on the call (see the test of that below).
    const observer = expect.any(SharedCallObserver);
    expect(seen).toEqual([
      { ...ws('T1', 'digest').call, observer, demand: expect.any(Function) },
      { ...ws('T1', 'background').call, observer, demand: expect.any(Function) },
    ]);
  });

  it('turns credentials that cannot be renewed into a broken link, noticed once across replicas', async () => {
    const kv = new RedisKeyValue(store.redis);
    const box = new SecretBox(randomBytes(32));
    const links = new LinkStore(kv, store.keys, box);
    const context = ws('T1');
    await links.save(context.link);
    const replicaOf = () =>
      new CachedReader({
        cache: new CacheStore(kv, store.keys),
        workspaces: new Workspaces(links, () => clock),
        logger: makeLogger({ level: 'silent' }),
        now: () => clock,
      });
    const expired = async (): Promise<never> => {
      throw new CredentialsExpiredError();
    };

    const first = await replicaOf()
      .read(context, 'stockrooms', null, expired)
      .catch((e: unknown) => e);
    const second = await replicaOf()
      .read(context, 'types', null, expired)
      .catch((e: unknown) => e);

    expect(first).toBeInstanceOf(LinkBrokenError);
    expect(first).toMatchObject({ workspaceId: 'T1', linkedBy: context.link.linkedBy, firstNotice: true });
    expect(second).toMatchObject({ firstNotice: false });
    expect((await links.get('T1'))?.brokenAt).toBe(clock);
  });
});

/** A fetch held until `release()`, recording the demand each call it makes is handed. */
function heldFetch() {
  const demands: (() => Demand)[] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const fetch = async (call: { demand?: () => Demand }) => {
    if (call.demand) demands.push(call.demand);
    await gate;
    return { rows: 1 };
  };
  return { demands, release: () => release(), fetch };
}

describe('CachedReader: how many answers wait on a refresh', () => {
  let store: TestRedis;
  beforeEach(async () => {
    store = await makeTestRedis();
  });
  afterEach(async () => {
    await store.cleanup();
  });

  it("tells the refresh's call how many readers of this process joined it, counting those that join while it waits", async () => {
    const r = readerOn(store, Date.now);
    const { demands, release, fetch } = heldFetch();
    const first = r.read(ws('T1'), 'requestItems', { id: 7 }, fetch);
    await expect.poll(() => demands.length).toBe(1);
    expect(demands[0]?.()).toEqual({ answers: 1, empty: 1 });
    const others = [1, 2, 3].map(() => r.read(ws('T1'), 'requestItems', { id: 7 }, fetch));
    // Another entry is another call, with its own count.
    const other = r.read(ws('T1'), 'requestItems', { id: 8 }, fetch);
    await expect.poll(() => demands.length).toBe(2);
    expect(demands[0]?.()).toEqual({ answers: 4, empty: 4 });
    expect(demands[1]?.()).toEqual({ answers: 1, empty: 1 });
    release();
    await Promise.all([first, ...others, other]);
  });

  it('tells it how many of those readers show their person nothing yet, as first messages show saved data', async () => {
    const r = readerOn(store, Date.now);
    const { demands, release, fetch } = heldFetch();
    const shows = [false, false, false];
    const reader = (index: number) => {
      const call = { ...ws('T1').call, observer: { showingData: () => shows[index] === true } };
      return r.read({ ...ws('T1'), call }, 'requestItems', { id: 7 }, fetch);
    };
    const reads = [reader(0), reader(1), reader(2)];
    await expect.poll(() => demands.length).toBe(1);
    expect(demands[0]?.()).toEqual({ answers: 3, empty: 3 });
    shows[1] = true;
    expect(demands[0]?.()).toEqual({ answers: 3, empty: 2 });
    // A reader without an observer cannot show saved data: it looks at nothing.
    const bare = r.read(ws('T1'), 'requestItems', { id: 7 }, fetch);
    shows[0] = true;
    shows[2] = true;
    await expect.poll(() => demands[0]?.()).toEqual({ answers: 4, empty: 1 });
    release();
    await Promise.all([...reads, bare]);
  });
});

describe('CachedReader, a stockroom whose pending purchases upstream refuses (403)', () => {
  let store: TestRedis;
  let clock: number;
  let calls: string[];
  const PENDING = 'GET /v1/entradas-materiais/compras';

  beforeEach(async () => {
    store = await makeTestRedis();
    clock = Date.UTC(2026, 10, 27, 12);
    calls = [];
  });
  afterEach(async () => {
    await store.cleanup();
  });

  const refused = (label: string) => async () => {
    calls.push(label);
    throw new UpstreamForbiddenError(PENDING, 'Acesso negado ao almoxarifado');
  };
  const answered = (label: string) => async () => {
    calls.push(label);
    return [{ compraMaterialId: 1 }];
  };

  it('is not asked again for 5 minutes, on any replica: the 403 is remembered; `Atualizar` asks at once', async () => {
    const r = readerOn(store, () => clock);
    const other = readerOn(store, () => clock);
    const two = { stockroomId: 2 };
    await expect(r.read(ws('T1'), 'pendingPurchases', two, refused('first'))).rejects.toBeInstanceOf(
      UpstreamForbiddenError,
    );
    clock += FIVE_MINUTES - 1;
    // Until 2026-11-27 each of these asked again, a call of the budget each for the same 403.
    for (const reader of [r, other])
      await expect(reader.read(ws('T1'), 'pendingPurchases', two, refused('again'))).rejects.toMatchObject({
        status: 403,
        endpoint: PENDING,
        detail: 'Acesso negado ao almoxarifado',
      });
    expect(calls).toEqual(['first']);
    // Another stockroom, another workspace: their own reads.
    await r.read(ws('T1'), 'pendingPurchases', { stockroomId: 3 }, answered('three'));
    await expect(r.read(ws('T2'), 'pendingPurchases', two, refused('T2'))).rejects.toBeInstanceOf(
      UpstreamForbiddenError,
    );
    await expect(
      r.read(ws('T1'), 'pendingPurchases', two, refused('atualizar'), { bypassCache: true }),
    ).rejects.toBeInstanceOf(UpstreamForbiddenError);
    expect(calls).toEqual(['first', 'three', 'T2', 'atualizar']);
    // Five minutes after the last 403, asked again; an answer then stands over the refusal.
    clock += FIVE_MINUTES;
    expect(await r.read(ws('T1'), 'pendingPurchases', two, answered('later'))).toMatchObject({
      data: [{ compraMaterialId: 1 }],
      freshness: { fromCache: false },
    });
    expect((await r.read(ws('T1'), 'pendingPurchases', two, refused('never'))).freshness.fromCache).toBe(
      true,
    );
    expect(calls).toEqual(['first', 'three', 'T2', 'atualizar', 'later']);
  });

  it('a miss reads the entry and its refusal in one store round trip before it asks upstream, hit or refused alike', async () => {
    // Every call of the reader's store is one round trip (each KeyValue method is one command or one MULTI).
    const trips: { method: string; keys: string[] }[] = [];
    const real = new RedisKeyValue(store.redis);
    const counted = new Proxy(real, {
      get(target, method, receiver) {
        const value = Reflect.get(target, method, receiver);
        if (typeof value !== 'function' || typeof method !== 'string') return value;
        return (...args: unknown[]) => {
          const keys = args.flatMap((arg) =>
            typeof arg === 'string' ? [arg] : Array.isArray(arg) ? arg : [],
          );
          trips.push({ method, keys: keys.filter((key): key is string => typeof key === 'string') });
          return value.apply(target, args);
        };
      },
    }) as KeyValue;
    const r = new CachedReader({
      cache: new CacheStore(counted, store.keys),
      workspaces: new Workspaces(new LinkStore(real, store.keys, unusedBox), () => clock),
      logger: makeLogger({ level: 'silent' }),
      now: () => clock,
    });
    const params = { stockroomId: 4 };
    const paramsKey = cacheParamsKey(params, linkScope(ws('T1')));
    const entryKey = store.keys.cache('T1', 'pendingPurchases', paramsKey);
    const refusalKey = store.keys.cacheRefusal('T1', 'pendingPurchases', paramsKey);
    const fillKey = store.keys.cacheFill('T1', 'pendingPurchases', paramsKey);
    // The round trips that read the entry or its refusal before the reader asks for the refresh's lease.
    const readsBeforeLease = () => {
      const lease = trips.findIndex((trip) => trip.keys.includes(fillKey));
      return trips
        .slice(0, lease === -1 ? trips.length : lease)
        .filter((trip) => trip.keys.includes(entryKey) || trip.keys.includes(refusalKey));
    };

    // A miss: one round trip for both (until 2026-11-27, a GET of the entry, then a GET of its refusal).
    await expect(r.read(ws('T1'), 'pendingPurchases', params, refused('first'))).rejects.toBeInstanceOf(
      UpstreamForbiddenError,
    );
    expect(readsBeforeLease()).toHaveLength(1);
    expect(readsBeforeLease()[0]?.keys).toEqual(expect.arrayContaining([entryKey, refusalKey]));
    // The refusal remembered: the same one round trip answers it, and upstream is not asked.
    trips.length = 0;
    await expect(r.read(ws('T1'), 'pendingPurchases', params, refused('again'))).rejects.toBeInstanceOf(
      UpstreamForbiddenError,
    );
    expect(trips.filter((trip) => trip.method !== 'hincrby')).toHaveLength(1);
    expect(calls).toEqual(['first']);
    // Past it, an answer: stored, then a hit in one round trip as well.
    clock += FIVE_MINUTES;
    await r.read(ws('T1'), 'pendingPurchases', params, answered('answer'));
    trips.length = 0;
    expect((await r.read(ws('T1'), 'pendingPurchases', params, refused('never'))).freshness.fromCache).toBe(
      true,
    );
    expect(trips.filter((trip) => trip.method !== 'hincrby')).toHaveLength(1);
    expect(calls).toEqual(['first', 'answer']);
  });

  it('a store that does not answer remembers no refusal: upstream is asked', async () => {
    const real = new RedisKeyValue(store.redis);
    const down = new Proxy(real, {
      get(target, method, receiver) {
        if (method === 'get' || method === 'getMany')
          return async () => Promise.reject(new Error('ECONNRESET'));
        return Reflect.get(target, method, receiver);
      },
    }) as KeyValue;
    const r = readerOn(store, () => clock);
    await expect(r.read(ws('T1'), 'pendingPurchases', null, refused('first'))).rejects.toBeInstanceOf(
      UpstreamForbiddenError,
    );
    const blind = new CachedReader({
      cache: new CacheStore(down, store.keys),
      workspaces: new Workspaces(new LinkStore(real, store.keys, unusedBox), () => clock),
      logger: makeLogger({ level: 'silent' }),
      now: () => clock,
    });
    expect(
      (await blind.read(ws('T1'), 'pendingPurchases', null, answered('blind'))).freshness.fromCache,
    ).toBe(false);
    expect(calls).toEqual(['first', 'blind']);
  });

  it('only pending purchases remember a 403; a cleared cache (a new link) forgets it', async () => {
    const r = readerOn(store, () => clock);
    for (let i = 0; i < 2; i += 1)
      await expect(r.read(ws('T1'), 'requestItems', { id: 7 }, refused(`items ${i}`))).rejects.toBeInstanceOf(
        UpstreamForbiddenError,
      );
    await expect(r.read(ws('T1'), 'pendingPurchases', null, refused('pending'))).rejects.toBeInstanceOf(
      UpstreamForbiddenError,
    );
    await new CacheStore(new RedisKeyValue(store.redis), store.keys).clear('T1');
    await r.read(ws('T1'), 'pendingPurchases', null, answered('after clear'));
    expect(calls).toEqual(['items 0', 'items 1', 'pending', 'after clear']);
  });
});
