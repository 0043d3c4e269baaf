import { describe, expect, it } from 'vitest';
import { DELIVERED_KEEP_MS } from '../../../src/store/feed-snapshot-store.js';
import { deliveredIds, feedHarnessPerTest, INTERVAL_MS, WS } from '../../helpers/feed-harness.js';

const DAY = 86_400_000;
const start = feedHarnessPerTest();

/**
 * An event stays in the outbox until every target it matches has it, or 7 days after the last resume of a paused
 * workspace; the `sent` claims that keep a target from getting it twice expire after DELIVERED_KEEP_MS. A pause
 * longer than that must not let them expire while the event still waits for another target.
 */
describe('FeedEngine: a workspace paused longer than the delivery claims live', () => {
  it('a channel that had an event does not get it again when the workspace resumes 5 weeks later', async () => {
    const h = await start();
    const a = h.feedReplica();
    for (const channelId of ['C-OK', 'C-FLAKY'])
      await h.listeners.upsertChannel({ workspaceId: WS, channelId, stockroomId: null, subscribedBy: 'U1' });
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true, round: { recorded: true } });

    // A new request: C-OK gets it; Slack refuses C-FLAKY's post for now (a 5xx, retried later).
    h.clock.advance(60_000);
    h.sandbox.advance({ changes: 1, kinds: ['novas'] });
    a.poster.results.set('c-C-FLAKY', { ok: false, lost: false, error: 'internal_error' });
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);
    expect(deliveredIds(a.poster.posts).get('c-C-OK')).toHaveLength(1);

    // The Slack token is revoked before the next round: the workspace pauses, and its claims stop expiring.
    await h.listeners.pauseWorkspace(WS, 'tokens_revoked');
    const claims = await h.redis.redis.keys(`${h.redis.keys.feedDeliveryPrefix(WS)}*`);
    expect(claims.length).toBeGreaterThan(0);
    for (const key of claims) expect(await h.redis.redis.pttl(key)).toBe(-1);

    // Five weeks go by, for Redis too: a key whose time to live is shorter than that is gone.
    h.clock.advance(35 * DAY);
    for (const key of await h.redis.redis.keys(`${h.redis.keys.feedDeliveryPrefix(WS)}*`)) {
      const ttl = await h.redis.redis.pttl(key);
      if (ttl >= 0 && ttl < 35 * DAY) await h.redis.redis.del(key);
    }
    // A reinstall resumes it: the claims expire again, counted from now.
    await h.listeners.resumeWorkspace(WS, 'tokens_revoked');
    for (const key of claims) {
      expect(await h.redis.redis.pttl(key)).toBeGreaterThan(DELIVERED_KEEP_MS - DAY);
    }
    a.poster.results.delete('c-C-FLAKY');
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);
    h.clock.advance(10 * INTERVAL_MS);
    await a.engine.runIfDue(WS);

    const perTarget = deliveredIds(a.poster.posts);
    // What waited through the pause is posted where it was owed, and only there.
    expect(perTarget.get('c-C-FLAKY')).toHaveLength(1);
    expect(perTarget.get('c-C-OK')).toHaveLength(1);
    expect(await a.snapshots.outbox(WS)).toEqual([]);
  });
});
