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
 * Per workspace, company and material, what the bot has seen of it: the newest stock balance from request items
 * of each stockroom (a request's items carry its stockroom's balances; until 2026-11-27 one balance per material
 * was kept, the newest read from any stockroom replacing another's), and the newest name from wherever it came
 * (request items' `material_Nome`, the material list's `nome`), so that an answer that has only a material's id
 * (the digest's stock rows, an item or a material listed without a name) can still name it.
 */
export class StockStore {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
  ) {}

  /**
   * Keeps each entry as its stockroom's balance of the material unless one seen later is there (settle); one read
   * and one write for the whole list, none when nothing changes. An entry that does not know its stockroom takes
   * the one kept for the same request (the same request read again, its stockroom learnt since).
   */
  async record(scope: MaterialScope, entries: readonly LastKnownStock[]): Promise<void> {
    const byMaterial = new Map<number, LastKnownStock[]>();
    for (const entry of entries)
      byMaterial.set(entry.materialId, [...(byMaterial.get(entry.materialId) ?? []), entry]);
    if (byMaterial.size === 0) return;
    const key = this.keys.lastKnownStock(scope.workspaceId, scope.empresaId);
    const fields = [...byMaterial.keys()].map(String);
    const current = await this.kv.hgetMany(key, fields);
    const writes: Record<string, string> = {};
    fields.forEach((field, i) => {
      const raw = current[i] ?? null;
      // A tie goes to the first in the list: what is recorded now over what is kept, the last given first.
      const given = [...(byMaterial.get(Number(field)) ?? [])].reverse();
      const value = storedValue(settle([...given, ...readKept(Number(field), raw)]));
      if (value !== raw) writes[field] = value;
    });
    await this.kv.hsetMany(key, writes);
  }

  /**
   * A request's stockroom learnt after its items were recorded (from its history or a list row): each material's
   * balance from that request whose stockroom is not known gets `stockroomOf(requestId)` (null: left as it is),
   * and is then that stockroom's unless one seen later is kept for it. A balance from another request is left
   * alone. One read, and one write when anything changes; `stockroomOf` is asked only for balances that need it,
   * so a request whose balances are placed already costs no lookup of its stockroom.
   */
  async place(
    scope: MaterialScope,
    placements: readonly { materialId: number; requestId: number }[],
    stockroomOf: (requestId: number) => number | null | Promise<number | null>,
  ): Promise<void> {
    if (placements.length === 0) return;
    const key = this.keys.lastKnownStock(scope.workspaceId, scope.empresaId);
    const fields = [...new Set(placements.map((placement) => String(placement.materialId)))];
    const current = await this.kv.hgetMany(key, fields);
    const kept = new Map(fields.map((field, i) => [field, readKept(Number(field), current[i] ?? null)]));
    const changed = new Set<string>();
    for (const placement of placements) {
      const field = String(placement.materialId);
      const balances = kept.get(field) ?? [];
      const unplaced = balances.find((entry) => !isPlaced(entry) && entry.requestId === placement.requestId);
      if (!unplaced) continue;
      const stockroomId = await stockroomOf(placement.requestId);
      if (stockroomId === null) continue;
      kept.set(
        field,
        settle(balances.map((entry) => (entry === unplaced ? { ...entry, stockroomId } : entry))),
      );
      changed.add(field);
    }
    const writes: Record<string, string> = {};
    for (const field of changed) writes[field] = storedValue(kept.get(field) ?? []);
    await this.kv.hsetMany(key, writes);
  }

  /**
   * Per material, the balances kept (settle): each stockroom's newest, at most MAX_STOCKROOMS_PER_MATERIAL, and
   * the newest one whose stockroom is not known yet; newest first. What a view shows of them: standingBalances.
   */
  async balances(scope: MaterialScope): Promise<Map<number, LastKnownStock[]>> {
    const raw = await this.kv.hgetall(this.keys.lastKnownStock(scope.workspaceId, scope.empresaId));
    const out = new Map<number, LastKnownStock[]>();
    for (const [field, value] of Object.entries(raw)) {
      const materialId = Number(field);
      if (!Number.isSafeInteger(materialId)) continue;
      // A damaged entry is skipped, never fatal.
      const kept = settle(readKept(materialId, value));
      if (kept.length > 0) out.set(materialId, kept);
    }
    return out;
  }

  /** The newest balance seen of each material, whatever its stockroom. */
  async all(scope: MaterialScope): Promise<Map<number, LastKnownStock>> {
    const out = new Map<number, LastKnownStock>();
    for (const [materialId, kept] of await this.balances(scope)) {
      const [newest] = kept;
      if (newest) out.set(materialId, newest);
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

/**
 * Stockrooms whose balance of a material is kept, the ones seen most lately: a material is registered in few
 * stockrooms (the sandbox's are in 3 or 4), and a company with more than this keeps the newest 8 of each.
 */
export const MAX_STOCKROOMS_PER_MATERIAL = 8;

/** A balance whose request's stockroom is known. */
function isPlaced(entry: LastKnownStock): entry is LastKnownStock & { stockroomId: number } {
  return typeof entry.stockroomId === 'number';
}

/**
 * What is kept of a material's balances: newest first, the newest of each stockroom (at most
 * MAX_STOCKROOMS_PER_MATERIAL), and the newest whose stockroom is not known, unless its request's is (then it is
 * that stockroom's). Of two seen at the same instant the first in the list wins, so a settled list keeps its
 * order when settled again.
 */
function settle(entries: readonly LastKnownStock[]): LastKnownStock[] {
  const stockroomOfRequest = new Map<number, number>();
  for (const entry of entries)
    if (isPlaced(entry)) stockroomOfRequest.set(entry.requestId, entry.stockroomId);
  const ordered = entries
    .map((entry, index) => {
      const learnt = isPlaced(entry) ? undefined : stockroomOfRequest.get(entry.requestId);
      return { entry: learnt === undefined ? entry : { ...entry, stockroomId: learnt }, index };
    })
    .sort((a, b) => b.entry.seenAt - a.entry.seenAt || a.index - b.index);
  const stockrooms = new Set<number>();
  let unplaced = false;
  const kept: LastKnownStock[] = [];
  for (const { entry } of ordered) {
    if (isPlaced(entry)) {
      if (stockrooms.has(entry.stockroomId) || stockrooms.size >= MAX_STOCKROOMS_PER_MATERIAL) continue;
      stockrooms.add(entry.stockroomId);
    } else {
      if (unplaced) continue;
      unplaced = true;
    }
    kept.push(entry);
  }
  return kept;
}

/**
 * The balances that stand for a material, newest first: each stockroom's, and one whose stockroom is not known
 * only while it is the newest of all (it may be any stockroom's, so an older one may be a figure a later read of
 * its stockroom replaced). Balances as `balances` gives them, or with stockrooms learnt since.
 */
export function standingBalances(kept: readonly LastKnownStock[]): LastKnownStock[] {
  return settle(kept).filter((entry, index) => index === 0 || isPlaced(entry));
}

/**
 * A material's hash field holds its newest balance as the value itself, as it was until 2026-11-27 (a replica
 * of before then, during a rolling deploy, reads it as it did), and the others in `others`, newest first.
 */
interface StoredBalances extends LastKnownStock {
  others?: LastKnownStock[];
}

function storedValue(kept: readonly LastKnownStock[]): string {
  const [newest, ...others] = kept;
  return JSON.stringify(others.length === 0 ? newest : ({ ...newest, others } as StoredBalances));
}

/** The balances of a field, as kept now or before 2026-11-27 (one balance); none when it cannot be read. */
function readKept(materialId: number, raw: string | null): LastKnownStock[] {
  if (raw === null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return [];
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return [];
  const { others, ...newest } = parsed as StoredBalances;
  return [newest, ...(Array.isArray(others) ? others : [])]
    .filter(
      (entry): entry is LastKnownStock =>
        typeof entry === 'object' &&
        entry !== null &&
        typeof entry.seenAt === 'number' &&
        typeof entry.requestId === 'number' &&
        typeof entry.current === 'number',
    )
    .map((entry) => ({ ...entry, materialId }));
}
