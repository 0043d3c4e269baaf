import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../src/render/index.js';
import { CHANNELS, type Harness, saoPaulo, startDigestHarness, WS } from '../helpers/digest-harness.js';

let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const message: Message = { text: 'oi', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'oi' } }] };

describe('DigestPoster', () => {
  it('posts at most one message per second in a channel, across replicas', async () => {
    harness = await startDigestHarness(saoPaulo(2026, 11, 23, 7));
    const h = harness;
    const client = new webApi.WebClient('xoxb-poster', {
      slackApiUrl: h.slack.apiUrl,
      retryConfig: { retries: 0 },
    });
    const [a, b] = [h.replica(), h.replica()];
    const results = await Promise.all([
      a.poster.post(client, WS, CHANNELS.general, message),
      b.poster.post(client, WS, CHANNELS.general, message),
      a.poster.post(client, WS, CHANNELS.stockroom, message),
    ]);
    expect(results.every((result) => result.ok)).toBe(true);
    const times = h.slack.calls
      .filter((call) => call.method === 'chat.postMessage' && call.args.channel === CHANNELS.general)
      .map((call) => call.at)
      .sort((x, y) => x - y);
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(900);
  });

  it('a guard that says stop sends nothing', async () => {
    harness = await startDigestHarness(saoPaulo(2026, 11, 23, 7));
    const h = harness;
    const client = new webApi.WebClient('xoxb-poster', {
      slackApiUrl: h.slack.apiUrl,
      retryConfig: { retries: 0 },
    });
    const result = await h.replica().poster.post(client, WS, CHANNELS.general, message, async () => false);
    expect(result).toEqual({ ok: false, kind: 'stopped' });
    expect(h.posts(CHANNELS.general)).toHaveLength(0);
  });
});
