import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { errFields, type Logger } from '../lib/logger.js';
import type { CachedRefusal, CacheEntry, CacheStore } from '../store/cache-store.js';
import type { Demand, Priority } from '../upstream/budget.js';
import { BudgetExhaustedError } from '../upstream/budget-errors.js';
import { mayShare, PRIORITIES } from '../upstream/budget-policy.js';
import type { CallObserver } from '../upstream/call-observer.js';
import type { CallContext } from '../upstream/client.js';
import { UpstreamError, UpstreamForbiddenError, UpstreamRateLimitedError } from '../upstream/errors.js';
import { InFlight } from '../upstream/in-flight.js';
import type { Answer } from './views.js';
import type { Fetch, WorkspaceContext, Workspaces } from './workspace.js';

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

/**
 * How long an empty answer of these endpoints is fresh, instead of CACHE_TTL_MS. An empty stockroom list is what a
 * link whose company or unit does not hold for its login gets, or a login that lost access (upstream-api.md: an
 * empty result, not an error), so it is no catalogue to keep for hours: 5 minutes, as long as pending purchases
 * and receipts keep, so access mended upstream shows as soon as the purchases read through it would. It costs at
 * most 12 calls an hour of the 250 for a workspace left in that state (one per answer or feed round that needs the
 * list, each 5 minutes at most). Until 2026-11-27 an empty list was kept 6 h, as a real one.
 */
export const EMPTY_ANSWER_TTL_MS: Partial<Record<CachedEndpoint, number>> = {
  stockrooms: 5 * 60_000,
};

/**
 * How long a 403 of these endpoints is remembered: the entry's readers (on every replica) get the same refusal
 * without asking again until then, and `Atualizar` (bypassCache) asks at once. A stockroom the login may not read
 * was asked again by every `/compras pendentes`, digest and feed round, a call of the budget each for an answer no
 * wait mends; for as long as an answer is fresh (5 min) it now costs what an answer costs, and a permission
 * granted upstream shows as soon as a new purchase would. Other endpoints answer a 403 for one record the reader
 * named (`/solicitacao 123`), asked again only when someone asks again: nothing to save there. Until 2026-11-27
 * no refusal was remembered.
 */
export const REFUSAL_TTL_MS: Partial<Record<CachedEndpoint, number>> = {
  pendingPurchases: CACHE_TTL_MS.pendingPurchases,
};

/** Entries outlive their freshness by this much, to be shown (with their age) when upstream cannot be asked. */
const KEEP_STALE_MS = 24 * 3_600_000;

/**
 * How long one process may hold the lease to refresh an entry: the interactive wait for a budget slot (10 s),
 * the request timeout (10 s) and a retry. Past it another process may ask upstream too.
 */
const FILL_LEASE_MS = 30_000;
/** A process that waits for another's refresh looks at the cache this often, backing off to the longest. */
const FILL_POLL_FIRST_MS = 50;
const FILL_POLL_LONGEST_MS = 400;

/** One cache entry: a workspace's answer of an endpoint to some parameters. */
interface EntryRef {
  workspaceId: string;
  endpoint: CachedEndpoint;
  paramsKey: string;
}

export interface ReadOptions {
  /** `Atualizar`: skip a fresh cache entry and ask upstream. */
  bypassCache?: boolean;
  /**
   * False: when upstream cannot be asked, throw instead of serving the stale entry (the change feed's rounds, which
   * must know that they read nothing new, and when the budget frees).
   */
  serveStale?: boolean;
  /** An entry fetched before this instant (epoch ms) is not fresh, whatever its TTL says. */
  freshSince?: number;
  /**
   * Only what is saved, whatever its age, never upstream: the first message shown while the fresh answer waits
   * for a budget slot, the App Home, the material picker's type-ahead. Throws NoSavedDataError when nothing is
   * saved.
   */
  savedOnly?: boolean;
}

/** A `savedOnly` read found nothing saved. */
export class NoSavedDataError extends Error {
  override readonly name = 'NoSavedDataError';
  constructor(readonly endpoint: CachedEndpoint) {
    super(`nothing saved for ${endpoint}`);
  }
}

/** What the services read through: the CachedReader, or the prefetcher's reader around it. */
export interface AnswerReader {
  read<T>(
    ws: WorkspaceContext,
    endpoint: CachedEndpoint,
    params: unknown,
    fetch: Fetch<T>,
    options?: ReadOptions,
  ): Promise<Answer<T>>;
}

export interface CachedReaderOptions {
  cache: CacheStore;
  /** Makes the calls: a credential that can no longer be renewed becomes a broken link there. */
  workspaces: Workspaces;
  logger: Logger;
  now?: () => number;
  /** Off only for the benchmark's naive bot: every answer asks upstream, nothing is stored. */
  enabled?: boolean;
  /** 1 in the bot; the benchmark scales TTLs with the budget window it compresses. */
  ttlScale?: number;
}

/** An endpoint's TTL under a scale; refuses a scale that would make TTLs longer or vanish. */
export function scaledTtlMs(endpoint: CachedEndpoint, ttlScale: number): number {
  return CACHE_TTL_MS[endpoint] * checkTtlScale(ttlScale);
}

/** How long an entry holding `value` is fresh: an empty answer of EMPTY_ANSWER_TTL_MS's endpoints, for less. */
export function entryTtlMs(endpoint: CachedEndpoint, value: unknown, ttlScale: number): number {
  const empty = Array.isArray(value) && value.length === 0 ? EMPTY_ANSWER_TTL_MS[endpoint] : undefined;
  return empty === undefined ? scaledTtlMs(endpoint, ttlScale) : empty * checkTtlScale(ttlScale);
}

export function checkTtlScale(ttlScale: number): number {
  if (!(ttlScale > 0 && ttlScale <= 1)) throw new RangeError(`ttlScale must be in (0, 1], got ${ttlScale}`);
  return ttlScale;
}

/**
 * Reads through the per-workspace cache. A fresh entry answers without spending budget; otherwise upstream is
 * asked, and when it cannot be (budget spent, 429, 5xx, timeout, network) the newest entry is served with
 * its age rather than an error.
 *
 * Identical refreshes are made once across every replica sharing the store: within a process, readers of one
 * entry share one fetch; across processes, the one that takes the entry's lease in the store asks upstream and
 * the others wait for its answer to land in the cache (the upstream client's in-flight coalescing only sees its
 * own process). Should the holder fail or vanish, a waiting reader asks upstream itself. A reader only waits for
 * a refresh made at its own priority or a higher one: a command never waits behind a digest's refresh, which
 * may wait minutes for a budget slot; it asks upstream itself.
 *
 * The fetch function is handed the workspace's call context (credential, priority) when upstream is asked, and
 * runs through Workspaces.run: a credential that can no longer be renewed surfaces as a broken link.
 */
export class CachedReader implements AnswerReader {
  private readonly fills = new InFlight<CacheEntry<unknown>>();
  private readonly owner = `${process.pid}-${randomBytes(6).toString('hex')}`;
  private readonly cache: CacheStore;
  private readonly workspaces: Workspaces;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly enabled: boolean;
  private readonly ttlScale: number;

  constructor(options: CachedReaderOptions) {
    this.cache = options.cache;
    this.workspaces = options.workspaces;
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.enabled = options.enabled ?? true;
    this.ttlScale = checkTtlScale(options.ttlScale ?? 1);
  }

  async read<T>(
    ws: WorkspaceContext,
    endpoint: CachedEndpoint,
    params: unknown,
    fetch: Fetch<T>,
    options: ReadOptions = {},
  ): Promise<Answer<T>> {
    const ask = () => this.workspaces.run(ws, fetch);
    // The refresh's calls tell every reader that shares it where they stand (its place in the budget queue), and
    // the budget how many readers of this process wait on it, so that it serves the most waited-on first.
    const askShared = (observer: CallObserver, demand: () => Demand) =>
      this.workspaces.run({ ...ws, call: { ...ws.call, observer, demand } }, fetch);
    const savedOnly = options.savedOnly === true || ws.savedOnly === true;
    if (!this.enabled) {
      if (savedOnly) throw new NoSavedDataError(endpoint);
      const value = await ask();
      return { data: value, freshness: { fetchedAt: this.now(), fromCache: false, degraded: null } };
    }
    const { workspaceId } = ws;
    // Under the link's credential, company and unit: a read started under an earlier link that lands after a new
    // one (to another company) is stored where the new link never looks.
    const paramsKey = cacheParamsKey(params, linkScope(ws));
    const ref: EntryRef = { workspaceId, endpoint, paramsKey };
    // An endpoint that remembers refusals reads the entry and its refusal in one round trip: a miss needs both
    // before it asks upstream. Until 2026-11-27 the refusal was a GET of its own after the entry's.
    const checksRefusal = !savedOnly && !options.bypassCache && REFUSAL_TTL_MS[endpoint] !== undefined;
    const { entry, refusal } = checksRefusal
      ? await this.safeGetWithRefusal<T>(ref)
      : { entry: await this.safeGet<T>(workspaceId, endpoint, paramsKey), refusal: null };
    if (savedOnly) {
      if (!entry) throw new NoSavedDataError(endpoint);
      return {
        data: entry.value,
        freshness: { fetchedAt: entry.fetchedAt, fromCache: true, degraded: null },
      };
    }
    const freshSince = options.freshSince ?? Number.NEGATIVE_INFINITY;
    if (
      entry &&
      !options.bypassCache &&
      this.now() - entry.fetchedAt < entryTtlMs(endpoint, entry.value, this.ttlScale) &&
      entry.fetchedAt >= freshSince
    ) {
      void this.cache.record(workspaceId, 'hits').catch(() => undefined);
      return {
        data: entry.value,
        freshness: { fetchedAt: entry.fetchedAt, fromCache: true, degraded: null },
      };
    }
    if (checksRefusal) {
      const refused = this.freshRefusal(endpoint, refusal, entry?.fetchedAt ?? null, freshSince);
      if (refused) {
        void this.cache.record(workspaceId, 'hits').catch(() => undefined);
        throw refused;
      }
    }
    void this.cache.record(workspaceId, 'misses').catch(() => undefined);
    try {
      const fetched = (await this.refresh(ref, ws.call, entry, askShared)) as CacheEntry<T>;
      return {
        data: fetched.value,
        freshness: { fetchedAt: fetched.fetchedAt, fromCache: false, degraded: null },
      };
    } catch (error) {
      if (error instanceof UpstreamForbiddenError) await this.rememberRefusal(ref, error);
      const degraded = degradedReason(error);
      if (entry && degraded && options.serveStale !== false) {
        const retryAt = retryAtOf(error, this.now());
        return {
          data: entry.value,
          freshness: {
            fetchedAt: entry.fetchedAt,
            fromCache: true,
            degraded,
            ...(retryAt !== undefined && { retryAt }),
          },
        };
      }
      throw error;
    }
  }

  /**
   * One refresh of an entry at a time in this process; readers that come meanwhile share it (and hear where its
   * calls stand), unless it waits for budget at a lower priority than theirs: then they make their own, which
   * later readers share instead.
   */
  private refresh(
    entry: EntryRef,
    { priority, observer }: Pick<CallContext, 'priority' | 'observer'>,
    stale: CacheEntry<unknown> | null,
    fetch: (observer: CallObserver, demand: () => Demand) => Promise<unknown>,
  ): Promise<CacheEntry<unknown>> {
    const id = `${entry.workspaceId}\u0000${entry.endpoint}\u0000${entry.paramsKey}`;
    return this.fills.run(
      id,
      priority,
      (shared, readers) => this.refreshOnce(entry, priority, stale, () => fetch(shared, readers)),
      observer,
    ).job;
  }

  /**
   * Asks upstream under the entry's lease, or waits for the process holding it to store its answer. An entry
   * counts as that answer when it differs from the one this reader found (by its fetch time, as written by
   * whichever process stored it, so clocks that disagree across hosts do not matter). A lease held at a lower
   * priority is not waited for: this reader asks upstream itself, beside it.
   */
  private async refreshOnce(
    ref: EntryRef,
    priority: Priority,
    stale: CacheEntry<unknown> | null,
    fetch: () => Promise<unknown>,
  ): Promise<CacheEntry<unknown>> {
    const { workspaceId, endpoint, paramsKey } = ref;
    const isNewer = (entry: CacheEntry<unknown> | null): entry is CacheEntry<unknown> =>
      entry !== null && entry.fetchedAt !== stale?.fetchedAt;
    const lease = `${priority} ${this.owner}`;
    for (;;) {
      // A store that does not answer must not stop the answer: ask upstream as if the lease were taken.
      const leased = await this.cache
        .takeFill(workspaceId, endpoint, paramsKey, lease, FILL_LEASE_MS)
        .catch(() => true);
      if (leased) {
        try {
          // Another process may have stored its answer between this reader's look and the lease.
          const landed = await this.safeGet<unknown>(workspaceId, endpoint, paramsKey);
          if (isNewer(landed)) return landed;
          return await this.fetchAndStore(ref, fetch, landed);
        } finally {
          await this.cache.releaseFill(workspaceId, endpoint, paramsKey, lease).catch(() => undefined);
        }
      }
      const shared = await this.awaitFill(ref, priority, isNewer);
      if (shared === 'outranked') return this.fetchAndStore(ref, fetch, stale);
      if (shared) return shared;
      // The lease went without an answer (that refresh failed, or its process died): try to take it.
    }
  }

  /**
   * Asks upstream and stores the answer, unless the entry changed since this reader found it (`found`): another
   * refresh stored meanwhile (its lease taken once this one's ran out while upstream was slow, or made beside a
   * lower-priority one). That answer may be the newer (asked after this one was), and this one, stamped when it
   * came, would pass for newer than it; so the first answer stored stands, and this reader answers with its own.
   */
  private async fetchAndStore(
    { workspaceId, endpoint, paramsKey }: EntryRef,
    fetch: () => Promise<unknown>,
    found: CacheEntry<unknown> | null,
  ): Promise<CacheEntry<unknown>> {
    const value = await fetch();
    const fresh = { value, fetchedAt: this.now() };
    await this.cache
      .setIfUnchanged(workspaceId, endpoint, paramsKey, fresh, KEEP_STALE_MS, found?.fetchedAt ?? null)
      .then((outcome) => {
        if (outcome === 'too_large') this.logger.warn({ endpoint }, 'answer too large to cache; not stored');
        if (outcome === 'changed')
          this.logger.debug(
            { endpoint },
            'another refresh stored this entry meanwhile; this answer not stored',
          );
      })
      .catch((error: unknown) => this.logger.warn({ ...errFields(error), endpoint }, 'cache write failed'));
    return fresh;
  }

  /**
   * Waits while another process holds the entry's lease. Returns the answer it stored; null once the lease is
   * gone without one; 'outranked' when the lease is held at a lower priority than this reader's.
   */
  private async awaitFill(
    { workspaceId, endpoint, paramsKey }: EntryRef,
    priority: Priority,
    isNewer: (entry: CacheEntry<unknown> | null) => entry is CacheEntry<unknown>,
  ): Promise<CacheEntry<unknown> | null | 'outranked'> {
    let pause = FILL_POLL_FIRST_MS;
    for (;;) {
      const holder = await this.cache.fillHolder(workspaceId, endpoint, paramsKey).catch(() => null);
      if (holder === null) {
        // The holder may have stored its answer just before letting go.
        const last = await this.safeGet<unknown>(workspaceId, endpoint, paramsKey);
        return isNewer(last) ? last : null;
      }
      if (!mayShare(leasePriority(holder), priority)) return 'outranked';
      await sleep(pause);
      pause = Math.min(FILL_POLL_LONGEST_MS, pause * 2);
      const entry = await this.safeGet<unknown>(workspaceId, endpoint, paramsKey);
      if (isNewer(entry)) return entry;
    }
  }

  /**
   * The 403 remembered for an entry (`refusal`, read with it), as the error to throw, while it is fresh
   * (REFUSAL_TTL_MS, from its time) and newer than the entry's answer (an answer stored since stands over it); null
   * otherwise, and for endpoints that remember none.
   */
  private freshRefusal(
    endpoint: CachedEndpoint,
    refusal: CachedRefusal | null,
    answeredAt: number | null,
    freshSince: number,
  ): UpstreamForbiddenError | null {
    const keepMs = REFUSAL_TTL_MS[endpoint];
    if (
      keepMs === undefined ||
      refusal === null ||
      this.now() - refusal.at >= keepMs * this.ttlScale ||
      refusal.at < freshSince ||
      (answeredAt !== null && refusal.at <= answeredAt)
    )
      return null;
    this.logger.debug({ endpoint }, 'upstream refused this read moments ago (403); not asked again');
    return new UpstreamForbiddenError(refusal.endpoint ?? endpoint, refusal.detail);
  }

  /** A 403 of an endpoint that remembers it (REFUSAL_TTL_MS); a store that does not answer only logs it. */
  private async rememberRefusal(
    { workspaceId, endpoint, paramsKey }: EntryRef,
    error: UpstreamForbiddenError,
  ): Promise<void> {
    const keepMs = REFUSAL_TTL_MS[endpoint];
    if (keepMs === undefined) return;
    const refusal = {
      status: 403 as const,
      endpoint: error.endpoint ?? null,
      detail: error.detail,
      at: this.now(),
    };
    await this.cache
      .setRefusal(workspaceId, endpoint, paramsKey, refusal, keepMs * this.ttlScale)
      .catch((storeError: unknown) =>
        this.logger.warn({ ...errFields(storeError), endpoint }, 'cache write of a refusal failed'),
      );
  }

  /** An entry and its remembered refusal, in one round trip; a store that does not answer has neither. */
  private async safeGetWithRefusal<T>({
    workspaceId,
    endpoint,
    paramsKey,
  }: EntryRef): Promise<{ entry: CacheEntry<T> | null; refusal: CachedRefusal | null }> {
    try {
      return await this.cache.getWithRefusal<T>(workspaceId, endpoint, paramsKey);
    } catch (error) {
      this.logger.warn({ ...errFields(error), endpoint }, 'cache read failed');
      return { entry: null, refusal: null };
    }
  }

  private async safeGet<T>(workspaceId: string, endpoint: string, paramsKey: string) {
    try {
      return await this.cache.get<T>(workspaceId, endpoint, paramsKey);
    } catch (error) {
      this.logger.warn({ ...errFields(error), endpoint }, 'cache read failed');
      return null;
    }
  }
}

function degradedReason(error: unknown): 'budget' | 'upstream' | null {
  if (error instanceof BudgetExhaustedError) return 'budget';
  if (error instanceof UpstreamError && error.retryable) return error.status === 429 ? 'budget' : 'upstream';
  return null;
}

/**
 * When the budget frees, as the error says (a budget refusal, a 429): the pause the 429 set when known (its
 * Retry-After capped at the budget window, budget-queue.ts retryAfterPause), else its Retry-After.
 */
function retryAtOf(error: unknown, now: number): number | undefined {
  if (error instanceof BudgetExhaustedError) return error.retryAt;
  if (error instanceof UpstreamRateLimitedError && error.pausedUntil !== undefined) return error.pausedUntil;
  if (error instanceof UpstreamRateLimitedError && error.retryAfterMs !== undefined)
    return now + error.retryAfterMs;
  return undefined;
}

/**
 * The priority a lease was taken at (`<priority> <owner>`). A value without one (a lease of an older version
 * during a rolling deploy) counts as interactive, so it is waited for as before.
 */
function leasePriority(lease: string): Priority {
  const word = lease.slice(0, lease.indexOf(' '));
  return (PRIORITIES as readonly string[]).includes(word) ? (word as Priority) : 'interactive';
}

/**
 * The part of an entry's keys that stands for its parameters, and for the link they were read under (`scope`,
 * see linkScope) when given.
 */
export function cacheParamsKey(params: unknown, scope?: string): string {
  const text = JSON.stringify(params ?? null);
  return createHash('sha256')
    .update(scope === undefined ? text : `${scope}\u0000${text}`)
    .digest('hex')
    .slice(0, 20);
}

/** Which credential, company and unit a workspace's reads are made with. */
export function linkScope(ws: Pick<WorkspaceContext, 'link'>): string {
  const { credentialId, empresaId, unidadeId } = ws.link;
  return `${credentialId}:${empresaId ?? ''}:${unidadeId ?? ''}`;
}
