import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_SEED } from '../../src/fake-slack/index.js';
import {
  CHANNELS,
  eventually,
  type Harness,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../helpers/bot-harness.js';

/**
 * The Web API retries of listeners, bounded (src/slack/web-clients.ts): seen as the calls the fake Slack received
 * and what the user and the log get, never as durations.
 */

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const callsOf = (method: string) => h.slack.calls.filter((c) => c.method === method);

function mention(): { event: object; ts: string } {
  const ts = `${Math.floor(Date.now() / 1000)}.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
  return {
    ts,
    event: {
      type: 'app_mention',
      user: USERS.member,
      text: `<@${FAKE_SEED.botUserId}> oi`,
      channel: CHANNELS.general,
      ts,
      event_ts: ts,
    },
  };
}

describe('views.open, tied to a trigger_id', () => {
  it('is tried at most twice when Slack fails, then the admin is told the form could not open', async () => {
    h.slack.failNext('views.open', { status: 500 }, 10);
    const result = await h.command('/estoque', 'vincular', { user: USERS.admin });
    expect(result.status).toBe(200);
    const told = await h.nextMessage(result.sentAt, { userId: USERS.admin });
    expect(textOf(told)).toMatch(/não foi possível abrir o formulário/);
    expect(callsOf('views.open')).toHaveLength(2);
    expect(h.slack.views).toHaveLength(0);
  });

  it('is not retried past a 429 (the trigger would be dead by the Retry-After)', async () => {
    h.slack.failNext('views.open', { status: 429, retryAfterSec: 30 }, 1);
    const result = await h.command('/estoque', 'vincular', { user: USERS.admin });
    const told = await h.nextMessage(result.sentAt, { userId: USERS.admin });
    expect(textOf(told)).toMatch(/não foi possível abrir o formulário/);
    expect(callsOf('views.open')).toHaveLength(1);
  });
});

describe('other calls of listeners', () => {
  it('retry a 5xx twice, then give up (the failure is logged)', async () => {
    h.slack.failNext('chat.postMessage', { status: 503 }, 10);
    const { event } = mention();
    expect((await h.event(event, TEAM)).status).toBe(200);
    await eventually(() => h.logs.some((l) => l.includes('chat help not sent')));
    expect(callsOf('chat.postMessage')).toHaveLength(3);
  });

  it('throw a 429 at once, without waiting for its Retry-After', async () => {
    h.slack.failNext('chat.postMessage', { status: 429, retryAfterSec: 120 }, 1);
    const { event } = mention();
    await h.event(event, TEAM);
    await eventually(() => h.logs.some((l) => l.includes('chat help not sent')));
    expect(callsOf('chat.postMessage')).toHaveLength(1);
  });

  it('succeed on a retry when Slack recovers', async () => {
    h.slack.failNext('chat.postMessage', { status: 500 }, 1);
    const { event, ts } = mention();
    await h.event(event, TEAM);
    await eventually(() => h.slack.messages.find((m) => m.threadTs === ts));
    expect(callsOf('chat.postMessage')).toHaveLength(2);
  });
});
