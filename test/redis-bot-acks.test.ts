import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadConfig, type ReplicaConfig } from '../src/config.js';
import { FAKE_SEED, type FakeSlack, slashCommand, startFakeSlack } from '../src/fake-slack/index.js';
import { makeLogger } from '../src/lib/logger.js';
import { buildRedisBot, type RedisBot } from '../src/redis-bot.js';
import { BOT_SCOPES, startSlackApp } from '../src/slack/app.js';
import { TEST_REDIS_URL } from './helpers/env.js';
import { makeTestRedis, type TestRedis } from './helpers/redis.js';

/**
 * A replica's ack path has a Redis connection of its own, without auto-pipelining: the replay check and the
 * installation read a request waits for go out at once, not at the end of the event-loop turn (ioredis defers an
 * auto-pipelined command with setImmediate), and not behind the answers' many commands on the other connection.
 */
let redis: TestRedis;
let slack: FakeSlack;
let ackRedis: Redis;
let bot: RedisBot | null = null;
beforeEach(async () => {
  redis = await makeTestRedis();
  slack = await startFakeSlack({ port: 0 });
  ackRedis = new Redis(TEST_REDIS_URL);
});
afterEach(async () => {
  await bot?.app.stop().catch(() => undefined);
  await bot?.container.close({ graceMs: 0 });
  bot = null;
  ackRedis.disconnect();
  await slack.close();
  await redis.cleanup();
});

/** Every command name a connection sends. */
function recordCommands(connection: Redis): string[] {
  const names: string[] = [];
  const send = connection.sendCommand.bind(connection);
  connection.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
    names.push(command.name);
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as typeof connection.sendCommand;
  return names;
}

it('the replay check and the installation read go through the ack connection; nothing else does', async () => {
  const config = loadConfig({
    SLACK_SIGNING_SECRET: 'secret',
    SLACK_CLIENT_ID: 'client-id',
    SLACK_CLIENT_SECRET: 'client-secret',
    SLACK_STATE_SECRET: 'state-secret',
    SLACK_API_URL: slack.apiUrl,
    UPSTREAM_BASE_URL: 'http://127.0.0.1:9',
    UPSTREAM_AUTH_URL: 'http://127.0.0.1:9',
    CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: redis.prefix,
    LOG_LEVEL: 'silent',
  }) as ReplicaConfig;
  bot = buildRedisBot(config, makeLogger({ level: 'silent' }), { redis: redis.redis, ackRedis });
  const team = FAKE_SEED.teamId;
  await bot.installations?.storeInstallation({
    team: { id: team, name: 'Fake' },
    enterprise: undefined,
    user: { id: FAKE_SEED.users.admin, token: undefined, scopes: undefined },
    bot: { token: slack.tokenFor(team), scopes: [...BOT_SCOPES], id: 'B0', userId: 'U0BOT' },
    tokenType: 'bot',
    isEnterpriseInstall: false,
    appId: 'A00FAKEAPP',
    authVersion: 'v2',
  });
  const server = (await startSlackApp(bot.app, bot.container.slackDeps, 0)) as { address(): AddressInfo };
  const onAcks = recordCommands(ackRedis);
  const onMain = recordCommands(redis.redis);

  const result = await slashCommand(
    { eventsUrl: `http://127.0.0.1:${server.address().port}/slack/events`, signingSecret: 'secret' },
    {
      command: '/estoque',
      text: 'ajuda',
      teamId: team,
      userId: FAKE_SEED.users.member,
      channelId: FAKE_SEED.channels.stockroom,
      responseUrl: slack.newResponseUrl({
        teamId: team,
        channelId: FAKE_SEED.channels.stockroom,
        userId: FAKE_SEED.users.member,
      }),
      triggerId: slack.newTriggerId({ userId: FAKE_SEED.users.member, teamId: team }),
    },
  );
  expect(result.status).toBe(200);
  // The signature's SET NX, and the installation's GET.
  expect(onAcks).toContain('set');
  expect(onAcks).toContain('get');
  expect(onMain.filter((name) => name === 'set')).toEqual([]);
});

it('a replica that makes its own connections makes the ack one without auto-pipelining', () => {
  const config = loadConfig({
    SLACK_SIGNING_SECRET: 'secret',
    SLACK_BOT_TOKEN: slack.tokenFor(FAKE_SEED.teamId),
    SLACK_API_URL: slack.apiUrl,
    UPSTREAM_BASE_URL: 'http://127.0.0.1:9',
    UPSTREAM_AUTH_URL: 'http://127.0.0.1:9',
    CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: redis.prefix,
    LOG_LEVEL: 'silent',
  }) as ReplicaConfig;
  const own = buildRedisBot(config, makeLogger({ level: 'silent' }));
  try {
    expect(own.ackRedis).not.toBe(own.redis);
    expect(own.redis.options.enableAutoPipelining).toBe(true);
    expect(own.ackRedis.options.enableAutoPipelining).toBe(false);
  } finally {
    own.redis.disconnect();
    own.ackRedis.disconnect();
    void own.container.close({ graceMs: 0 });
  }
});
