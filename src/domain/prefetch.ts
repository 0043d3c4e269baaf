import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import type { Logger } from '../lib/logger.js';
import type { CacheStore } from '../store/cache-store.js';
import { BudgetExhaustedError } from '../upstream/budget-errors.js';
import type { CallContext } from '../upstream/client.js';
import {
  CACHE_TTL_MS,
  type CachedEndpoint,
  CachedReader,
  type ReadOptions,
  type ReadScope,
} from './cached-reader.js';
import { LinkBrokenError, NotLinkedError } from './errors.js';
import type { Answer } from './views.js';
import { type WorkspaceContext, Workspaces } from './workspace.js';

/*
 * Using leftover budget: the entries people keep asking for are read again shortly before they go stale, at the
 * 'background' priority of the shared budget, so the next person gets a fresh cached answer instead of waiting for
 * upstream (or, with the budget spent, getting old data). The budget only grants 'background' below 70 % of the
 * window (budget-policy.ts) and never waits for it, so a refresh never takes an interactive user's slot.
 *
 * How a refresh reaches upstream: every read through the PrefetchingReader leaves its fetch function here (the
 * services build it; it calls `workspaces.run(ws, call => client.…)`). A refresh resolves the workspace again at
 * 'background' (so an unlinked or broken workspace is dropped and a relinked one uses its new credential) and
 * runs the same `CachedReader.read(…, { bypassCache: true })` inside `asBackground(ws)`; ScopedWorkspaces.run then
 * hands that context, not the one the fetch function captured, to the client.
 */

const scope = new AsyncLocalStorage<WorkspaceContext>();

/** Runs `work` so that Workspaces.run (ScopedWorkspaces) uses `ws` for the calls of that workspace. */
export function asBackground<T>(ws: WorkspaceContext, work: () => Promise<T>): Promise<T> {
  return scope.run(ws, work);
}

/** Workspaces whose `run` honours asBackground(): the one change the services' calls need. */
export class ScopedWorkspaces extends Workspaces {
  override run<T>(ws: WorkspaceContext, work: (call: CallContext) => Promise<T>): Promise<T> {
    const override = scope.getStore();
    return super.run(override?.workspaceId === ws.workspaceId ? override : ws, work);
  }
}

/** Which process refreshes an entry, when several replicas find it hot at once (a short Redis lock). */
export interface PrefetchClaims {
  tryClaim(id: string, ttlMs: number): Promise<boolean>;
  /** Gives back a claim this process holds (the refresh did not happen), so a later tick may try again. */
  release(id: string): Promise<void>;
}

export interface PrefetchOptions {
  /** Entries tracked at most; the coldest goes first. Default 500. */
  maxKeys?: number;
  /** An entry is hot from this decayed read count on. Default 2. */
  minScore?: number;
  /** Refresh when the entry goes stale within this share of its TTL (bounded to 2 s .. 60 s). Default 0.2. */
  leadShare?: number;
  /** Refreshes per tick at most (each one upstream call or a few). Default 3. */
  maxPerTick?: number;
  /** Default 1 s. */
  tickMs?: number;
}

export interface PrefetchCounters {
  refreshed: number;
  /** Another replica held the entry's claim. */
  skippedClaimed: number;
  /** The budget had no background slot (the tick stops there). */
  deniedByBudget: number;
  failed: number;
  tracked: number;
}

interface HotKey {
  id: string;
  workspaceId: string;
  endpoint: CachedEndpoint;
  params: unknown;
  fetch: () => Promise<unknown>;
  fetchedAt: number;
  score: number;
  scoredAt: number;
}

/** A CachedReader that tells the Prefetcher what was read (refreshes themselves are not counted as reads). */
export class PrefetchingReader extends CachedReader {
  constructor(
    cache: CacheStore,
    logger: Logger,
    now: () => number,
    private readonly prefetcher: Prefetcher,
  ) {
    super(cache, logger, now);
  }

  override async read<T>(
    readScope: ReadScope,
    endpoint: CachedEndpoint,
    params: unknown,
    fetch: () => Promise<T>,
    options?: ReadOptions,
  ): Promise<Answer<T>> {
    const answer = await super.read(readScope, endpoint, params, fetch, options);
    if (scope.getStore() === undefined) {
      this.prefetcher.seen(readScope.workspaceId, endpoint, params, fetch, answer.freshness.fetchedAt);
    }
    return answer;
  }
}

export class Prefetcher {
  private readonly keys = new Map<string, HotKey>();
  private readonly options: Required<PrefetchOptions>;
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  private reader: CachedReader | null = null;
  readonly counters: PrefetchCounters = {
    refreshed: 0,
    skippedClaimed: 0,
    deniedByBudget: 0,
    failed: 0,
    tracked: 0,
  };

  constructor(
    private readonly deps: {
      workspaces: Workspaces;
      logger: Logger;
      now?: () => number;
      claims?: PrefetchClaims;
      options?: PrefetchOptions;
    },
  ) {
    this.options = {
      maxKeys: 500,
      minScore: 2,
      leadShare: 0.2,
      maxPerTick: 3,
      tickMs: 1_000,
      ...deps.options,
    };
  }

  private get now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** The reader the services should use (DomainDeps.reader). */
  makeReader(cache: CacheStore, logger: Logger, now: () => number): CachedReader {
    const reader = new PrefetchingReader(cache, logger, now, this);
    this.reader = reader;
    return reader;
  }

  /** Counts a read of an entry; keeps the newest fetch function and fetch time. */
  seen(
    workspaceId: string,
    endpoint: CachedEndpoint,
    params: unknown,
    fetch: () => Promise<unknown>,
    fetchedAt: number,
  ): void {
    const id = `${workspaceId} ${endpoint} ${hash(params)}`;
    const now = this.now;
    const key = this.keys.get(id);
    if (key) {
      key.score = this.decayed(key, now) + 1;
      key.scoredAt = now;
      key.fetch = fetch;
      key.fetchedAt = Math.max(key.fetchedAt, fetchedAt);
      return;
    }
    if (this.keys.size >= this.options.maxKeys) this.evictColdest(now);
    this.keys.set(id, { id, workspaceId, endpoint, params, fetch, fetchedAt, score: 1, scoredAt: now });
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.options.tickMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Refreshes the hottest entries about to go stale, until the budget refuses a background slot. */
  async tick(): Promise<number> {
    if (this.ticking || !this.reader) return 0;
    this.ticking = true;
    let refreshed = 0;
    try {
      const now = this.now;
      const due = [...this.keys.values()]
        .filter((k) => this.decayed(k, now) >= this.options.minScore && now >= this.refreshAt(k))
        .sort((a, b) => this.decayed(b, now) - this.decayed(a, now));
      for (const key of due) {
        if (refreshed >= this.options.maxPerTick) break;
        const outcome = await this.refresh(key, this.reader);
        if (outcome === 'refreshed') refreshed += 1;
        if (outcome === 'budget') break;
      }
    } finally {
      this.ticking = false;
      this.counters.tracked = this.keys.size;
    }
    return refreshed;
  }

  private async refresh(
    key: HotKey,
    reader: CachedReader,
  ): Promise<'refreshed' | 'skipped' | 'budget' | 'failed'> {
    const { claims } = this.deps;
    const ttl = CACHE_TTL_MS[key.endpoint];
    if (claims && !(await claims.tryClaim(key.id, this.lead(ttl)).catch(() => false))) {
      this.counters.skippedClaimed += 1;
      // Another replica is refreshing it now: due again one TTL later, like the one that holds the claim.
      key.fetchedAt = this.now;
      return 'skipped';
    }
    const outcome = await this.refreshNow(key, reader);
    if (outcome !== 'refreshed') await claims?.release(key.id).catch(() => undefined);
    return outcome;
  }

  private async refreshNow(key: HotKey, reader: CachedReader): Promise<'refreshed' | 'budget' | 'failed'> {
    let ws: WorkspaceContext;
    try {
      ws = await this.deps.workspaces.resolve(key.workspaceId, 'background');
    } catch (error) {
      if (error instanceof NotLinkedError || error instanceof LinkBrokenError) this.forget(key.workspaceId);
      this.counters.failed += 1;
      return 'failed';
    }
    try {
      const answer = await asBackground(ws, () =>
        reader.read(ws, key.endpoint, key.params, key.fetch, { bypassCache: true }),
      );
      if (answer.freshness.degraded === 'budget') {
        this.counters.deniedByBudget += 1;
        return 'budget';
      }
      if (answer.freshness.degraded !== null) {
        this.counters.failed += 1;
        return 'failed';
      }
      key.fetchedAt = answer.freshness.fetchedAt;
      this.counters.refreshed += 1;
      return 'refreshed';
    } catch (error) {
      if (error instanceof BudgetExhaustedError) {
        this.counters.deniedByBudget += 1;
        return 'budget';
      }
      this.counters.failed += 1;
      this.deps.logger.debug(
        { endpoint: key.endpoint, err: error instanceof Error ? error.name : 'unknown' },
        'prefetch failed',
      );
      return 'failed';
    }
  }

  private lead(ttl: number): number {
    return Math.min(60_000, Math.max(2_000, ttl * this.options.leadShare));
  }

  private refreshAt(key: HotKey): number {
    const ttl = CACHE_TTL_MS[key.endpoint];
    return key.fetchedAt + ttl - this.lead(ttl);
  }

  /** Reads count half as much after two TTLs (at least 30 s, at most 10 min) without being read again. */
  private decayed(key: HotKey, now: number): number {
    const halfLife = Math.min(600_000, Math.max(30_000, 2 * CACHE_TTL_MS[key.endpoint]));
    return key.score * 0.5 ** ((now - key.scoredAt) / halfLife);
  }

  private evictColdest(now: number): void {
    let coldest: HotKey | null = null;
    for (const key of this.keys.values()) {
      if (!coldest || this.decayed(key, now) < this.decayed(coldest, now)) coldest = key;
    }
    if (coldest) this.keys.delete(coldest.id);
  }

  private forget(workspaceId: string): void {
    for (const [id, key] of this.keys) if (key.workspaceId === workspaceId) this.keys.delete(id);
  }
}

function hash(params: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(params ?? null))
    .digest('hex')
    .slice(0, 20);
}
