import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

export interface CacheEntry<T> {
  value: T;
  fetchedAt: number;
}

/** Upstream refused an entry's read for good (a 403): what the refusal said, and when (epoch ms). */
export interface CachedRefusal {
  status: 403;
  /** The endpoint label of the call refused (`GET /v1/…`, no query values). */
  endpoint: string | null;
  /** The cause the service stated, as the error kept it (masked and bounded), or null. */
  detail: string | null;
  at: number;
}

/**
 * Upstream answers per workspace and endpoint. Entries are kept longer than they are fresh so that, when the
 * budget is spent or upstream is down, the last answer can still be shown with its age.
 */
export class CacheStore {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
    /** An entry larger than this (serialized) is not stored: one answer must not fill Redis. */
    private readonly maxEntryBytes = Number.POSITIVE_INFINITY,
  ) {}

  async get<T>(workspaceId: string, endpoint: string, paramsKey: string): Promise<CacheEntry<T> | null> {
    return parseEntry<T>(await this.kv.get(this.keys.cache(workspaceId, endpoint, paramsKey)));
  }

  /**
   * An entry and the refusal remembered for it (setRefusal), in one round trip: what a reader of an endpoint that
   * remembers refusals needs before it asks upstream. Either is null when absent or unreadable.
   */
  async getWithRefusal<T>(
    workspaceId: string,
    endpoint: string,
    paramsKey: string,
  ): Promise<{ entry: CacheEntry<T> | null; refusal: CachedRefusal | null }> {
    const [entry = null, refusal = null] = await this.kv.getMany([
      this.keys.cache(workspaceId, endpoint, paramsKey),
      this.keys.cacheRefusal(workspaceId, endpoint, paramsKey),
    ]);
    return { entry: parseEntry<T>(entry), refusal: parseRefusal(refusal) };
  }

  /**
   * Stores an entry only if the one stored is still the one the writer found (`found`: its fetch time, or null when
   * there was none), in one step: an answer that took long to come never overwrites one a newer refresh stored
   * meanwhile. 'changed' when it was not stored for that reason.
   */
  async setIfUnchanged<T>(
    workspaceId: string,
    endpoint: string,
    paramsKey: string,
    entry: CacheEntry<T>,
    keepMs: number,
    found: number | null,
  ): Promise<'stored' | 'too_large' | 'changed'> {
    const text = serialise(entry);
    if (Buffer.byteLength(text, 'utf8') > this.maxEntryBytes) return 'too_large';
    const stored = await this.kv.setIfUnchanged(this.keys.cache(workspaceId, endpoint, paramsKey), text, {
      ttlMs: keepMs,
      tail: found === null ? null : fetchedAtTail(found),
    });
    return stored ? 'stored' : 'changed';
  }

  /** Remembers that upstream refused an entry's read for good, for `keepMs`. */
  async setRefusal(
    workspaceId: string,
    endpoint: string,
    paramsKey: string,
    refusal: CachedRefusal,
    keepMs: number,
  ): Promise<void> {
    await this.kv.set(this.keys.cacheRefusal(workspaceId, endpoint, paramsKey), JSON.stringify(refusal), {
      ttlMs: keepMs,
    });
  }

  /** Takes the lease to refresh an entry for `leaseMs`; false while another holder has it. */
  takeFill(workspaceId: string, endpoint: string, paramsKey: string, owner: string, leaseMs: number) {
    return this.kv.set(this.keys.cacheFill(workspaceId, endpoint, paramsKey), owner, {
      ttlMs: leaseMs,
      onlyIfAbsent: true,
    });
  }

  /** Who holds the lease to refresh an entry (the value it was taken with), or null. */
  fillHolder(workspaceId: string, endpoint: string, paramsKey: string): Promise<string | null> {
    return this.kv.get(this.keys.cacheFill(workspaceId, endpoint, paramsKey));
  }

  async releaseFill(workspaceId: string, endpoint: string, paramsKey: string, owner: string): Promise<void> {
    await this.kv.delIfEquals(this.keys.cacheFill(workspaceId, endpoint, paramsKey), owner);
  }

  async record(workspaceId: string, outcome: 'hits' | 'misses'): Promise<void> {
    await this.kv.hincrby(this.keys.cacheStats(workspaceId), outcome, 1);
  }

  async stats(workspaceId: string): Promise<{ hits: number; misses: number }> {
    const raw = await this.kv.hgetall(this.keys.cacheStats(workspaceId));
    return { hits: Number(raw.hits ?? 0), misses: Number(raw.misses ?? 0) };
  }

  async clear(workspaceId: string): Promise<void> {
    const [entries, refusals] = await Promise.all([
      this.kv.keysWithPrefix(this.keys.cachePrefix(workspaceId)),
      this.kv.keysWithPrefix(this.keys.cacheRefusalPrefix(workspaceId)),
    ]);
    await this.kv.del(...entries, ...refusals, this.keys.cacheStats(workspaceId));
  }
}

function parseEntry<T>(raw: string | null): CacheEntry<T> | null {
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as CacheEntry<T>;
  } catch {
    return null;
  }
}

function parseRefusal(raw: string | null): CachedRefusal | null {
  if (raw === null) return null;
  try {
    const refusal = JSON.parse(raw) as Partial<CachedRefusal>;
    return refusal.status === 403 && typeof refusal.at === 'number'
      ? {
          status: 403,
          endpoint: typeof refusal.endpoint === 'string' ? refusal.endpoint : null,
          detail: typeof refusal.detail === 'string' ? refusal.detail : null,
          at: refusal.at,
        }
      : null;
  } catch {
    return null;
  }
}

/** An entry as stored: its fetch time last, so that a compare-and-set can read it from the end (fetchedAtTail). */
function serialise<T>(entry: CacheEntry<T>): string {
  return JSON.stringify({ value: entry.value, fetchedAt: entry.fetchedAt });
}

/** How a stored entry fetched at `fetchedAt` ends (serialise). */
function fetchedAtTail(fetchedAt: number): string {
  return `"fetchedAt":${JSON.stringify(fetchedAt)}}`;
}
