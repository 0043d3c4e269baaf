import type { CompanyCatalog } from './catalog.js';
import { generatePurchases, generateReceipts } from './data-purchases.js';
import {
  type CompanyData,
  ITEM_PURCHASE_STATUS,
  REQUEST_STATUS,
  type RequestRow,
  type StockroomRow,
  type UserRow,
} from './model.js';
import { formatLocal } from './query.js';
import { type Random, round2 } from './random.js';

/**
 * The moving part of the demo data: requests with items and history, purchases linked to them (some grouped),
 * and receipts of those purchases, all consistent with each other and dated relative to `now`.
 */

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

export type Item = RequestRow['items'][number];

export function generateFlow(company: CompanyData, catalog: CompanyCatalog, rng: Random, now: number): void {
  company.requests = generateRequests(company, catalog, rng, now);
  company.purchases = generatePurchases(company, catalog, rng, now);
  company.receipts = generateReceipts(company, catalog, rng, now);
}

/** Status chains a request goes through to reach its current status. */
function chainFor(status: number, rng: Random): number[] {
  switch (status) {
    case 1:
      return [1];
    case 2:
      return [1, 2];
    case 5:
      return [1, 2, 5];
    case 3:
      return rng.chance(0.5) ? [1, 2, 3] : [1, 2, 5, 3];
    case 4:
      return rng.pick([
        [1, 2, 4],
        [1, 2, 3, 4],
        [1, 2, 5, 3, 4],
      ]);
    default:
      return rng.chance(0.5) ? [1, 6] : [1, 2, 6];
  }
}

function statusForAge(ageDays: number, rng: Random): number {
  if (ageDays < 3) return rng.pick([1, 1, 2]);
  if (ageDays < 10) return rng.pick([1, 2, 2, 5, 3, 4, 6]);
  if (ageDays < 30) return rng.pick([2, 5, 5, 3, 3, 4, 4, 4, 6]);
  return rng.pick([4, 4, 4, 4, 3, 6, 6]);
}

function generateRequests(
  company: CompanyData,
  catalog: CompanyCatalog,
  rng: Random,
  now: number,
): RequestRow[] {
  const { ids } = catalog;
  // Most requests are recent (the bot lists the last 30 days by default); some go back about 13 months.
  // Every draw is independent of `now`, so that the same ids always hold the same contents.
  const ages = Array.from({ length: catalog.requests }, () =>
    rng.chance(0.72)
      ? rng.chance(0.65)
        ? rng.between(0.02, 30)
        : rng.between(30, 60)
      : rng.between(60, 395),
  ).sort((a, b) => b - a);
  const keepers = company.users.filter((u) => u.record.tipo === 3 && !u.record.inativo);
  let itemId = ids.item;
  let historyId = ids.andamento;

  return ages.map((ageDays, index) => {
    const createdAt = Math.floor((now - ageDays * DAY) / MINUTE) * MINUTE;
    const stockroom = rng.weighted(company.stockrooms, (s) => {
      const weight = catalog.stockrooms[company.stockrooms.indexOf(s)]?.weight ?? 0;
      return weight > 0 ? weight : ageDays > 150 ? 1 : 0;
    });
    const requester = rng.pick(company.users.filter((u) => !u.record.inativo || ageDays > 200));
    const status = statusForAge(ageDays, rng);
    const id = ids.solicitacao + index;
    const items = generateItems(company, stockroom, status, ageDays, createdAt, id, rng, () => itemId++);

    const chain = chainFor(status, rng);
    const keeper = rng.pick(keepers);
    const unitName = company.units.find((u) => u.id === stockroom.record.site)?.nome ?? null;
    let at = createdAt;
    const history = chain.map((step, k) => {
      if (k > 0) {
        const room = now - MINUTE - at;
        const step = Math.min(rng.between(HOUR, 3 * DAY), room / (chain.length - k + 1));
        at += Math.max(1000, Math.floor(step));
      }
      const taker: UserRow = rng.chance(0.8) ? requester : rng.pick(company.users);
      return historyEntry({
        id: historyId++,
        requestId: id,
        requester,
        stockroom,
        unitName,
        step,
        at,
        keeper,
        taker,
      });
    });

    const summary = summaryOf(items);
    return {
      record: {
        solicitacaoMaterialId: id,
        almoxarifado: stockroom.record.almoxarifado,
        site: stockroom.record.site ?? 0,
        solicitante: requester.record.usuario,
        almoxarifado_Nome: stockroom.record.nome,
        solicitante_Nome: requester.record.nome,
        listaStatusAndamentoSolicitacao: summary.listaStatusAndamentoSolicitacao,
        statusAndamentoSolicitacao: status,
        statusAndamentoSolicitacao_Nome: REQUEST_STATUS[status] ?? null,
        ocorrencias: summary.ocorrencias,
        concluidoComRessalvas: status === 4 && rng.chance(0.2),
      },
      createdAt,
      purchaseIds: [],
      items,
      history,
    };
  });
}

/** The request row's fields that summarize its items. */
export function summaryOf(
  items: readonly Item[],
): Pick<RequestRow['record'], 'listaStatusAndamentoSolicitacao' | 'ocorrencias'> {
  const itemStatuses = [...new Set(items.map((i) => i.statusAndamentoSolicitacao_Nome).filter(Boolean))];
  const occurrences = [...new Set(items.map((i) => i.ocorrencias).filter((o) => o !== null))];
  return {
    listaStatusAndamentoSolicitacao: itemStatuses.length > 0 ? itemStatuses.join(', ') : null,
    ocorrencias: occurrences.length > 0 ? occurrences.join(', ') : null,
  };
}

export interface HistoryStep {
  id: number;
  requestId: number;
  requester: UserRow;
  stockroom: StockroomRow;
  unitName: string | null;
  step: number;
  at: number;
  /** The stock keeper: named on separation and delivery steps (2, 3, 4). */
  keeper: UserRow;
  /** Who took the material: named on delivery steps (3, 4). */
  taker: UserRow;
}

/** A history entry of a request reaching `step`. */
export function historyEntry(h: HistoryStep): RequestRow['history'][number] {
  const out = [2, 3, 4].includes(h.step) ? h.keeper : null;
  const takenBy = [3, 4].includes(h.step) ? h.taker : null;
  return {
    andamentoSolicitacao: h.id,
    solicitacaoMaterial: h.requestId,
    responsavelSaidaMaterial: out?.record.usuario ?? null,
    responsavelRetirada: takenBy?.record.usuario ?? null,
    status: h.step,
    data: formatLocal(h.at),
    site_Nome: h.unitName,
    almoxarifado_Nome: h.stockroom.record.nome,
    solicitante: h.requester.record.usuario,
    solicitante_Nome: h.requester.record.nome,
    responsavelSaidaMaterial_Nome: out?.record.nome ?? null,
    responsavelRetirada_Nome: takenBy?.record.nome ?? null,
    statusAndamentoSolicitacao_Nome: REQUEST_STATUS[h.step] ?? null,
  };
}

export function generateItems(
  company: CompanyData,
  stockroom: StockroomRow,
  status: number,
  ageDays: number,
  createdAt: number,
  requestId: number,
  rng: Random,
  nextId: () => number,
  /** Now and then an item of a material not registered in the stockroom (which the service hides). */
  foreignItems = true,
): Item[] {
  const active = company.materials.filter((m) => m.status === 1);
  const chosen = rng.sample(
    active.filter((m) => stockroom.materials.has(m.material)),
    rng.int(1, 6),
  );
  // Now and then an item of a material not registered in the stockroom: the service hides those.
  const foreign = active.filter((m) => !stockroom.materials.has(m.material));
  if (foreignItems && foreign.length > 0 && rng.chance(0.1)) chosen.push(rng.pick(foreign));

  const items = chosen.map((material): Item => {
    const level = company.stock.get(`${stockroom.record.almoxarifado}:${material.material}`);
    const quantidade = material.unidadeConsumo === 2 ? rng.int(5, 50) : rng.int(1, 8);
    const drift = ageDays < 30 ? 0 : rng.int(-2, 8);
    const noLimits = rng.chance(0.05);
    const category = company.categories.find((c) => c.categoriaMaterialId === material.categoriaMaterial);
    const isTool = category?.nome?.startsWith('Ferramenta') ?? false;
    const destination = rng.chance(0.3) ? rng.int(48_000, 49_999) : null;
    const delivered = deliveredFor(status, quantidade, rng);
    return {
      solicitacaoMaterialItemId: nextId(),
      solicitacaoMaterialId: requestId,
      material: material.material,
      material_Nome: material.nome,
      quantidade,
      estoqueAtual: level ? Math.max(0, level.atual + drift) : 0,
      estoqueMinimo: level && !noLimits ? level.minimo : null,
      estoqueMaximo: level && !noLimits ? level.maximo : null,
      statusCompra: rng.chance(0.05) ? null : 1,
      statusCompraMaterial_Nome: null,
      quantidadeEntregue: delivered.quantity,
      statusAndamentoSolicitacao: delivered.status,
      statusAndamentoSolicitacao_Nome: REQUEST_STATUS[delivered.status] ?? null,
      ocorrencias: destination === null ? null : String(destination),
      valorUnitario: material.custo,
      valorTotal: material.custo === null ? null : round2(material.custo * quantidade),
      prazoDevolucao: isTool ? formatLocal(createdAt + 7 * DAY) : null,
      compraMaterialItem: null,
      destinacaoTipo: destination === null ? null : 1,
      destinacaoId: destination,
      ocorrenciasRelacionadasCount: destination === null ? 0 : rng.int(1, 2),
    };
  });
  if (status === 3) keepPartial(items);
  for (const item of items) item.statusCompraMaterial_Nome = nameOf(ITEM_PURCHASE_STATUS, item.statusCompra);
  return items;
}

/** A partially served request has at least one item not fully delivered. */
export function keepPartial(items: Item[]): void {
  const last = items[items.length - 1];
  if (last && items.every((i) => i.statusAndamentoSolicitacao === 4)) {
    last.quantidadeEntregue = Math.floor(last.quantidade / 2);
    last.statusAndamentoSolicitacao = 3;
    last.statusAndamentoSolicitacao_Nome = REQUEST_STATUS[3] ?? null;
  }
}

export function deliveredFor(
  status: number,
  quantidade: number,
  rng: Random,
): { quantity: number | null; status: number } {
  switch (status) {
    case 1:
    case 6:
      return { quantity: null, status };
    case 2:
    case 5:
      return { quantity: 0, status };
    case 3: {
      if (rng.chance(0.45)) return { quantity: quantidade, status: 4 };
      return { quantity: Math.floor(quantidade * rng.between(0, 0.9)), status: 3 };
    }
    default:
      return { quantity: quantidade, status: 4 };
  }
}

function nameOf(names: Record<number, string>, value: number | null): string | null {
  return value === null ? null : (names[value] ?? null);
}
