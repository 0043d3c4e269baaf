import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

/** The newest stock balance seen in a request item; never a live figure. */
export interface LastKnownStock {
  materialId: number;
  current: number;
  minimum: number | null;
  maximum: number | null;
  requestId: number;
  /** Epoch ms when the bot read it. */
  seenAt: number;
}

/** Per workspace and material, the newest stock balance seen in request items. */
export class StockStore {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
  ) {}

  async record(workspaceId: string, entries: LastKnownStock[]): Promise<void> {
    const key = this.keys.lastKnownStock(workspaceId);
    for (const entry of entries) {
      const current = await this.kv.hget(key, String(entry.materialId));
      if (current !== null && (JSON.parse(current) as LastKnownStock).seenAt > entry.seenAt) continue;
      await this.kv.hset(key, String(entry.materialId), JSON.stringify(entry));
    }
  }

  async all(workspaceId: string): Promise<Map<number, LastKnownStock>> {
    const raw = await this.kv.hgetall(this.keys.lastKnownStock(workspaceId));
    const out = new Map<number, LastKnownStock>();
    for (const [field, value] of Object.entries(raw)) {
      try {
        out.set(Number(field), JSON.parse(value) as LastKnownStock);
      } catch {
        // A damaged entry is skipped, never fatal.
      }
    }
    return out;
  }
}
