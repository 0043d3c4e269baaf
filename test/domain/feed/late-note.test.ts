import { describe, expect, it } from 'vitest';
import { renderFeedPost } from '../../../src/render/feed.js';
import { channelListens, feedHarnessPerTest, WS } from '../../helpers/feed-harness.js';

const HOUR = 3_600_000;
const INTERVAL = 10 * 60_000;
const start = feedHarnessPerTest();

/**
 * PRODUCT.md: a change made "while the budget was spent, is reported by the next round that runs (saying when it
 * was detected)". Rounds the budget stops before they read anything still run at their plan; what the late note
 * counts from is the last round that read the list, not the last one that ran.
 */
describe('FeedEngine: the late note', () => {
  it('changes that waited an hour for the budget are posted late, since the last round that read the list', async () => {
    const h = await start();
    const a = h.feedReplica({
      budget: {
        limit: { count: 100, windowMs: HOUR },
        feedSharePercent: 20,
        onTestClock: true,
        maxWaitMs: { feed: 0 },
      },
      intervalMs: INTERVAL,
    });
    await channelListens(h, 'C1');
    await a.engine.tick(); // plans the workspace
    h.clock.advance(INTERVAL);
    await a.engine.tick(); // records
    const recorded = await a.snapshots.state(WS);
    expect(recorded.recordedAt).not.toBeNull();
    const lastRead = recorded.lastRoundAt ?? 0;

    // Right after, something else on the credential keeps the feed's share spent for an hour and a half: every
    // slot that frees is taken again before the round comes, so each round stops before its first read.
    h.clock.advance(60_000);
    const madeAt = h.clock.now();
    const made = h.sandbox.advance({ changes: 2, kinds: ['novas'] });
    const spendShare = async () => {
      for (let i = 0; i < 30; i += 1) {
        try {
          await a.replica.budget.schedule(h.credentialId, 'feed', async () => undefined, { maxWaitMs: 0 });
        } catch {
          return;
        }
      }
    };
    let stopped = 0;
    while (h.clock.now() - madeAt < 90 * 60_000) {
      h.clock.set(Math.max(h.clock.now(), (await a.snapshots.state(WS)).nextRoundAt ?? 0));
      await spendShare();
      expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true, round: { complete: false, calls: 0 } });
      stopped += 1;
    }
    expect(stopped).toBeGreaterThan(1);
    expect(a.poster.posts).toHaveLength(0);

    // The share frees: the next round reads and reports, saying the changes may be from any time since the last
    // round that read the list (before they were made), not since the last round that stopped.
    h.clock.set(Math.max(h.clock.now(), (await a.snapshots.state(WS)).nextRoundAt ?? 0));
    await a.engine.runIfDue(WS);
    const post = a.poster.posts.find((p) => p.target.kind === 'channel');
    expect(post?.events).toHaveLength(made.length);
    expect(post?.lateSince).toBe(lastRead);
    expect(post?.lateSince).toBeLessThanOrEqual(madeAt);
    const message = renderFeedPost(
      post?.target ?? { kind: 'channel', channelId: 'C1' },
      post?.events ?? [],
      { timeZone: 'America/Sao_Paulo', now: h.clock.now() },
      { lateSince: post?.lateSince ?? null },
    );
    expect(JSON.stringify(message?.blocks)).toContain('atraso');
  });
});
