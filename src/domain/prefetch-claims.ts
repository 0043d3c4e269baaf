import { randomBytes } from 'node:crypto';
import type { Keys } from '../store/keys.js';
import type { KeyValue } from '../store/kv.js';
import type { PrefetchClaims, PrefetchEntry } from './prefetch.js';

/**
 * The prefetcher's claims in the shared store: a key per entry, set only if absent, that expires on its own
 * (the refresh's lead time) and is given back only by the process that holds it.
 */
export class StorePrefetchClaims implements PrefetchClaims {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
    private readonly owner: string = `p${process.pid}-${randomBytes(4).toString('hex')}`,
  ) {}

  tryClaim(entry: PrefetchEntry, ttlMs: number): Promise<boolean> {
    return this.kv.set(this.keyOf(entry), this.owner, { ttlMs, onlyIfAbsent: true });
  }

  async release(entry: PrefetchEntry): Promise<void> {
    await this.kv.delIfEquals(this.keyOf(entry), this.owner);
  }

  private keyOf({ workspaceId, endpoint, paramsKey }: PrefetchEntry): string {
    return this.keys.prefetchClaim(workspaceId, endpoint, paramsKey);
  }
}
