import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { CachedReader } from '../../src/domain/cached-reader.js';
import type { DomainDeps } from '../../src/domain/deps.js';
import { DigestClaims } from '../../src/domain/digest/claims.js';
import { DigestService } from '../../src/domain/digest/digest-service.js';
import { DigestMaterialNotes } from '../../src/domain/digest/material-notes.js';
import { DigestScheduler } from '../../src/domain/digest/scheduler.js';
import { checkListener } from '../../src/domain/listener-check.js';
import { PurchaseService } from '../../src/domain/purchases/purchase-service.js';
import { RequestService } from '../../src/domain/requests/request-service.js';
import { CatalogService } from '../../src/domain/stock/catalog-service.js';
import { Workspaces } from '../../src/domain/workspace.js';
import { FAKE_SEED, type FakeMessage, type FakeSlack, startFakeSlack } from '../../src/fake-slack/index.js';
import { makeLogger } from '../../src/lib/logger.js';
import { checkMessageLimits, type Message } from '../../src/render/index.js';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { DigestPoster } from '../../src/slack/digest-poster.js';
import { DigestSubscriptions } from '../../src/slack/digest-subscriptions.js';
import { createSlackClients } from '../../src/slack/slack-clients.js';
import { CacheStore } from '../../src/store/cache-store.js';
import { SecretBox } from '../../src/store/crypto.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { LinkStore } from '../../src/store/link-store.js';
import { StockStore } from '../../src/store/stock-store.js';
import { type SubscriptionInput, SubscriptionStore } from '../../src/store/subscription-store.js';
import { TokenStore } from '../../src/store/token-store.js';
import { UserMatchStore } from '../../src/store/user-match-store.js';
import { TokenManager } from '../../src/upstream/auth.js';
import type { Budget, BudgetOptions } from '../../src/upstream/budget.js';
import { createMemoryBudget } from '../../src/upstream/budget-memory.js';
import { createRedisBudget } from '../../src/upstream/budget-redis.js';
import { UpstreamClient } from '../../src/upstream/client.js';
import { credentialIdOf } from '../../src/upstream/credential.js';
import { createDispatcher } from '../../src/upstream/http.js';
import { FAST_RETRY_POLICY } from '../../src/upstream/retry.js';
import { ManualClock } from './manual-clock.js';
import { makeTestRedis, type TestRedis } from './redis.js';

export const WS = FAKE_SEED.teamId;
export const CHANNELS = FAKE_SEED.channels;
export const SUBSCRIBER = FAKE_SEED.users.member;
export const SP = 'America/Sao_Paulo';
const C1 = DEMO_FACTS.company1;

export interface ReplicaOptions {
  budget?: Pick<BudgetOptions, 'limit' | 'maxWaitMs' | 'reserve' | 'feedSharePercent'> & {
    /** The memory budget on the test's clock, instead of the Redis budget (whose window is on the Redis clock). */
    onTestClock?: boolean;
  };
  leaseMs?: number;
  /** DigestSchedulerDeps.recordRetryMs. */
  recordRetryMs?: number;
  /**
   * Off: the poster does not wait for a channel's one-second slot, and its waits (Retry-After) are recorded in
   * `sleeps` instead of slept. The pacing is digest-poster.test.ts's subject, not the scheduler's. On (the
   * default), waits are slept and recorded.
   */
  pacing?: boolean;
}

/** One process of the bot as far as digests go: its own Redis connection, budget queue, client and scheduler. */
export interface Replica {
  /** The poster's waits (slot polls and Retry-After), in ms, in the order it waited. */
  sleeps: number[];
  scheduler: DigestScheduler;
  digestSubscriptions: DigestSubscriptions;
  store: SubscriptionStore;
  claims: DigestClaims;
  digests: DigestService;
  poster: DigestPoster;
  budget: Budget;
  /** Its token manager (a test logs in before it fills the budget). */
  tokens: TokenManager;
  domain: DomainDeps;
  close(): Promise<void>;
}

export interface Harness {
  /** The scheduler, the stores, the token manager and the sandbox read it; the scheduler's loop runs on it. */
  clock: ManualClock;
  redis: TestRedis;
  sandbox: Sandbox;
  slack: FakeSlack;
  box: SecretBox;
  credentialId: string;
  replica(options?: ReplicaOptions): Replica;
  /** Writes a subscription directly (as `assinar` would), at the clock's time. */
  subscribe(input: Partial<SubscriptionInput> & { channelId: string }): Promise<void>;
  /** Messages the bot posted in a channel (digests and confirmations). */
  posts(channelId: string): FakeMessage[];
  /** DMs the bot sent to a user. */
  dms(userId: string): FakeMessage[];
  /** Data calls the sandbox answered (logins and refreshes left out). */
  dataCalls(): string[];
  close(): Promise<void>;
}

/** `replicaDefaults` apply to every replica the harness makes (a replica's own options win). */
export async function startDigestHarness(
  startAt: number,
  replicaDefaults: ReplicaOptions = {},
): Promise<Harness> {
  const clock = new ManualClock(startAt);
  const sandbox = await startSandbox({
    port: 0,
    now: clock.now,
    rateLimit: { count: 1_000_000, windowMs: 1_000 },
    // Tokens live for the whole test whatever the fake clock does.
    tokenTtlMs: 365 * 86_400_000,
    refreshTtlMs: 400 * 86_400_000,
  });
  const slack = await startFakeSlack({ port: 0 });
  const redis = await makeTestRedis();
  const box = new SecretBox(randomBytes(32));
  const logger = makeLogger({ level: 'silent' });
  const credentialId = credentialIdOf(sandbox.authUrl, C1.login);
  const baseKv = new RedisKeyValue(redis.redis);
  await new LinkStore(baseKv, redis.keys, box).save({
    workspaceId: WS,
    credentialId,
    login: C1.login,
    password: C1.password,
    empresaId: C1.empresa,
    unidadeId: null,
    linkedBy: FAKE_SEED.users.admin,
    linkedAt: startAt,
    brokenAt: null,
  });
  const replicas: Replica[] = [];
  let replicaNumber = 0;

  const harness: Harness = {
    clock,
    redis,
    sandbox,
    slack,
    box,
    credentialId,
    replica(own = {}) {
      const options: ReplicaOptions = { ...replicaDefaults, ...own };
      replicaNumber += 1;
      const connection = redis.connect();
      const kv = new RedisKeyValue(connection);
      const { keys } = redis;
      const dispatcher = createDispatcher();
      const budgetOptions = {
        limit: options.budget?.limit ?? { count: 1_000, windowMs: 60_000 },
        logger,
        ...(options.budget?.maxWaitMs && { maxWaitMs: options.budget.maxWaitMs }),
        ...(options.budget?.reserve && { reserve: options.budget.reserve }),
        ...(options.budget?.feedSharePercent !== undefined && {
          feedSharePercent: options.budget.feedSharePercent,
        }),
      };
      const budget = options.budget?.onTestClock
        ? createMemoryBudget({ ...budgetOptions, clock })
        : createRedisBudget(connection, keys, budgetOptions);
      const tokens = new TokenManager({
        authUrl: sandbox.authUrl,
        dispatcher,
        budget,
        store: new TokenStore(kv, keys, box, clock.now),
        logger,
        now: clock.now,
        retryPolicy: FAST_RETRY_POLICY,
      });
      const client = new UpstreamClient({
        baseUrl: sandbox.baseUrl,
        tokens,
        budget,
        dispatcher,
        logger,
        retryPolicy: FAST_RETRY_POLICY,
        timeoutMs: 5_000,
        // The period checks on the test's clock and in the service's zone, as the container wires them.
        now: clock.now,
        timeZone: SP,
      });
      const workspaces = new Workspaces(new LinkStore(kv, keys, box), clock.now);
      const domain: DomainDeps = {
        client,
        reader: new CachedReader({ cache: new CacheStore(kv, keys), workspaces, logger, now: clock.now }),
        workspaces,
        stock: new StockStore(kv, keys),
        userMatches: new UserMatchStore(kv, keys),
        logger,
        now: clock.now,
        timeZone: SP,
      };
      const catalog = new CatalogService(domain);
      const digests = new DigestService(
        domain,
        { requests: new RequestService(domain), purchases: new PurchaseService(domain, catalog) },
        new DigestMaterialNotes(kv, keys),
      );
      const store = new SubscriptionStore(kv, keys, clock.now);
      const claims = new DigestClaims(kv, keys, `replica-${replicaNumber}`, {
        ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }),
      });
      const clients = createSlackClients({ slackApiUrl: slack.apiUrl, logger, botToken: 'xoxb-digest-test' });
      const sleeps: number[] = [];
      const poster = new DigestPoster({
        clients,
        subscriptions: store,
        kv,
        keys,
        logger,
        ...(options.pacing === false
          ? {
              maxSlotWaitMs: 0,
              sleep: async (ms: number) => {
                sleeps.push(ms);
              },
            }
          : {
              sleep: async (ms: number) => {
                sleeps.push(ms);
                await delay(ms);
              },
            }),
      });
      const scheduler = new DigestScheduler({
        subscriptions: store,
        claims,
        digests,
        publisher: poster,
        logger,
        now: clock.now,
        clock,
        ...(options.recordRetryMs !== undefined && { recordRetryMs: options.recordRetryMs }),
      });
      const digestSubscriptions = new DigestSubscriptions({
        store,
        poster,
        scheduler,
        checkListener: (workspaceId, stockroomId, correlationId, calls) =>
          checkListener(domain, workspaceId, stockroomId, correlationId, calls),
        timeZone: SP,
        logger,
        now: clock.now,
      });
      const replica: Replica = {
        sleeps,
        scheduler,
        digestSubscriptions,
        store,
        claims,
        digests,
        poster,
        budget,
        tokens,
        domain,
        // Once: a test may close a replica (a process that stops) before the harness closes the rest.
        close: once(async () => {
          await scheduler.stop();
          await budget.close();
          await dispatcher.close();
        }),
      };
      replicas.push(replica);
      return replica;
    },
    async subscribe(input) {
      await new SubscriptionStore(baseKv, redis.keys, clock.now).upsert({
        workspaceId: WS,
        hour: 8,
        minute: 0,
        timeZone: SP,
        weekdaysOnly: false,
        stockroomId: null,
        subscribedBy: SUBSCRIBER,
        ...input,
      });
    },
    posts(channelId) {
      return slack.messages.filter(
        (m) => m.channel === channelId && m.via === 'chat.postMessage' && !m.ephemeral && !m.replaced,
      );
    },
    dms(userId) {
      return slack.messages.filter(
        (m) => m.via === 'chat.postMessage' && slack.channels.get(m.channel)?.imUser === userId,
      );
    },
    dataCalls() {
      return sandbox.calls.filter((call) => call.kind === 'data').map((call) => call.url);
    },
    async close() {
      await Promise.all(replicas.map((replica) => replica.close()));
      await slack.close();
      await sandbox.close();
      await redis.cleanup();
    },
  };
  return harness;
}

/** What the Slack limits checker says about a posted message (the fake records blocks as sent). */
export function limitsOf(message: FakeMessage): string[] {
  return checkMessageLimits({ text: message.text, blocks: message.blocks } as Message);
}

/** Every text of a posted message, for `toContain`. */
export function textOf(message: FakeMessage): string {
  return `${message.text}\n${JSON.stringify(message.blocks)}`;
}

/** Epoch ms of a wall time in São Paulo (UTC-3, no DST since 2019). */
export function saoPaulo(year: number, month: number, day: number, hour: number, minute = 0): number {
  return Date.UTC(year, month - 1, day, hour + 3, minute);
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | null = null;
  return () => {
    done ??= fn();
    return done;
  };
}
