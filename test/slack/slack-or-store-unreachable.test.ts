import { type AddressInfo, createServer } from 'node:net';
import type { Authorize } from '@slack/bolt';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  BOT_IDS_FAILURE_KEPT_MS,
  BotIdentity,
  type BotIds,
  singleWorkspaceAuthorize,
} from '../../src/slack/bot-identity.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { TEAM } from '../helpers/bot-harness.js';
import { captureLogger } from '../helpers/upstream-stack.js';

const silent = captureLogger('silent').logger;

/**
 * What an operator meets when Slack or Redis cannot be reached: the process keeps running and says so in time
 * (the replica started with Slack unreachable: test/redis-bot.test.ts).
 */

describe('the single-workspace authorization (SLACK_BOT_TOKEN)', () => {
  const command = { command: '/estoque' } as never;
  const click = { type: 'block_actions' } as never;
  const event = { event: { type: 'message' } } as never;
  const source = { teamId: TEAM, isEnterpriseInstall: false } as Parameters<Authorize<boolean>>[0];
  const ids = { teamId: TEAM, botUserId: 'U1', botId: 'B1' };

  /** auth.test as the test answers it, one call at a time. */
  function slack() {
    const calls: { resolve: (ids: BotIds) => void; reject: (error: Error) => void }[] = [];
    const ask = () =>
      new Promise<BotIds>((resolve, reject) => {
        calls.push({ resolve, reject });
      });
    return { calls, ask };
  }

  it('a command or a click never waits for the ids; an event waits for them; one auth.test serves all', async () => {
    const auth = slack();
    const identity = new BotIdentity({ ask: auth.ask, logger: silent, now: () => 0 });
    const authorize = singleWorkspaceAuthorize(identity, 'xoxb-1');
    expect(auth.calls).toHaveLength(0);
    // auth.test is not answered: the command and the click are authorized all the same, without the ids.
    expect(await authorize(source, command)).toEqual({ isEnterpriseInstall: false, botToken: 'xoxb-1' });
    expect(await authorize(source, click)).toEqual({ isEnterpriseInstall: false, botToken: 'xoxb-1' });
    // The command started the lookup (for the events to come); the event waits for that same call.
    expect(auth.calls).toHaveLength(1);
    let eventAuthorized: unknown = null;
    const waiting = authorize(source, event).then((result) => {
      eventAuthorized = result;
    });
    await Promise.resolve();
    expect(eventAuthorized).toBeNull();
    auth.calls[0]?.resolve(ids);
    await waiting;
    expect(eventAuthorized).toEqual({
      isEnterpriseInstall: false,
      botToken: 'xoxb-1',
      botId: 'B1',
      botUserId: 'U1',
    });
    // Known now: everything carries them, and nobody asks again.
    expect(await authorize(source, command)).toMatchObject({ botId: 'B1', botUserId: 'U1' });
    expect(auth.calls).toHaveLength(1);
  });

  it("the start-up check's ids are kept: no request asks auth.test", async () => {
    const auth = slack();
    const identity = new BotIdentity({ ask: auth.ask, known: ids, logger: silent, now: () => 0 });
    const authorize = singleWorkspaceAuthorize(identity, 'xoxb-1');
    expect(await authorize(source, event)).toMatchObject({ botId: 'B1', botUserId: 'U1' });
    expect(await authorize(source, command)).toMatchObject({ botId: 'B1', botUserId: 'U1' });
    expect(auth.calls).toHaveLength(0);
  });

  it(`a failure is the answer for ${BOT_IDS_FAILURE_KEPT_MS} ms: events fail at once without asking, then it asks again`, async () => {
    const auth = slack();
    let now = 1_000;
    const { logger, lines } = captureLogger('info');
    const identity = new BotIdentity({ ask: auth.ask, logger, now: () => now });
    const authorize = singleWorkspaceAuthorize(identity, 'xoxb-1');
    const first = authorize(source, event);
    auth.calls[0]?.reject(new Error('slack unreachable'));
    await expect(first).rejects.toThrow('slack unreachable');
    // Within the window: the event fails at once, the command goes on; neither asks Slack.
    now += BOT_IDS_FAILURE_KEPT_MS - 1;
    await expect(authorize(source, event)).rejects.toThrow('slack unreachable');
    expect(await authorize(source, command)).toEqual({ isEnterpriseInstall: false, botToken: 'xoxb-1' });
    expect(auth.calls).toHaveLength(1);
    // Past it: asked again.
    now += 1;
    const again = authorize(source, event);
    expect(auth.calls).toHaveLength(2);
    auth.calls[1]?.resolve(ids);
    expect(await again).toMatchObject({ botUserId: 'U1' });
    // One warn line for the outage, one info line once read.
    const said = lines.map((l) => JSON.parse(l) as { level: number; msg: string; component?: string });
    expect(said.filter((l) => l.component === 'bot-identity').map((l) => [l.level, l.msg])).toEqual([
      [40, "could not read the bot's ids (auth.test); retrying"],
      [30, "bot's ids read (auth.test)"],
    ]);
  });
});

describe('Redis gone while the replica runs', () => {
  it('the store probe says down in time instead of waiting for ioredis to give up', async () => {
    // A Redis behind a network that lost it: connections are taken and never answered.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const redis = new Redis({
      port: (silent.address() as AddressInfo).port,
      host: '127.0.0.1',
      maxRetriesPerRequest: 3,
      retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
      lazyConnect: false,
    });
    redis.on('error', () => undefined);
    try {
      // Within the test's 5 s: ioredis alone would hold the PING through its three retries and back-offs.
      expect(await new RedisKeyValue(redis).ping()).toBe(false);
    } finally {
      redis.disconnect();
      silent.close();
    }
  });
});
