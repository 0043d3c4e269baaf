import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

/** The newest stock balance seen in a request item; never a live figure. */
export interface LastKnownStock {
  materialId: number;
  current: number;
  minimum: number | null;
  maximum: number | null;
  requestId: number;
  /**
   * The stockroom of that request: a request's items are those of its stockroom (the API lists only items whose
   * material is registered there), so the balance is that stockroom's. Null when the request's stockroom was not
   * known when it was read; absent in entries kept before 2026-11-27, when no stockroom was kept with the stock.
   */
  stockroomId?: number | null;
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

  /**
   * Keeps each entry unless one seen later is there; one read and one write for the whole list. An entry that does
   * not know its stockroom keeps the one kept for the same request (the same request read again, its stockroom
   * learnt since).
   */
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
      const kept = parseKept(current[i] ?? null);
      if (kept !== null && typeof kept.seenAt === 'number' && kept.seenAt > entry.seenAt) return;
      const keptStockroom =
        typeof kept?.stockroomId === 'number' && kept.requestId === entry.requestId ? kept.stockroomId : null;
      writes[field] = JSON.stringify(
        typeof entry.stockroomId === 'number' || keptStockroom === null
          ? entry
          : { ...entry, stockroomId: keptStockroom },
      );
    });
    await this.kv.hsetMany(key, writes);
  }

  /**
   * A request's stockroom learnt after its items were recorded (from its history or a list row): each material's
   * entry still from that request, and without a stockroom, gets `stockroomOf(requestId)` (null: left as it is). An
   * entry from another request is left alone. One read, and one write when anything changes; `stockroomOf` is asked
   * only for entries that need it, so a request whose entries are placed already costs no lookup of its stockroom.
   */
  async place(
    scope: MaterialScope,
    placements: readonly { materialId: number; requestId: number }[],
    stockroomOf: (requestId: number) => number | null | Promise<number | null>,
  ): Promise<void> {
    if (placements.length === 0) return;
    const key = this.keys.lastKnownStock(scope.workspaceId, scope.empresaId);
    const fields = placements.map((placement) => String(placement.materialId));
    const current = await this.kv.hgetMany(key, fields);
    const writes: Record<string, string> = {};
    for (const [i, placement] of placements.entries()) {
      const kept = parseKept(current[i] ?? null);
      if (kept === null || kept.requestId !== placement.requestId || typeof kept.stockroomId === 'number')
        continue;
      const stockroomId = await stockroomOf(placement.requestId);
      if (stockroomId !== null)
        writes[String(placement.materialId)] = JSON.stringify({ ...kept, stockroomId });
    }
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
   * noted for each until 2026-11-27): the link went, or now points to another company.
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

/** A kept entry; null when there is none or it cannot be read (then the new one replaces it). */
function parseKept(raw: string | null): Partial<LastKnownStock> | null {
  if (raw === null) return null;
  try {
    const kept = JSON.parse(raw) as unknown;
    return typeof kept === 'object' && kept !== null ? (kept as Partial<LastKnownStock>) : null;
  } catch {
    return null;
  }
}
