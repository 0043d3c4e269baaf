import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadConfig, type ReplicaConfig } from '../src/config.js';
import { FAKE_SEED, type FakeSlack, startFakeSlack } from '../src/fake-slack/index.js';
import { makeLogger } from '../src/lib/logger.js';
import { buildRedisBot, type RedisBot, tellVanishedLinks } from '../src/redis-bot.js';
import { TEST_REDIS_URL } from './helpers/env.js';
import { makeTestRedis, type TestRedis } from './helpers/redis.js';
import { captureLogger } from './helpers/upstream-stack.js';

const KEY = randomBytes(32).toString('base64');
let redis: TestRedis;
let slack: FakeSlack;
const bots: RedisBot[] = [];
beforeEach(async () => {
  redis = await makeTestRedis();
  slack = await startFakeSlack({ port: 0 });
});
afterEach(async () => {
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
