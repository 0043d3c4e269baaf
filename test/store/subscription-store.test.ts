import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RedisKeyValue } from '../../src/store/kv.js';
import { type SubscriptionInput, SubscriptionStore } from '../../src/store/subscription-store.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';

let redis: TestRedis;
let clock: number;
let store: SubscriptionStore;

const input = (overrides: Partial<SubscriptionInput> = {}): SubscriptionInput => ({
  workspaceId: 'T1',
  channelId: 'C1',
  hour: 8,
  minute: 0,
  timeZone: 'America/Sao_Paulo',
  weekdaysOnly: false,
  stockroomId: null,
  subscribedBy: 'U1',
  ...overrides,
});

beforeEach(async () => {
  redis = await makeTestRedis();
  clock = 1_000;
  store = new SubscriptionStore(new RedisKeyValue(redis.redis), redis.keys, () => clock);
});
afterEach(async () => {
  await redis.cleanup();
});

describe('SubscriptionStore', () => {
  it('upsert creates, then changes the subscription keeping when it was created and what was posted', async () => {
    const created = await store.upsert(input());
    expect(created.created).toBe(true);
    expect(created.subscription).toMatchObject({ hour: 8, createdAt: 1_000, updatedAt: 1_000, paused: null });
    await store.markPosted('T1', 'C1', { day: '2026-11-23', postedAt: 1_500, coveredUntil: 1_400 });

    clock = 2_000;
    const changed = await store.upsert(input({ hour: 9, minute: 30, weekdaysOnly: true, stockroomId: 2 }));
    expect(changed.created).toBe(false);
    expect(changed.subscription).toMatchObject({
      hour: 9,
      minute: 30,
      weekdaysOnly: true,
      stockroomId: 2,
      createdAt: 1_000,
      updatedAt: 2_000,
      lastPostedDay: '2026-11-23',
      lastPostedAt: 1_500,
      lastDigestAt: 1_400,
    });
    expect(await store.get('T1', 'C1')).toEqual(changed.subscription);
  });

  it('lists per workspace and across workspaces; one workspace never sees another', async () => {
    await store.upsert(input());
    clock = 2_000;
    await store.upsert(input({ channelId: 'C2' }));
    await store.upsert(input({ workspaceId: 'T2', channelId: 'C9' }));
    expect((await store.listWorkspace('T1')).map((s) => s.channelId)).toEqual(['C1', 'C2']);
    expect((await store.listWorkspace('T2')).map((s) => s.channelId)).toEqual(['C9']);
    expect((await store.listAll()).map((s) => `${s.workspaceId}/${s.channelId}`)).toEqual([
      'T1/C1',
      'T1/C2',
      'T2/C9',
    ]);
    expect(await store.get('T2', 'C1')).toBeNull();
  });

  it('remove drops the subscription and its state, and the workspace from the index when it was the last', async () => {
    await store.upsert(input());
    await store.markPosted('T1', 'C1', { day: '2026-11-23', postedAt: 1_500, coveredUntil: 1_400 });
    expect(await store.remove('T1', 'C1')).toBe(true);
    expect(await store.remove('T1', 'C1')).toBe(false);
    expect(await store.get('T1', 'C1')).toBeNull();
    expect(await redis.redis.exists(redis.keys.digestState('T1', 'C1'))).toBe(0);
    expect(await redis.redis.hexists(redis.keys.subscriptionIndex(), 'T1')).toBe(0);
    expect(await store.listAll()).toEqual([]);
    // Subscribing again starts afresh.
    expect((await store.upsert(input())).subscription.lastPostedDay).toBeNull();
  });

  it('a post or a failure recorded after the subscription was removed leaves no state behind', async () => {
    await store.upsert(input());
    await store.remove('T1', 'C1');
    // A replica that claimed the day before the cancel records its post (or its failure) after it.
    await store.markPosted('T1', 'C1', { day: '2026-11-23', postedAt: 1_500, coveredUntil: 1_400 });
    await store.recordFailure('T1', 'C1', () => 60_000);
    expect(await redis.redis.exists(redis.keys.digestState('T1', 'C1'))).toBe(0);
    expect(await store.get('T1', 'C1')).toBeNull();
  });

  it('a remove() that lands between the check and the write of the state still leaves none', async () => {
    await store.upsert(input());
    const kv = new RedisKeyValue(redis.redis);
    const racing = new SubscriptionStore(kv, redis.keys, () => clock);
    const set = kv.set.bind(kv);
    kv.set = async (key, value, options) => {
      await store.remove('T1', 'C1');
      return set(key, value, options);
    };
    await racing.markPosted('T1', 'C1', { day: '2026-11-23', postedAt: 1_500, coveredUntil: 1_400 });
    expect(await redis.redis.exists(redis.keys.digestState('T1', 'C1'))).toBe(0);
  });

  it('pause and resume by reason; a pause keeps its first reason; upsert keeps a pause', async () => {
    await store.upsert(input());
    await store.upsert(input({ channelId: 'C2' }));
    expect(await store.pauseWorkspace('T1', 'unlinked')).toBe(2);
    expect(await store.pauseWorkspace('T1', 'tokens_revoked')).toBe(0);
    expect((await store.get('T1', 'C1'))?.paused).toBe('unlinked');
    await store.upsert(input({ hour: 10 }));
    expect((await store.get('T1', 'C1'))?.paused).toBe('unlinked');
    expect(await store.resumeWorkspace('T1', 'tokens_revoked')).toBe(0);
    expect(await store.resumeWorkspace('T1', 'unlinked')).toBe(2);
    expect((await store.listWorkspace('T1')).map((s) => s.paused)).toEqual([null, null]);
  });

  it('removeWorkspace removes every subscription of that workspace only', async () => {
    await store.upsert(input());
    await store.upsert(input({ channelId: 'C2' }));
    await store.upsert(input({ workspaceId: 'T2', channelId: 'C9' }));
    expect(await store.removeWorkspace('T1')).toBe(2);
    expect(await store.listWorkspace('T1')).toEqual([]);
    expect((await store.listAll()).map((s) => s.workspaceId)).toEqual(['T2']);
  });

  it('failures back off and a post forgets them; lastDigestAt never goes back', async () => {
    await store.upsert(input());
    expect(await store.recordFailure('T1', 'C1', (n) => n * 100)).toBe(1_100);
    expect(await store.recordFailure('T1', 'C1', (n) => n * 100)).toBe(1_200);
    expect(await store.retryNotBefore('T1', 'C1')).toBe(1_200);
    await store.markPosted('T1', 'C1', { day: '2026-11-23', postedAt: 5_000, coveredUntil: 4_000 });
    expect(await store.retryNotBefore('T1', 'C1')).toBeNull();
    await store.markPosted('T1', 'C1', { day: '2026-11-24', postedAt: 6_000, coveredUntil: 3_000 });
    expect(await store.get('T1', 'C1')).toMatchObject({ lastPostedDay: '2026-11-24', lastDigestAt: 4_000 });
  });
});
