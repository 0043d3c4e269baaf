import { randomBytes } from 'node:crypto';
import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

/** What a claim of the material list's read found: this process reads it, another does, or one failed lately. */
export type ListReadClaim = 'claimed' | 'reading' | 'failed';

const FAILED = 'failed';

/**
 * The material picker's marker, per workspace, shared by every replica: set only if absent while a read of the
 * material list is under way, replaced by a `failed` mark when it fails; both expire on their own.
 */
export class MaterialListReads {
  private readonly owner = `reading:${process.pid}-${randomBytes(4).toString('hex')}`;

  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
  ) {}

  async claim(workspaceId: string, ttlMs: number): Promise<ListReadClaim> {
    const key = this.keys.materialListRead(workspaceId);
    if (await this.kv.set(key, this.owner, { ttlMs, onlyIfAbsent: true })) return 'claimed';
    // Gone meanwhile (expired, or the read just ended): said to be reading; the next opening claims it.
    return (await this.kv.get(key)) === FAILED ? 'failed' : 'reading';
  }

  /** The read succeeded: the next opening finds the list saved (the marker is only this process's to drop). */
  async release(workspaceId: string): Promise<void> {
    await this.kv.delIfEquals(this.keys.materialListRead(workspaceId), this.owner);
  }

  /** The read failed: nobody reads again for `ttlMs`. */
  async markFailed(workspaceId: string, ttlMs: number): Promise<void> {
    await this.kv.set(this.keys.materialListRead(workspaceId), FAILED, { ttlMs });
  }
}
