import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadConfig, type ReplicaConfig } from '../src/config.js';
import { FAKE_SEED, type FakeSlack, startFakeSlack } from '../src/fake-slack/index.js';
import { makeLogger } from '../src/lib/logger.js';
import { buildRedisBot, type RedisBot } from '../src/redis-bot.js';
import { TEST_REDIS_URL } from './helpers/env.js';
import { makeTestRedis, type TestRedis } from './helpers/redis.js';

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
function replica(keyPrefix: string): RedisBot {
  const config = loadConfig({
    SLACK_SIGNING_SECRET: 's',
    SLACK_BOT_TOKEN: slack.tokenFor(FAKE_SEED.teamId),
    SLACK_API_URL: slack.apiUrl,
    UPSTREAM_BASE_URL: 'http://127.0.0.1:9',
    UPSTREAM_AUTH_URL: 'http://127.0.0.1:9',
    CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: keyPrefix,
    LOG_LEVEL: 'silent',
  }) as ReplicaConfig;
  const bot = buildRedisBot(config, makeLogger({ level: 'silent' }), { redis: redis.redis });
  bots.push(bot);
  return bot;
}

it('staging and production share one Redis under two REDIS_KEY_PREFIX values without seeing each other', async () => {
  const staging = replica(`${redis.prefix}staging:`);
  const production = replica(`${redis.prefix}production:`);
  const link = {
    workspaceId: 'T1',
    credentialId: 'c1',
    login: 'integracao@exemplo.com.br',
    password: 'S3nh@',
    empresaId: 1,
    unidadeId: null,
    linkedBy: 'U1',
    linkedAt: 1,
    brokenAt: null,
  };
  await staging.container.links.save(link);
  await staging.container.cache.record('T1', 'hits');
  await production.container.links.save({ ...link, login: 'producao@exemplo.com.br', workspaceId: 'T2' });

  expect(await staging.container.links.workspaceIds()).toEqual(['T1']);
  expect(await production.container.links.workspaceIds()).toEqual(['T2']);
  expect(await production.container.links.get('T1')).toBeNull();
  expect((await staging.container.links.get('T1'))?.login).toBe('integracao@exemplo.com.br');

  // Every key either wrote is under its own prefix.
  const all = await redis.redis.keys(`${redis.prefix}*`);
  expect(all.length).toBeGreaterThan(0);
  for (const key of all) expect(key).toMatch(new RegExp(`^${redis.prefix}(staging|production):`));
  expect(all.filter((k) => k.startsWith(`${redis.prefix}staging:`)).length).toBeGreaterThan(0);
  expect(all.filter((k) => k.startsWith(`${redis.prefix}production:`)).length).toBeGreaterThan(0);
});
