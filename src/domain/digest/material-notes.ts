import type { Keys } from '../../store/keys.js';
import type { KeyValue } from '../../store/kv.js';
import type { MaterialScope } from '../../store/stock-store.js';
import type { RequestItem } from '../../upstream/schemas.js';

/** The stockroom of the request a material was last seen in. */
export interface MaterialNote {
  stockroomId: number;
}

/**
 * The last known stock (StockStore) is kept per material without its stockroom. The digest, which reads request
 * items anyway, notes it here (`digestMaterials`, per company, field = material id) so it can keep a stockroom's digest to
 * that stockroom's materials, at no extra call. Names are kept by the StockStore, wherever they were seen.
 */
export class DigestMaterialNotes {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
  ) {}

  /** One write for the whole list. Forgotten with the rest of the company's materials (StockStore.forget). */
  async record(scope: MaterialScope, stockroomId: number, items: RequestItem[]): Promise<void> {
    const note = JSON.stringify({ stockroomId } satisfies MaterialNote);
    const fields = Object.fromEntries(items.map((item) => [String(item.material), note]));
    await this.kv.hsetMany(this.keys.digestMaterials(scope.workspaceId, scope.empresaId), fields);
  }

  async all(scope: MaterialScope): Promise<Map<number, MaterialNote>> {
    const raw = await this.kv.hgetall(this.keys.digestMaterials(scope.workspaceId, scope.empresaId));
    const out = new Map<number, MaterialNote>();
    for (const [field, value] of Object.entries(raw)) {
      try {
        out.set(Number(field), JSON.parse(value) as MaterialNote);
      } catch {
        // A damaged entry is skipped, never fatal.
      }
    }
    return out;
  }
}
