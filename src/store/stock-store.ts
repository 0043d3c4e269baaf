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

/** A name is a label: longer text from upstream is cut before it is kept. */
const MAX_NAME_CHARS = 200;

/**
 * Per workspace and material, what the bot has seen of it: the newest stock balance from request items, and the
 * newest name from wherever it came (request items' `material_Nome`, the material list's `nome`), so that an
 * answer that has only a material's id (the digest's stock rows, an item or a material listed without a name)
 * can still name it.
 */
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

  /**
   * Keeps the names just read from upstream, the newest read winning. A missing or blank name never replaces a
   * known one. One write for the whole list.
   */
  async recordNames(
    workspaceId: string,
    names: Iterable<readonly [materialId: number, name: string | null | undefined]>,
  ): Promise<void> {
    const fields: Record<string, string> = {};
    for (const [materialId, raw] of names) {
      const name = raw?.trim();
      if (!name || !Number.isSafeInteger(materialId)) continue;
      fields[String(materialId)] = [...name].slice(0, MAX_NAME_CHARS).join('');
    }
    await this.kv.hsetMany(this.keys.materialNames(workspaceId), fields);
  }

  async names(workspaceId: string): Promise<Map<number, string>> {
    const raw = await this.kv.hgetall(this.keys.materialNames(workspaceId));
    const out = new Map<number, string>();
    for (const [field, name] of Object.entries(raw)) {
      const materialId = Number(field);
      if (Number.isSafeInteger(materialId) && name !== '') out.set(materialId, name);
    }
    return out;
  }

  /** Everything kept for the workspace: its link went, or now points to another company (other materials). */
  async forget(workspaceId: string): Promise<void> {
    await this.kv.del(this.keys.lastKnownStock(workspaceId), this.keys.materialNames(workspaceId));
  }
}
