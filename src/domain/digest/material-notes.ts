import type { Keys } from '../../store/keys.js';
import type { KeyValue } from '../../store/kv.js';
import type { MaterialScope } from '../../store/stock-store.js';

/** The stockroom of the request a material was last seen in, as the digest noted it until 2026-11-27. */
export interface MaterialNote {
  stockroomId: number;
}

/**
 * Until 2026-11-27 the last known stock (StockStore) was kept without its stockroom, and the digest noted here
 * (`digestMaterials`, per company, field = material id) the stockroom of the request items it read itself, so that
 * a stockroom's digest missed what `/solicitacao` showed. The stock now keeps its stockroom; these notes are only
 * read, for entries kept before then, and nothing writes them. Forgotten with the rest of the company's materials
 * (StockStore.forget).
 */
export class DigestMaterialNotes {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
  ) {}

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
