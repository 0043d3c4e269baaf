import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FeedSnapshotStore } from '../../src/store/feed-snapshot-store.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { CHANNELS, type Harness, startHarness, TEAM, textOf } from '../helpers/bot-harness.js';

/**
 * The feed end to end: a channel subscribes over a signed command, the sandbox moves along, the container's engine
 * runs its rounds, and the fake Slack receives the feed's message through the real poster, once.
 */

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

describe('the change feed in Slack', () => {
  it('posts new requests to the subscribed channel once, after a first round that only records', async () => {
    const subscribed = await h.command('/estoque', 'alertas assinar eventos:novas');
    await h.nextMessage(subscribed.sentAt, { channel: CHANNELS.stockroom, ephemeral: false });
    const state = new FeedSnapshotStore(new RedisKeyValue(h.redis.redis), h.redis.keys);
    // The round is due now (its place in the interval would otherwise be up to 2 minutes away).
    const due = () => state.updateState(TEAM, { nextRoundAt: Date.now() });
    const feedPosts = () =>
      h.slack.messages.filter(
        (m) => m.channel === CHANNELS.stockroom && m.via === 'chat.postMessage' && !m.ephemeral,
      );
    const before = feedPosts().length;

    await due();
    expect(await h.container.feed.runIfDue(TEAM)).toMatchObject({ ran: true, round: { recorded: true } });
    expect(feedPosts()).toHaveLength(before);

    const made = h.sandbox.advance({ changes: 2, kinds: ['novas'] });
    const since = Date.now();
    await due();
    expect(await h.container.feed.runIfDue(TEAM)).toMatchObject({
      ran: true,
      delivery: { posts: 1, delivered: 2 },
    });
    const post = await h.nextMessage(since, { channel: CHANNELS.stockroom, ephemeral: false });
    for (const change of made) {
      if (change.kind === 'novas')
        expect(textOf(post)).toContain(`Nova solicitação *${change.solicitacaoMaterialId}*`);
    }

    await due();
    await h.container.feed.runIfDue(TEAM);
    expect(feedPosts()).toHaveLength(before + 1);
    const status = await h.container.linkService.status(TEAM);
    expect(status.feed).toMatchObject({ listening: true, intervalMs: 120_000, cap: 50 });
    expect(status.feed?.used).toBeGreaterThan(0);
  });

  it('Slack refusing the app (missing_scope) pauses the workspace feed: no more rounds, no upstream calls', async () => {
    const subscribed = await h.command('/estoque', 'alertas assinar eventos:novas');
    await h.nextMessage(subscribed.sentAt, { channel: CHANNELS.stockroom, ephemeral: false });
    const state = new FeedSnapshotStore(new RedisKeyValue(h.redis.redis), h.redis.keys);
    const due = () => state.updateState(TEAM, { nextRoundAt: Date.now() });
    await due();
    expect(await h.container.feed.runIfDue(TEAM)).toMatchObject({ ran: true, round: { recorded: true } });

    // From now on Slack refuses every post: the app was installed without chat:write.
    h.slack.failNext('chat.postMessage', { error: 'missing_scope' }, 10_000);
    h.sandbox.advance({ changes: 2, kinds: ['novas'] });
    await due();
    expect(await h.container.feed.runIfDue(TEAM)).toMatchObject({ ran: true, delivery: { delivered: 0 } });
    expect(await h.container.feedListeners.pausedReason(TEAM)).toBe('tokens_revoked');

    // Rounds that come due later (an hour of them) read nothing upstream and try no post. Until 2026-11-27 each read
    // the list and failed its post, every round, until the events were dropped 7 days later.
    const calls = h.sandbox.calls.length;
    const posts = h.slack.calls.filter((call) => call.method === 'chat.postMessage').length;
    for (let round = 0; round < 30; round += 1) {
      h.sandbox.advance({ changes: 1, kinds: ['novas'] });
      await due();
      expect(await h.container.feed.runIfDue(TEAM)).toMatchObject({ ran: false, reason: 'paused' });
    }
    expect(h.sandbox.calls.length).toBe(calls);
    expect(h.slack.calls.filter((call) => call.method === 'chat.postMessage')).toHaveLength(posts);
  });
});
