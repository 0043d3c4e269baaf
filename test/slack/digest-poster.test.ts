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
  it('posts at most one message per second in a channel, across replicas: the second waits for the slot', async () => {
    harness = await startDigestHarness(saoPaulo(2026, 11, 23, 7));
    const h = harness;
    const client = new webApi.WebClient('xoxb-poster', {
      slackApiUrl: h.slack.apiUrl,
      retryConfig: { retries: 0 },
    });
    const [a, b, c] = [h.replica(), h.replica(), h.replica()];
    const results = await Promise.all([
      a.poster.post(client, WS, CHANNELS.general, message),
      b.poster.post(client, WS, CHANNELS.general, message),
      c.poster.post(client, WS, CHANNELS.stockroom, message),
    ]);
    expect(results.every((result) => result.ok)).toBe(true);
    expect(h.posts(CHANNELS.general)).toHaveLength(2);
    expect(h.posts(CHANNELS.stockroom)).toHaveLength(1);
    // One of the two replicas found the channel's slot (a one-second key in the store) taken and polled until it
    // expired; the other posted at once, and so did the post in another channel. Asserted on the waits, not on
    // the gap between arrivals at the fake Slack, which a loaded machine can shorten after the slot was taken.
    const waiters = [a, b].filter((replica) => replica.sleeps.length > 0);
    expect(waiters).toHaveLength(1);
    expect(waiters[0]!.sleeps.every((ms) => ms === 100)).toBe(true);
    expect(c.sleeps).toEqual([]);
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

  it("Slack's refusals: fatal_error and internal_error tried again saying it may repeat; the app's, the channel's", async () => {
    harness = await startDigestHarness(saoPaulo(2026, 11, 23, 7));
    const h = harness;
    const client = new webApi.WebClient('xoxb-poster', {
      slackApiUrl: h.slack.apiUrl,
      retryConfig: { retries: 0 },
    });
    const poster = h.replica().poster;
    for (const error of ['fatal_error', 'internal_error']) {
      h.slack.failNext('chat.postMessage', { error });
      expect(await poster.post(client, WS, CHANNELS.general, message)).toEqual({
        ok: false,
        kind: 'retry',
        reason: error,
        mayHaveArrived: true,
      });
    }
    // For the app or its token in the workspace: no post there can succeed (the scheduler pauses the workspace).
    for (const error of [
      'missing_scope',
      'not_allowed_token_type',
      'invalid_auth',
      'two_factor_setup_required',
    ]) {
      h.slack.failNext('chat.postMessage', { error });
      expect(await poster.post(client, WS, CHANNELS.general, message)).toEqual({
        ok: false,
        kind: 'unauthorized',
        error,
      });
    }
    // For the channel: the subscription goes. `access_denied`: "Access to a resource specified in the request is
    // denied", and the one resource a post names is its channel (until 2026-11-27 retried every tick, every day).
    for (const error of ['no_permission', 'ekm_access_denied', 'access_denied']) {
      h.slack.failNext('chat.postMessage', { error });
      expect(await poster.post(client, WS, CHANNELS.general, message)).toEqual({
        ok: false,
        kind: 'channel_gone',
        error,
      });
    }
    // A workspace migrating to an Enterprise org is waited out.
    h.slack.failNext('chat.postMessage', { error: 'org_login_required' });
    expect(await poster.post(client, WS, CHANNELS.general, message)).toEqual({
      ok: false,
      kind: 'retry',
      reason: 'org_login_required',
    });
    // A refusal of the message for what it holds: the same message would be refused again (until 2026-11-27 a
    // retry, every tick).
    for (const error of [
      'invalid_blocks',
      'msg_too_long',
      'invalid_blocks_format',
      'no_text',
      'invalid_arguments',
    ]) {
      h.slack.failNext('chat.postMessage', { error });
      expect(await poster.post(client, WS, CHANNELS.general, message)).toEqual({
        ok: false,
        kind: 'refused',
        error,
      });
    }
    // Of the moment, or not known: retried.
    for (const error of ['service_unavailable', 'message_limit_exceeded', 'request_timeout']) {
      h.slack.failNext('chat.postMessage', { error });
      expect(await poster.post(client, WS, CHANNELS.general, message)).toEqual({
        ok: false,
        kind: 'retry',
        reason: error,
      });
    }
  });
});
