import { describe, expect, it } from 'vitest';
import { FAKE_SEED } from '../../../src/fake-slack/index.js';
import {
  type FeedHarness,
  feedHarnessPerTest,
  INTERVAL_MS,
  recorded,
  WS,
} from '../../helpers/feed-harness.js';
import { captureLogger } from '../../helpers/upstream-stack.js';

/**
 * A feed post Slack refuses for what it holds (`invalid_blocks`, `msg_too_long`): through the real SlackFeedPoster
 * to the fake Slack, over several rounds of the engine. Such a message is refused again however often it is sent;
 * until 2026-11-27 it was given back and posted again every round, for a week, and never reached anyone.
 */
const DAY = 86_400_000;
const CHANNEL = FAKE_SEED.channels.general;
const SUBSCRIBER = FAKE_SEED.users.member;
const FOLLOWER = FAKE_SEED.users.owner;
const start = feedHarnessPerTest();

const postCalls = (h: FeedHarness) => h.slack.calls.filter((call) => call.method === 'chat.postMessage');

async function rounds(h: FeedHarness, engine: { runIfDue(ws: string): Promise<unknown> }, count: number) {
  for (let round = 0; round < count; round += 1) {
    h.clock.advance(INTERVAL_MS);
    await engine.runIfDue(WS);
  }
}

/** A request within the 30 days that can still move, and its status now. */
function openRequest(h: FeedHarness) {
  const request = (h.sandbox.data.company(1)?.requests ?? []).find(
    (r) =>
      r.createdAt > h.clock.now() - 20 * DAY &&
      r.record.statusAndamentoSolicitacao === 1 &&
      r.record.statusAndamentoSolicitacao_Nome,
  );
  if (!request) throw new Error('no open request within the 30 days');
  return { id: request.record.solicitacaoMaterialId, status: request.record.statusAndamentoSolicitacao_Nome };
}

describe('a feed post Slack refuses for its content', () => {
  for (const error of ['invalid_blocks', 'msg_too_long'] as const) {
    it(`${error} in a channel: one plain fallback naming the events instead, and never posted again`, async () => {
      const h = await start();
      const { logger, lines } = captureLogger('debug');
      const a = h.feedReplica({ slack: { logger } });
      await h.listeners.upsertChannel({
        workspaceId: WS,
        channelId: CHANNEL,
        stockroomId: null,
        subscribedBy: SUBSCRIBER,
      });
      await recorded(h, a.engine);
      const made = h.sandbox.advance({ changes: 2, kinds: ['novas'] });
      h.slack.failNext('chat.postMessage', { error });
      await rounds(h, a.engine, 5);

      // The round's message, refused; its fallback, taken; nothing after, in any round.
      expect(postCalls(h).map((call) => call.error ?? 'ok')).toEqual([error, 'ok']);
      const posts = h.posts(CHANNEL);
      expect(posts).toHaveLength(1);
      const text = posts[0]?.text ?? '';
      expect(text).toContain('Novidades do estoque');
      expect(text).toContain('o Slack recusou a mensagem');
      for (const change of made)
        if (change.kind === 'novas') expect(text).toContain(String(change.solicitacaoMaterialId));
      expect(posts[0]?.blocks ?? []).toEqual([]);
      expect(postCalls(h)[1]?.args.blocks).toBeUndefined();
      // Delivered (never posted again), the feed kept, nothing paused, nobody told its feed was lost.
      expect(await a.snapshots.outbox(WS)).toEqual([]);
      expect(await h.listeners.getChannel(WS, CHANNEL)).not.toBeNull();
      expect(await h.listeners.pausedReason(WS)).toBeNull();
      expect(h.dms(SUBSCRIBER)).toEqual([]);
      // The operator's line: Slack's code and the sizes of what it refused.
      const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(logged).toContainEqual(
        expect.objectContaining({
          level: 50,
          slackError: error,
          blocks: expect.any(Number),
          textLength: expect.any(Number),
        }),
      );
    });
  }

  it('a follow DM refused, its fallback too: given up for that DM (logged), the follow kept, later changes DMed', async () => {
    const h = await start();
    const a = h.feedReplica({ slack: true });
    const { id, status } = openRequest(h);
    await h.listeners.follow(WS, FOLLOWER, id, status);
    await recorded(h, a.engine);
    const [moved] = h.sandbox.advance({ changes: 1, kinds: ['status'], requestIds: [id] });
    expect(moved).toMatchObject({ kind: 'status', solicitacaoMaterialId: id });
    // Every post refused for its content, the plain fallback too.
    h.slack.failNext('chat.postMessage', { error: 'invalid_blocks' }, 10_000);
    await rounds(h, a.engine, 5);

    expect(postCalls(h).map((call) => call.error)).toEqual(['invalid_blocks', 'invalid_blocks']);
    expect(h.dms(FOLLOWER)).toEqual([]);
    expect(await a.snapshots.outbox(WS)).toEqual([]);
    expect(await h.listeners.getFollow(WS, FOLLOWER, id)).not.toBeNull();
    expect(await h.listeners.pausedReason(WS)).toBeNull();

    // Slack takes messages again: the next change is DMed as usual.
    h.slack.clearFailures('chat.postMessage');
    h.sandbox.advance({ changes: 1, kinds: ['status'], requestIds: [id] });
    await rounds(h, a.engine, 1);
    const dms = h.dms(FOLLOWER);
    expect(dms).toHaveLength(1);
    expect(JSON.stringify(dms[0]?.blocks)).toContain(`Solicitação *${id}*`);
  });

  it('a follow DM refused once (msg_too_long): the plain fallback goes to the follower, once', async () => {
    const h = await start();
    const a = h.feedReplica({ slack: true });
    const { id, status } = openRequest(h);
    await h.listeners.follow(WS, FOLLOWER, id, status);
    await recorded(h, a.engine);
    h.sandbox.advance({ changes: 1, kinds: ['status'], requestIds: [id] });
    h.slack.failNext('chat.postMessage', { error: 'msg_too_long' });
    await rounds(h, a.engine, 5);

    expect(postCalls(h).map((call) => call.error ?? 'ok')).toEqual(['msg_too_long', 'ok']);
    const dms = h.dms(FOLLOWER);
    expect(dms).toHaveLength(1);
    expect(dms[0]?.text).toContain('Novidades do que você acompanha');
    expect(dms[0]?.text).toContain(String(id));
    expect(dms[0]?.blocks ?? []).toEqual([]);
    expect(await a.snapshots.outbox(WS)).toEqual([]);
  });
});
