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
import { consoleAndStderr } from '../helpers/console-spy.js';

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
    expect(textOf(told)).toMatch(/Não consegui abrir o formulário de vínculo/);
    expect(callsOf('views.open')).toHaveLength(2);
    expect(h.slack.views).toHaveLength(0);
  });

  it('is not retried past a 429 (the trigger would be dead by the Retry-After)', async () => {
    h.slack.failNext('views.open', { status: 429, retryAfterSec: 30 }, 1);
    const result = await h.command('/estoque', 'vincular', { user: USERS.admin });
    const told = await h.nextMessage(result.sentAt, { userId: USERS.admin });
    expect(textOf(told)).toMatch(/Não consegui abrir o formulário de vínculo/);
    expect(callsOf('views.open')).toHaveLength(1);
  });
});

/** `/estoque almoxarifados` whose response_url is dead: the answer goes by chat.postEphemeral, retried. */
async function answerByEphemeral() {
  h.slack.failNext('response_url', { error: 'expired_url' }, 1);
  return h.command('/estoque', 'almoxarifados');
}

describe('other calls of listeners', () => {
  it('retry a 5xx twice, then give up (the failure is logged, the answer goes another way)', async () => {
    h.slack.failNext('chat.postEphemeral', { status: 503 }, 10);
    const result = await answerByEphemeral();
    const answer = await h.nextMessage(result.sentAt, { userId: USERS.member });
    expect(answer.via).toBe('chat.postMessage');
    expect(callsOf('chat.postEphemeral')).toHaveLength(3);
    await eventually(() => h.logs.some((l) => l.includes('chat.postEphemeral: slack_webapi_http_error')));
  });

  it('throw a 429 at once, without waiting for its Retry-After', async () => {
    h.slack.failNext('chat.postEphemeral', { status: 429, retryAfterSec: 120 }, 1);
    const result = await answerByEphemeral();
    const answer = await h.nextMessage(result.sentAt, { userId: USERS.member });
    expect(answer.via).toBe('chat.postMessage');
    expect(callsOf('chat.postEphemeral')).toHaveLength(1);
  });

  it('succeed on a retry when Slack recovers', async () => {
    h.slack.failNext('chat.postEphemeral', { status: 500 }, 1);
    const result = await answerByEphemeral();
    const answer = await h.nextMessage(result.sentAt, { userId: USERS.member });
    expect(answer.via).toBe('chat.postEphemeral');
    expect(callsOf('chat.postEphemeral')).toHaveLength(2);
  });
});

/**
 * A message posted in a channel or a DM (chat.postMessage) is made once: a 5xx or a reply lost may come after
 * Slack posted it, and until 2026-11-27 the listeners' client posted it again, up to 3 times.
 */
describe('messages posted in a channel or a DM', () => {
  it('the chat help: a 5xx is not retried (logged), and a reply lost leaves one help in the thread', async () => {
    h.slack.failNext('chat.postMessage', { status: 503 }, 10);
    await h.event(mention().event, TEAM);
    await eventually(() => h.logs.some((l) => l.includes('chat help not sent')));
    expect(callsOf('chat.postMessage')).toHaveLength(1);

    h.slack.clearFailures();
    h.slack.failNext('chat.postMessage', { dropReply: true }, 1);
    const { event, ts } = mention();
    await h.event(event, TEAM);
    await eventually(() => h.logs.filter((l) => l.includes('chat help not sent')).length === 2);
    expect(callsOf('chat.postMessage')).toHaveLength(2);
    expect(h.slack.messages.filter((m) => m.threadTs === ts)).toHaveLength(1);
  });

  it.each([
    [
      'resumo assinar 07:30',
      /assinou o resumo diário/,
      () => h.container.subscriptions.get(TEAM, CHANNELS.stockroom),
    ],
    [
      'alertas assinar',
      /assinou os alertas do estoque/,
      () => h.container.feedListeners.getChannel(TEAM, CHANNELS.stockroom),
    ],
  ] as const)(
    '/estoque %s whose confirmation reached the channel but whose reply was lost: posted once, subscribed, the subscriber told',
    async (text, confirmation, stored) => {
      await h.link(TEAM);
      h.slack.failNext('chat.postMessage', { dropReply: true }, 1);
      const result = await h.command('/estoque', text);
      const told = await h.nextMessage(result.sentAt, { userId: USERS.member, ephemeral: true });
      expect(textOf(told)).toMatch(confirmation);
      expect(textOf(told)).toContain('O Slack não confirmou se este aviso apareceu no canal');
      expect(callsOf('chat.postMessage')).toHaveLength(1);
      const inChannel = h.slack.messages.filter((m) => m.channel === CHANNELS.stockroom && !m.ephemeral);
      expect(inChannel).toHaveLength(1);
      expect(textOf(inChannel[0]!)).toMatch(confirmation);
      expect(await stored()).toMatchObject({ subscribedBy: USERS.member });
    },
  );

  it('/estoque resumo assinar whose confirmation got a 502: posted once, subscribed, the subscriber told', async () => {
    await h.link(TEAM);
    h.slack.failNext('chat.postMessage', { status: 502 }, 10);
    const result = await h.command('/estoque', 'resumo assinar 07:30');
    const told = await h.nextMessage(result.sentAt, { userId: USERS.member, ephemeral: true });
    expect(textOf(told)).toContain('O Slack não confirmou se este aviso apareceu no canal');
    expect(callsOf('chat.postMessage')).toHaveLength(1);
    expect(await h.container.subscriptions.get(TEAM, CHANNELS.stockroom)).toMatchObject({
      hour: 7,
      minute: 30,
    });
  });

  it('an answer by DM (response_url dead, no channel): posted once when its reply is lost', async () => {
    h.slack.failNext('response_url', { error: 'expired_url' }, 1);
    h.slack.failNext('chat.postMessage', { dropReply: true }, 1);
    // The bot is not a member there: chat.postEphemeral answers not_in_channel, and the answer goes by DM.
    await h.command('/estoque', 'almoxarifados', { channel: CHANNELS.withoutBot });
    await eventually(() => h.logs.some((l) => l.includes('dm: slack_webapi_request_error')));
    expect(callsOf('chat.postMessage')).toHaveLength(1);
    expect(h.slack.messages.filter((m) => m.channel.startsWith('D'))).toHaveLength(1);
  });
});

/**
 * Every client the bot uses logs through pino (slack-logger.ts): until 2026-11-27 the clients of web-clients.ts
 * (and the single-workspace auth.test's, test/slack/single-workspace-acks.test.ts) had no logger, and a failed call
 * wrote `[WARN]  web-api:WebClient:1 http request failed fetch failed` as plain text on stderr.
 */
describe("the clients' own lines", () => {
  it('a call whose reply is lost writes nothing on the console or stderr: its line is in the JSON log', async () => {
    const outside = consoleAndStderr();
    try {
      // The chat help's post: singleAttemptClient (web-clients.ts).
      h.slack.failNext('chat.postMessage', { dropReply: true }, 1);
      await h.event(mention().event, TEAM);
      await eventually(() => h.logs.some((l) => l.includes('chat help not sent')));
      // An answer by chat.postEphemeral: the listener's own client (Bolt's), retried twice.
      h.slack.failNext('chat.postEphemeral', { dropReply: true }, 3);
      await answerByEphemeral();
      await eventually(
        () => callsOf('chat.postEphemeral').length === 3 && h.logs.some((l) => l.includes('"dm"')),
      );
    } finally {
      outside.restore();
    }
    expect(outside.written).toEqual([]);
    const failed = h.logs
      .map((l) => JSON.parse(l) as { level: number; component?: string; msg: string })
      .filter((l) => l.msg.startsWith('http request failed'));
    expect(failed.filter((l) => l.component === 'slack-web-api')).toHaveLength(1);
    expect(failed.filter((l) => l.component === 'bolt')).toHaveLength(3);
    expect(failed.every((l) => l.level === 40)).toBe(true);
  });
});
