import type { Redis } from 'ioredis';
import { CachedReader } from '../src/domain/cached-reader.js';
import type { DomainDeps } from '../src/domain/deps.js';
import { FeedEngine } from '../src/domain/feed/engine.js';
import type { FeedPoster } from '../src/domain/feed/types.js';
import { Workspaces } from '../src/domain/workspace.js';
import type { Logger } from '../src/lib/logger.js';
import { CacheStore } from '../src/store/cache-store.js';
import type { SecretBox } from '../src/store/crypto.js';
import { FeedListenerStore } from '../src/store/feed-listeners.js';
import { FeedSnapshotStore } from '../src/store/feed-snapshot-store.js';
import type { Keys } from '../src/store/keys.js';
import type { KeyValue } from '../src/store/kv.js';
import { RedisKeyValue } from '../src/store/kv.js';
import { LinkStore } from '../src/store/link-store.js';
import { StockStore } from '../src/store/stock-store.js';
import { TokenStore } from '../src/store/token-store.js';
import { UserMatchStore } from '../src/store/user-match-store.js';
import { TokenManager } from '../src/upstream/auth.js';
import type { Budget } from '../src/upstream/budget.js';
import { createRedisBudget } from '../src/upstream/budget-redis.js';
import { UpstreamClient } from '../src/upstream/client.js';
import { credentialIdOf } from '../src/upstream/credential.js';
import { createDispatcher } from '../src/upstream/http.js';
import { BENCH_TZ, type RateLimit } from './stage.js';

/**
 * What the feed benches (bench/feed.ts, bench/feed-scale.ts) share: workspaces linked to generated sandbox
 * companies with one channel feed each, and a feed engine built as one replica builds it.
 */

/** The sandbox's generated companies start after its two demo ones. */
export const FIRST_GENERATED_COMPANY = 3;

export function feedWorkspaceOf(empresa: number): string {
  return `T0FEED${String(empresa).padStart(5, '0')}`;
}

/** Links one workspace per company (login `empresaN`, as the sandbox generates them) and subscribes a channel. */
export async function linkFeedWorkspaces(options: {
  kv: KeyValue;
  keys: Keys;
  box: SecretBox;
  authUrl: string;
  empresaIds: readonly number[];
}): Promise<void> {
  const { kv, keys, box } = options;
  const links = new LinkStore(kv, keys, box);
  const listeners = new FeedListenerStore(kv, keys);
  for (const empresa of options.empresaIds) {
    const workspaceId = feedWorkspaceOf(empresa);
    const login = `empresa${empresa}`;
    await links.save({
      workspaceId,
      credentialId: credentialIdOf(options.authUrl, login),
      login,
      password: login,
      empresaId: empresa,
      unidadeId: null,
      linkedBy: 'U0BENCH',
      linkedAt: Date.now(),
      brokenAt: null,
    });
    await listeners.upsertChannel({
      workspaceId,
      channelId: 'C0FEED',
      stockroomId: null,
      subscribedBy: 'U0BENCH',
    });
  }
}

export interface FeedReplica {
  engine: FeedEngine;
  budget: Budget;
  close(): Promise<void>;
}

/** One replica's feed engine on its own Redis connection, budget, token manager and upstream client. */
export function buildFeedReplica(options: {
  redis: Redis;
  keys: Keys;
  box: SecretBox;
  sandbox: { baseUrl: string; authUrl: string };
  limit: RateLimit;
  sharePercent: number;
  intervalMs: number;
  leaseMs: number;
  poster: FeedPoster;
  logger: Logger;
  owner: string;
}): FeedReplica {
  const { redis, keys, box, limit, logger } = options;
  const kv = new RedisKeyValue(redis);
  const dispatcher = createDispatcher();
  const budget = createRedisBudget(redis, keys, { limit, feedSharePercent: options.sharePercent, logger });
  const tokens = new TokenManager({
    authUrl: options.sandbox.authUrl,
    dispatcher,
    budget,
    store: new TokenStore(kv, keys, box),
    logger,
  });
  const client = new UpstreamClient({
    baseUrl: options.sandbox.baseUrl,
    tokens,
    budget,
    dispatcher,
    logger,
  });
  const workspaces = new Workspaces(new LinkStore(kv, keys, box));
  const domain: DomainDeps = {
    client,
    // TTLs scaled like the window (1 h -> the bench's), as the bench's scaled configuration does.
    reader: new CachedReader({
      cache: new CacheStore(kv, keys),
      workspaces,
      logger,
      ttlScale: Math.min(1, limit.windowMs / 3_600_000),
    }),
    workspaces,
    stock: new StockStore(kv, keys),
    userMatches: new UserMatchStore(kv, keys),
    logger,
    now: Date.now,
    timeZone: BENCH_TZ,
  };
  const engine = new FeedEngine({
    domain,
    snapshots: new FeedSnapshotStore(kv, keys),
    listeners: new FeedListenerStore(kv, keys),
    poster: options.poster,
    logger,
    intervalMs: options.intervalMs,
    share: { windowMs: limit.windowMs, calls: Math.floor((limit.count * options.sharePercent) / 100) },
    owner: options.owner,
    leaseMs: options.leaseMs,
    tickMs: Math.max(100, Math.floor(options.intervalMs / 4)),
  });
  return {
    engine,
    budget,
    async close() {
      await budget.close();
      await dispatcher.close();
    },
  };
}
