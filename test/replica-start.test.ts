import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadConfig, type ReplicaConfig } from '../src/config.js';
import { FAKE_SEED, type FakeSlack, startFakeSlack } from '../src/fake-slack/index.js';
import { slashCommand, urlVerification } from '../src/fake-slack/signer.js';
import { drainDelayMs, SLACK_CHECK_WAIT_MS, StartupError, startReplica } from '../src/redis-bot.js';
import { renderHelp } from '../src/render/index.js';
import { SecretBox } from '../src/store/crypto.js';
import { FeedListenerStore } from '../src/store/feed-listeners.js';
import { CredentialsKeyCheck } from '../src/store/key-check.js';
import { Keys } from '../src/store/keys.js';
import { RedisKeyValue } from '../src/store/kv.js';
import { SubscriptionStore } from '../src/store/subscription-store.js';
import { eventually } from './helpers/bot-harness.js';
import { freePort, startOwnRedis } from './helpers/bot-process.js';
import { TEST_REDIS_URL } from './helpers/env.js';
import { ManualClock } from './helpers/manual-clock.js';
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
    // A stop in HTTP mode drains for a third of it (drainDelayMs): short, so that each test's stop is.
    SHUTDOWN_GRACE: '1500ms',
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

it('an accepted SLACK_BOT_TOKEN resumes the digests and alerts of its workspace that a revoked token paused', async () => {
  const config = await socketConfig({});
  const kv = new RedisKeyValue(redis.redis);
  const keys = new Keys(redis.prefix);
  const team = FAKE_SEED.teamId;
  const subscriptions = new SubscriptionStore(kv, keys);
  const listeners = new FeedListenerStore(kv, keys);
  await subscriptions.upsert({
    workspaceId: team,
    channelId: 'C1',
    hour: 8,
    minute: 0,
    timeZone: 'America/Sao_Paulo',
    weekdaysOnly: false,
    stockroomId: null,
    subscribedBy: 'U1',
  });
  await listeners.upsertChannel({
    workspaceId: team,
    channelId: 'C1',
    stockroomId: null,
    subscribedBy: 'U1',
  });
  // The old token was revoked; another workspace's pause, and a pause for another reason, are not this start's.
  await subscriptions.pauseWorkspace(team, 'tokens_revoked');
  await listeners.pauseWorkspace(team, 'tokens_revoked');
  await listeners.upsertChannel({
    workspaceId: 'T-OTHER',
    channelId: 'C9',
    stockroomId: null,
    subscribedBy: 'U9',
  });
  await listeners.pauseWorkspace('T-OTHER', 'tokens_revoked');

  const replica = await startReplica(config, captureLogger('silent').logger);
  try {
    expect((await subscriptions.get(team, 'C1'))?.paused).toBeNull();
    expect((await listeners.getChannel(team, 'C1'))?.paused).toBeNull();
    expect((await listeners.getChannel('T-OTHER', 'C9'))?.paused).toBe('tokens_revoked');
  } finally {
    await replica.stop();
  }
});

it("/healthz's start-up 503 says what it waits for: Slack's check of the token once Redis has answered", async () => {
  // A Slack Web API whose auth.test is held until the test has asked /healthz.
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const asked: string[] = [];
  const held = createServer((req, res) => {
    asked.push(req.url ?? '');
    req.resume();
    void released.then(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, team_id: FAKE_SEED.teamId, user_id: 'UBOT', bot_id: 'BBOT' }));
    });
  });
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  const config = {
    ...(await socketConfig({})),
    SLACK_API_URL: `http://127.0.0.1:${(held.address() as AddressInfo).port}/api/`,
  };
  const starting = startReplica(config, captureLogger('silent').logger);
  try {
    await eventually(() => asked.includes('/api/auth.test'));
    const res = await fetch(`http://127.0.0.1:${config.PORT}/healthz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ ok: false, waitingFor: 'slack' });
    // Not ready, but alive: a liveness probe leaves a replica that waits alone.
    const live = await fetch(`http://127.0.0.1:${config.PORT}/livez`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ ok: true });
  } finally {
    release();
    await (await starting).stop();
    held.close();
  }
});

it("the start-up check's auth.test is the only one: the bot's ids it read serve every request", async () => {
  const config = await socketConfig({});
  const replica = await startReplica(config, captureLogger('silent').logger);
  try {
    expect(slack.calls.filter((c) => c.method === 'auth.test')).toHaveLength(1);
    const ack = await helpCommand(config.PORT);
    expect(JSON.parse(ack.body)).toMatchObject({ text: renderHelp().text });
    expect(slack.calls.filter((c) => c.method === 'auth.test')).toHaveLength(1);
  } finally {
    await replica.stop();
  }
});

/** A signed `/estoque` (the help) to the replica on `port`. */
function helpCommand(port: number) {
  return slashCommand(
    { eventsUrl: `http://127.0.0.1:${port}/slack/events`, signingSecret: 's' },
    {
      command: '/estoque',
      text: '',
      teamId: FAKE_SEED.teamId,
      userId: FAKE_SEED.users.member,
      channelId: FAKE_SEED.channels.stockroom,
      responseUrl: slack.newResponseUrl({
        teamId: FAKE_SEED.teamId,
        channelId: FAKE_SEED.channels.stockroom,
        userId: FAKE_SEED.users.member,
      }),
      triggerId: slack.newTriggerId(),
    },
  );
}

it(`Slack silent for the token check: start-up waits ${SLACK_CHECK_WAIT_MS} ms of its clock, warns, starts; /estoque is acked at once`, async () => {
  const config = await socketConfig({});
  expect(config.slack.kind).toBe('http');
  // auth.test is held, its retries too: a Slack that takes connections and never answers.
  const holds = [slack.holdNext('auth.test'), slack.holdNext('auth.test'), slack.holdNext('auth.test')];
  const clock = new ManualClock(Date.now());
  const { logger, lines } = captureLogger('info');
  let replica: Awaited<ReturnType<typeof startReplica>> | null = null;
  const starting = startReplica(config, logger, { clock }).then((started) => {
    replica = started;
    return started;
  });
  try {
    const asked = await holds[0]?.arrived;
    expect(replica).toBeNull();
    clock.advance(SLACK_CHECK_WAIT_MS);
    clock.runDue();
    await eventually(() => replica, 10_000);
    expect(asked?.answeredAt).toBeUndefined();
    const said = lines.map(
      (l) => JSON.parse(l) as { level: number; msg: string; err?: { message?: string } },
    );
    expect(said.find((l) => /check SLACK_BOT_TOKEN/.test(l.msg))).toMatchObject({
      level: 40,
      msg: 'could not reach the Slack Web API to check SLACK_BOT_TOKEN (SLACK_API_URL); starting anyway',
      err: { message: `Slack did not answer within ${SLACK_CHECK_WAIT_MS} ms` },
    });
    expect(said.some((l) => l.msg === 'estoque-bot started')).toBe(true);
    // The command's ack does not wait for the bot's ids: auth.test is still unanswered when it comes.
    const ack = await helpCommand(config.PORT);
    expect(ack.status).toBe(200);
    expect(JSON.parse(ack.body)).toMatchObject({ text: renderHelp().text });
    expect(asked?.answeredAt).toBeUndefined();
  } finally {
    for (const hold of holds) hold.release();
    // The stop's drain delay and grace run on the manual clock too.
    let stopped = false;
    void (await starting).stop().then(() => {
      stopped = true;
    });
    await eventually(() => {
      clock.advance(1_000);
      clock.runDue();
      return stopped;
    });
  }
}, 30_000);

/** Whether something accepts TCP connections on the port (the HTTP client's pool would hide a closed listener). */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

it('a stop in HTTP mode: /healthz says 503 at once, Slack is still answered for the drain delay, then the listener closes', async () => {
  const config = { ...(await socketConfig({})), SHUTDOWN_GRACE: 9_000 };
  expect(config.slack.kind).toBe('http');
  const drainMs = drainDelayMs(config);
  expect(drainMs).toBe(3_000);
  const clock = new ManualClock(Date.now());
  const replica = await startReplica(config, captureLogger('silent').logger, { clock });
  const base = `http://127.0.0.1:${config.PORT}`;
  const slackTarget = { eventsUrl: `${base}/slack/events`, signingSecret: 's' };
  expect((await fetch(`${base}/healthz`)).status).toBe(200);

  const stopping = replica.stop();
  const health = await fetch(`${base}/healthz`);
  expect(health.status).toBe(503);
  expect(await health.json()).toEqual({ ok: false, stopping: true });
  // Until the drain delay is over, what the load balancer still sends is answered.
  clock.advance(drainMs - 1);
  clock.runDue();
  const during = await urlVerification(slackTarget, 'still-here');
  expect(during.status).toBe(200);
  expect(during.body).toContain('still-here');
  expect((await fetch(`${base}/healthz`)).status).toBe(503);
  expect(await listening(config.PORT)).toBe(true);

  clock.advance(1);
  clock.runDue();
  await eventually(async () => ((await listening(config.PORT)) ? null : true));
  await stopping;
});

it('no drain delay in Socket Mode (no load balancer in front), a third of the grace up to 5 s in HTTP mode', () => {
  expect(drainDelayMs({ SHUTDOWN_GRACE: 25_000, slack: { kind: 'http' } })).toBe(5_000);
  expect(drainDelayMs({ SHUTDOWN_GRACE: 1_000, slack: { kind: 'http' } })).toBe(333);
  expect(drainDelayMs({ SHUTDOWN_GRACE: 25_000, slack: { kind: 'socket', appToken: 'xapp-1' } })).toBe(0);
});

it('PORT=0: the bot serves on the port its start-up 503 got, and `estoque-bot started` names that port', async () => {
  // auth.test is held so that the test sees the start-up server before the bot takes its port over.
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const asked: string[] = [];
  const held = createServer((req, res) => {
    asked.push(req.url ?? '');
    req.resume();
    void released.then(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, team_id: FAKE_SEED.teamId, user_id: 'UBOT', bot_id: 'BBOT' }));
    });
  });
  await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
  const config: ReplicaConfig = {
    ...(await socketConfig({})),
    PORT: 0,
    SLACK_API_URL: `http://127.0.0.1:${(held.address() as AddressInfo).port}/api/`,
  };
  const { logger, lines } = captureLogger('info');
  const logged = (msg: string) =>
    lines.map((l) => JSON.parse(l) as { msg: string; port?: number }).find((l) => l.msg === msg);
  const starting = startReplica(config, logger);
  let replica: Awaited<typeof starting> | undefined;
  try {
    await eventually(() => asked.includes('/api/auth.test'));
    const waitingPort = logged('listening on PORT; /healthz answers 503 until started')?.port;
    const whileStarting = await fetch(`http://127.0.0.1:${waitingPort}/healthz`).then(
      (res) => res.status,
      () => 'refused',
    );
    release();
    replica = await starting;
    const startedPort = logged('estoque-bot started')?.port;
    expect(startedPort).not.toBe(0);
    expect(startedPort).toBe(waitingPort);
    expect(whileStarting).toBe(503);
    expect((await fetch(`http://127.0.0.1:${startedPort}/healthz`)).status).toBe(200);
  } finally {
    release();
    await (replica ?? (await starting)).stop();
    held.close();
  }
});

it('while it waits for Redis at start, /metrics answers (METRICS_TOKEN asked as always) with estoque_redis_up 0: the store-down alert can fire', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'estoque-replica-metrics-'));
  const redisPort = await freePort();
  const token = 'metrics-token-0123456789';
  const config: ReplicaConfig = {
    ...(await socketConfig({})),
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    METRICS_TOKEN: token,
  };
  const base = `http://127.0.0.1:${config.PORT}`;
  const scrape = (authorization?: string) =>
    fetch(`${base}/metrics`, authorization ? { headers: { authorization } } : {});
  const starting = startReplica(config, captureLogger('silent').logger);
  let own: Awaited<ReturnType<typeof startOwnRedis>> | undefined;
  try {
    const health = await eventually(() => fetch(`${base}/healthz`).catch(() => null));
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ ok: false, waitingFor: 'redis' });
    expect((await scrape()).status).toBe(401);
    expect((await scrape('Bearer not-the-token-at-all')).status).toBe(401);
    const waiting = await scrape(`Bearer ${token}`);
    expect(waiting.status).toBe(200);
    const text = await waiting.text();
    expect(text).toMatch(/^estoque_redis_up 0$/m);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);

    // Redis comes: the replica starts, and the same series goes on from the bot's server.
    own = await startOwnRedis(dir, [], redisPort);
    const replica = await starting;
    try {
      const started = await scrape(`Bearer ${token}`);
      expect(started.status).toBe(200);
      expect(await started.text()).toMatch(/^estoque_redis_up 1$/m);
    } finally {
      await replica.stop();
    }
  } finally {
    await own?.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
