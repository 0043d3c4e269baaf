import type { AddressInfo } from 'node:net';
import type { App } from '@slack/bolt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import {
  eventCallback,
  FAKE_SEED,
  type SlackRequestTarget,
  slashCommand,
} from '../../src/fake-slack/index.js';
import { renderHelp } from '../../src/render/index.js';
import { buildSlackApp, startSlackApp } from '../../src/slack/app.js';
import type { BotIds } from '../../src/slack/bot-identity.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import {
  CHANNELS,
  eventually,
  type Harness,
  SIGNING_SECRET,
  startHarness,
  TEAM,
  USERS,
} from '../helpers/bot-harness.js';
import { consoleAndStderr } from '../helpers/console-spy.js';

/**
 * A single-workspace bot (SLACK_BOT_TOKEN, no OAuth) whose Slack Web API is slow or away: a command's ack never
 * waits on Slack (src/slack/bot-identity.ts). Seen as the order of what the fake Slack received and answered and
 * what the command's sender got back, never as durations.
 */

let h: Harness;
const apps: App[] = [];

beforeAll(async () => {
  h = await startHarness();
});
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop().catch(() => undefined);
  h.slack.reset();
});
afterAll(async () => {
  await h.close();
});

/** The bot as a single-workspace install runs it, over the harness's Redis, sandbox and fake Slack. */
async function singleWorkspaceBot(botIds?: BotIds): Promise<SlackRequestTarget> {
  const config = loadConfig({
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_BOT_TOKEN: h.slack.tokenFor(TEAM),
    SLACK_API_URL: h.slack.apiUrl,
    UPSTREAM_BASE_URL: h.sandbox.baseUrl,
    UPSTREAM_AUTH_URL: h.sandbox.authUrl,
    CREDENTIALS_KEY: Buffer.alloc(32, 3).toString('base64'),
    REDIS_URL: 'redis://127.0.0.1:6379',
    PORT: '0',
    LOG_LEVEL: 'silent',
  });
  expect(config.oauth).toBe(false);
  const app = buildSlackApp({
    config,
    deps: h.container.slackDeps,
    kv: new RedisKeyValue(h.redis.redis),
    installations: null,
    ...(botIds && { botIds }),
  });
  apps.push(app);
  const server = (await startSlackApp(app, h.container.slackDeps, 0)) as { address(): AddressInfo };
  return {
    eventsUrl: `http://127.0.0.1:${server.address().port}/slack/events`,
    signingSecret: SIGNING_SECRET,
  };
}

function help(target: SlackRequestTarget) {
  return slashCommand(target, {
    command: '/estoque',
    text: '',
    teamId: TEAM,
    userId: USERS.member,
    channelId: CHANNELS.stockroom,
    responseUrl: h.slack.newResponseUrl({
      teamId: TEAM,
      channelId: CHANNELS.stockroom,
      userId: USERS.member,
    }),
    triggerId: h.slack.newTriggerId({ userId: USERS.member, teamId: TEAM }),
  });
}

/** The help, as `/estoque`'s listener acks it: not the request guard's fallback ("Nada foi feito"). */
function expectHelpAck(result: { status: number; body: string }) {
  expect(result.status).toBe(200);
  expect(JSON.parse(result.body)).toMatchObject({ response_type: 'ephemeral', text: renderHelp().text });
}

describe('a single-workspace bot whose Slack does not answer auth.test', () => {
  it("acks `/estoque` with the help while auth.test is still held: the ack does not wait for the bot's ids", async () => {
    const target = await singleWorkspaceBot();
    const hold = h.slack.holdNext('auth.test');
    const result = await help(target);
    expectHelpAck(result);
    // The lookup the command started beside it (for the events to come) reached Slack, and is still unanswered.
    const asked = await hold.arrived;
    expect(asked.answeredAt).toBeUndefined();
    hold.release();
  });

  it('acks `/estoque` with the help when auth.test fails; Slack is asked once, not at every request', async () => {
    const target = await singleWorkspaceBot();
    const from = h.logs.length;
    h.slack.failNext('auth.test', { dropReply: true }, 10);
    const outside = consoleAndStderr();
    try {
      expectHelpAck(await help(target));
      expectHelpAck(await help(target));
      // A failure is the answer for a few seconds (bot-identity.ts): an event in that window fails alone, at once.
      await sendEvent(target, dm({ user: USERS.member }));
    } finally {
      outside.restore();
    }
    expect(h.slack.calls.filter((c) => c.method === 'auth.test')).toHaveLength(1);
    // The failed call is said in the JSON log, once (the client's own line at debug); nothing reaches the console
    // or stderr (until 2026-11-27 the auth.test client had no logger: `[WARN]  web-api:WebClient:1 http request
    // failed` on stderr, per attempt).
    expect(outside.written).toEqual([]);
    const said = h.logs
      .slice(from)
      .map((l) => JSON.parse(l) as { level: number; component?: string; msg: string });
    expect(said.filter((l) => l.msg.startsWith('http request failed'))).toEqual([
      expect.objectContaining({ level: 20, component: 'slack-web-api' }),
    ]);
    expect(said.filter((l) => l.component === 'bot-identity' && l.level === 40)).toEqual([
      expect.objectContaining({ msg: "could not read the bot's ids (auth.test); retrying" }),
    ]);
  });

  it("an Events API event waits for the bot's ids: the bot's own DM gets no answer, a person's does", async () => {
    const target = await singleWorkspaceBot();
    addDm();
    const hold = h.slack.holdNext('auth.test');
    const own = sendEvent(target, dm({ user: FAKE_SEED.botUserId, text: 'Oi! Eu respondo a comandos' }));
    const person = sendEvent(target, dm({ user: USERS.member }));
    await hold.arrived;
    hold.release();
    await Promise.all([own, person]);
    const answers = await eventually(() => {
      const sent = h.slack.messages.filter((m) => m.channel === DM && m.user === FAKE_SEED.botUserId);
      return sent.length > 0 && sent;
    });
    expect(answers).toHaveLength(1);
    expect(h.slack.calls.filter((c) => c.method === 'auth.test')).toHaveLength(1);
  });
});

describe("a single-workspace bot given the start-up check's ids", () => {
  it("asks auth.test for no request, and still tells its own messages from a person's", async () => {
    const target = await singleWorkspaceBot({
      teamId: TEAM,
      botUserId: FAKE_SEED.botUserId,
      botId: FAKE_SEED.botId,
    });
    addDm();
    expectHelpAck(await help(target));
    await sendEvent(target, dm({ user: FAKE_SEED.botUserId, text: 'Oi! Eu respondo a comandos' }));
    const since = Date.now();
    await sendEvent(target, dm({ user: USERS.member }));
    await eventually(() => h.slack.messages.find((m) => m.channel === DM && m.at >= since));
    expect(h.slack.messages.filter((m) => m.channel === DM && m.user === FAKE_SEED.botUserId)).toHaveLength(
      1,
    );
    expect(h.slack.calls.filter((c) => c.method === 'auth.test')).toHaveLength(0);
  });
});

describe('an OAuth install', () => {
  it("acks `/estoque` with the help while auth.test is held: the installation's ids are read from the store", async () => {
    const hold = h.slack.holdNext('auth.test');
    expectHelpAck(await h.command('/estoque', ''));
    expect(h.slack.calls.filter((c) => c.method === 'auth.test')).toHaveLength(0);
    hold.release();
  });
});

const DM = 'D00DMUSER1';
let seq = 0;

function addDm() {
  h.slack.addChannel({
    id: DM,
    name: USERS.member,
    members: new Set([USERS.member, FAKE_SEED.botUserId]),
    isPrivate: true,
    teamId: TEAM,
    imUser: USERS.member,
  });
}

/** A message in the bot's DM, as the `message.im` event carries it. */
function dm(fields: Record<string, unknown>) {
  seq += 1;
  const ts = `${Math.floor(Date.now() / 1000)}.${String(seq).padStart(6, '0')}`;
  return { type: 'message', channel: DM, channel_type: 'im', text: 'oi', ts, event_ts: ts, ...fields };
}

function sendEvent(target: SlackRequestTarget, event: object) {
  return eventCallback(target, event, TEAM);
}
