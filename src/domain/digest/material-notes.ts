import type { Keys } from '../../store/keys.js';
import type { KeyValue } from '../../store/kv.js';
import type { RequestItem } from '../../upstream/schemas.js';

/** The stockroom of the request a material was last seen in. */
export interface MaterialNote {
  stockroomId: number;
}

/**
 * The last known stock (StockStore) is kept per material without its stockroom. The digest, which reads request
 * items anyway, notes it here (`digestMaterials(ws)`, field = material id) so it can keep a stockroom's digest to
 * that stockroom's materials, at no extra call. Names are kept by the StockStore, wherever they were seen.
 */
export class DigestMaterialNotes {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
  ) {}

  async record(workspaceId: string, stockroomId: number, items: RequestItem[]): Promise<void> {
    const key = this.keys.digestMaterials(workspaceId);
    for (const item of items) {
      const note: MaterialNote = { stockroomId };
      await this.kv.hset(key, String(item.material), JSON.stringify(note));
    }
  }

  async all(workspaceId: string): Promise<Map<number, MaterialNote>> {
    const raw = await this.kv.hgetall(this.keys.digestMaterials(workspaceId));
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
