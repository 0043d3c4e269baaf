import { describe, expect, it } from 'vitest';
import { placeInInterval } from '../../../src/domain/feed/engine.js';
import type { FeedEvent } from '../../../src/domain/feed/types.js';
import {
  channelListens,
  type FeedHarness,
  type FeedReplica,
  feedHarnessPerTest,
  INTERVAL_MS,
  WS,
} from '../../helpers/feed-harness.js';

/**
 * The first listener of a workspace (nobody listened before): what changes right after the follow or the
 * subscription is told, whether it came before the workspace's first round (which only records) or after it.
 */
const DAY = 86_400_000;
const TICK_MS = 5_000;
const start = feedHarnessPerTest();

/** A request within the 30 days that can still move, and the status `/solicitacao <id> acompanhar` shows now. */
function recentRequest(h: FeedHarness) {
  const request = (h.sandbox.data.company(1)?.requests ?? []).find(
    (r) =>
      r.createdAt > h.clock.now() - 20 * DAY &&
      r.record.statusAndamentoSolicitacao === 1 &&
      r.record.statusAndamentoSolicitacao_Nome,
  );
  if (!request) throw new Error('no open request within the 30 days');
  return { id: request.record.solicitacaoMaterialId, status: request.record.statusAndamentoSolicitacao_Nome };
}

/** The engine's loop for `ms` of the test clock: a tick every 5 s, as a replica runs it. */
async function run(h: FeedHarness, a: FeedReplica, ms: number): Promise<void> {
  for (let elapsed = 0; elapsed < ms; elapsed += TICK_MS) {
    await a.engine.tick();
    h.clock.advance(TICK_MS);
  }
}

function eventsTo(h: FeedHarness, target: { kind: 'dm'; userId: string } | { kind: 'channel'; id: string }) {
  const posts = h.allPosts.filter((post) =>
    target.kind === 'dm'
      ? post.target.kind === 'dm' && post.target.userId === target.userId
      : post.target.kind === 'channel' && post.target.channelId === target.id,
  );
  return { posts, events: posts.flatMap((post): FeedEvent[] => post.events) };
}

describe('FeedEngine: the first listener of a workspace', () => {
  it('a follow: a change made seconds after it, before the first round, is DMed once', async () => {
    const h = await start();
    const a = h.feedReplica();
    const { id, status } = recentRequest(h);
    // `/solicitacao <id> acompanhar` keeps the status it showed; seconds later the request moves on.
    await h.listeners.follow(WS, 'U-FOLLOWER', id, status);
    h.clock.advance(2_000);
    const [moved] = h.sandbox.advance({ changes: 1, kinds: ['status'], requestIds: [id] });
    expect(moved).toMatchObject({ kind: 'status', solicitacaoMaterialId: id, fromNome: status });
    await run(h, a, 4 * INTERVAL_MS);

    const { posts, events } = eventsTo(h, { kind: 'dm', userId: 'U-FOLLOWER' });
    expect(posts).toHaveLength(1);
    expect(events).toEqual([
      expect.objectContaining({
        kind: 'status',
        requestId: id,
        fromStatus: status,
        toStatus: moved?.kind === 'status' ? moved.toNome : '?',
      }),
    ]);
    expect((await h.listeners.getFollow(WS, 'U-FOLLOWER', id))?.lastSeenStatus).toBe(
      moved?.kind === 'status' ? moved.toNome : '?',
    );
  });

  it('a follow: the first round runs at the next tick, so a change made seconds after that is DMed once', async () => {
    const h = await start();
    const a = h.feedReplica();
    const { id, status } = recentRequest(h);
    await h.listeners.follow(WS, 'U-FOLLOWER', id, status);
    // The replica's next tick: the workspace's first round records it now, not at its place in the interval.
    await a.engine.tick();
    h.clock.advance(3_000);
    const [moved] = h.sandbox.advance({ changes: 1, kinds: ['status'], requestIds: [id] });
    expect(moved).toMatchObject({ kind: 'status', solicitacaoMaterialId: id });
    await run(h, a, 4 * INTERVAL_MS);

    const { posts, events } = eventsTo(h, { kind: 'dm', userId: 'U-FOLLOWER' });
    expect(posts).toHaveLength(1);
    expect(events.map((e) => [e.kind, e.kind === 'status' ? e.requestId : 0])).toEqual([['status', id]]);
  });

  it('a channel: a request opened seconds after the subscription (after the next tick) is posted once', async () => {
    const h = await start();
    const a = h.feedReplica();
    await channelListens(h, 'C1');
    await a.engine.tick();
    h.clock.advance(3_000);
    const [made] = h.sandbox.advance({ changes: 1, kinds: ['novas'] });
    if (made?.kind !== 'novas') throw new Error('no new request');
    await run(h, a, 4 * INTERVAL_MS);

    const { posts, events } = eventsTo(h, { kind: 'channel', id: 'C1' });
    expect(posts).toHaveLength(1);
    expect(events.map((e) => e.id)).toEqual([`${WS}:novas:${made.solicitacaoMaterialId}`]);
  });

  it('own follows: a request of theirs opened seconds after `minhas acompanhar` (after the next tick) is DMed once', async () => {
    const h = await start();
    const a = h.feedReplica();
    // Everyone with an e-mail follows their own requests: whoever the new request's requester is, they follow it.
    const users = (h.sandbox.data.company(1)?.users ?? []).filter((u) => u.record.email);
    expect(users.length).toBeGreaterThan(0);
    for (const user of users)
      await h.listeners.followOwn(WS, `U-OWN-${user.record.usuario}`, user.record.email ?? '');
    await a.engine.tick();
    h.clock.advance(3_000);
    const [made] = h.sandbox.advance({ changes: 1, kinds: ['novas'] });
    if (made?.kind !== 'novas') throw new Error('no new request');
    await run(h, a, 4 * INTERVAL_MS);

    const { posts, events } = eventsTo(h, { kind: 'dm', userId: `U-OWN-${made.solicitante}` });
    expect(posts).toHaveLength(1);
    expect(events.map((e) => e.id)).toEqual([`${WS}:novas:${made.solicitacaoMaterialId}`]);
  });

  it('a listener who comes back after a round found none has the recording round at the next tick too', async () => {
    const h = await start();
    const a = h.feedReplica();
    await channelListens(h, 'C1');
    await run(h, a, INTERVAL_MS);
    // The channel's feed goes without the listener store noticing (as when it left while a round ran): the next round
    // finds no listener, takes the workspace out and forgets what it saw.
    await h.redis.redis.hdel(h.redis.keys.feedChannels(WS), 'C1');
    let reports: Awaited<ReturnType<typeof a.engine.tick>> = [];
    while (reports.length === 0) {
      h.clock.advance(TICK_MS);
      reports = await a.engine.tick();
    }
    expect(reports).toEqual([{ ran: false, workspaceId: WS, reason: 'no-listeners' }]);
    expect(await a.snapshots.scheduled()).toEqual(new Set());
    // Seconds later, someone subscribes again.
    h.clock.advance(10_000);
    await channelListens(h, 'C2');
    await a.engine.tick();
    h.clock.advance(3_000);
    const [made] = h.sandbox.advance({ changes: 1, kinds: ['novas'] });
    if (made?.kind !== 'novas') throw new Error('no new request');
    await run(h, a, 4 * INTERVAL_MS);

    const { posts, events } = eventsTo(h, { kind: 'channel', id: 'C2' });
    expect(posts).toHaveLength(1);
    expect(events.map((e) => e.id)).toEqual([`${WS}:novas:${made.solicitacaoMaterialId}`]);
  });

  it('the round after the first falls at the workspace’s place in the interval, unless the share cut the first short', async () => {
    const h = await start();
    const a = h.feedReplica();
    await channelListens(h, 'C1');
    const [first] = await a.engine.tick();
    expect(first).toMatchObject({ ran: true, round: { recorded: true, complete: true } });
    const placed = (await a.snapshots.state(WS)).nextRoundAt ?? 0;
    expect(placed).toBe(placeInInterval(h.clock.now() + INTERVAL_MS, WS, INTERVAL_MS));

    // The listener leaves (what the feed saw is forgotten) and comes back to a replica whose share pays for one call
    // an hour: its first round stops after page 1.
    const HOUR = 3_600_000;
    await h.listeners.removeChannel(WS, 'C1');
    const b = h.feedReplica({
      budget: {
        limit: { count: 5, windowMs: HOUR },
        feedSharePercent: 20,
        onTestClock: true,
        maxWaitMs: { feed: 0 },
      },
    });
    // Past the answers the first replica's round left in the cache.
    h.clock.advance(10 * 60_000);
    await channelListens(h, 'C1');
    const [cut] = await b.engine.tick();
    if (!cut?.ran) throw new Error('the first round did not run');
    expect(cut.round.complete).toBe(false);
    // Planned by the share alone (or when a slot frees), as any round.
    expect((await b.snapshots.state(WS)).nextRoundAt).toBe(
      Math.max(cut.startedAt + cut.intervalMs, cut.round.budgetRetryAt ?? 0),
    );
  });
});
