import type { Stockroom } from '../../upstream/schemas.js';
import type { ReadOptions } from '../cached-reader.js';
import type { DomainDeps } from '../deps.js';
import type { Answer, CatalogEntry, StockroomsView } from '../views.js';
import { linkedCompany, type WorkspaceContext } from '../workspace.js';

/** The active stockrooms of the workspace's company, through the cache (one entry, whoever reads it). */
export function readStockrooms(
  deps: Pick<DomainDeps, 'reader' | 'client'>,
  ws: WorkspaceContext,
  options?: ReadOptions,
): Promise<Answer<Stockroom[]>> {
  return deps.reader.read(ws, 'stockrooms', null, (call) => deps.client.listStockrooms(call), options);
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
