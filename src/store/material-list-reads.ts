import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

const FAILED = 'failed';

/**
 * The material picker's failure mark, per workspace, shared by every replica: a read of the material list failed a
 * moment ago, so opening the picker does not ask upstream again until it expires. (One read at a time, and every
 * opening waiting for its answer, is the cache's own lease: CachedReader.)
 */
export class MaterialListReads {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
  ) {}

  async failedLately(workspaceId: string): Promise<boolean> {
    return (await this.kv.get(this.keys.materialListRead(workspaceId))) === FAILED;
  }

  /** The read failed: nobody reads again for `ttlMs`. */
  async markFailed(workspaceId: string, ttlMs: number): Promise<void> {
    await this.kv.set(this.keys.materialListRead(workspaceId), FAILED, { ttlMs });
  }
}
