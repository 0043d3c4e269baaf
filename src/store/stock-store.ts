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

/**
 * Whose materials: a workspace as linked to one company. Material ids are the company's, so what was seen under
 * one link is kept under that company, and a read made under the old link that lands after a relink to another
 * company stays there instead of showing under the new one.
 */
export interface MaterialScope {
  workspaceId: string;
  empresaId: number | null;
}

/** A name is a label: longer text from upstream is cut before it is kept. */
const MAX_NAME_CHARS = 200;

/**
 * Per workspace, company and material, what the bot has seen of it: the newest stock balance from request items,
 * and the newest name from wherever it came (request items' `material_Nome`, the material list's `nome`), so that
 * an answer that has only a material's id (the digest's stock rows, an item or a material listed without a name)
 * can still name it.
 */
export class StockStore {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
  ) {}

  /** Keeps each entry unless one seen later is there; one read and one write for the whole list. */
  async record(scope: MaterialScope, entries: readonly LastKnownStock[]): Promise<void> {
    const newest = new Map<number, LastKnownStock>();
    for (const entry of entries) {
      const seen = newest.get(entry.materialId);
      if (!seen || seen.seenAt <= entry.seenAt) newest.set(entry.materialId, entry);
    }
    if (newest.size === 0) return;
    const key = this.keys.lastKnownStock(scope.workspaceId, scope.empresaId);
    const fields = [...newest.keys()].map(String);
    const current = await this.kv.hgetMany(key, fields);
    const writes: Record<string, string> = {};
    fields.forEach((field, i) => {
      const entry = newest.get(Number(field)) as LastKnownStock;
      const kept = seenAtOf(current[i] ?? null);
      if (kept === null || kept <= entry.seenAt) writes[field] = JSON.stringify(entry);
    });
    await this.kv.hsetMany(key, writes);
  }

  async all(scope: MaterialScope): Promise<Map<number, LastKnownStock>> {
    const raw = await this.kv.hgetall(this.keys.lastKnownStock(scope.workspaceId, scope.empresaId));
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
    scope: MaterialScope,
    names: Iterable<readonly [materialId: number, name: string | null | undefined]>,
  ): Promise<void> {
    const fields: Record<string, string> = {};
    for (const [materialId, raw] of names) {
      const name = raw?.trim();
      if (!name || !Number.isSafeInteger(materialId)) continue;
      fields[String(materialId)] = [...name].slice(0, MAX_NAME_CHARS).join('');
    }
    await this.kv.hsetMany(this.keys.materialNames(scope.workspaceId, scope.empresaId), fields);
  }

  async names(scope: MaterialScope): Promise<Map<number, string>> {
    const raw = await this.kv.hgetall(this.keys.materialNames(scope.workspaceId, scope.empresaId));
    const out = new Map<number, string>();
    for (const [field, name] of Object.entries(raw)) {
      const materialId = Number(field);
      if (Number.isSafeInteger(materialId) && name !== '') out.set(materialId, name);
    }
    return out;
  }

  /**
   * Everything kept of the company's materials for the workspace (its stock, names, and the stockroom the digest
   * noted for each): the link went, or now points to another company.
   */
  async forget(scope: MaterialScope): Promise<void> {
    const { workspaceId, empresaId } = scope;
    await this.kv.del(
      this.keys.lastKnownStock(workspaceId, empresaId),
      this.keys.materialNames(workspaceId, empresaId),
      this.keys.digestMaterials(workspaceId, empresaId),
      ...this.keys.legacyMaterialKeys(workspaceId),
    );
  }
}

/** The `seenAt` of a kept entry; null when there is none or it cannot be read (then the new one replaces it). */
function seenAtOf(raw: string | null): number | null {
  if (raw === null) return null;
  try {
    const seenAt = (JSON.parse(raw) as Partial<LastKnownStock>).seenAt;
    return typeof seenAt === 'number' ? seenAt : null;
  } catch {
    return null;
  }
}
