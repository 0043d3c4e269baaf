import type { Dispatcher } from 'undici';
import type { Config } from './config.js';
import { CachedReader } from './domain/cached-reader.js';
import type { DomainDeps } from './domain/deps.js';
import { DigestClaims } from './domain/digest/claims.js';
import { DigestMaterialNotes } from './domain/digest/material-notes.js';
import { MeteredDigestService, MeteredPublisher } from './domain/digest/metered.js';
import { DigestScheduler } from './domain/digest/scheduler.js';
import { FEED_STOP_WAIT_MS, FeedEngine } from './domain/feed/engine.js';
import { HomeService } from './domain/home/home-service.js';
import { LinkHealer } from './domain/links/link-healer.js';
import { LinkService } from './domain/links/link-service.js';
import { TokenKeeper } from './domain/links/token-keeper.js';
import { type CheckListener, checkListener } from './domain/listener-check.js';
import { MeteredReader } from './domain/metered-reader.js';
import { Prefetcher } from './domain/prefetch.js';
import { StorePrefetchClaims } from './domain/prefetch-claims.js';
import { PurchaseService } from './domain/purchases/purchase-service.js';
import { RequestService } from './domain/requests/request-service.js';
import { CatalogService } from './domain/stock/catalog-service.js';
import { MaterialSearchService } from './domain/stock/material-search.js';
import { Workspaces } from './domain/workspace.js';
import type { Clock } from './lib/clock.js';
import type { Logger } from './lib/logger.js';
import { PromMetrics } from './lib/prom-metrics.js';
import { AckPriority } from './slack/ack-priority.js';
import { Answers } from './slack/answers.js';
import { BackgroundTasks } from './slack/background.js';
import type { SandboxMotion, SlackDeps } from './slack/deps.js';
import { DigestPoster } from './slack/digest-poster.js';
import { DigestSubscriptions } from './slack/digest-subscriptions.js';
import { SlackFeedPoster } from './slack/feed-poster.js';
import { FeedSubscriptions } from './slack/feed-subscriptions.js';
import { DEFAULT_ANSWER_TIMING } from './slack/first-message.js';
import { createHomePublishes, publishHome } from './slack/home/home-publish.js';
import { tellLinkingAdminBroken, tellLinkingAdminHealed } from './slack/link-notices.js';
import { createSlackClients } from './slack/slack-clients.js';
import { meteredFetch } from './slack/slack-metrics.js';
import { workspaceOfId } from './slack/slack-users.js';
import { CacheStore } from './store/cache-store.js';
import type { SecretBox } from './store/crypto.js';
import { FeedListenerStore } from './store/feed-listeners.js';
import { FeedSnapshotStore } from './store/feed-snapshot-store.js';
import { HomeViewStore } from './store/home-view-store.js';
import type { SlackInstallationStore } from './store/installation-store.js';
import type { Keys } from './store/keys.js';
import type { KeyValue } from './store/kv.js';
import { LinkStore } from './store/link-store.js';
import { MaterialListReads } from './store/material-list-reads.js';
import { SeenRequests } from './store/seen-requests.js';
import { StockStore } from './store/stock-store.js';
import { SubscriptionStore } from './store/subscription-store.js';
import { TokenStore } from './store/token-store.js';
import { UserMatchStore } from './store/user-match-store.js';
import { TokenManager } from './upstream/auth.js';
import type { Budget } from './upstream/budget.js';
import { DEFAULT_FEED_SHARE_PERCENT, feedShareCalls } from './upstream/budget-policy.js';
import { DEFAULT_MAX_RESPONSE_BYTES, UpstreamClient } from './upstream/client.js';
import { createDispatcher } from './upstream/http.js';
import { MeteredBudget } from './upstream/metered.js';
import type { RetryPolicy } from './upstream/retry.js';

export interface ContainerOptions {
  config: Pick<
    Config,
    'UPSTREAM_RATE_LIMIT' | 'BOT_ADMINS' | 'DIGEST_TZ' | 'SLACK_API_URL' | 'SLACK_BOT_TOKEN'
  > &
    /** FEED_BUDGET_SHARE must be the one the budget was built with; defaults as config.ts's. */
    Partial<
      Pick<
        Config,
        | AnswerTimingVariable
        | 'UPSTREAM_MAX_RESPONSE_BYTES'
        | 'UPSTREAM_TIMEOUT'
        | 'FEED_INTERVAL'
        | 'FEED_BUDGET_SHARE'
      >
    >;
  /** OAuth installations (bot tokens of each workspace) for the digest poster; null in single-workspace mode. */
  installations?: SlackInstallationStore | null;
  upstream: { baseUrl: string; authUrl: string };
  logger: Logger;
  kv: KeyValue;
  keys: Keys;
  box: SecretBox;
  budget: Budget;
  dispatcher?: Dispatcher;
  retryPolicy?: RetryPolicy;
  timeoutMs?: number;
  now?: () => number;
  /** Local mode: the in-process sandbox, moved along by `/estoque sandbox avancar`. */
  sandboxMotion?: SandboxMotion;
  /** This bot's metrics; default a new registry of its own (never prom-client's global one). */
  metrics?: PromMetrics;
  /** Timers of interactive answers' first messages (tests move it by hand); the system clock by default. */
  clock?: Clock;
  /** Benchmark switches: the naive bot (no cache, no coalescing of identical calls), scaled TTLs, prefetch. */
  features?: {
    cache?: boolean;
    coalesce?: boolean;
    /** Multiplies every cache TTL: the benchmark shrinks them with the budget window it compresses. */
    ttlScale?: number;
    /** Refresh hot cache entries ahead of their TTL at background priority (domain/prefetch.ts). Off. */
    prefetch?: boolean;
    /**
     * The change feed's round lease (and delivery claims), ms: the benchmark shrinks it with the window it
     * compresses, as it does FEED_INTERVAL. Default the engine's (3 minutes).
     */
    feedLeaseMs?: number;
  };
}

type AnswerTimingVariable = 'ANSWER_DEADLINE' | 'ANSWER_PENDING_NOTICE' | 'ANSWER_BUDGET_NOTICE';

export interface Container {
  tokens: TokenManager;
  client: UpstreamClient;
  links: LinkStore;
  cache: CacheStore;
  linkService: LinkService;
  /** Checks broken links again; the keeper's tick runs it. */
  healer: LinkHealer;
  keeper: TokenKeeper;
  subscriptions: SubscriptionStore;
  scheduler: DigestScheduler;
  digestSubscriptions: DigestSubscriptions;
  /** The change feed's listeners, and the poster the delivery loop hands each round's messages to. */
  feedListeners: FeedListenerStore;
  feedPoster: SlackFeedPoster;
  /** What the feed's rounds saw and plan (local mode runs a round at once after a sandbox advance). */
  feedSnapshots: FeedSnapshotStore;
  /** The change feed's rounds (domain/feed/engine.ts). Built, not started: main and local mode start it. */
  feed: FeedEngine;
  /** Null unless features.prefetch. Built, not started: the benchmark's replica starts it. */
  prefetcher: Prefetcher | null;
  answers: Answers;
  tasks: BackgroundTasks;
  slackDeps: SlackDeps;
  domain: DomainDeps;
  metrics: PromMetrics;
  /**
   * The first step of a stop (SIGTERM, while the HTTP server still drains): the token keeper, the prefetcher and
   * the digest and feed ticks start no further work. What they run goes on; close() waits for it.
   */
  stopLoops(): void;
  /**
   * Stops the timers, lets answers in flight finish within `graceMs` and tells the users of those that cannot
   * to try again (BackgroundTasks.shutdown), then closes the budget and the upstream connections.
   */
  close(options?: { graceMs?: number; clock?: Clock }): Promise<void>;
}

/** How long close() waits, once the budget and the connections are closed, for a cut feed round to give its lease back. */
const FEED_LEASE_RETURN_MS = 500;

/** The composition root: every service built from its dependencies, no module globals. */
export function buildContainer(options: ContainerOptions): Container {
  const { logger, kv, keys, box } = options;
  const now = options.now ?? Date.now;
  const metrics = options.metrics ?? new PromMetrics();
  const budget = new MeteredBudget(options.budget, metrics);
  const dispatcher = options.dispatcher ?? createDispatcher();
  const timeoutMs = options.timeoutMs ?? options.config.UPSTREAM_TIMEOUT;
  const maxResponseBytes = options.config.UPSTREAM_MAX_RESPONSE_BYTES ?? DEFAULT_MAX_RESPONSE_BYTES;
  const ownsDispatcher = options.dispatcher === undefined;
  const tokens = new TokenManager({
    authUrl: options.upstream.authUrl,
    dispatcher,
    budget,
    store: new TokenStore(kv, keys, box, now),
    logger: logger.child({ component: 'tokens' }),
    now,
    metrics,
    ...(options.retryPolicy && { retryPolicy: options.retryPolicy }),
    ...(timeoutMs !== undefined && { timeoutMs }),
  });
  const client = new UpstreamClient({
    baseUrl: options.upstream.baseUrl,
    tokens,
    budget,
    dispatcher,
    logger: logger.child({ component: 'upstream' }),
    coalesce: options.features?.coalesce ?? true,
    metrics,
    maxResponseBytes,
    now,
    timeZone: options.config.DIGEST_TZ,
    ...(options.retryPolicy && { retryPolicy: options.retryPolicy }),
    ...(timeoutMs !== undefined && { timeoutMs }),
  });
  const links = new LinkStore(kv, keys, box);
  // An answer over the cap is refused while it is read; one that grew past it once processed is not stored.
  const cache = new CacheStore(kv, keys, maxResponseBytes);
  const userMatches = new UserMatchStore(kv, keys);
  const feedListeners = new FeedListenerStore(kv, keys, now);
  // A broken link pauses the change feed's listeners, as unlinking does; the next link resumes them. The first
  // call to meet it (a command, a digest, a feed round, the Home) has the admin who linked told, by DM (wired
  // once the Slack clients exist, below).
  let tellAdminBroken: (workspaceId: string, linkedBy: string, checkedAgain: boolean) => void = () =>
    undefined;
  const workspaces = new Workspaces(
    links,
    now,
    (workspaceId) => feedListeners.pauseWorkspace(workspaceId, 'unlinked'),
    (workspaceId, linkedBy, checkedAgain) => tellAdminBroken(workspaceId, linkedBy, checkedAgain),
  );
  const cacheFeatures = {
    enabled: options.features?.cache ?? true,
    ttlScale: options.features?.ttlScale ?? 1,
  };
  const reader = new CachedReader({
    cache,
    workspaces,
    logger: logger.child({ component: 'cache' }),
    now,
    ...cacheFeatures,
  });
  const prefetcher = options.features?.prefetch
    ? new Prefetcher({
        reader,
        workspaces,
        claims: new StorePrefetchClaims(kv, keys),
        logger: logger.child({ component: 'prefetch' }),
        now,
        ...cacheFeatures,
      })
    : null;
  const stock = new StockStore(kv, keys);
  const domain: DomainDeps = {
    client,
    reader: new MeteredReader(prefetcher?.reader ?? reader, metrics),
    workspaces,
    stock,
    userMatches,
    logger,
    now,
    timeZone: options.config.DIGEST_TZ,
  };
  const catalog = new CatalogService(domain);
  const subscriptions = new SubscriptionStore(kv, keys, now);
  const linkService = new LinkService({
    authUrl: options.upstream.authUrl,
    links,
    tokens,
    client,
    budget,
    cache,
    userMatches,
    stock,
    subscriptions,
    feedListeners,
    // Read when someone asks for /estoque status, after the engine below exists.
    feed: {
      status: (workspaceId) => feed.status(workspaceId),
      linkedAnotherCompany: (workspaceId, empresaId) => feed.linkedAnotherCompany(workspaceId, empresaId),
    },
    logger,
    now,
  });
  const requests = new RequestService(domain);
  const purchases = new PurchaseService(domain, catalog);
  const materials = new MaterialSearchService(domain, catalog, new MaterialListReads(kv, keys));
  const answers = new Answers({
    workspaces,
    catalog,
    materials,
    requests,
    purchases,
    linkService,
    follows: feedListeners,
    localMode: options.sandboxMotion !== undefined,
  });
  const digestLogger = logger.child({ component: 'digest' });
  const slackClients = createSlackClients({
    slackApiUrl: options.config.SLACK_API_URL,
    logger: digestLogger,
    fetch: meteredFetch(metrics, options.config.SLACK_API_URL),
    ...(options.config.SLACK_BOT_TOKEN && { botToken: options.config.SLACK_BOT_TOKEN }),
    ...(options.installations && { installations: options.installations }),
  });
  const poster = new DigestPoster({
    clients: slackClients,
    subscriptions,
    kv,
    keys,
    logger: digestLogger,
  });
  // Commands' answers and digests wait while Slack requests wait for their ack (HTTP receiver, main.ts).
  const priority = new AckPriority();
  const scheduler = new DigestScheduler({
    subscriptions,
    claims: new DigestClaims(kv, keys),
    digests: new MeteredDigestService(
      [domain, { requests, purchases }, new DigestMaterialNotes(kv, keys)],
      metrics,
    ),
    publisher: new MeteredPublisher(poster, metrics),
    logger: digestLogger,
    now,
    yieldToAcks: () => priority.yield(),
  });
  // Before a channel subscribes alerts or the digest: its link, and its `almox:N` among the active stockrooms.
  const checkChannelListener: CheckListener = (workspaceId, stockroomId, correlationId, calls) =>
    checkListener(domain, workspaceId, stockroomId, correlationId, calls);
  const digestSubscriptions = new DigestSubscriptions({
    store: subscriptions,
    poster,
    scheduler,
    checkListener: checkChannelListener,
    timeZone: options.config.DIGEST_TZ,
    logger: digestLogger,
    now,
  });
  const feedLogger = logger.child({ component: 'feed' });
  const feedPoster = new SlackFeedPoster({
    clients: slackClients,
    listeners: feedListeners,
    kv,
    keys,
    logger: feedLogger,
    timeZone: options.config.DIGEST_TZ,
    now,
    // A DM means a request the user follows changed: their Home shows it (the slack deps exist by then).
    onDelivered: (workspaceId, target, client) => {
      if (target.kind !== 'dm') return;
      void tasks.run('home after feed', async () => {
        // Named as a request of it names it: a workspace an org-wide install serves, with its organisation (the
        // admin check differs); until 2026-11-27 the republished Home judged by the workspace alone.
        const servedBy =
          options.installations && !workspaceId.startsWith('E')
            ? await options.installations.enterpriseServing(workspaceId).catch(() => null)
            : null;
        await publishHome(slackDeps, client, workspaceId, target.userId, {
          workspace: workspaceOfId(workspaceId, servedBy),
        });
      });
    },
  });
  const { count, windowMs } = options.config.UPSTREAM_RATE_LIMIT;
  const feedSnapshots = new FeedSnapshotStore(kv, keys);
  const feed = new FeedEngine({
    domain,
    snapshots: feedSnapshots,
    listeners: feedListeners,
    poster: feedPoster,
    logger: feedLogger,
    intervalMs: options.config.FEED_INTERVAL ?? 120_000,
    ...(options.features?.feedLeaseMs !== undefined && { leaseMs: options.features.feedLeaseMs }),
    share: {
      windowMs,
      calls: feedShareCalls(count, options.config.FEED_BUDGET_SHARE ?? DEFAULT_FEED_SHARE_PERCENT),
    },
  });
  const feedSubscriptions = new FeedSubscriptions({
    store: feedListeners,
    poster,
    reads: {
      async requestStatus(workspaceId, requestId, correlationId, calls) {
        const ws = await workspaces.resolve(workspaceId, 'interactive', correlationId, calls);
        const statusName = (await requests.detail(ws, requestId, 1)).data.header?.statusName ?? null;
        return { statusName, empresaId: ws.link.empresaId };
      },
      async ownEmail(workspaceId, user, correlationId, calls) {
        const ws = await workspaces.resolve(workspaceId, 'interactive', correlationId, calls);
        return requests.ownEmail(ws, user);
      },
    },
    checkListener: checkChannelListener,
    logger: feedLogger,
  });
  const tasks = new BackgroundTasks(logger, priority);
  tellAdminBroken = (workspaceId, linkedBy, checkedAgain) =>
    void tasks.run('broken link notice', () =>
      tellLinkingAdminBroken(slackClients, logger, workspaceId, linkedBy, checkedAgain),
    );
  const slackDeps: SlackDeps = {
    config: {
      BOT_ADMINS: options.config.BOT_ADMINS,
      DIGEST_TZ: options.config.DIGEST_TZ,
      UPSTREAM_RATE_LIMIT: options.config.UPSTREAM_RATE_LIMIT,
      SLACK_API_URL: options.config.SLACK_API_URL,
    },
    logger,
    answers,
    linkService,
    digestSubscriptions,
    subscriptions,
    feedListeners,
    feedSnapshots,
    feedSubscriptions,
    tasks,
    seenRequests: new SeenRequests(kv, keys),
    now,
    home: new HomeService({ workspaces, linkService, requests, subscriptions, feedListeners, logger, now }),
    homePublishes: createHomePublishes(),
    homeViews: new HomeViewStore(kv, keys),
    materials,
    workspaces,
    ...(options.sandboxMotion && { sandbox: options.sandboxMotion }),
    metrics,
    ...(options.clock && { clock: options.clock }),
    answerTiming: {
      deadlineMs: options.config.ANSWER_DEADLINE ?? DEFAULT_ANSWER_TIMING.deadlineMs,
      pendingNoticeMs: options.config.ANSWER_PENDING_NOTICE ?? DEFAULT_ANSWER_TIMING.pendingNoticeMs,
      budgetNoticeMs: options.config.ANSWER_BUDGET_NOTICE ?? DEFAULT_ANSWER_TIMING.budgetNoticeMs,
    },
  };
  metrics.readFrom({
    storeUp: () => kv.ping(),
    budgetUsage: () =>
      Promise.all(
        budget.seen().map(async (credential) => {
          const usage = await budget.usage(credential);
          const paused = usage.pausedUntil !== null && usage.pausedUntil > now();
          return { credential, used: usage.used, remaining: usage.remaining, paused };
        }),
      ),
  });
  // A broken link whose check finds its credentials working again is restored; the admin who linked is told, by
  // DM, once (the process that restored it).
  const healer = new LinkHealer({
    links,
    tokens,
    client,
    subscriptions,
    feedListeners,
    logger: logger.child({ component: 'link-healer' }),
    now,
    onHealed: (workspaceId, linkedBy) =>
      void tasks.run('healed link notice', () =>
        tellLinkingAdminHealed(slackClients, logger, workspaceId, linkedBy),
      ),
  });
  const keeper = new TokenKeeper(links, tokens, logger.child({ component: 'token-keeper' }), {
    healer,
    now,
  });
  let closing: Promise<void> | null = null;
  const stopLoops = () => {
    keeper.stop();
    prefetcher?.stop();
    // Not awaited here: close() waits for the tick under way (bounded), the feed's and the digests'.
    void feed.stop();
    void scheduler.stop();
  };
  return {
    tokens,
    client,
    links,
    cache,
    linkService,
    healer,
    keeper,
    subscriptions,
    scheduler,
    digestSubscriptions,
    feedListeners,
    feedPoster,
    feedSnapshots,
    feed,
    prefetcher,
    answers,
    tasks,
    slackDeps,
    domain,
    metrics,
    stopLoops,
    close(closeOptions = {}) {
      // Once: main's signal handler and a test's cleanup may both close.
      closing ??= (async () => {
        stopLoops();
        const graceMs = closeOptions.graceMs ?? 5_000;
        await Promise.all([
          feed.stop(Math.min(FEED_STOP_WAIT_MS, graceMs)),
          scheduler.stop(),
          tasks.shutdown(graceMs, closeOptions.clock),
        ]);
        await budget.close();
        // The grace is over: an upstream call still running serves an answer already given up (its user told),
        // so it is cut rather than awaited (close() would wait for it, past the orchestrator's SIGKILL).
        if (ownsDispatcher) await dispatcher.destroy();
        // A feed round still running fails on its refused calls: a short wait lets it give its lease back before
        // the caller closes Redis (otherwise the workspace waits for the lease to expire on the other replicas).
        await feed.stop(FEED_LEASE_RETURN_MS);
      })();
      return closing;
    },
  };
}
