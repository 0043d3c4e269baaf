import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadConfig, type ReplicaConfig } from '../src/config.js';
import { FAKE_SEED, type FakeSlack, startFakeSlack } from '../src/fake-slack/index.js';
import { StartupError, startReplica } from '../src/redis-bot.js';
import { SecretBox } from '../src/store/crypto.js';
import { CredentialsKeyCheck } from '../src/store/key-check.js';
import { Keys } from '../src/store/keys.js';
import { RedisKeyValue } from '../src/store/kv.js';
import { freePort } from './helpers/bot-process.js';
import { TEST_REDIS_URL } from './helpers/env.js';
import { makeTestRedis, type TestRedis } from './helpers/redis.js';
import { captureLogger } from './helpers/upstream-stack.js';

/** startReplica in this process (the process-level cases, slower, are in redis-bot.test.ts). */
let redis: TestRedis;
let slack: FakeSlack;
beforeEach(async () => {
  redis = await makeTestRedis();
  slack = await startFakeSlack({ port: 0 });
});
afterEach(async () => {
  await slack.close();
  await redis.cleanup();
});

async function socketConfig(
  extra: Record<string, string> = { SLACK_APP_TOKEN: 'xapp-1-wrong' },
): Promise<ReplicaConfig> {
  return loadConfig({
    SLACK_SIGNING_SECRET: 's',
    ...extra,
    SLACK_BOT_TOKEN: slack.tokenFor(FAKE_SEED.teamId),
    SLACK_API_URL: slack.apiUrl,
    UPSTREAM_BASE_URL: 'http://127.0.0.1:9',
    UPSTREAM_AUTH_URL: 'http://127.0.0.1:9',
    CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: redis.prefix,
    PORT: String(await freePort()),
  }) as ReplicaConfig;
}

it('Socket Mode with a refused SLACK_APP_TOKEN: start-up stops with exit code 4, naming it, instead of retrying forever', async () => {
  const config = await socketConfig();
  slack.failNext('apps.connections.open', { error: 'invalid_auth' }, 10);
  const { logger, lines } = captureLogger('info');
  const error = await startReplica(config, logger).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(StartupError);
  expect(error).toMatchObject({ exitCode: 4, code: 'slack_token_refused' });
  expect((error as Error).message).toMatch(
    /^SLACK_APP_TOKEN was refused by Slack \(invalid_auth\): .*connections:write/,
  );
  expect(lines.join('')).not.toContain('estoque-bot started');
  // Nothing is left listening on PORT.
  await expect(fetch(`http://127.0.0.1:${config.PORT}/healthz`)).rejects.toThrow();
});

it('a refused SLACK_BOT_TOKEN stops start-up with exit code 4 before Bolt is built', async () => {
  const config = await socketConfig({});
  slack.failNext('auth.test', { error: 'token_revoked' });
  const error = await startReplica(config, captureLogger('silent').logger).catch((e: unknown) => e);
  expect(error).toMatchObject({ exitCode: 4, code: 'slack_token_refused' });
  expect((error as Error).message).toMatch(
    /^SLACK_BOT_TOKEN was refused by Slack \(token_revoked\): .*reinstall/,
  );
});

it('a CREDENTIALS_KEY that cannot open the store stops start-up with exit code 3; the right one starts', async () => {
  const config = await socketConfig({});
  const other = randomBytes(32);
  await new CredentialsKeyCheck(
    new RedisKeyValue(redis.redis),
    new Keys(redis.prefix),
    new SecretBox(other),
  ).writeIfAbsent();
  const error = await startReplica(config, captureLogger('silent').logger).catch((e: unknown) => e);
  expect(error).toMatchObject({ exitCode: 3, code: 'credentials_key_mismatch' });
  expect((error as Error).message).toMatch(/CREDENTIALS_KEY_PREVIOUS/);

  const rotated = { ...config, CREDENTIALS_KEY_PREVIOUS: other.toString('base64') };
  const replica = await startReplica(rotated, captureLogger('silent').logger);
  try {
    expect((await fetch(`http://127.0.0.1:${config.PORT}/healthz`)).status).toBe(200);
  } finally {
    await replica.stop();
  }
});
