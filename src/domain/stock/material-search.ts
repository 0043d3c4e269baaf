import { errFields } from '../../lib/logger.js';
import { fold } from '../../lib/text.js';
import type { MaterialListReads } from '../../store/material-list-reads.js';
import { type LastKnownStock, standingBalances } from '../../store/stock-store.js';
import type { Material, Stockroom } from '../../upstream/schemas.js';
import { NoSavedDataError, type ReadOptions } from '../cached-reader.js';
import type { DomainDeps } from '../deps.js';
import type { Answer, CatalogEntry, MaterialMatch, MaterialSearchView } from '../views.js';
import { materialScope, type WorkspaceContext } from '../workspace.js';
import { type CatalogService, checkStockroom, readStockrooms } from './catalog-service.js';

/** After a failed read, how long opening the picker asks upstream nothing (the list is said to be unreadable). */
export const LIST_FAILED_MARK_MS = 2 * 60_000;

/**
 * Where the picker's material list stands when the modal opens: `saved` (keystrokes find it), `reading` (`done`
 * settles when the read ends, and rejects with its failure), `failed` (a read failed a moment ago: none is tried
 * until the mark expires).
 */
export type ListWarmUp = { state: 'saved' } | { state: 'failed' } | { state: 'reading'; done: Promise<void> };

/**
 * `/estoque <texto>`: the API filters materials only by exact code, so the (cached) list is searched here:
 * a material matches when its code equals the text or its name holds every word, accents and case ignored.
 */
export class MaterialSearchService {
  constructor(
    private readonly deps: DomainDeps,
    private readonly catalog: CatalogService,
    private readonly listReads: MaterialListReads,
  ) {}

  async search(
    ws: WorkspaceContext,
    query: { text: string; stockroomId?: number; page: number },
    options?: ReadOptions,
  ): Promise<Answer<MaterialSearchView>> {
    const stockroomId = query.stockroomId;
    const checked =
      stockroomId === undefined ? null : await checkStockroom(this.deps, ws, stockroomId, options);
    const view = {
      text: query.text,
      stockroomId: stockroomId ?? null,
      page: query.page,
      ...(checked && { stockroomState: checked.state, stockroomName: checked.name }),
    };
    if (checked?.state === 'inactive' && checked.freshness)
      return { data: { ...view, matches: [] }, freshness: checked.freshness };
    const materials = await this.list(ws, stockroomId, options);
    const matches = await this.decorate(
      ws,
      matchMaterials(materials.data, query.text),
      stockroomId ?? null,
      checked?.listed,
    );
    return { data: { ...view, matches }, freshness: materials.freshness };
  }

  /**
   * The material picker's type-ahead: up to `limit` materials matched like `/estoque <texto>`, from the saved list
   * whatever its age, never upstream (a keystroke is no reason to spend budget); nothing saved, nothing suggested:
   * the list is read when the picker opens (warmList).
   */
  async suggest(ws: WorkspaceContext, text: string, limit: number): Promise<Material[]> {
    try {
      const materials = await this.list(ws, undefined, { savedOnly: true });
      return matchMaterials(materials.data, text).slice(0, limit);
    } catch (error) {
      if (error instanceof NoSavedDataError) return [];
      throw error;
    }
  }

  /**
   * When the picker opens: reads the list when nothing is saved (through the cache, whose lease makes openings on
   * every replica share one read and wait for its answer), and none for a while after one failed
   * (LIST_FAILED_MARK_MS), so an upstream that fails or a spent budget is not asked again at every opening.
   */
  async warmList(ws: WorkspaceContext): Promise<ListWarmUp> {
    try {
      await this.list(ws, undefined, { savedOnly: true });
      return { state: 'saved' };
    } catch (error) {
      if (!(error instanceof NoSavedDataError)) throw error;
    }
    if (await this.listReads.failedLately(ws.workspaceId)) return { state: 'failed' };
    const done = this.list(ws, undefined).then(
      () => undefined,
      async (error: unknown) => {
        await this.listReads
          .markFailed(ws.workspaceId, LIST_FAILED_MARK_MS)
          .catch((markError: unknown) =>
            this.deps.logger.warn(errFields(markError), 'material list failure not marked'),
          );
        throw error;
      },
    );
    return { state: 'reading', done };
  }

  /** One material of the company's list, with its type, category and last known stock; null when not listed. */
  async byId(
    ws: WorkspaceContext,
    materialId: number,
    options?: ReadOptions,
  ): Promise<Answer<MaterialMatch | null>> {
    const materials = await this.list(ws, undefined, options);
    const found = materials.data.find((material) => material.material === materialId);
    const [match] = found ? await this.decorate(ws, [found], null) : [];
    return { data: match ?? null, freshness: materials.freshness };
  }

  private list(ws: WorkspaceContext, stockroomId: number | undefined, options?: ReadOptions) {
    return this.deps.reader.read(
      ws,
      'materials',
      { stockroomId: stockroomId ?? null },
      async (call) => {
        const rows = await this.deps.client.listMaterials(
          call,
          stockroomId === undefined ? {} : { almoxarifadoId: stockroomId },
        );
        await this.deps.stock
          .recordNames(
            materialScope(ws),
            rows.map((material) => [material.material, material.nome] as const),
          )
          .catch((error: unknown) => this.deps.logger.warn(errFields(error), 'material names not recorded'));
        return rows;
      },
      options,
    );
  }

  /**
   * Type, category and last known stock: with `almox:` (`asked`), that stockroom's balance, else the newest of
   * any stockroom and each other stockroom's (StockStore keeps one per material and stockroom). Stockrooms are
   * named from `listed`, else from the saved stockroom list (no call: one not saved shows its number).
   */
  private async decorate(
    ws: WorkspaceContext,
    found: Material[],
    asked: number | null,
    listed?: readonly Stockroom[],
  ): Promise<MaterialMatch[]> {
    const unnamed = found.some((material) => !material.nome?.trim() && !material.nomeFormatted?.trim());
    const none = found.length === 0;
    const [types, categories, balances, names, stockrooms] = await Promise.all([
      none ? new Map<number, string | null>() : this.namesOrEmpty(() => this.catalog.types(ws)),
      none ? new Map<number, string | null>() : this.namesOrEmpty(() => this.catalog.categories(ws)),
      none ? new Map<number, LastKnownStock[]>() : this.deps.stock.balances(materialScope(ws)),
      unnamed ? this.knownNamesOrEmpty(ws) : new Map<number, string>(),
      none || listed ? (listed ?? []) : this.savedStockroomsOrNone(ws),
    ]);
    const stockroomNames = new Map<number, string>();
    for (const stockroom of stockrooms) {
      const name = stockroom.nome?.trim();
      if (name) stockroomNames.set(stockroom.almoxarifado, name);
    }
    return found.map((material) => {
      const standing = standingBalances(balances.get(material.material) ?? []);
      const own =
        asked === null ? (standing[0] ?? null) : (standing.find((e) => e.stockroomId === asked) ?? null);
      const otherStock = asked === null ? standing.slice(1) : own === null ? standing.slice(0, 1) : [];
      return {
        material,
        typeName: material.tipoMaterial == null ? null : (types.get(material.tipoMaterial) ?? null),
        categoryName:
          material.categoriaMaterial == null ? null : (categories.get(material.categoriaMaterial) ?? null),
        lastKnown: own,
        otherStock,
        stockroomAsked: asked,
        stockroomNames,
        knownName: names.get(material.material) ?? null,
      };
    });
  }

  /** The saved stockroom list, to name stockrooms; never a call, and nothing when none is saved or readable. */
  private async savedStockroomsOrNone(ws: WorkspaceContext): Promise<Stockroom[]> {
    try {
      return (await readStockrooms(this.deps, ws, { savedOnly: true })).data;
    } catch (error) {
      if (!(error instanceof NoSavedDataError))
        this.deps.logger.warn(errFields(error), 'saved stockroom list unreadable');
      return [];
    }
  }

  /** Names seen elsewhere label materials listed without one; when they cannot be read the ids show. */
  private async knownNamesOrEmpty(ws: WorkspaceContext): Promise<Map<number, string>> {
    try {
      return await this.deps.stock.names(materialScope(ws));
    } catch (error) {
      this.deps.logger.warn(errFields(error), 'material names unavailable');
      return new Map();
    }
  }

  /** Type and category names decorate the answer; when they cannot be read the materials still show. */
  private async namesOrEmpty(
    read: () => Promise<{ data: CatalogEntry[] }>,
  ): Promise<Map<number, string | null>> {
    try {
      return new Map((await read()).data.map((entry) => [entry.id, entry.name]));
    } catch (error) {
      this.deps.logger.warn(errFields(error), 'catalog names unavailable');
      return new Map();
    }
  }
}

export function matchMaterials(materials: Material[], text: string): Material[] {
  const wanted = fold(text.trim());
  const words = wanted.split(/\s+/).filter((w) => w !== '');
  if (words.length === 0) return [];
  // The code equal to the text, or the name holding every word (PRODUCT.md): code matches first, then names.
  const byCode = materials.filter((m) => m.codigo != null && fold(m.codigo.trim()) === wanted);
  const coded = new Set(byCode);
  const byName = materials
    .filter((m) => {
      if (coded.has(m)) return false;
      const name = fold(`${m.nome ?? ''} ${m.nomeFormatted ?? ''}`);
      return words.every((word) => name.includes(word));
    })
    .sort((a, b) => (a.nome ?? '').localeCompare(b.nome ?? '', 'pt-BR'));
  return [...byCode, ...byName];
}
