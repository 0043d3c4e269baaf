import { COMPANY_1, COMPANY_2 } from './catalog.js';
import { generatedIdStart } from './catalog-generated.js';
import type { CompanyData } from './model.js';

/**
 * Ids that advances hand out. Each company owns a block of ids per kind, from its catalog's first id up to
 * the next company's first id, so a company that keeps changing never takes an id of another company.
 */

export const ID_KINDS = ['solicitacao', 'item', 'andamento', 'compra', 'compraItem', 'entrada'] as const;
export type IdKind = (typeof ID_KINDS)[number];
type Ids = Record<IdKind, number>;

function uniform(id: number): Ids {
  return { solicitacao: id, item: id, andamento: id, compra: id, compraItem: id, entrada: id };
}

function pick(ids: Ids): Ids {
  const { solicitacao, item, andamento, compra, compraItem, entrada } = ids;
  return { solicitacao, item, andamento, compra, compraItem, entrada };
}

/** First id and end (exclusive) of each kind for a company. */
function blockOf(empresa: number): { start: Ids; end: Ids } {
  if (empresa === COMPANY_1.empresa) return { start: pick(COMPANY_1.ids), end: pick(COMPANY_2.ids) };
  if (empresa === COMPANY_2.empresa) {
    return { start: pick(COMPANY_2.ids), end: uniform(generatedIdStart(COMPANY_2.empresa + 1)) };
  }
  return { start: uniform(generatedIdStart(empresa)), end: uniform(generatedIdStart(empresa + 1)) };
}

function highest(values: Iterable<number | null>): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const value of values) if (value !== null && value > max) max = value;
  return max;
}

/** The next free id of each kind in a company's block, after the highest the data already holds. */
export class IdAllocator {
  private readonly next: Ids;
  private readonly end: Ids;

  constructor(company: CompanyData) {
    const { start, end } = blockOf(company.empresa);
    const items = company.requests.flatMap((r) => r.items);
    const used: Ids = {
      solicitacao: highest(company.requests.map((r) => r.record.solicitacaoMaterialId)),
      item: highest(items.map((i) => i.solicitacaoMaterialItemId)),
      andamento: highest(company.requests.flatMap((r) => r.history.map((h) => h.andamentoSolicitacao))),
      compra: highest(company.purchases.map((p) => p.record.compraMaterialId)),
      compraItem: highest(items.map((i) => i.compraMaterialItem)),
      entrada: highest(company.receipts.map((r) => r.record.entradaMaterialId)),
    };
    this.next = { ...start };
    for (const kind of ID_KINDS) this.next[kind] = Math.max(start[kind], used[kind] + 1);
    this.end = end;
  }

  /** Ids of a kind still free in the block. */
  room(kind: IdKind): number {
    return this.end[kind] - this.next[kind];
  }

  take(kind: IdKind): number {
    if (this.room(kind) <= 0) throw new RangeError(`no ${kind} id left in the company's block`);
    const id = this.next[kind];
    this.next[kind] = id + 1;
    return id;
  }
}
