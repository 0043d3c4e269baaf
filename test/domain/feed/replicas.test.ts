import { describe, expect, it, vi } from 'vitest';
import type { StatusEvent } from '../../../src/domain/feed/types.js';
import type { SandboxChange } from '../../../src/sandbox/server.js';
import type { KeyValue } from '../../../src/store/kv.js';
import {
  channelListens,
  deliveredIds,
  type FeedHarness,
  type FeedReplica,
  feedHarnessPerTest,
  INTERVAL_MS,
  WS,
} from '../../helpers/feed-harness.js';

const open = feedHarnessPerTest();

async function start(): Promise<FeedHarness> {
  const harness = await open();
  await harness.listeners.upsertChannel({
    workspaceId: WS,
    channelId: 'C1',
    stockroomId: null,
    subscribedBy: 'U1',
  });
  return harness;
}

/** The ids of the new requests a round must report for these changes. */
function expectedIds(changes: SandboxChange[]): string[] {
  const ids = new Set<string>();
  for (const change of changes) {
    if (change.kind === 'novas') ids.add(`${WS}:novas:${change.solicitacaoMaterialId}`);
  }
  return [...ids];
}

function noDuplicates(h: FeedHarness): void {
  for (const [target, ids] of deliveredIds(h.allPosts)) {
    expect(new Set(ids).size, `${target} got an event twice`).toBe(ids.length);
  }
}

/** `replica` plans the workspace, then its first round records it (no event yet). */
async function recorded(h: FeedHarness, replica: FeedReplica): Promise<void> {
  await replica.engine.tick();
  h.clock.advance(INTERVAL_MS);
  await replica.engine.tick();
}

/**
 * A store whose every call first asks `instead()`: a promise it returns stands for the call's answer (one that never
 * settles: a process that died; a rejection: a store that refuses), undefined lets the call through.
 */
function interceptKv(instead: () => Promise<never> | undefined): (kv: KeyValue) => KeyValue {
  return (kv) =>
    new Proxy(kv, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => instead() ?? value.apply(target, args);
      },
    });
}

/** Both replicas tick at once, as their timers would. */
async function bothTick(a: FeedReplica, b: FeedReplica) {
  return Promise.all([a.engine.tick(), b.engine.tick()]);
}

describe('FeedEngine across replicas', () => {
  it('runs one round at a time and delivers each event once, with two replicas and after a restart', async () => {
    const h = await start();
    const a = h.feedReplica();
    const b = h.feedReplica();
    await h.listeners.follow(WS, 'U-FOLLOWER', 1, null);
    // The first round (it records) runs at once, on one of the two; the next at the workspace's place in the
    // interval.
    const first = (await bothTick(a, b)).flat();
    expect(first.filter((report) => report.ran)).toHaveLength(1);
    h.clock.set(((await a.snapshots.state(WS)).nextRoundAt ?? 0) - INTERVAL_MS);

    const made: SandboxChange[] = [];
    for (let round = 0; round < 4; round += 1) {
      h.clock.advance(30_000);
      made.push(...h.sandbox.advance({ changes: 3, kinds: ['novas', 'status'] }));
      h.clock.advance(INTERVAL_MS);
      const reports = (await bothTick(a, b)).flat();
      expect(reports.filter((report) => report.ran)).toHaveLength(1);
    }
    // A follower of a request that changes gets the status event in a DM; the channel gets it too.
    const statusEvents = h.allPosts
      .filter((post) => post.target.kind === 'channel')
      .flatMap((post) => post.events)
      .filter((event): event is StatusEvent => event.kind === 'status');
    const channelIds = deliveredIds(h.allPosts).get('c-C1') ?? [];
    for (const id of expectedIds(made)) expect(channelIds).toContain(id);
    expect(statusEvents.length).toBeGreaterThan(0);
    noDuplicates(h);
    const before = h.allPosts.length;

    // A restart: both replicas go, a new one comes on the same Redis; nothing is posted again.
    await a.replica.close();
    await b.replica.close();
    const c = h.feedReplica();
    h.clock.advance(INTERVAL_MS);
    expect((await c.engine.tick()).filter((report) => report.ran)).toHaveLength(1);
    expect(h.allPosts).toHaveLength(before);

    // And what changed while no replica ran is reported by the first round after.
    h.clock.advance(30_000);
    const whileDown = h.sandbox.advance({ changes: 2, kinds: ['novas'] });
    h.clock.advance(10 * INTERVAL_MS);
    await c.engine.tick();
    const latest = deliveredIds(h.allPosts.slice(before)).get('c-C1') ?? [];
    expect(latest.sort()).toEqual(expectedIds(whileDown).sort());
    // The post says the changes happened at some point since the last round before the downtime.
    const lastBefore = h.allPosts.at(-1);
    expect(lastBefore?.lateSince).not.toBeNull();
    expect(lastBefore?.lateSince).toBeLessThan(h.clock.now() - 5 * INTERVAL_MS);
    noDuplicates(h);
  });

  it('retries a post that failed on the next round, late, without posting again to the targets that had it', async () => {
    const h = await start();
    await channelListens(h, 'C2');
    const a = h.feedReplica();
    await recorded(h, a);

    h.clock.advance(30_000);
    const made = h.sandbox.advance({ changes: 2, kinds: ['novas'] });
    a.poster.results.set('c-C2', { ok: false, lost: false, error: 'ratelimited' });
    h.clock.advance(INTERVAL_MS);
    await a.engine.tick();
    const detectedAt = h.clock.now();
    expect(deliveredIds(h.allPosts).get('c-C1')?.sort()).toEqual(expectedIds(made).sort());
    expect(deliveredIds(h.allPosts).get('c-C2')).toBeUndefined();

    // A restart later: the new replica posts the two events to C2 only, with their detection time.
    await a.replica.close();
    const b = h.feedReplica();
    h.clock.advance(INTERVAL_MS);
    await b.engine.tick();
    const toC2 = h.allPosts.filter(
      (post) => post.target.kind === 'channel' && post.target.channelId === 'C2',
    );
    expect(toC2).toHaveLength(1);
    expect(toC2[0]?.events.map((e) => e.detectedAt)).toEqual([detectedAt, detectedAt]);
    expect(deliveredIds(h.allPosts).get('c-C1')).toHaveLength(2);
    noDuplicates(h);
    expect(await b.snapshots.outbox(WS)).toEqual([]);
  });

  it('loses nothing when a replica dies mid-round: its lease expires and another replica delivers once', async () => {
    const h = await start();
    const a = h.feedReplica();
    const b = h.feedReplica();
    await recorded(h, a);

    h.clock.advance(30_000);
    const made = h.sandbox.advance({ changes: 3, kinds: ['novas'] });
    h.clock.advance(INTERVAL_MS);
    // Replica A detects, then stalls in the post for good (as a process that died there).
    const aPostedAt = h.clock.now();
    a.poster.hold = true;
    void a.engine.tick();
    await vi.waitFor(() => expect(a.poster.held).toBe(1));
    expect(await b.engine.tick()).toEqual([{ ran: false, workspaceId: WS, reason: 'leased' }]);

    // Its lease and its posting claims run out.
    const { redis } = h.redis;
    const held = [
      ...(await redis.keys(`${h.redis.prefix}feed:${WS}:round-lease`)),
      ...(await redis.keys(`${h.redis.prefix}feed:${WS}:sent:*`)),
    ];
    expect(held.length).toBe(4);
    for (const key of held) await redis.pexpire(key, 1);
    await vi.waitFor(async () => expect(await redis.exists(...held)).toBe(0));

    const reports = await b.engine.tick();
    expect(reports).toMatchObject([{ ran: true, delivery: { posts: 1, delivered: 3 } }]);
    expect(deliveredIds(b.poster.posts).get('c-C1')?.sort()).toEqual(expectedIds(made).sort());
    // A may have posted them before it died: B's post says it may repeat A's.
    expect(b.poster.posts[0]?.mayRepeatSince).toBe(aPostedAt);
    h.clock.advance(INTERVAL_MS);
    await b.engine.tick();
    expect(h.allPosts).toHaveLength(1);
  });

  it('a replica that died between the outbox and the snapshot leaves no stale status beside the newer one', async () => {
    // Once armed, a store that never answers from the round's write of its request snapshot: the process died there.
    const armed = { now: false };
    const dead = { now: false };
    const die = (kv: KeyValue): KeyValue =>
      new Proxy(kv, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if (armed.now && property === 'hsetMany' && String(args[0]).endsWith(':snap:requests'))
              dead.now = true;
            if (dead.now) return new Promise<never>(() => undefined);
            return value.apply(target, args);
          };
        },
      });
    const h = await start();
    const a = h.feedReplica({ wrapKv: die });
    const b = h.feedReplica();
    // A request opened now (status 1): it can move two steps.
    const [opened] = h.sandbox.advance({ changes: 1, kinds: ['novas'] });
    const request = opened?.kind === 'novas' ? opened.solicitacaoMaterialId : 0;
    await recorded(h, a);

    // A → B: replica A puts the event in the outbox, then dies before the snapshot.
    const [first] = h.sandbox.advance({ changes: 1, kinds: ['status'], requestIds: [request] });
    expect(first).toMatchObject({ kind: 'status', solicitacaoMaterialId: request });
    h.clock.advance(INTERVAL_MS);
    armed.now = true;
    void a.engine.tick();
    await vi.waitFor(() => expect(dead.now).toBe(true));
    expect(a.poster.posts).toEqual([]);
    const { redis } = h.redis;
    const lease = `${h.redis.prefix}feed:${WS}:round-lease`;
    await redis.pexpire(lease, 1);
    await vi.waitFor(async () => expect(await redis.exists(lease)).toBe(0));

    // B → C before the rerun: the rerun finds A → C (the snapshot still says A), and only that is posted.
    const [second] = h.sandbox.advance({ changes: 1, kinds: ['status'], requestIds: [request] });
    expect(second).toMatchObject({ kind: 'status', solicitacaoMaterialId: request });
    h.clock.advance(INTERVAL_MS);
    await b.engine.tick();
    const posted = b.poster.posts.flatMap((post) => post.events) as StatusEvent[];
    expect(posted.map((e) => [e.requestId, e.fromStatus, e.toStatus])).toEqual([
      [
        request,
        first?.kind === 'status' ? first.fromNome : '',
        second?.kind === 'status' ? second.toNome : '',
      ],
    ]);
    expect(await b.snapshots.outbox(WS)).toEqual([]);
  });

  it('records a post it made in one write: dying while recording leaves it sent, and no replica posts it again', async () => {
    // A store that stops answering after `callsLeft` more calls: the process died there.
    const dying = { callsLeft: Number.POSITIVE_INFINITY };
    const die = interceptKv(() => {
      if (dying.callsLeft <= 0) return new Promise<never>(() => undefined);
      dying.callsLeft -= 1;
      return undefined;
    });
    const h = await start();
    const a = h.feedReplica({ wrapKv: die });
    const b = h.feedReplica();
    await recorded(h, a);

    h.clock.advance(30_000);
    const made = h.sandbox.advance({ changes: 3, kinds: ['novas'] });
    h.clock.advance(INTERVAL_MS);
    // Slack takes A's post with the three events; A's first store call after it goes through, then A dies.
    a.poster.afterPost = () => {
      dying.callsLeft = 1;
    };
    void a.engine.tick();
    await vi.waitFor(() => expect(a.poster.posts).toHaveLength(1));
    expect(deliveredIds(a.poster.posts).get('c-C1')?.sort()).toEqual(expectedIds(made).sort());
    await vi.waitFor(() => expect(dying.callsLeft).toBe(0));

    // A's round lease and whatever claims it still held as `posting` run out.
    const { redis } = h.redis;
    const lease = `${h.redis.prefix}feed:${WS}:round-lease`;
    const claims = await redis.keys(`${h.redis.prefix}feed:${WS}:sent:*`);
    expect(claims).toHaveLength(3);
    for (const key of [lease, ...claims]) {
      if (key === lease || (await redis.get(key))?.startsWith('posting:')) await redis.pexpire(key, 1);
    }
    await vi.waitFor(async () => expect(await redis.exists(lease)).toBe(0));

    h.clock.advance(INTERVAL_MS);
    await b.engine.tick();
    h.clock.advance(INTERVAL_MS);
    await b.engine.tick();
    expect(b.poster.posts).toEqual([]);
    noDuplicates(h);
    expect(await b.snapshots.outbox(WS)).toEqual([]);
  });

  it('a store that refuses for a moment right after Slack took a post (a Redis restart): recorded, not posted again', async () => {
    const refusing = { left: 0 };
    const restarting = interceptKv(() => {
      if (refusing.left <= 0) return undefined;
      refusing.left -= 1;
      return Promise.reject(new Error('Reached the max retries per request limit (which is 3)'));
    });
    const h = await start();
    const a = h.feedReplica({ wrapKv: restarting });
    const b = h.feedReplica();
    await recorded(h, a);

    h.clock.advance(30_000);
    h.sandbox.advance({ changes: 3, kinds: ['novas'] });
    h.clock.advance(INTERVAL_MS);
    // The store refuses A's next two commands after Slack took its post (the claims' record among them).
    a.poster.afterPost = () => {
      refusing.left = 2;
    };
    await a.engine.tick();
    expect(a.poster.posts).toHaveLength(1);

    // Whatever A left as `posting` runs out, as it would without the record; B then runs the next rounds.
    const { redis } = h.redis;
    for (const key of await redis.keys(`${h.redis.prefix}feed:${WS}:sent:*`)) {
      expect(await redis.get(key)).toMatch(/^sent:/);
    }
    await redis.pexpire(`${h.redis.prefix}feed:${WS}:round-lease`, 1);
    await vi.waitFor(async () =>
      expect(await redis.exists(`${h.redis.prefix}feed:${WS}:round-lease`)).toBe(0),
    );
    h.clock.advance(INTERVAL_MS);
    await b.engine.tick();
    expect(b.poster.posts).toEqual([]);
    noDuplicates(h);
  });

  it('does not send a post whose claims ran out while it waited on Slack: the replica that took them posts once', async () => {
    const h = await start();
    const a = h.feedReplica({ leaseMs: 300 });
    const b = h.feedReplica({ leaseMs: 300 });
    await recorded(h, a);

    h.clock.advance(30_000);
    const made = h.sandbox.advance({ changes: 2, kinds: ['novas'] });
    h.clock.advance(INTERVAL_MS);
    // A's first attempt is rate limited; it waits longer than its lease and its claims.
    let retry: () => void = () => {};
    a.poster.rateLimitedUntil = new Promise<void>((resolve) => {
      retry = resolve;
    });
    const aRound = a.engine.tick();
    const { redis } = h.redis;
    await vi.waitFor(async () =>
      expect(await redis.keys(`${h.redis.prefix}feed:${WS}:sent:*`)).toHaveLength(2),
    );
    await vi.waitFor(
      async () => {
        expect(await redis.keys(`${h.redis.prefix}feed:${WS}:sent:*`)).toHaveLength(0);
        expect(await redis.exists(`${h.redis.prefix}feed:${WS}:round-lease`)).toBe(0);
      },
      { timeout: 3_000 },
    );
    // Meanwhile B runs the round and posts the two events.
    h.clock.advance(INTERVAL_MS);
    await b.engine.tick();
    expect(deliveredIds(b.poster.posts).get('c-C1')?.sort()).toEqual(expectedIds(made).sort());

    // A's wait ends: its guard finds the claims gone, and A sends nothing.
    retry();
    await aRound;
    expect(a.poster.posts).toHaveLength(0);
    expect(h.allPosts).toHaveLength(1);
    noDuplicates(h);
  });
});

describe('FeedEngine: a delivery whose round lease is lost partway', () => {
  it('leaves the events of the targets it did not reach in the outbox, and the next holder posts them', async () => {
    const h = await start();
    const a = h.feedReplica();
    const b = h.feedReplica();
    await recorded(h, a);

    // New requests in at least two stockrooms; a channel feed for each of two of them besides C1's feed of all.
    h.clock.advance(30_000);
    const stockroomOf = (change: SandboxChange) => (change.kind === 'novas' ? change.almoxarifado : 0);
    const made = h.sandbox.advance({ changes: 2, kinds: ['novas'] });
    while (new Set(made.map(stockroomOf)).size < 2)
      made.push(...h.sandbox.advance({ changes: 1, kinds: ['novas'] }));
    const stockrooms = [...new Set(made.map(stockroomOf))].slice(0, 2);
    for (const [i, stockroomId] of stockrooms.entries()) {
      const channelId = `C-S${i}`;
      await h.listeners.upsertChannel({ workspaceId: WS, channelId, stockroomId, subscribedBy: 'U1' });
    }
    h.clock.advance(INTERVAL_MS);
    // After A's first post, B takes the round's lease (A stalled past it): A stops at its next target.
    const lease = `${h.redis.prefix}feed:${WS}:round-lease`;
    a.poster.afterPost = () => {
      a.poster.afterPost = undefined;
      void h.redis.redis.set(lease, b.name);
    };
    await a.engine.tick();
    expect(a.poster.posts).toHaveLength(1);

    await h.redis.redis.del(lease);
    h.clock.advance(INTERVAL_MS);
    await b.engine.tick();
    const got = deliveredIds(h.allPosts);
    expect(got.get('c-C1')?.sort()).toEqual(expectedIds(made).sort());
    for (const [i, stockroomId] of stockrooms.entries()) {
      const inStockroom = made.filter((change) => stockroomOf(change) === stockroomId);
      expect(got.get(`c-C-S${i}`)?.sort()).toEqual(expectedIds(inStockroom).sort());
    }
    noDuplicates(h);
    expect(await b.snapshots.outbox(WS)).toEqual([]);
  });
});

describe('FeedEngine: a workspace whose listeners all left', () => {
  it('forgets what the feed saw: when a listener comes back, its first round only records', async () => {
    const h = await start();
    const a = h.feedReplica();
    await recorded(h, a);
    expect((await a.snapshots.state(WS)).recordedAt).not.toBeNull();

    await h.listeners.removeChannel(WS, 'C1');
    h.clock.advance(INTERVAL_MS);
    // Forgotten as the last listener left (and a round asked anyway runs nothing).
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: false });
    expect((await a.snapshots.requests(WS)).size).toBe(0);
    expect((await a.snapshots.state(WS)).recordedAt).toBeNull();

    // Weeks later: requests came meanwhile, then someone subscribes again. Nothing of that is posted as new.
    h.clock.advance(30_000);
    h.sandbox.advance({ changes: 3, kinds: ['novas'] });
    await channelListens(h, 'C1');
    for (let i = 0; i < 3; i += 1) {
      h.clock.advance(INTERVAL_MS);
      await a.engine.tick();
    }
    expect((await a.snapshots.state(WS)).recordedAt).not.toBeNull();
    expect(h.allPosts).toEqual([]);
  });

  it('also when the last listener leaves between rounds: the schedule drops it and no round runs to forget', async () => {
    const h = await start();
    const a = h.feedReplica();
    await recorded(h, a);
    await h.listeners.removeChannel(WS, 'C1');
    // Ticks only (as replicas run): the workspace is out of the schedule, so no round of it runs.
    for (let i = 0; i < 3; i += 1) {
      h.clock.advance(INTERVAL_MS);
      await a.engine.tick();
    }
    h.clock.advance(30_000);
    h.sandbox.advance({ changes: 3, kinds: ['novas'] });
    await channelListens(h, 'C2');
    for (let i = 0; i < 3; i += 1) {
      h.clock.advance(INTERVAL_MS);
      await a.engine.tick();
    }
    expect((await a.snapshots.state(WS)).recordedAt).not.toBeNull();
    expect(h.allPosts).toEqual([]);
  });
});

describe('FeedEngine: a read upstream refuses for good', () => {
  it('a users list the login may not read (403) does not stop the channel from getting new requests', async () => {
    const h = await start();
    await h.listeners.followOwn(WS, 'U-OWN', 'ninguem@exemplo.com.br');
    const a = h.feedReplica();
    await recorded(h, a);

    h.sandbox.faults.next({ path: '/v1/usuarios', status: 403, times: 1_000 });
    h.clock.advance(30_000);
    const made = h.sandbox.advance({ changes: 2, kinds: ['novas'] });
    h.clock.advance(INTERVAL_MS);
    const [report] = await a.engine.tick();
    expect(report).toMatchObject({ ran: true });
    expect(deliveredIds(h.allPosts).get('c-C1')?.sort()).toEqual(expectedIds(made).sort());
  });
});

describe('FeedEngine: a round longer than its lease', () => {
  it('stops without writing when another replica took the lease meanwhile', async () => {
    const h = await start();
    const a = h.feedReplica();
    // The workspace's first round, which reads the stockrooms (the receipts are recorded too).
    h.sandbox.faults.next({ path: '/v1/almoxarifados', delayMs: 400 });
    const round = a.engine.runIfDue(WS);
    await vi.waitFor(() => expect(h.sandbox.calls.some((c) => c.path === '/v1/almoxarifados')).toBe(true));
    // The lease ran out while A waited for upstream, and B took it.
    const lease = `${h.redis.prefix}feed:${WS}:round-lease`;
    await h.redis.redis.set(lease, 'replica-B');

    expect(await round).toEqual({ ran: false, workspaceId: WS, reason: 'lease-lost' });
    expect((await a.snapshots.requests(WS)).size).toBe(0);
    expect((await a.snapshots.state(WS)).recordedAt).toBeNull();
    expect(await h.redis.redis.get(lease)).toBe('replica-B');
  });
});

describe('FeedEngine and the budget', () => {
  it('never uses more than its share of any window, stretches its interval, and reports what waited', async () => {
    const h = await start();
    const HOUR = 3_600_000;
    // 50 calls an hour, 20 %: 10 feed calls in any hour.
    // The budget runs on the test's clock, whose timers only fire when told: a feed call that would wait for a
    // slot is refused at once instead (maxWaitMs 0), which is what a wait longer than 30 s comes to anyway.
    const a = h.feedReplica({
      budget: {
        limit: { count: 50, windowMs: HOUR },
        feedSharePercent: 20,
        onTestClock: true,
        maxWaitMs: { feed: 0 },
      },
    });
    const made: SandboxChange[] = [];
    const since = h.clock.now();
    for (let minute = 0; minute < 10 * 60; minute += 5) {
      if (minute % 35 === 0) made.push(...h.sandbox.advance({ changes: 2, kinds: ['novas'] }));
      await a.engine.tick();
      h.clock.advance(5 * 60_000);
    }
    // Token renewals serve every call of the credential and go at interactive priority (auth.ts): the feed's
    // share holds its data calls; the renewals are a login and one refresh per token lifetime (2 hours).
    const calls = h.sandbox.calls
      .filter((call) => call.at >= since && call.kind === 'data')
      .map((call) => call.at);
    for (const at of calls) {
      const inWindow = calls.filter((other) => other >= at && other < at + HOUR);
      expect(inWindow.length).toBeLessThanOrEqual(10);
    }
    const renewals = h.sandbox.calls.filter((call) => call.at >= since && call.kind !== 'data');
    expect(renewals.map((call) => `${call.kind}:${call.status}`)).toEqual([
      'login:200',
      ...Array(renewals.length - 1).fill('refresh:200'),
    ]);
    expect(renewals.length).toBeLessThanOrEqual(1 + 10 / 2);
    const status = await a.engine.status(WS);
    expect(status.intervalMs).toBeGreaterThan(INTERVAL_MS);
    // Interactive users still have the rest of the window.
    const usage = await a.replica.budget.usage(h.credentialId);
    expect(usage.feed.used).toBeLessThanOrEqual(10);
    expect(usage.remaining).toBeGreaterThanOrEqual(40);

    // Every new request made after the first round recorded and before the last round is reported, once.
    const reported = deliveredIds(h.allPosts).get('c-C1') ?? [];
    const { recordedAt, lastRoundAt } = await a.snapshots.state(WS);
    const expected = made.filter(
      (change) => change.at > (recordedAt ?? 0) && change.at <= (lastRoundAt ?? 0),
    );
    expect(expected.length).toBeGreaterThan(10);
    expect(reported.sort()).toEqual(expectedIds(expected).sort());
    noDuplicates(h);
  });

  it('records a list longer than the share of a window over several rounds, then reports what comes after', async () => {
    const h = await start();
    const HOUR = 3_600_000;
    // 20 calls an hour, 20 %: 4 feed calls in any hour; the 30-day list holds about 7 pages of 100.
    for (let i = 0; i < 6; i += 1) h.sandbox.advance({ changes: 100, kinds: ['novas'] });
    const a = h.feedReplica({
      budget: {
        limit: { count: 20, windowMs: HOUR },
        feedSharePercent: 20,
        onTestClock: true,
        maxWaitMs: { feed: 0 },
      },
    });
    for (let minute = 0; minute < 6 * 60 && (await a.snapshots.state(WS)).recordedAt === null; minute += 10) {
      await a.engine.tick();
      h.clock.advance(10 * 60_000);
    }
    expect((await a.snapshots.state(WS)).recordedAt).not.toBeNull();
    expect(h.allPosts).toEqual([]);
    const made = h.sandbox.advance({ changes: 2, kinds: ['novas'] });
    for (let minute = 0; minute < 3 * 60; minute += 10) {
      await a.engine.tick();
      h.clock.advance(10 * 60_000);
    }
    expect(deliveredIds(h.allPosts).get('c-C1')?.sort()).toEqual(expectedIds(made).sort());
    noDuplicates(h);
  });

  it('waits while the budget is spent and then reports everything since, once', async () => {
    const h = await start();
    const HOUR = 3_600_000;
    const a = h.feedReplica({
      budget: { limit: { count: 100, windowMs: HOUR }, feedSharePercent: 20, onTestClock: true },
      intervalMs: 10 * 60_000,
    });
    await a.engine.tick();
    h.clock.advance(10 * 60_000);
    await a.engine.tick();
    // Something else on the credential spends the feed's share of this hour (another workspace's rounds).
    const used = (await a.replica.budget.usage(h.credentialId)).feed.used;
    for (let i = used; i < 20; i += 1)
      await a.replica.budget.schedule(h.credentialId, 'feed', async () => undefined, { maxWaitMs: 0 });

    const made = h.sandbox.advance({ changes: 3, kinds: ['novas'] });
    h.clock.advance(HOUR / 2);
    const stopped = await a.engine.runIfDue(WS);
    expect(stopped).toMatchObject({ ran: true, round: { complete: false, calls: 0, detected: 0 } });
    expect(a.poster.posts).toHaveLength(0);
    const { nextRoundAt } = await a.snapshots.state(WS);
    // The next round is put after the share frees, not at the interval.
    expect(nextRoundAt).toBeGreaterThan(h.clock.now() + 10 * 60_000);

    // The status tells the truth: the last complete round was half an hour ago, not the share's interval.
    const waiting = await a.engine.status(WS);
    expect(waiting.intervalMs).toBeGreaterThanOrEqual(HOUR / 2);
    expect(waiting.stretchedBy).toBe('load');

    const more = h.sandbox.advance({ changes: 2, kinds: ['novas'] });
    h.clock.set(nextRoundAt ?? 0);
    const lastComplete = (await a.snapshots.state(WS)).lastCompleteAt ?? 0;
    await a.engine.tick();
    expect(deliveredIds(h.allPosts).get('c-C1')?.sort()).toEqual(expectedIds([...made, ...more]).sort());
    noDuplicates(h);
    // Complete again: the interval in force is the spacing of the two complete rounds.
    const after = await a.snapshots.state(WS);
    expect(after.lastCompleteAt).toBe(nextRoundAt);
    expect(after.intervalMs).toBe((nextRoundAt ?? 0) - lastComplete);
    expect((await a.engine.status(WS)).stretchedBy).toBe('load');

    // Rounds at the planned interval again: back to the interval the share pays for (FEED_INTERVAL, or longer when
    // a round's calls out of 20 an hour need it), no longer stretched by the wait.
    h.clock.set(after.nextRoundAt ?? 0);
    await a.engine.tick();
    const back = await a.engine.status(WS);
    const { shareIntervalMs, lastCompleteAt } = await a.snapshots.state(WS);
    expect(lastCompleteAt).toBe(after.nextRoundAt);
    expect(back.intervalMs).toBe(
      Math.max(shareIntervalMs ?? 0, (after.nextRoundAt ?? 0) - (nextRoundAt ?? 0)),
    );
    expect(back.intervalMs).toBeLessThan(HOUR / 2);
    expect(back.stretchedBy).not.toBe('load');
  });
});
