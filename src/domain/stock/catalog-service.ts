import { errFields } from '../../lib/logger.js';
import type { Stockroom } from '../../upstream/schemas.js';
import type { ReadOptions } from '../cached-reader.js';
import type { DomainDeps } from '../deps.js';
import type { Answer, CatalogEntry, Freshness, StockroomsView } from '../views.js';
import { linkedCompany, type WorkspaceContext } from '../workspace.js';

/** The active stockrooms of the workspace's company, through the cache (one entry, whoever reads it). */
export function readStockrooms(
  deps: Pick<DomainDeps, 'reader' | 'client'>,
  ws: WorkspaceContext,
  options?: ReadOptions,
): Promise<Answer<Stockroom[]>> {
  return deps.reader.read(ws, 'stockrooms', null, (call) => deps.client.listStockrooms(call), options);
}

/** What the active stockroom list says of an `almox:N` (checkStockroom). */
export interface StockroomCheck {
  /** `unchecked`: the list is empty (a lost company context answers `[]`), or none could be read. */
  state: 'active' | 'inactive' | 'unchecked';
  name: string | null;
  listed?: Stockroom[];
  freshness?: Freshness;
  /**
   * The list could not be read now (a spent budget, upstream down, a broken link): the state comes from the saved
   * list, of any age, or is `unchecked` with nothing saved.
   */
  readFailure?: unknown;
}

/**
 * What the active stockroom list says of `almox:N`, before anything of N is read (until 2026-11-27 an N not there
 * cost `/estoque` a material list call and got a spelling hint, and `alertas assinar`/`resumo assinar` confirmed
 * it). The saved list first (no call); when it lacks N, or nothing is saved, the list through the cache: fresh, no
 * call; stale or never read, one call, then cached 6 h and shared with `/estoque almoxarifados`, `/compras
 * pendentes` and the digests (`Atualizar` asks again). An empty list proves nothing (a lost company context answers
 * `[]`), and a list that cannot be read leaves N as the saved list says, or unchecked.
 */
export async function checkStockroom(
  deps: Pick<DomainDeps, 'reader' | 'client' | 'logger'>,
  ws: WorkspaceContext,
  stockroomId: number,
  options?: ReadOptions,
): Promise<StockroomCheck> {
  const judge = (answer: Answer<Stockroom[]>): StockroomCheck => {
    const found = answer.data.find((stockroom) => stockroom.almoxarifado === stockroomId);
    const state = found ? 'active' : answer.data.length === 0 ? 'unchecked' : 'inactive';
    return { state, name: found?.nome?.trim() || null, listed: answer.data, freshness: answer.freshness };
  };
  const saved = await readStockrooms(deps, ws, { savedOnly: true }).catch(() => null);
  if (saved && judge(saved).state === 'active') return judge(saved);
  try {
    return judge(await readStockrooms(deps, ws, { bypassCache: options?.bypassCache ?? false }));
  } catch (error) {
    deps.logger.warn({ stockroomId, ...errFields(error) }, 'stockroom list not refreshed for almox:');
    // What is saved still says (it lacks N, or is empty); with nothing saved N is left unchecked.
    return { ...(saved ? judge(saved) : { state: 'unchecked', name: null }), readFailure: error };
  }
}

/** Stockrooms, material types and categories: small lists that change rarely, cached for hours. */
export class CatalogService {
  constructor(private readonly deps: DomainDeps) {}

  stockrooms(ws: WorkspaceContext, options?: ReadOptions): Promise<Answer<Stockroom[]>> {
    return readStockrooms(this.deps, ws, options);
  }

  /** `/estoque almoxarifados`: the list, with the company it was read for (an empty list names it). */
  async activeStockrooms(ws: WorkspaceContext, options?: ReadOptions): Promise<Answer<StockroomsView>> {
    const list = await this.stockrooms(ws, options);
    return { data: { stockrooms: list.data, company: linkedCompany(ws) }, freshness: list.freshness };
  }

  async types(ws: WorkspaceContext, options?: ReadOptions): Promise<Answer<CatalogEntry[]>> {
    return this.deps.reader.read(
      ws,
      'types',
      null,
      async (call) =>
        (await this.deps.client.listMaterialTypes(call)).map((t) => ({
          id: t.tipoMaterialId,
          name: t.nome ?? null,
        })),
      options,
    );
  }

  async categories(ws: WorkspaceContext, options?: ReadOptions): Promise<Answer<CatalogEntry[]>> {
    return this.deps.reader.read(
      ws,
      'categories',
      null,
      async (call) =>
        (await this.deps.client.listMaterialCategories(call)).map((c) => ({
          id: c.categoriaMaterialId,
          name: c.nome ?? null,
        })),
      options,
    );
  }
}
