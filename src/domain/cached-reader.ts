import { createHash } from 'node:crypto';
import type { Logger } from '../lib/logger.js';
import type { CacheStore } from '../store/cache-store.js';
import { BudgetExhaustedError, UpstreamError } from '../upstream/errors.js';
import type { Answer } from './views.js';

/** How long an answer is fresh, per endpoint (PRODUCT.md: catalogues for hours, materials for minutes, requests for a minute). */
export const CACHE_TTL_MS = {
  stockrooms: 6 * 3_600_000,
  types: 6 * 3_600_000,
  categories: 6 * 3_600_000,
  users: 3_600_000,
  materials: 10 * 60_000,
  requestItems: 60_000,
  requestHistory: 60_000,
  requestList: 60_000,
  purchaseList: 2 * 60_000,
  purchaseRequests: 2 * 60_000,
  pendingPurchases: 5 * 60_000,
  receipts: 5 * 60_000,
} as const;

export type CachedEndpoint = keyof typeof CACHE_TTL_MS;

/** Entries outlive their freshness by this much, to be shown (with their age) when upstream cannot be asked. */
const KEEP_STALE_MS = 24 * 3_600_000;

export interface ReadOptions {
  /** `Atualizar`: skip a fresh cache entry and ask upstream. */
  bypassCache?: boolean;
}

/**
 * Reads through the per-workspace cache. A fresh entry answers without spending budget; otherwise upstream is
 * asked, and when it cannot be (budget spent, 429, 5xx, timeout, network) the newest entry is served with
 * its age rather than an error.
 */
export class CachedReader {
  constructor(
    private readonly cache: CacheStore,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
    /** Off only for the benchmark's naive bot: every answer asks upstream, nothing is stored. */
    private readonly enabled = true,
    /** 1 in the bot; the benchmark scales TTLs with the budget window it compresses. */
    private readonly ttlScale = 1,
  ) {
    if (!(ttlScale > 0 && ttlScale <= 1)) throw new RangeError(`ttlScale must be in (0, 1], got ${ttlScale}`);
  }

  async read<T>(
    workspaceId: string,
    endpoint: CachedEndpoint,
    params: unknown,
    fetch: () => Promise<T>,
    options: ReadOptions = {},
  ): Promise<Answer<T>> {
    if (!this.enabled) {
      const value = await fetch();
      return { data: value, freshness: { fetchedAt: this.now(), fromCache: false, degraded: null } };
    }
    const paramsKey = hashParams(params);
    const entry = await this.safeGet<T>(workspaceId, endpoint, paramsKey);
    if (
      entry &&
      !options.bypassCache &&
      this.now() - entry.fetchedAt < CACHE_TTL_MS[endpoint] * this.ttlScale
    ) {
      void this.cache.record(workspaceId, 'hits').catch(() => undefined);
      return {
        data: entry.value,
        freshness: { fetchedAt: entry.fetchedAt, fromCache: true, degraded: null },
      };
    }
    void this.cache.record(workspaceId, 'misses').catch(() => undefined);
    try {
      const value = await fetch();
      const fetchedAt = this.now();
      await this.cache
        .set(workspaceId, endpoint, paramsKey, { value, fetchedAt }, KEEP_STALE_MS)
        .catch((error: unknown) => this.logger.warn({ err: String(error), endpoint }, 'cache write failed'));
      return { data: value, freshness: { fetchedAt, fromCache: false, degraded: null } };
    } catch (error) {
      const degraded = degradedReason(error);
      if (entry && degraded) {
        return { data: entry.value, freshness: { fetchedAt: entry.fetchedAt, fromCache: true, degraded } };
      }
      throw error;
    }
  }

  private async safeGet<T>(workspaceId: string, endpoint: string, paramsKey: string) {
    try {
      return await this.cache.get<T>(workspaceId, endpoint, paramsKey);
    } catch (error) {
      this.logger.warn({ err: String(error), endpoint }, 'cache read failed');
      return null;
    }
  }
}

function degradedReason(error: unknown): 'budget' | 'upstream' | null {
  if (error instanceof BudgetExhaustedError) return 'budget';
  if (error instanceof UpstreamError && error.retryable) return error.status === 429 ? 'budget' : 'upstream';
  return null;
}

function hashParams(params: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(params ?? null))
    .digest('hex')
    .slice(0, 20);
}
