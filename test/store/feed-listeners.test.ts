import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmbeddedKeyValue } from '../../src/store/embedded-kv.js';
import { FeedListenerStore } from '../../src/store/feed-listeners.js';
import { Keys } from '../../src/store/keys.js';
import { type KeyValue, RedisKeyValue } from '../../src/store/kv.js';
import { makeTestRedis } from '../helpers/redis.js';

interface Opened {
  kv: KeyValue;
  keys: Keys;
  cleanup(): Promise<void>;
}

/**
 * The store as another replica's request finds it: `before` runs once, right before the first write (HSET, HDEL or a
 * conditional set) to `key`, so that it lands between what the store read and what it writes.
 */
function interleaved(kv: KeyValue, key: string, before: () => Promise<unknown>): KeyValue {
  let pending: (() => Promise<unknown>) | null = before;
  const writes = new Set(['hset', 'hdel', 'hsetIfEquals']);
  return new Proxy(kv, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        if (pending && writes.has(String(property)) && args[0] === key) {
          const run = pending;
          pending = null;
          await run();
        }
        return value.apply(target, args);
      };
    },
  });
}

/** The store, recording each command's name and key. */
function recording(kv: KeyValue, calls: [string, unknown][]): KeyValue {
  return new Proxy(kv, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push([String(property), args[0]]);
        return value.apply(target, args);
      };
    },
  });
}

/** The same behaviour on Redis and on the embedded store of local mode. */
function runFeedListenerSuite(name: string, open: () => Promise<Opened>): void {
  describe(`FeedListenerStore (${name})`, () => {
    let opened: Opened;
    let clock: number;
    let store: FeedListenerStore;
    const indexed = async () => Object.keys(await opened.kv.hgetall(opened.keys.feedListenerIndex())).sort();

    beforeEach(async () => {
      opened = await open();
      clock = 1_000;
      store = new FeedListenerStore(opened.kv, opened.keys, () => clock);
    });
    afterEach(async () => {
      await opened.cleanup();
    });

    it('a channel feed is created with every kind by default, then changed keeping when it was created', async () => {
      const created = await store.upsertChannel({
        workspaceId: 'T1',
        channelId: 'C1',
        stockroomId: null,
        subscribedBy: 'U1',
      });
      expect(created).toEqual({
        created: true,
        feed: {
          workspaceId: 'T1',
          channelId: 'C1',
          stockroomId: null,
          kinds: ['novas', 'status', 'recebimentos'],
          subscribedBy: 'U1',
          createdAt: 1_000,
          paused: null,
        },
      });
      clock = 2_000;
      const changed = await store.upsertChannel({
        workspaceId: 'T1',
        channelId: 'C1',
        stockroomId: 3,
        kinds: ['recebimentos', 'novas', 'novas'],
        subscribedBy: 'U2',
      });
      expect(changed.created).toBe(false);
      expect(changed.feed).toMatchObject({
        stockroomId: 3,
        kinds: ['novas', 'recebimentos'],
        createdAt: 1_000,
      });
      expect(await store.getChannel('T1', 'C1')).toEqual(changed.feed);
      expect(await store.getChannel('T2', 'C1')).toBeNull();
    });

    it('lists per workspace; one workspace never sees another; the index holds the workspaces with listeners', async () => {
      await store.upsertChannel({
        workspaceId: 'T1',
        channelId: 'C2',
        stockroomId: null,
        subscribedBy: 'U1',
      });
      clock = 2_000;
      await store.upsertChannel({
        workspaceId: 'T1',
        channelId: 'C1',
        stockroomId: null,
        subscribedBy: 'U1',
      });
      await store.follow('T2', 'U9', 4105, 'Aguardando compra');
      await store.followOwn('T3', 'U7', 'marcia@example.com');
      expect((await store.listChannels('T1')).map((f) => f.channelId)).toEqual(['C2', 'C1']);
      expect(await store.listChannels('T2')).toEqual([]);
      expect(await store.listWorkspaces()).toEqual(['T1', 'T2', 'T3']);
      expect(await store.listWorkspace('T2')).toEqual({
        workspaceId: 'T2',
        paused: null,
        channels: [],
        follows: [
          {
            workspaceId: 'T2',
            userId: 'U9',
            requestId: 4105,
            lastSeenStatus: 'Aguardando compra',
            createdAt: 2_000,
          },
        ],
        ownFollows: [],
      });
      expect((await store.listWorkspace('T3')).ownFollows).toEqual([
        { workspaceId: 'T3', userId: 'U7', email: 'marcia@example.com', createdAt: 2_000 },
      ]);
    });

    it('follows: one per user and request, the status seen updatable, unfollow, a user listed alone', async () => {
      expect((await store.follow('T1', 'U1', 4105, 'Aberta')).created).toBe(true);
      clock = 2_000;
      await store.follow('T1', 'U2', 4105, 'Aberta');
      await store.follow('T1', 'U1', 4221, null);
      // Following again keeps the first date and takes the newer status.
      clock = 3_000;
      const again = await store.follow('T1', 'U1', 4105, 'Aguardando compra');
      expect(again).toEqual({
        created: false,
        follow: {
          workspaceId: 'T1',
          userId: 'U1',
          requestId: 4105,
          lastSeenStatus: 'Aguardando compra',
          createdAt: 1_000,
        },
      });
      expect(await store.updateLastSeen('T1', 'U1', 4221, 'Entregue')).toBe(true);
      expect(await store.getFollow('T1', 'U1', 4221)).toMatchObject({
        lastSeenStatus: 'Entregue',
        createdAt: 2_000,
      });
      expect((await store.listFollows('T1', 'U1')).map((f) => f.requestId)).toEqual([4105, 4221]);
      expect((await store.listFollows('T1')).map((f) => `${f.userId}/${f.requestId}`)).toEqual([
        'U1/4105',
        'U2/4105',
        'U1/4221',
      ]);

      expect(await store.unfollow('T1', 'U1', 4105)).toBe(true);
      expect(await store.unfollow('T1', 'U1', 4105)).toBe(false);
      // An update after the unfollow does not bring it back.
      expect(await store.updateLastSeen('T1', 'U1', 4105, 'Entregue')).toBe(false);
      expect(await store.getFollow('T1', 'U1', 4105)).toBeNull();
      expect((await store.listFollows('T1')).map((f) => `${f.userId}/${f.requestId}`)).toEqual([
        'U2/4105',
        'U1/4221',
      ]);
    });

    it('two unfollows of one follow at once (a double click, two replicas): exactly one was following', async () => {
      await store.follow('T1', 'U1', 4105, 'Aberta');
      let other: boolean | undefined;
      const racing = new FeedListenerStore(
        interleaved(opened.kv, opened.keys.feedFollows('T1'), async () => {
          other = await store.unfollow('T1', 'U1', 4105);
        }),
        opened.keys,
        () => clock,
      );
      const mine = await racing.unfollow('T1', 'U1', 4105);
      expect(other).toBe(true);
      expect(mine).toBe(false);
      expect(await store.getFollow('T1', 'U1', 4105)).toBeNull();
      expect(await indexed()).toEqual([]);
    });

    it('two unfollows of one own-requests follow at once: exactly one was following', async () => {
      await store.followOwn('T1', 'U1', 'u1@example.com');
      let other: boolean | undefined;
      const racing = new FeedListenerStore(
        interleaved(opened.kv, opened.keys.feedOwnFollows('T1'), async () => {
          other = await store.unfollowOwn('T1', 'U1');
        }),
        opened.keys,
        () => clock,
      );
      const mine = await racing.unfollowOwn('T1', 'U1');
      expect(other).toBe(true);
      expect(mine).toBe(false);
      expect(await store.getOwnFollow('T1', 'U1')).toBeNull();
      expect(await indexed()).toEqual([]);
    });

    it('two removals of one channel feed at once (alertas cancelar twice, two replicas): exactly one had it', async () => {
      await store.upsertChannel({
        workspaceId: 'T1',
        channelId: 'C1',
        stockroomId: null,
        subscribedBy: 'U1',
      });
      let other: boolean | undefined;
      const racing = new FeedListenerStore(
        interleaved(opened.kv, opened.keys.feedChannels('T1'), async () => {
          other = await store.removeChannel('T1', 'C1');
        }),
        opened.keys,
        () => clock,
      );
      const mine = await racing.removeChannel('T1', 'C1');
      expect(other).toBe(true);
      expect(mine).toBe(false);
      expect(await indexed()).toEqual([]);
    });

    it('a status delivered while the follow ends (parar) does not bring the follow back', async () => {
      await store.follow('T1', 'U1', 4105, 'Aberta');
      const racing = new FeedListenerStore(
        interleaved(opened.kv, opened.keys.feedFollows('T1'), async () => {
          expect(await store.unfollow('T1', 'U1', 4105)).toBe(true);
        }),
        opened.keys,
        () => clock,
      );
      expect(await racing.updateLastSeen('T1', 'U1', 4105, 'Entregue')).toBe(false);
      expect(await store.getFollow('T1', 'U1', 4105)).toBeNull();
      expect(await store.listFollows('T1')).toEqual([]);
    });

    it('a status delivered while the follow is made again keeps what the new follow wrote', async () => {
      await store.follow('T1', 'U1', 4105, 'Aberta', 1);
      const racing = new FeedListenerStore(
        interleaved(opened.kv, opened.keys.feedFollows('T1'), async () => {
          clock = 2_000;
          await store.follow('T1', 'U1', 4105, 'Aguardando compra', 2);
        }),
        opened.keys,
        () => clock,
      );
      expect(await racing.updateLastSeen('T1', 'U1', 4105, 'Entregue')).toBe(true);
      // The company of the follow made meanwhile stays; the status delivered after it is recorded.
      expect(await store.getFollow('T1', 'U1', 4105)).toEqual({
        workspaceId: 'T1',
        userId: 'U1',
        requestId: 4105,
        lastSeenStatus: 'Entregue',
        createdAt: 1_000,
        empresaId: 2,
      });
    });

    it('a follow whose old entry ends meanwhile is made anew, and the workspace stays listed', async () => {
      await store.follow('T1', 'U1', 4105, 'Aberta');
      clock = 2_000;
      const racing = new FeedListenerStore(
        interleaved(opened.kv, opened.keys.feedFollows('T1'), async () => {
          expect(await store.unfollow('T1', 'U1', 4105)).toBe(true);
        }),
        opened.keys,
        () => clock,
      );
      const made = await racing.follow('T1', 'U1', 4105, 'Em separação');
      expect(made).toEqual({
        created: true,
        follow: {
          workspaceId: 'T1',
          userId: 'U1',
          requestId: 4105,
          lastSeenStatus: 'Em separação',
          createdAt: 2_000,
        },
      });
      expect(await store.getFollow('T1', 'U1', 4105)).toEqual(made.follow);
      expect(await indexed()).toEqual(['T1']);
      expect(
        (await opened.kv.zrangeByScore(opened.keys.feedSchedule(), Number.POSITIVE_INFINITY)).map(
          (e) => e.member,
        ),
      ).toEqual(['T1']);
    });

    it('two follows of one request at once (a double click on Acompanhar): one made it, the other was already following', async () => {
      let other: { created: boolean } | undefined;
      const racing = new FeedListenerStore(
        interleaved(opened.kv, opened.keys.feedFollows('T1'), async () => {
          other = await store.follow('T1', 'U1', 4105, 'Aberta');
        }),
        opened.keys,
        () => clock + 500,
      );
      const mine = await racing.follow('T1', 'U1', 4105, 'Aberta');
      expect(other?.created).toBe(true);
      expect(mine.created).toBe(false);
      expect(mine.follow.createdAt).toBe(1_000);
      expect(await store.getFollow('T1', 'U1', 4105)).toEqual(mine.follow);
    });

    it('an unfollow learns whether the workspace still listens without reading a hash whole; removeUser deletes in one command', async () => {
      for (let i = 0; i < 20; i += 1) await store.follow('T1', `U${i}`, 4105, null);
      await store.follow('T1', 'U1', 4221, null);
      const calls: [string, unknown][] = [];
      const counted = new FeedListenerStore(recording(opened.kv, calls), opened.keys, () => clock);
      expect(await counted.unfollow('T1', 'U0', 4105)).toBe(true);
      expect(calls.filter(([command]) => command === 'hgetall')).toEqual([]);

      calls.length = 0;
      await store.followOwn('T1', 'U1', 'u1@example.com');
      expect(await counted.removeUser('T1', 'U1')).toBe(3);
      expect(
        calls.filter(([command, key]) => command === 'hdel' && key === opened.keys.feedFollows('T1')),
      ).toHaveLength(1);
      expect(
        calls.filter(([command, key]) => command === 'hgetall' && key !== opened.keys.feedFollows('T1')),
      ).toEqual([]);
      expect((await store.listFollows('T1')).map((f) => f.userId)).not.toContain('U1');
      expect(await store.listFollows('T1')).toHaveLength(18);
      expect(await indexed()).toEqual(['T1']);
    });

    it('removeUser ends every follow of one user, own requests included, and no one else’s', async () => {
      await store.follow('T1', 'U1', 4105, 'Aberta');
      await store.follow('T1', 'U1', 4221, 'Aberta');
      await store.follow('T1', 'U2', 4105, 'Aberta');
      await store.follow('T2', 'U1', 4105, 'Aberta');
      await store.followOwn('T1', 'U1', 'u1@example.com');
      expect(await store.removeUser('T1', 'U1')).toBe(3);
      expect(await store.listFollows('T1', 'U1')).toEqual([]);
      expect(await store.getOwnFollow('T1', 'U1')).toBeNull();
      expect((await store.listFollows('T1')).map((f) => f.userId)).toEqual(['U2']);
      expect((await store.listFollows('T2')).map((f) => f.userId)).toEqual(['U1']);
      expect(await store.removeUser('T1', 'U2')).toBe(1);
      expect(await indexed()).toEqual(['T2']);
    });

    it('the index loses a workspace only when its last listener of any kind goes', async () => {
      await store.upsertChannel({
        workspaceId: 'T1',
        channelId: 'C1',
        stockroomId: null,
        subscribedBy: 'U1',
      });
      await store.follow('T1', 'U1', 4105, null);
      await store.followOwn('T1', 'U2', 'u2@example.com');
      expect(await store.removeChannel('T1', 'C1')).toBe(true);
      expect(await store.removeChannel('T1', 'C1')).toBe(false);
      expect(await indexed()).toEqual(['T1']);
      await store.unfollow('T1', 'U1', 4105);
      expect(await indexed()).toEqual(['T1']);
      expect(await store.unfollowOwn('T1', 'U2')).toBe(true);
      expect(await indexed()).toEqual([]);
      expect(await store.listWorkspaces()).toEqual([]);
    });

    it('pause keeps the first reason, only the same reason resumes, and listeners added while paused are paused', async () => {
      await store.upsertChannel({
        workspaceId: 'T1',
        channelId: 'C1',
        stockroomId: null,
        subscribedBy: 'U1',
      });
      await store.upsertChannel({
        workspaceId: 'T2',
        channelId: 'C1',
        stockroomId: null,
        subscribedBy: 'U1',
      });
      expect(await store.pauseWorkspace('T1', 'tokens_revoked')).toBe(true);
      expect(await store.pauseWorkspace('T1', 'unlinked')).toBe(false);
      expect(await store.pausedReason('T1')).toBe('tokens_revoked');
      expect((await store.getChannel('T1', 'C1'))?.paused).toBe('tokens_revoked');
      expect((await store.getChannel('T2', 'C1'))?.paused).toBeNull();
      const added = await store.upsertChannel({
        workspaceId: 'T1',
        channelId: 'C2',
        stockroomId: null,
        subscribedBy: 'U1',
      });
      expect(added.feed.paused).toBe('tokens_revoked');
      expect((await store.listWorkspace('T1')).paused).toBe('tokens_revoked');
      // Paused workspaces stay listed: the rounds skip them, the lifecycle resumes them.
      expect(await store.listWorkspaces()).toEqual(['T1', 'T2']);

      expect(await store.resumeWorkspace('T1', 'unlinked')).toBe(false);
      expect(await store.pausedReason('T1')).toBe('tokens_revoked');
      expect(await store.resumeWorkspace('T1', 'tokens_revoked')).toBe(true);
      expect((await store.listChannels('T1')).map((f) => f.paused)).toEqual([null, null]);
    });

    it('removeWorkspace drops every listener, the pause and the index entry, and nothing of another workspace', async () => {
      await store.upsertChannel({
        workspaceId: 'T1',
        channelId: 'C1',
        stockroomId: null,
        subscribedBy: 'U1',
      });
      await store.follow('T1', 'U1', 4105, null);
      await store.followOwn('T1', 'U1', 'u1@example.com');
      await store.follow('T2', 'U1', 4105, null);
      await store.pauseWorkspace('T1', 'unlinked');
      expect(await store.removeWorkspace('T1')).toBe(3);
      expect(await store.listWorkspace('T1')).toEqual({
        workspaceId: 'T1',
        paused: null,
        channels: [],
        follows: [],
        ownFollows: [],
      });
      expect(await opened.kv.get(opened.keys.feedPaused('T1'))).toBeNull();
      expect(await store.listWorkspaces()).toEqual(['T2']);
    });

    it('a damaged entry is skipped, never fatal', async () => {
      await store.follow('T1', 'U1', 4105, null);
      await opened.kv.hset(opened.keys.feedFollows('T1'), 'U2:1', '{not json');
      await opened.kv.hset(opened.keys.feedChannels('T1'), 'C9', 'garbage');
      expect((await store.listFollows('T1')).map((f) => f.userId)).toEqual(['U1']);
      expect(await store.listChannels('T1')).toEqual([]);
      expect(await store.getChannel('T1', 'C9')).toBeNull();
    });
  });
}

runFeedListenerSuite('Redis', async () => {
  const redis = await makeTestRedis();
  return { kv: new RedisKeyValue(redis.redis), keys: redis.keys, cleanup: () => redis.cleanup() };
});

runFeedListenerSuite('embedded', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'estoque-feed-listeners-'));
  const kv = await EmbeddedKeyValue.open({ file: join(dir, 'store.json'), flushDelayMs: 5 });
  return {
    kv,
    keys: new Keys('test:'),
    async cleanup() {
      await kv.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
