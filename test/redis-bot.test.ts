import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_SEED, type FakeSlack, startFakeSlack } from '../src/fake-slack/index.js';
import { SecretBox } from '../src/store/crypto.js';
import { Keys } from '../src/store/keys.js';
import { RedisKeyValue } from '../src/store/kv.js';
import { LinkStore } from '../src/store/link-store.js';
import { type BotProcess, freePort, spawnBot, startOwnRedis } from './helpers/bot-process.js';
import { TEST_REDIS_URL } from './helpers/env.js';
import { makeTestRedis, type TestRedis } from './helpers/redis.js';

/**
 * The replica's start-up as an operator meets it: src/main.ts in its own process, its exit code, its stderr and
 * its JSON log lines, against the fake Slack and the shared Redis under a random REDIS_KEY_PREFIX.
 */

let slack: FakeSlack;
let redis: TestRedis;
let dir: string;
const bots: BotProcess[] = [];

beforeAll(async () => {
  slack = await startFakeSlack({ port: 0 });
  dir = await mkdtemp(join(tmpdir(), 'estoque-startup-'));
});
afterAll(async () => {
  await slack.close();
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const bot of bots.splice(0)) {
    bot.kill('SIGKILL');
    await bot.exited;
  }
  await redis?.cleanup();
});

async function replicaEnv(overrides: Record<string, string> = {}): Promise<Record<string, string>> {
  redis = await makeTestRedis();
  return {
    SLACK_SIGNING_SECRET: 'secret',
    SLACK_BOT_TOKEN: slack.tokenFor(FAKE_SEED.teamId),
    SLACK_API_URL: slack.apiUrl,
    UPSTREAM_BASE_URL: 'http://127.0.0.1:9',
    UPSTREAM_AUTH_URL: 'http://127.0.0.1:9',
    CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: redis.prefix,
    PORT: String(await freePort()),
    LOG_LEVEL: 'info',
    ...overrides,
  };
}

function run(env: Record<string, string>, cwd?: string, imports?: string[]): BotProcess {
  const bot = spawnBot(env, { ...(cwd && { cwd }), ...(imports && { imports }) });
  bots.push(bot);
  return bot;
}

async function health(port: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  await res.body?.cancel();
  return res.status;
}

describe('replica start-up with Slack unreachable', { timeout: 90_000 }, () => {
  it('starts, says so in one warn line, and keeps running and serving (no crash loop through a Slack outage)', async () => {
    const env = await replicaEnv({ SLACK_API_URL: `http://127.0.0.1:${await freePort()}/api/` });
    const bot = run(env);
    await bot.waitForLog(/estoque-bot started/);
    // Bolt's own authorization asked auth.test as the app was built; its rejection stopped the process here.
    const outcome = await Promise.race([
      bot.exited.then((code) => `exited ${code}`),
      new Promise((resolve) => setTimeout(() => resolve('running'), 2_000)),
    ]);
    expect(outcome).toBe('running');
    expect(await health(env.PORT as string)).toBe(200);
    expect(bot.logs().some((l) => /could not reach the Slack Web API/.test(String(l.msg)))).toBe(true);
    expect(bot.stderr()).not.toMatch(/WebAPIRequestError|\n\s+at /);
  });
});

// Each case starts src/main.ts through tsx: seconds of transpiling on a shared machine.
describe('replica start-up', { timeout: 90_000, tags: ['slow'] }, () => {
  it('a refused SLACK_BOT_TOKEN: exit 4, the variable and the fix named, no raw stack', async () => {
    const env = await replicaEnv();
    slack.failNext('auth.test', { error: 'invalid_auth' });
    const bot = run(env);
    expect(await bot.exited).toBe(4);
    expect(bot.stderr()).toMatch(/SLACK_BOT_TOKEN was refused by Slack \(invalid_auth\)/);
    expect(bot.stderr()).toMatch(/reinstall the app/);
    expect(bot.stderr() + bot.stdout()).not.toMatch(/WebAPIPlatformError|\n\s+at /);
    expect(bot.logs().some((l) => l.msg === 'estoque-bot started')).toBe(false);
  });

  it('a CREDENTIALS_KEY that cannot open the stored links: exit 3, both key variables and the fix named', async () => {
    const env = await replicaEnv();
    const oldKey = randomBytes(32);
    await new LinkStore(new RedisKeyValue(redis.redis), new Keys(redis.prefix), new SecretBox(oldKey)).save({
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
    const bot = run(env);
    expect(await bot.exited).toBe(3);
    expect(bot.stderr()).toMatch(/CREDENTIALS_KEY does not open what this Redis holds/);
    expect(bot.stderr()).toMatch(/CREDENTIALS_KEY_PREVIOUS/);
    expect(bot.stderr()).not.toContain(oldKey.toString('base64'));
    expect(bot.stderr()).not.toContain(env.CREDENTIALS_KEY);

    // The right key, as the previous one during a rotation: it starts.
    const rotated = run({ ...env, CREDENTIALS_KEY_PREVIOUS: oldKey.toString('base64') });
    await rotated.waitForLog(/^estoque-bot started$/);
    expect(await health(env.PORT ?? '')).toBe(200);
  });

  it('Redis unreachable: not started, says what it waits for, /healthz 503; starts once Redis answers', async () => {
    const redisPort = await freePort();
    const env = await replicaEnv({ REDIS_URL: `redis://127.0.0.1:${redisPort}` });
    const bot = run(env);
    const waiting = await bot.waitForLog(/waiting for Redis/);
    expect(waiting).toMatchObject({ level: 40, redis: `redis://127.0.0.1:${redisPort}` });
    expect(await health(env.PORT ?? '')).toBe(503);
    expect(bot.logs().some((l) => l.msg === 'estoque-bot started')).toBe(false);

    // Redis comes up, without persistence: the replica starts and warns that links may be lost.
    const own = await startOwnRedis(dir, ['--appendonly', 'no'], redisPort);
    try {
      await bot.waitForLog(/^estoque-bot started$/);
      expect(await health(env.PORT ?? '')).toBe(200);
      const unsafe = bot.logs().filter((l) => l.msg === 'unsafe Redis: links may be lost');
      expect(unsafe.map((l) => l.problem)).toEqual([expect.stringMatching(/^persistence is off/)]);
      // ioredis's own "Unhandled error event" stacks never reach stderr; its errors were one structured line.
      expect(bot.stderr()).not.toMatch(/ioredis|Unhandled error/);
      expect(bot.logs().filter((l) => l.msg === 'redis unreachable; retrying')).toHaveLength(1);

      bot.kill('SIGTERM');
      expect(await bot.exited).toBe(0);
      // Every line of the stop, in the order written, `stopped` last (the log is flushed before the exit).
      const stop = bot.logs().slice(bot.logs().findIndex((l) => String(l.msg).startsWith('stopping:')));
      expect(stop.map((l) => l.msg)).toEqual([
        expect.stringMatching(/^stopping:/),
        'background work stopped',
        'stopped',
      ]);
    } finally {
      await own.stop();
    }
  });

  it('.env is read when present, the real environment winning, and says so', async () => {
    const env = await replicaEnv();
    const cwd = await mkdtemp(join(dir, 'dotenv-'));
    const { LOG_LEVEL: _level, PORT, ...rest } = env;
    await writeFile(
      join(cwd, '.env'),
      `${Object.entries(rest)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n')}\nPORT=1\nLOG_LEVEL=info\n`,
    );
    const bot = run({ PORT: PORT ?? '' }, cwd);
    const read = await bot.waitForLog(/^configuração lida de \.env$/);
    expect(read.file).toBe(join(cwd, '.env'));
    expect(read.variables).not.toContain('PORT');
    await bot.waitForLog(/^estoque-bot started$/);
    expect(await health(PORT ?? '')).toBe(200);
  });
});

/** A module loaded before main.ts: on SIGUSR2, a throw nobody catches (a bug in a timer's callback), echoing a token. */
async function throwOnSigusr2(): Promise<string> {
  const file = join(dir, 'throw-on-sigusr2.mjs');
  await writeFile(
    file,
    "process.on('SIGUSR2', () => setImmediate(() => { throw new Error('boom near xoxb-1111-2222-secretvalue'); }));\n",
  );
  return pathToFileURL(file).href;
}

describe('a throw nobody catches', { timeout: 90_000 }, () => {
  it('is logged fatal with the token masked, the replica stops as on SIGTERM with a short grace, and exits 1', async () => {
    const bot = run(await replicaEnv(), undefined, [await throwOnSigusr2()]);
    await bot.waitForLog(/^estoque-bot started$/);
    bot.kill('SIGUSR2');
    expect(await bot.exited).toBe(1);
    expect(bot.stdout()).not.toContain('secretvalue');
    const logs = bot.logs();
    const fatal = logs.find((l) => l.msg === 'uncaught exception: stopping');
    expect(fatal).toMatchObject({
      level: 60,
      err: { name: 'Error', message: 'boom near [redacted-token]' },
      frames: expect.arrayContaining([expect.stringMatching(/^at .*throw-on-sigusr2\.mjs/)]),
    });
    // In order: the fatal line, the stop (no drain, a grace of 2 s for the answers in flight), then `stopped`.
    const steps = logs.filter((l) =>
      /^(uncaught exception|stopping:|background work stopped$|stopped$)/.test(String(l.msg)),
    );
    expect(steps).toMatchObject([
      { msg: 'uncaught exception: stopping' },
      { msg: expect.stringMatching(/^stopping:/), signal: 'uncaughtException', graceMs: 2_000, drainMs: 0 },
      { msg: 'background work stopped', graceMs: 2_000 },
      { msg: 'stopped' },
    ]);
  });
});

describe('a second signal while stopping', { timeout: 90_000 }, () => {
  it('exits at once, with the code of the second signal (130 for SIGINT), and says so', async () => {
    // HTTP mode, SHUTDOWN_GRACE 25 s: the stop first drains for 5 s, time enough to send the second signal.
    const bot = run(await replicaEnv());
    await bot.waitForLog(/^estoque-bot started$/);
    bot.kill('SIGTERM');
    await bot.waitForLog(/^stopping:/);
    bot.kill('SIGINT');
    expect(await bot.exited).toBe(130);
    const messages = bot.logs().map((l) => l.msg);
    expect(bot.logs().find((l) => l.msg === 'second signal while stopping: exiting now')).toMatchObject({
      level: 40,
      signal: 'SIGINT',
      exitCode: 130,
    });
    expect(messages).not.toContain('stopped');
  });
});
