import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type App, webApi } from '@slack/bolt';
import type { Redis } from 'ioredis';
import type { ReplicaConfig } from './config.js';
import { buildContainer, type Container, type ContainerOptions } from './container.js';
import { type Clock, systemClock } from './lib/clock.js';
import { orAfter } from './lib/deadline.js';
import { errFields, type Logger } from './lib/logger.js';
import { PromMetrics } from './lib/prom-metrics.js';
import { renderVanishedLinkAdminNotice } from './render/index.js';
import { buildSlackApp, liveHandler, startSlackApp } from './slack/app.js';
import { ABANDON_NOTICE_MS } from './slack/background.js';
import type { BotIds } from './slack/bot-identity.js';
import { createSlackClients } from './slack/slack-clients.js';
import { webApiLogger } from './slack/slack-logger.js';
import { metricsHandler } from './slack/slack-metrics.js';
import { SecretBox } from './store/crypto.js';
import { checkDurability } from './store/durability.js';
import { SlackInstallationStore } from './store/installation-store.js';
import { CredentialsKeyCheck, CredentialsKeyMismatchError } from './store/key-check.js';
import { Keys } from './store/keys.js';
import { RedisKeyValue } from './store/kv.js';
import { createRedis, redisTarget, waitForRedis } from './store/redis-connection.js';
import { createRedisBudget } from './upstream/budget-redis.js';

export interface RedisBot {
  redis: Redis;
  keys: Keys;
  kv: RedisKeyValue;
  box: SecretBox;
  /** OAuth installations; null for a single-workspace install. */
  installations: SlackInstallationStore | null;
  container: Container;
  app: App;
  /** Set by a stop: `/healthz` answers 503 while the server still drains. */
  serving: { stopping: boolean };
}

/**
 * One replica of the bot over a shared Redis, as production runs it (startReplica) and as the benchmark's replicas
 * do: the sealed stores, the Redis budget, OAuth installations when configured, the Slack app. Not started.
 */
export function buildRedisBot(
  config: ReplicaConfig,
  logger: Logger,
  options: {
    keyPrefix?: string;
    features?: ContainerOptions['features'];
    redis?: Redis;
    /** The metrics registry, when one was made before the bot (startReplica's start-up server serves it). */
    metrics?: PromMetrics;
    /** What the start-up check read of the bot (SLACK_BOT_TOKEN's auth.test): no request asks again. */
    botIds?: BotIds | null;
  } = {},
): RedisBot {
  const redis = options.redis ?? createRedis(config.REDIS_URL, logger);
  const keys = new Keys(options.keyPrefix ?? config.REDIS_KEY_PREFIX);
  const kv = new RedisKeyValue(redis);
  const box = SecretBox.fromBase64(config.CREDENTIALS_KEY, previousKeys(config.CREDENTIALS_KEY_PREVIOUS));
  const budget = createRedisBudget(redis, keys, {
    limit: config.UPSTREAM_RATE_LIMIT,
    feedSharePercent: config.FEED_BUDGET_SHARE,
    feedSaturatedSharePercent: config.FEED_BUDGET_SHARE_SATURATED,
    logger: logger.child({ component: 'budget' }),
  });
  // A new install resumes the digests and alerts a revoked token paused (the container exists by the time one
  // arrives).
  const installations = config.oauth
    ? new SlackInstallationStore(kv, keys, box, async (workspaceId) => {
        await container.subscriptions.resumeWorkspace(workspaceId, 'tokens_revoked');
        await container.feedListeners.resumeWorkspace(workspaceId, 'tokens_revoked');
      })
    : null;
  const container = buildContainer({
    config,
    upstream: { baseUrl: config.UPSTREAM_BASE_URL, authUrl: config.UPSTREAM_AUTH_URL },
    logger,
    kv,
    keys,
    box,
    budget,
    installations,
    ...(options.features && { features: options.features }),
    ...(options.metrics && { metrics: options.metrics }),
  });
  const serving = { stopping: false };
  const app = buildSlackApp({
    config,
    deps: container.slackDeps,
    kv,
    installations,
    stopping: () => serving.stopping,
    botIds: options.botIds ?? null,
  });
  return { redis, keys, kv, box, installations, container, app, serving };
}

function previousKeys(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
}

/** Start-up stopped for a reason the operator must fix; `exitCode` tells the reasons apart (README, Operations). */
export class StartupError extends Error {
  override readonly name = 'StartupError';
  constructor(
    message: string,
    readonly exitCode: number,
    readonly code: string,
  ) {
    super(message);
  }
}

/** Exit codes of a replica that refuses to start (2 is a bad configuration, config.ts). */
export const EXIT = { config: 2, credentialsKey: 3, slackToken: 4 } as const;

export interface Replica {
  bot: RedisBot;
  /**
   * `/healthz` answers 503 at once and the loops stop; requests are still taken for the drain delay (drainDelayMs),
   * then the server stops taking them, answers in flight finish within the rest of SHUTDOWN_GRACE, and everything
   * closes. `crashed`: at once, with a grace of CRASH_GRACE_MS at most (the process's state is unknown).
   */
  stop(options?: { crashed?: boolean }): Promise<void>;
}

/** A stop after an uncaught exception (`crashed`): no drain delay, and at most this grace before the restart notices. */
export const CRASH_GRACE_MS = 2_000;

export interface ReplicaOptions {
  clock?: Clock;
  /** How often links that vanished from Redis are looked for after the start-up check (default 10 min). */
  vanishedCheckMs?: number;
}

/**
 * A replica's start-up, each step logged: /healthz answers 503 until the bot serves; Redis is waited for (never
 * "started" without it); its durability is checked; the bot token and the credentials key are checked (a wrong
 * one refuses to start, naming the variable and the fix); links that vanished are told to their admins; then
 * the Slack app starts. Throws StartupError for what the operator must fix.
 */
export async function startReplica(
  config: ReplicaConfig,
  logger: Logger,
  options: ReplicaOptions = {},
): Promise<Replica> {
  const clock = options.clock ?? systemClock;
  const redis = createRedis(config.REDIS_URL, logger, { clock });
  // One registry for the replica's whole life, served by the start-up server too: a replica that waits for Redis
  // says `estoque_redis_up 0` instead of no series at all (the "store down" alert could not fire).
  const metrics = new PromMetrics();
  const startupKv = new RedisKeyValue(redis);
  metrics.readFrom({ storeUp: () => startupKv.ping(), budgetUsage: async () => [] });
  const notReady = await serveNotReady(config.PORT, metricsHandler(metrics, config.METRICS_TOKEN));
  const waiting = notReady.server;
  // The port it got (PORT=0: one the system chose) is the one the bot takes over, and the one logged.
  const port = notReady.port;
  logger.info({ component: 'startup', port }, 'listening on PORT; /healthz answers 503 until started');
  let bot: RedisBot | null = null;
  try {
    await waitForRedis(redis, logger.child({ component: 'startup' }), { url: config.REDIS_URL, clock });
    await reportDurability(redis, config.REDIS_URL, logger);
    notReady.waitFor('slack');
    const botIds =
      !config.oauth && config.SLACK_BOT_TOKEN
        ? await checkSlackToken(config, config.SLACK_BOT_TOKEN, logger, clock)
        : null;
    if (config.slack.kind === 'socket') await checkAppToken(config, config.slack.appToken, logger, clock);
    bot = buildRedisBot({ ...config, PORT: port }, logger, { redis, metrics, botIds });
    notReady.waitFor('credentials-key');
    await checkCredentialsKey(bot, logger);
    if (botIds?.teamId) await resumeAfterNewToken(bot, botIds.teamId, logger);
    await new Promise<void>((resolve) => waiting.close(() => resolve()));
    await startSlackApp(bot.app, bot.container.slackDeps, port).catch((error: unknown) => {
      throw slackStartFailure(error, config) ?? error;
    });
  } catch (error) {
    waiting.close();
    await bot?.container.close({ graceMs: 0 }).catch(() => undefined);
    redis.disconnect();
    throw error;
  }
  const started = bot;
  const tellVanished = () =>
    tellVanishedLinks(started, config, logger).catch((error: unknown) =>
      logger.warn(errFields(error), 'could not check for vanished links'),
    );
  await tellVanished();
  const vanishedTimer = setInterval(() => void tellVanished(), options.vanishedCheckMs ?? 600_000);
  vanishedTimer.unref();
  // A Redis that restarted (or failed over) comes back through a reconnection: what it lost is looked for then.
  const checkAfterReconnect = () => void tellVanished();
  redis.on('ready', checkAfterReconnect);
  started.container.keeper.start();
  // Every replica ticks; claims in Redis make each digest post once.
  started.container.scheduler.start();
  started.container.feed.start();
  logger.info(
    {
      port,
      mode: config.slack.kind,
      oauth: config.oauth,
      rateLimit: config.UPSTREAM_RATE_LIMIT,
      redis: redisTarget(config.REDIS_URL),
      keyPrefix: config.REDIS_KEY_PREFIX,
    },
    'estoque-bot started',
  );
  let stopping: Promise<void> | null = null;
  return {
    bot: started,
    stop(stopOptions = {}) {
      stopping ??= (async () => {
        clearInterval(vanishedTimer);
        redis.off('ready', checkAfterReconnect);
        // Load balancers and Kubernetes keep routing to a replica for a few seconds after it is told to stop: it
        // says it is not ready, and keeps answering until they have seen that, within the grace.
        started.serving.stopping = true;
        started.container.stopLoops();
        const crashed = stopOptions.crashed === true;
        const drainMs = crashed ? 0 : drainDelayMs(config);
        if (drainMs > 0) await new Promise((resolve) => clock.setTimeout(() => resolve(undefined), drainMs));
        // Closing the server stops new requests at once; its promise waits for open connections: not awaited.
        const serverStopped = started.app.stop().catch(() => undefined);
        await started.container.close({ graceMs: stopGraceMs(config, { crashed }) - drainMs, clock });
        await Promise.race([serverStopped, new Promise((r) => setTimeout(r, 1_000).unref())]);
        await redis.quit().catch(() => redis.disconnect());
      })();
      return stopping;
    },
  };
}

/**
 * How long a stopping replica behind a load balancer (HTTP mode) still takes requests, `/healthz` answering 503: a
 * third of SHUTDOWN_GRACE, 5 s at most (Kubernetes' endpoints and a load balancer's health checks catch up within
 * a few seconds). Part of the grace: answers in flight then have the rest. None in Socket Mode (no load balancer
 * in front: Slack sends to the other connections once the socket closes).
 */
export function drainDelayMs(config: Pick<ReplicaConfig, 'SHUTDOWN_GRACE' | 'slack'>): number {
  return config.slack.kind === 'http' ? Math.min(5_000, Math.floor(config.SHUTDOWN_GRACE / 3)) : 0;
}

/** The grace of a stop: SHUTDOWN_GRACE, or CRASH_GRACE_MS at most after an uncaught exception. */
export function stopGraceMs(
  config: Pick<ReplicaConfig, 'SHUTDOWN_GRACE'>,
  options: { crashed?: boolean } = {},
): number {
  return options.crashed ? Math.min(CRASH_GRACE_MS, config.SHUTDOWN_GRACE) : config.SHUTDOWN_GRACE;
}

/** The longest a stop may take: the grace, the restart notices, and a margin for closing connections. */
export function stopDeadlineMs(
  config: Pick<ReplicaConfig, 'SHUTDOWN_GRACE'>,
  options: { crashed?: boolean } = {},
): number {
  return stopGraceMs(config, options) + ABANDON_NOTICE_MS + 2_000;
}

/**
 * What start-up waits for, as the 503 says: Redis, then Slack's check of the tokens (auth.test,
 * apps.connections.open), then the credentials key check.
 */
type StartupWait = 'redis' | 'slack' | 'credentials-key';

interface NotReady {
  server: Server;
  /** The port it listens on (PORT, or the one the system chose for PORT=0). */
  port: number;
  waitFor(step: StartupWait): void;
}

/**
 * PORT answers `/healthz` with 503 (and everything else but `/livez` and `/metrics` with 503), naming the step
 * start-up waits for, until the Slack app takes the port over.
 */
function serveNotReady(
  port: number,
  metrics: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<NotReady> {
  let waitingFor: StartupWait = 'redis';
  const server = createServer((req, res) => {
    const path = req.method === 'GET' ? req.url?.split('?')[0] : undefined;
    // Alive while it waits (for Redis, however long): only readiness fails. Scraped as when started. No connection
    // is kept open: this server gives the port to the bot.
    if (path === '/livez' || path === '/metrics') {
      req.resume();
      res.setHeader('connection', 'close');
      (path === '/livez' ? liveHandler : metrics)(req, res);
      return;
    }
    res.writeHead(503, { 'content-type': 'application/json', connection: 'close' });
    res.end(JSON.stringify({ ok: false, store: 'starting', waitingFor }));
    req.resume();
  });
  const waitFor = (step: StartupWait) => {
    waitingFor = step;
  };
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new StartupError(
              `PORT ${port} is in use: stop what uses it, or set PORT to another port`,
              1,
              'port',
            )
          : error,
      ),
    );
    server.listen(port, () => {
      const address = server.address();
      resolve({ server, waitFor, port: typeof address === 'object' && address ? address.port : port });
    });
  });
}

async function reportDurability(redis: Redis, url: string, logger: Logger): Promise<void> {
  const log = logger.child({ component: 'startup', redis: redisTarget(url) });
  const report = await checkDurability(redis);
  if (!report.readable) {
    log.info(
      { reason: report.reason },
      'Redis does not let us read its persistence settings (managed Redis often refuses CONFIG): make sure it ' +
        'persists (AOF or RDB) and never evicts links (noeviction or volatile-*), see the README',
    );
    return;
  }
  for (const problem of report.problems)
    log.warn({ problem, ...report.facts }, 'unsafe Redis: links may be lost');
  if (report.problems.length === 0)
    log.info(report.facts, 'Redis persistence and eviction are safe for links');
}

const REFUSED_TOKEN = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'not_allowed_token_type',
]);

/**
 * With SLACK_BOT_TOKEN (no OAuth), a token Slack accepts at start is what a reinstall is with OAuth: the digests and
 * alerts its workspace paused when the old token was revoked (`tokens_revoked`, or a post refused for the token)
 * resume, as the installation store's callback does for a new install.
 */
async function resumeAfterNewToken(bot: RedisBot, teamId: string, logger: Logger): Promise<void> {
  const digests = await bot.container.subscriptions.resumeWorkspace(teamId, 'tokens_revoked');
  const alerts = await bot.container.feedListeners.resumeWorkspace(teamId, 'tokens_revoked');
  if (digests > 0 || alerts)
    logger.info(
      { component: 'startup', teamId, digests, alerts },
      'SLACK_BOT_TOKEN accepted: digests and alerts paused by a revoked token resume',
    );
}

/**
 * How long start-up waits for Slack to answer a token check (auth.test, apps.connections.open; a refused connection
 * or a 5xx retried within it). Past it, Slack is unreachable for start-up's purpose: a warn line, and the replica
 * starts (a single-workspace bot asks its ids again when a request needs them, bot-identity.ts). Until 2026-11-27
 * each check waited 10 s per attempt over 3 attempts: about 31 s of 503 per replica through a Slack outage.
 */
export const SLACK_CHECK_WAIT_MS = 5_000;

/** The start-up checks' client: the bounds above, its own lines in the JSON log. */
function startupCheckClient(config: ReplicaConfig, token: string, logger: Logger) {
  return new webApi.WebClient(token, {
    slackApiUrl: config.SLACK_API_URL,
    retryConfig: { retries: 2, minTimeout: 500, maxTimeout: 2_000 },
    timeout: SLACK_CHECK_WAIT_MS,
    logger: webApiLogger(logger.child({ component: 'startup' })),
  });
}

const NO_ANSWER = Symbol('no answer');

/** The check's answer, or NO_ANSWER once SLACK_CHECK_WAIT_MS have passed on `clock` (the call goes on, unheard). */
function withinCheckWait<T>(call: Promise<T>, clock: Clock): Promise<T | typeof NO_ANSWER> {
  return orAfter<T | typeof NO_ANSWER>(call, SLACK_CHECK_WAIT_MS, () => NO_ANSWER, clock);
}

/**
 * auth.test with the bot token before anything starts: a refused token stops start-up with the fix. Returns the
 * bot's ids (its workspace among them), or null when Slack could not be asked within SLACK_CHECK_WAIT_MS.
 */
async function checkSlackToken(
  config: ReplicaConfig,
  token: string,
  logger: Logger,
  clock: Clock,
): Promise<BotIds | null> {
  try {
    const auth = await withinCheckWait(startupCheckClient(config, token, logger).auth.test(), clock);
    if (auth === NO_ANSWER) throw new Error(`Slack did not answer within ${SLACK_CHECK_WAIT_MS} ms`);
    logger.info(
      { component: 'startup', teamId: auth.team_id, botUserId: auth.user_id },
      'Slack accepted SLACK_BOT_TOKEN',
    );
    return { teamId: auth.team_id, botUserId: auth.user_id, botId: auth.bot_id };
  } catch (error) {
    const failure = tokenRefusal(error, 'SLACK_BOT_TOKEN');
    if (failure) throw failure;
    // Slack unreachable: not the token's fault. Say it once.
    logger.warn(
      { component: 'startup', ...errFields(error) },
      'could not reach the Slack Web API to check SLACK_BOT_TOKEN (SLACK_API_URL); starting anyway',
    );
    return null;
  }
}

/**
 * Socket Mode's client retries a refused app token forever inside `start()`: asked first (apps.connections.open,
 * whose URL is left unused), a refused one stops start-up with the fix.
 */
async function checkAppToken(
  config: ReplicaConfig,
  appToken: string,
  logger: Logger,
  clock: Clock,
): Promise<void> {
  try {
    const open = await withinCheckWait(
      startupCheckClient(config, appToken, logger).apps.connections.open(),
      clock,
    );
    if (open === NO_ANSWER) throw new Error(`Slack did not answer within ${SLACK_CHECK_WAIT_MS} ms`);
    logger.info({ component: 'startup' }, 'Slack accepted SLACK_APP_TOKEN');
  } catch (error) {
    const failure = tokenRefusal(error, 'SLACK_APP_TOKEN');
    if (failure) throw failure;
    logger.warn(
      { component: 'startup', ...errFields(error) },
      'could not reach the Slack Web API to check SLACK_APP_TOKEN (SLACK_API_URL); starting anyway',
    );
  }
}

function tokenRefusal(error: unknown, variable: 'SLACK_BOT_TOKEN' | 'SLACK_APP_TOKEN'): StartupError | null {
  const slackError = (error as { data?: { error?: unknown } } | null)?.data?.error;
  if (typeof slackError !== 'string' || !REFUSED_TOKEN.has(slackError)) return null;
  const where =
    variable === 'SLACK_BOT_TOKEN'
      ? "copy the Bot User OAuth Token (xoxb-...) from the app's OAuth & Permissions page; if the app was " +
        'uninstalled or the token revoked, reinstall the app to the workspace first'
      : "create an app-level token with the connections:write scope on the app's Basic Information page " +
        '(App-Level Tokens) and put it in SLACK_APP_TOKEN';
  return new StartupError(
    `${variable} was refused by Slack (${slackError}): ${where}.`,
    EXIT.slackToken,
    'slack_token_refused',
  );
}

/** Socket Mode opens its connection in start(): a refused app token is named like a refused bot token. */
function slackStartFailure(error: unknown, config: ReplicaConfig): StartupError | null {
  return config.slack.kind === 'socket' ? tokenRefusal(error, 'SLACK_APP_TOKEN') : null;
}

async function checkCredentialsKey(bot: RedisBot, logger: Logger): Promise<void> {
  const links = bot.container.links;
  try {
    const outcome = await new CredentialsKeyCheck(bot.kv, bot.keys, bot.box).verify(
      () => links.workspaceIds(),
      (workspaceId) => links.get(workspaceId),
    );
    logger.info({ component: 'startup', keyId: bot.box.currentKeyId, ...outcome }, 'credentials key check');
  } catch (error) {
    if (error instanceof CredentialsKeyMismatchError)
      throw new StartupError(error.message, EXIT.credentialsKey, error.code);
    throw error;
  }
}

/**
 * Links that Redis lost (a workspace remembered as linked, its link gone, nobody unlinked it): the admin who
 * linked gets one DM, across replicas; the operator gets one error line: for a link that alone went (an eviction),
 * `a link vanished from Redis`; when Redis lost everything it held (a restart without persistence, a failover to an
 * empty replica, FLUSHALL), one line for the loss, by the one replica that claims it, naming the links it knew.
 */
export async function tellVanishedLinks(
  bot: RedisBot,
  config: ReplicaConfig,
  logger: Logger,
): Promise<number> {
  const links = bot.container.links;
  const vanished = await links.vanished();
  if (vanished.length === 0) return 0;
  const lost = new Map<string, string[]>();
  for (const { workspaceId, lostGeneration } of vanished)
    if (lostGeneration !== undefined)
      lost.set(lostGeneration, [...(lost.get(lostGeneration) ?? []), workspaceId]);
  for (const [generation, workspaceIds] of lost) {
    if (!(await links.claimLossNotice(generation, Date.now()))) continue;
    logger.error(
      { workspaceIds, links: workspaceIds.length },
      'Redis lost its data (a restart without persistence, a failover to an empty replica, or a flush): every ' +
        'link went with it; the admins who linked are told; make Redis persist (AOF or RDB), see the README, ' +
        'What Redis must be',
    );
  }
  const clients = createSlackClients({
    slackApiUrl: config.SLACK_API_URL,
    logger,
    ...(config.SLACK_BOT_TOKEN && !config.oauth && { botToken: config.SLACK_BOT_TOKEN }),
    ...(config.oauth && { installations: bot.installations ?? undefined }),
    timeoutMs: 10_000,
  });
  let told = 0;
  for (const { workspaceId, linkedBy, lostGeneration } of vanished) {
    // Another replica tells this one: forgotten here too, or it would be told again once the claim expires.
    if (!(await links.claimVanishedNotice(workspaceId, Date.now()))) {
      await links.forgetVanished(workspaceId);
      continue;
    }
    if (lostGeneration === undefined)
      logger.error(
        { workspaceId, linkedBy },
        'a link vanished from Redis (nobody unlinked it): its admin is told; check Redis persistence and eviction',
      );
    const notice = renderVanishedLinkAdminNotice();
    try {
      const client = linkedBy ? await clients.forWorkspace(workspaceId) : null;
      if (client) {
        await client.chat.postMessage({ channel: linkedBy, text: notice.text, blocks: notice.blocks });
        told += 1;
      } else {
        // With OAuth the workspace's installation may have gone with the rest: it installs the app again.
        logger.warn(
          { workspaceId, linkedBy },
          'could not tell the linking admin the link vanished: nobody to tell, or no Slack token for the workspace',
        );
      }
    } catch (error) {
      logger.warn({ workspaceId, ...errFields(error) }, 'could not tell the linking admin the link vanished');
    }
    await links.forgetVanished(workspaceId);
  }
  return told;
}
