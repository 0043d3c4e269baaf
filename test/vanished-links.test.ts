import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadConfig, type ReplicaConfig } from '../src/config.js';
import { FAKE_SEED, type FakeSlack, startFakeSlack } from '../src/fake-slack/index.js';
import { slashCommand } from '../src/fake-slack/signer.js';
import { type Logger, makeLogger } from '../src/lib/logger.js';
import {
  buildRedisBot,
  type RedisBot,
  type Replica,
  startReplica,
  tellVanishedLinks,
} from '../src/redis-bot.js';
import { SecretBox } from '../src/store/crypto.js';
import { RedisKeyValue } from '../src/store/kv.js';
import { LinkStore } from '../src/store/link-store.js';
import { eventually } from './helpers/bot-harness.js';
import { freePort } from './helpers/bot-process.js';
import { TEST_REDIS_URL } from './helpers/env.js';
import { makeTestRedis, type TestRedis } from './helpers/redis.js';
import { captureLogger } from './helpers/upstream-stack.js';

const KEY = randomBytes(32).toString('base64');
let redis: TestRedis;
let slack: FakeSlack;
const bots: RedisBot[] = [];
const replicas: Replica[] = [];
beforeEach(async () => {
  redis = await makeTestRedis();
  slack = await startFakeSlack({ port: 0 });
});
afterEach(async () => {
  for (const replica of replicas.splice(0)) await replica.stop();
  for (const bot of bots.splice(0)) await bot.container.close({ graceMs: 0 });
  await slack.close();
  await redis.cleanup();
});

/** A replica as main.ts configures it, under REDIS_KEY_PREFIX, sharing the test's Redis connection. */
function replica(keyPrefix: string): { bot: RedisBot; config: ReplicaConfig } {
  const config = loadConfig({
    SLACK_SIGNING_SECRET: 's',
    SLACK_BOT_TOKEN: slack.tokenFor(FAKE_SEED.teamId),
    SLACK_API_URL: slack.apiUrl,
    UPSTREAM_BASE_URL: 'http://127.0.0.1:9',
    UPSTREAM_AUTH_URL: 'http://127.0.0.1:9',
    CREDENTIALS_KEY: KEY,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: keyPrefix,
    LOG_LEVEL: 'silent',
  }) as ReplicaConfig;
  const bot = buildRedisBot(config, makeLogger({ level: 'silent' }), { redis: redis.redis });
  bots.push(bot);
  return { bot, config };
}

it('a link Redis lost (nobody unlinked it): the admin who linked is told once, across replicas', async () => {
  const one = replica(redis.prefix);
  const two = replica(redis.prefix);
  const admin = FAKE_SEED.users.admin;
  await one.bot.container.links.save({
    workspaceId: FAKE_SEED.teamId,
    credentialId: 'c1',
    login: 'integracao@exemplo.com.br',
    password: 'S3nh@',
    empresaId: 1,
    unidadeId: null,
    linkedBy: admin,
    linkedAt: 1,
    brokenAt: null,
  });
  const { logger, lines } = captureLogger('info');
  expect(await tellVanishedLinks(one.bot, one.config, logger)).toBe(0);

  // Evicted, or lost in a restart of a Redis without persistence.
  await redis.redis.del(redis.keys.link(FAKE_SEED.teamId));
  const told = await Promise.all([
    tellVanishedLinks(one.bot, one.config, logger),
    tellVanishedLinks(two.bot, two.config, logger),
  ]);
  expect(told.sort()).toEqual([0, 1]);
  expect(await tellVanishedLinks(one.bot, one.config, logger)).toBe(0);

  // One message, in the admin's DM with the bot (the fake opens a D… channel for a user id).
  const dms = slack.messages.filter((m) => /sumiu/.test(m.text));
  expect(dms).toHaveLength(1);
  expect(dms[0]?.channel).toMatch(/^D/);
  expect(slack.calls.filter((c) => c.method === 'chat.postMessage').map((c) => c.args.channel)).toEqual([
    admin,
  ]);
  expect(dms[0]?.text).toMatch(/sumiu do armazenamento do bot/);
  expect(dms[0]?.text).toMatch(/\/estoque vincular/);
  const errors = lines.filter((l) => l.includes('a link vanished from Redis'));
  expect(errors).toHaveLength(1);
});

/** Every key under the test's prefix deleted: what a restart of a Redis without persistence leaves (or FLUSHALL). */
async function emptyRedis(): Promise<void> {
  let cursor = '0';
  do {
    const [next, found] = await redis.redis.scan(cursor, 'MATCH', `${redis.prefix}*`, 'COUNT', 500);
    cursor = next;
    if (found.length > 0) await redis.redis.del(...found);
  } while (cursor !== '0');
}

async function runningReplica(): Promise<{
  replica: Replica;
  config: ReplicaConfig;
  logger: Logger;
  lines: string[];
}> {
  const config = loadConfig({
    SLACK_SIGNING_SECRET: 's',
    SLACK_BOT_TOKEN: slack.tokenFor(FAKE_SEED.teamId),
    SLACK_API_URL: slack.apiUrl,
    UPSTREAM_BASE_URL: 'http://127.0.0.1:9',
    UPSTREAM_AUTH_URL: 'http://127.0.0.1:9',
    CREDENTIALS_KEY: KEY,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: redis.prefix,
    PORT: String(await freePort()),
    SHUTDOWN_GRACE: '1500ms',
  }) as ReplicaConfig;
  const { logger, lines } = captureLogger('info');
  // The periodic check is far away: what the test sees is what a restart of Redis itself sets off.
  const replica = await startReplica(config, logger, { vanishedCheckMs: 3_600_000 });
  replicas.push(replica);
  return { replica, config, logger, lines };
}

/** A link made before the replica started (by another replica, or the last deployment). */
async function linkedEarlier(): Promise<void> {
  await new LinkStore(new RedisKeyValue(redis.redis), redis.keys, SecretBox.fromBase64(KEY)).save({
    workspaceId: FAKE_SEED.teamId,
    credentialId: 'c1',
    login: 'integracao@exemplo.com.br',
    password: 'S3nh@',
    empresaId: 1,
    unidadeId: null,
    linkedBy: FAKE_SEED.users.admin,
    linkedAt: 1,
    brokenAt: null,
  });
}

const vanishedDms = () => slack.messages.filter((m) => /sumiu/.test(m.text));
const errorLines = (lines: string[]) =>
  lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 50);

it('Redis restarted empty while a replica runs (every key gone): the linking admin is told once, the log says it in one error line, a command says the link was lost', async () => {
  await linkedEarlier();
  const { replica, config, logger, lines } = await runningReplica();
  expect(vanishedDms()).toEqual([]);

  await emptyRedis();
  const told = await tellVanishedLinks(replica.bot, config, logger);
  expect(told).toBe(1);
  expect(vanishedDms()).toHaveLength(1);
  expect(vanishedDms()[0]?.channel).toMatch(/^D/);
  const errors = errorLines(lines);
  expect(errors).toHaveLength(1);
  expect(errors[0]?.msg).toMatch(/Redis lost its data/);
  expect(JSON.stringify(errors[0])).toContain(FAKE_SEED.teamId);
  // Told once: the next check (this replica's, or another's) finds nothing to tell.
  expect(await tellVanishedLinks(replica.bot, config, logger)).toBe(0);
  expect(vanishedDms()).toHaveLength(1);

  // A member's command: not linked, saying the link was lost and how to link again.
  const user = FAKE_SEED.users.member;
  const channel = FAKE_SEED.channels.general;
  const sent = await slashCommand(
    { eventsUrl: `http://127.0.0.1:${config.PORT}/slack/events`, signingSecret: 's' },
    {
      command: '/estoque',
      text: 'lampada',
      teamId: FAKE_SEED.teamId,
      userId: user,
      channelId: channel,
      responseUrl: slack.newResponseUrl({ teamId: FAKE_SEED.teamId, channelId: channel, userId: user }),
      triggerId: slack.newTriggerId({ userId: user, teamId: FAKE_SEED.teamId }),
    },
  );
  expect(sent.status).toBe(200);
  const answer = await eventually(() =>
    slack.messages.find((m) => m.channel === channel && /vinculad/.test(m.text)),
  );
  expect(answer.text).toMatch(/não está vinculado/);
  expect(answer.text).toMatch(/perdeu/);
  expect(answer.text).toMatch(/\/estoque vincular/);
});

it('Redis restarted empty: the replica checks as soon as it reconnects, without waiting for the periodic check', async () => {
  await linkedEarlier();
  const { replica } = await runningReplica();
  await emptyRedis();
  // What a restart does to the replica's connection: it drops, ioredis connects again.
  const id = await replica.bot.redis.client('ID');
  await redis.redis.client('KILL', 'ID', String(id));
  const dm = await eventually(() => vanishedDms()[0]);
  expect(dm.channel).toMatch(/^D/);
});
