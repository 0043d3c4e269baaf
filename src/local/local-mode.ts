import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Config } from '../config.js';
import { buildContainer, type Container } from '../container.js';
import { mountPlayground } from '../fake-slack/playground/routes.js';
import { FAKE_SEED } from '../fake-slack/seed.js';
import { type FakeSlack, startFakeSlack } from '../fake-slack/server.js';
import { errFields, type Logger } from '../lib/logger.js';
import { DEMO_FACTS } from '../sandbox/facts.js';
import { type Sandbox, startSandbox } from '../sandbox/server.js';
import { buildSlackApp, startSlackApp } from '../slack/app.js';
import { SecretBox } from '../store/crypto.js';
import { EmbeddedKeyValue } from '../store/embedded-kv.js';
import { Keys } from '../store/keys.js';
import { type KeyValue, RedisKeyValue } from '../store/kv.js';
import {
  createRedis,
  credentialsRefusal,
  describeRefusal,
  type RedisCredentialsRefusal,
} from '../store/redis-connection.js';
import type { Budget } from '../upstream/budget.js';
import { createMemoryBudget } from '../upstream/budget-memory.js';
import { createRedisBudget } from '../upstream/budget-redis.js';
import { formatBanner, type LocalModeSummary } from './banner.js';
import { localCredentialsKey } from './credentials-key.js';
import { lockDataDir } from './data-dir-lock.js';
import { localFeedRounds } from './local-feed.js';
import { isAddressInUse, isPortFree, startOnPortOrFree } from './ports.js';
import { sandboxMotion } from './sandbox-motion.js';
import { openSandboxRun } from './sandbox-run.js';

/**
 * Local mode: the whole bot on one machine, with no Slack and no upstream configured.
 *
 *   browser ──> playground page (fake Slack, PORT) ──signed requests──> bot /slack/events (Bolt, PORT+1)
 *   bot ──Web API, response_url──> fake Slack ──server-sent events──> page
 *   bot ──> sandbox upstream (SANDBOX_PORT)
 *
 * The workspace is the fake's seeded one, in single-workspace mode with the fake's bot token and a signing
 * secret made up at start and shared in-process only. The person at the page is the seeded admin, in the
 * seeded stockroom channel. At the first start the workspace is linked to the sandbox's demo login through the
 * real LinkService (unless it already is); later starts keep the link as it was left (linkDemoLogin).
 *
 * ONE PROCESS: without REDIS_URL the store is the embedded one (a JSON file in DATA_DIR) and the rate budget
 * lives in memory, neither of which can be shared by a second process. With REDIS_URL both are Redis, as in
 * production. Anything else that is configured would have turned local mode off (see config.ts).
 */

export interface LocalModeOverrides {
  /** The playground's port (PORT by default; 0 = a free one). */
  port?: number;
  /** The bot's own port (default PORT + 1, or a free one when that is taken or PORT is 0). */
  botPort?: number;
  /** The sandbox's port (SANDBOX_PORT by default; when taken, a free one). */
  sandboxPort?: number;
  /** Where the store and the generated credentials key live (DATA_DIR by default). */
  dataDir?: string;
  /** Where the start-up summary goes (stdout by default). */
  print?: (text: string) => void;
  /** Advances the sandbox's run keeps for replay (MAX_RECORDED_ADVANCES by default; sandbox-run.ts). */
  maxSandboxAdvances?: number;
}

export interface LocalMode {
  /** The playground page. */
  url: string;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

export async function startLocalMode(
  config: Config,
  logger: Logger,
  overrides: LocalModeOverrides = {},
): Promise<LocalMode> {
  const print = overrides.print ?? ((text: string) => process.stdout.write(text));
  /** Everything started so far, stopped in reverse order (also when start-up fails half-way). */
  const stops: { name: string; stop: () => Promise<unknown> }[] = [];
  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      for (const { name, stop } of stops.splice(0).reverse()) {
        await stop().catch((error: unknown) =>
          logger.warn({ part: name, ...errFields(error) }, 'stop failed'),
        );
      }
    })();
    return closing;
  };

  try {
    const dataDir = resolve(overrides.dataDir ?? config.DATA_DIR);
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    // One process per DATA_DIR: the embedded store is one file that a second process would overwrite.
    const lock = await lockDataDir(dataDir);
    stops.push({ name: 'DATA_DIR lock', stop: () => lock.release() });
    const credentialsKey = await localCredentialsKey(config.CREDENTIALS_KEY, dataDir);
    const previous = (config.CREDENTIALS_KEY_PREVIOUS ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    const box = SecretBox.fromBase64(credentialsKey.key, previous);
    // On a Redis (REDIS_URL set) local mode keeps to a prefix of its own: that Redis may be a deployment's (compose
    // sets REDIS_URL before .env is filled in), whose replicas must find neither the demo link nor a
    // credentials-key check sealed with local mode's own key (they would refuse to start). The embedded store
    // keeps the plain prefix, as its file always had.
    const keys = new Keys(
      config.REDIS_URL ? localRedisPrefix(config.REDIS_KEY_PREFIX) : config.REDIS_KEY_PREFIX,
    );

    const storage = await openStorage(config, dataDir, keys, logger);
    stops.push({ name: 'store', stop: storage.close });
    const { kv, budget } = storage;

    // The sandbox lives in memory and the store outlives it: it comes back as it was, so that the feed's snapshots,
    // the cache and the follows' last-seen statuses still describe it (sandbox-run.ts).
    const sandboxRun = await openSandboxRun(
      kv,
      keys,
      logger.child({ component: 'sandbox-run' }),
      Date.now,
      overrides.maxSandboxAdvances,
    );
    const sandboxPort = overrides.sandboxPort ?? config.SANDBOX_PORT;
    const sandboxStart = await startOnPortOrFree(sandboxPort, (port) =>
      startSandbox({
        port,
        host: HOST,
        rateLimit: config.SANDBOX_RATE_LIMIT,
        now: sandboxRun.now,
        seed: sandboxRun.seed,
        onAdvance: (request, at) => sandboxRun.record(request, at),
      }),
    );
    const sandbox: Sandbox = sandboxStart.value;
    stops.push({ name: 'sandbox', stop: () => sandbox.close() });
    const replayed = sandboxRun.replay(sandbox);
    if (replayed > 0) logger.info({ advances: replayed }, 'sandbox advances of earlier runs made again');
    if (sandboxStart.fellBack) {
      logger.warn(
        { wanted: sandboxPort, port: sandbox.port },
        'SANDBOX_PORT is taken: the sandbox uses a free port',
      );
    }

    const playgroundPort = overrides.port ?? config.PORT;
    let fake: FakeSlack;
    try {
      fake = await startFakeSlack({ port: playgroundPort, host: HOST });
    } catch (error) {
      if (isAddressInUse(error)) {
        throw new Error(`PORT ${playgroundPort} is in use: stop what uses it, or set PORT to another port`);
      }
      throw error;
    }
    stops.push({ name: 'fake Slack', stop: () => fake.close() });
    const fakePort = new URL(fake.url).port;

    const teamId = FAKE_SEED.teamId;
    // The bot as a single-workspace install of the fake's workspace: its Web API and its bot token.
    const botConfig: Config = {
      ...config,
      SLACK_API_URL: fake.apiUrl,
      SLACK_BOT_TOKEN: fake.tokenFor(teamId),
      SLACK_APP_TOKEN: undefined,
      oauth: false,
    };
    const container: Container = buildContainer({
      config: botConfig,
      upstream: { baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl },
      logger,
      kv,
      keys,
      box,
      budget,
      // `/estoque sandbox avancar`: the sandbox runs in this process, so the page can move its data along.
      sandboxMotion: sandboxMotion(
        {
          // Saved before the feed's round reads what it changed: a restart replays it.
          advance: async (request) => {
            const changes = sandbox.advance(request);
            await sandboxRun.saved();
            return changes;
          },
        },
        async (workspaceId) => (await container.links.get(workspaceId))?.empresaId ?? null,
        // Built with the container, used once it is.
        () =>
          localFeedRounds(
            container.feed,
            container.feedSnapshots,
            container.feedListeners,
            container.links,
            container.domain.now,
          ),
      ),
    });
    // Closes the budget too (container.close does).
    stops.push({ name: 'services', stop: () => container.close() });

    // Made up at each start and shared in-process only: the playground signs with it, Bolt checks it.
    const signingSecret = randomBytes(32).toString('hex');
    const app = buildSlackApp({
      config: botConfig,
      deps: container.slackDeps,
      kv,
      installations: null,
      signingSecret,
    });
    // Next to the playground when PORT is a fixed port; any free port when PORT=0 asked for any.
    const besideFake = Number(fakePort) + 1;
    const preferredBotPort =
      overrides.botPort ?? (playgroundPort === 0 || besideFake > 65_535 ? 0 : besideFake);
    const botPortFree = overrides.botPort !== undefined || (await isPortFree(preferredBotPort, HOST));
    const server = (await startSlackApp(app, container.slackDeps, {
      port: botPortFree ? preferredBotPort : 0,
      host: HOST,
    })) as { address(): AddressInfo };
    stops.push({ name: 'bot', stop: () => app.stop() });
    const botUrl = `http://${HOST}:${server.address().port}`;

    const playground = mountPlayground(fake, {
      target: { eventsUrl: `${botUrl}/slack/events`, signingSecret },
      teamId,
      userId: FAKE_SEED.users.admin,
      channelId: FAKE_SEED.channels.stockroom,
      healthUrl: `${botUrl}/healthz`,
    });
    stops.push({ name: 'playground', stop: async () => playground.unmount() });

    // A store from before the sandbox's runs were kept, or whose run went past its bound: what it saw was another
    // sandbox.
    if (sandboxRun.fresh) await forgetEarlierSandbox(container, teamId, sandboxRun.overflowed, logger);
    const link = await linkDemoLogin(container, kv, keys, teamId, logger);
    // As in production: keep the linked credential's refresh chain alive, and post the digests on time
    // (container.close stops both).
    container.keeper.start();
    container.scheduler.start();
    container.feed.start();
    const url = `http://localhost:${fakePort}/`;
    const summary: LocalModeSummary = {
      url,
      fakeSlackUrl: fake.url,
      botUrl,
      botPortFellBack: !botPortFree,
      sandbox: {
        baseUrl: sandbox.baseUrl,
        authUrl: sandbox.authUrl,
        preferredPort: sandboxPort,
        fellBack: sandboxStart.fellBack,
      },
      store:
        storage.kind === 'embedded'
          ? { kind: 'embedded', file: storage.file }
          : { kind: 'redis', url: config.REDIS_URL ?? '', prefix: keys.prefix },
      rateLimit: config.UPSTREAM_RATE_LIMIT,
      credentialsKey,
      workspace: {
        id: teamId,
        name: fake.teams.get(teamId)?.name ?? teamId,
        channel: fake.channels.get(FAKE_SEED.channels.stockroom)?.name ?? FAKE_SEED.channels.stockroom,
        userName: fake.users.get(FAKE_SEED.users.admin)?.realName ?? FAKE_SEED.users.admin,
      },
      link,
    };
    logger.info(
      { url, bot: botUrl, sandbox: sandbox.baseUrl, store: storage.kind, link: link.state },
      'estoque-bot started in local mode',
    );
    print(formatBanner(summary));
    return { url, close };
  } catch (error) {
    await close();
    throw error;
  }
}

interface Storage {
  kind: 'embedded' | 'redis';
  file: string;
  kv: KeyValue;
  budget: Budget;
  close(): Promise<void>;
}

/** REDIS_URL set: Redis store and Redis budget, as in production. Otherwise the embedded store and an in-process budget. */
async function openStorage(config: Config, dataDir: string, keys: Keys, logger: Logger): Promise<Storage> {
  const budgetOptions = {
    limit: config.UPSTREAM_RATE_LIMIT,
    feedSharePercent: config.FEED_BUDGET_SHARE,
    feedSaturatedSharePercent: config.FEED_BUDGET_SHARE_SATURATED,
    logger: logger.child({ component: 'budget' }),
  };
  if (config.REDIS_URL) {
    const redis = createRedis(config.REDIS_URL, logger, { lazyConnect: true });
    // Refused credentials reach the client's `error` event, and the connection then only says it closed: kept to
    // be named, and not retried (nobody fixes the password while local mode starts).
    let refusal: RedisCredentialsRefusal | null = null;
    redis.on('error', (error: unknown) => {
      refusal ??= credentialsRefusal(error);
      if (refusal) redis.disconnect();
    });
    try {
      await redis.connect();
      await redis.ping();
    } catch (error) {
      redis.disconnect();
      const refused = credentialsRefusal(error) ?? refusal;
      throw new Error(
        refused
          ? `${describeRefusal(refused)}; or unset REDIS_URL to use the embedded store`
          : `REDIS_URL is set but Redis does not answer (${error instanceof Error ? error.message : String(error)}); unset it to use the embedded store`,
      );
    }
    return {
      kind: 'redis',
      file: '',
      kv: new RedisKeyValue(redis),
      budget: createRedisBudget(redis, keys, budgetOptions),
      close: async () => {
        await redis.quit().catch(() => redis.disconnect());
      },
    };
  }
  const file = join(dataDir, 'store.json');
  const kv = await EmbeddedKeyValue.open({ file, logger: logger.child({ component: 'store' }) });
  return { kind: 'embedded', file, kv, budget: createMemoryBudget(budgetOptions), close: () => kv.close() };
}

/**
 * Links the workspace to the sandbox's demo login at the first start, through the same service the linking modal
 * uses. A marker in the store says it was done (or a link was found): later starts leave the link as the person at
 * the page left it, unlinked or broken, and say so in the banner. A link sealed under another key (CREDENTIALS_KEY
 * changed) cannot be used by anyone: that one is replaced.
 */
async function linkDemoLogin(
  container: Container,
  kv: KeyValue,
  keys: Keys,
  teamId: string,
  logger: Logger,
): Promise<LocalModeSummary['link']> {
  const demo = DEMO_FACTS.company1;
  const markerKey = keys.localDemoLinkMade(teamId);
  const markDone = () => kv.set(markerKey, String(container.domain.now()), { onlyIfAbsent: true });
  const linkedBefore = (await kv.get(markerKey)) !== null;
  let unreadable = false;
  try {
    const existing = await container.links.get(teamId);
    if (existing) {
      // A store from before the marker: its link counts as the first start's.
      if (!linkedBefore) await markDone();
      const state = existing.brokenAt === null ? 'kept' : 'broken';
      return { state, login: existing.login, empresaId: existing.empresaId };
    }
  } catch (error) {
    logger.warn(errFields(error), 'stored link unreadable');
    unreadable = true;
  }
  if (linkedBefore && !unreadable) {
    logger.info('local workspace left unlinked, as it was unlinked from the page');
    return { state: 'unlinked' };
  }
  const outcome = await container.linkService.link(
    teamId,
    {
      login: demo.login,
      password: demo.password,
      empresaId: demo.empresa,
      unidadeId: null,
      endActiveSession: false,
    },
    FAKE_SEED.users.admin,
  );
  if (outcome.ok) {
    await markDone();
    return { state: 'linked', login: demo.login, empresaId: demo.empresa };
  }
  const reason = outcome.field === null ? outcome.reason : outcome.message;
  logger.warn({ reason }, 'could not link the local workspace to the demo login');
  return { state: 'failed', reason };
}

/**
 * The sandbox starts afresh while the store holds what the feed saw of an earlier one (a store from before the
 * sandbox's runs were kept, or a run past its bound, `overflowed`): its snapshots, the cached answers and the
 * follows' last-seen statuses would describe other data, and the next rounds would tell changes backwards. They are
 * forgotten: the next round only records. A store whose feed never recorded is taken as new, unless the run says it
 * was not.
 */
async function forgetEarlierSandbox(
  container: Container,
  teamId: string,
  overflowed: boolean,
  logger: Logger,
): Promise<void> {
  const state = await container.feedSnapshots.state(teamId);
  if (state.recordedAt === null && !overflowed) return;
  await container.feedSnapshots.forget(teamId);
  await container.cache.clear(teamId);
  for (const follow of await container.feedListeners.listFollows(teamId)) {
    await container.feedListeners.updateLastSeen(teamId, follow.userId, follow.requestId, null);
  }
  logger.info('the sandbox starts afresh: what the feed saw of an earlier one is forgotten');
}

/** The keys local mode writes on a shared Redis: `<REDIS_KEY_PREFIX>local:`. */
export function localRedisPrefix(prefix: string): string {
  return `${prefix}local:`;
}
