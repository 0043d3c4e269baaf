import { errFields, type Logger } from '../lib/logger.js';
import { BudgetExhaustedError } from '../upstream/budget-errors.js';
import {
  type AnswerReader,
  type CachedEndpoint,
  type CachedReader,
  cacheParamsKey,
  checkTtlScale,
  scaledTtlMs,
} from './cached-reader.js';
import { LinkBrokenError, NotLinkedError } from './errors.js';
import type { Fetch, WorkspaceContext, Workspaces } from './workspace.js';

/*
 * Using leftover budget: the entries people keep asking for are read again shortly before they go stale, at the
 * 'background' priority of the shared budget, so the next person gets a fresh cached answer instead of waiting for
 * upstream (or, with the budget spent, getting old data). The budget only grants 'background' below 70 % of the
 * window (budget-policy.ts) and never waits for it, so a refresh never takes an interactive user's slot.
 *
 * How a refresh reaches upstream: every read through `Prefetcher.reader` leaves its fetch function here. A fetch
 * function takes its call context as an argument, so a refresh resolves the workspace again at 'background' (an
 * unlinked or broken workspace is dropped, a relinked one uses its new credential) and reads the entry through the
 * CachedReader with that context, bypassing the cache. Refreshes are not counted as reads.
 *
 * Off in the bot: measured, it did not pay for its calls (README, Performance). The benchmark turns it on with
 * ContainerOptions.features.prefetch; its counters say what it did.
 */

/** One cache entry, as the prefetcher and its claims name it. */
export interface PrefetchEntry {
  workspaceId: string;
  endpoint: CachedEndpoint;
  paramsKey: string;
}

/** Which process refreshes an entry, when several replicas find it hot at once (a short Redis lock). */
export interface PrefetchClaims {
  tryClaim(entry: PrefetchEntry, ttlMs: number): Promise<boolean>;
  /** Gives back a claim this process holds (the refresh did not happen), so a later tick may try again. */
  release(entry: PrefetchEntry): Promise<void>;
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

export interface PrefetcherDeps {
  /** Refreshes go straight to it: they are not reads. */
  reader: CachedReader;
  workspaces: Workspaces;
  logger: Logger;
  claims?: PrefetchClaims;
  now?: () => number;
  /** As the CachedReader's: with the cache off a refresh stores nothing, so nothing is tracked. */
  enabled?: boolean;
  /** As the CachedReader's: entries go stale (and are refreshed) on the scaled TTLs. */
  ttlScale?: number;
  options?: PrefetchOptions;
}

interface HotKey extends PrefetchEntry {
  id: string;
  params: unknown;
  fetch: Fetch<unknown>;
  fetchedAt: number;
  score: number;
  scoredAt: number;
}

export class Prefetcher {
  /** The reader the services use (DomainDeps.reader): it reads through the CachedReader and counts the read. */
  readonly reader: AnswerReader;
  readonly counters: PrefetchCounters = {
    refreshed: 0,
    skippedClaimed: 0,
    deniedByBudget: 0,
    failed: 0,
    tracked: 0,
  };
  private readonly keys = new Map<string, HotKey>();
  private readonly options: Required<PrefetchOptions>;
  private readonly enabled: boolean;
  private readonly ttlScale: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;

  constructor(private readonly deps: PrefetcherDeps) {
    this.options = {
      maxKeys: 500,
      minScore: 2,
      leadShare: 0.2,
      maxPerTick: 3,
      tickMs: 1_000,
      ...deps.options,
    };
    this.enabled = deps.enabled ?? true;
    this.ttlScale = checkTtlScale(deps.ttlScale ?? 1);
    this.now = deps.now ?? Date.now;
    this.reader = this.enabled
      ? {
          read: async (ws, endpoint, params, fetch, readOptions) => {
            const answer = await deps.reader.read(ws, endpoint, params, fetch, readOptions);
            this.seen(ws.workspaceId, endpoint, params, fetch, answer.freshness.fetchedAt);
            return answer;
          },
        }
      : deps.reader;
  }

  /** Counts a read of an entry; keeps the newest fetch function and fetch time. */
  private seen(
    workspaceId: string,
    endpoint: CachedEndpoint,
    params: unknown,
    fetch: Fetch<unknown>,
    fetchedAt: number,
  ): void {
    const paramsKey = cacheParamsKey(params);
    const id = `${workspaceId} ${endpoint} ${paramsKey}`;
    const now = this.now();
    const key = this.keys.get(id);
    if (key) {
      key.score = this.decayed(key, now) + 1;
      key.scoredAt = now;
      key.fetch = fetch;
      key.fetchedAt = Math.max(key.fetchedAt, fetchedAt);
      return;
    }
    if (this.keys.size >= this.options.maxKeys) this.evictColdest(now);
    this.keys.set(id, {
      id,
      workspaceId,
      endpoint,
      paramsKey,
      params,
      fetch,
      fetchedAt,
      score: 1,
      scoredAt: now,
    });
  }

  start(): void {
    if (this.timer || !this.enabled) return;
    this.timer = setInterval(() => void this.tick(), this.options.tickMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Refreshes the hottest entries about to go stale, until the budget refuses a background slot. */
  async tick(): Promise<number> {
    if (this.ticking) return 0;
    this.ticking = true;
    let refreshed = 0;
    try {
      const now = this.now();
      const due = [...this.keys.values()]
        .filter((k) => this.decayed(k, now) >= this.options.minScore && now >= this.refreshAt(k))
        .sort((a, b) => this.decayed(b, now) - this.decayed(a, now));
      for (const key of due) {
        if (refreshed >= this.options.maxPerTick) break;
        const outcome = await this.refresh(key);
        if (outcome === 'refreshed') refreshed += 1;
        if (outcome === 'budget') break;
      }
    } finally {
      this.ticking = false;
      this.counters.tracked = this.keys.size;
    }
    return refreshed;
  }

  private async refresh(key: HotKey): Promise<'refreshed' | 'skipped' | 'budget' | 'failed'> {
    const { claims } = this.deps;
    if (claims && !(await claims.tryClaim(key, this.lead(key)).catch(() => false))) {
      this.counters.skippedClaimed += 1;
      // Another replica is refreshing it now: due again one TTL later, like the one that holds the claim.
      key.fetchedAt = this.now();
      return 'skipped';
    }
    const outcome = await this.refreshNow(key);
    if (outcome !== 'refreshed') await claims?.release(key).catch(() => undefined);
    return outcome;
  }

  private async refreshNow(key: HotKey): Promise<'refreshed' | 'budget' | 'failed'> {
    let ws: WorkspaceContext;
    try {
      ws = await this.deps.workspaces.resolve(key.workspaceId, 'background');
    } catch (error) {
      if (error instanceof NotLinkedError || error instanceof LinkBrokenError) this.forget(key.workspaceId);
      this.counters.failed += 1;
      return 'failed';
    }
    try {
      const answer = await this.deps.reader.read(ws, key.endpoint, key.params, key.fetch, {
        bypassCache: true,
      });
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
      this.deps.logger.debug({ endpoint: key.endpoint, ...errFields(error) }, 'prefetch failed');
      return 'failed';
    }
  }

  private ttl(key: HotKey): number {
    return scaledTtlMs(key.endpoint, this.ttlScale);
  }

  private lead(key: HotKey): number {
    return Math.min(60_000, Math.max(2_000, this.ttl(key) * this.options.leadShare));
  }

  private refreshAt(key: HotKey): number {
    return key.fetchedAt + this.ttl(key) - this.lead(key);
  }

  /** Reads count half as much after two TTLs (at least 30 s, at most 10 min) without being read again. */
  private decayed(key: HotKey, now: number): number {
    const halfLife = Math.min(600_000, Math.max(30_000, 2 * this.ttl(key)));
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
