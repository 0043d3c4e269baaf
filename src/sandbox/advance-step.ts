import type { StatusChange } from './changes.js';
import { historyEntry, summaryOf } from './data-flow.js';
import type { IdAllocator } from './id-blocks.js';
import {
  type CompanyData,
  ITEM_PURCHASE_STATUS,
  type PurchaseRow,
  REQUEST_STATUS,
  type RequestRow,
  type StockroomRow,
  type UserRow,
} from './model.js';
import type { Random } from './random.js';

/** What every change of one advance call shares, and the lookups the kinds of change need. */

export interface Step {
  company: CompanyData;
  rng: Random;
  /** The time of the changes: the clock, to the second (the service's dates have seconds). */
  at: number;
  ids: IdAllocator;
  /** Requests and purchases changed by this call: one call changes each at most once. */
  touchedRequests: Set<number>;
  touchedPurchases: Set<number>;
}

export type Item = RequestRow['items'][number];

export function stockroomOf(company: CompanyData, almoxarifado: number): StockroomRow {
  const stockroom = company.stockrooms.find((s) => s.record.almoxarifado === almoxarifado);
  if (!stockroom) throw new Error(`stockroom ${almoxarifado} missing from company ${company.empresa}`);
  return stockroom;
}

export function userOf(company: CompanyData, usuario: number): UserRow {
  const user = company.users.find((u) => u.record.usuario === usuario);
  if (!user) throw new Error(`user ${usuario} missing from company ${company.empresa}`);
  return user;
}

export function activeUsers(company: CompanyData): UserRow[] {
  return company.users.filter((u) => !u.record.inativo);
}

/** A purchase GET /v1/entradas-materiais/compras lists (in some stockroom). */
export function isPending(purchase: PurchaseRow): boolean {
  const { record } = purchase;
  return record.status !== 5 && record.status !== 6 && record.quantidadeComprada > record.quantidadeRecebida;
}

/** The pending purchases linked to a request. */
export function pendingPurchasesOf(company: CompanyData, request: RequestRow): PurchaseRow[] {
  return company.purchases.filter(
    (p) => request.purchaseIds.includes(p.record.compraMaterialId) && isPending(p),
  );
}

export function setItemStatus(item: Item, status: number): void {
  item.statusAndamentoSolicitacao = status;
  item.statusAndamentoSolicitacao_Nome = REQUEST_STATUS[status] ?? null;
}

export function setPurchaseStatus(item: Item, status: number): void {
  item.statusCompra = status;
  item.statusCompraMaterial_Nome = ITEM_PURCHASE_STATUS[status] ?? null;
}

/**
 * Moves a request to `to` once its items are already updated: a history entry dated now (never before the
 * previous one), the list row's status and item summary.
 */
export function moveRequest(
  step: Step,
  request: RequestRow,
  to: number,
  causedBy: StatusChange['causedBy'],
  compraRaised: number | null = null,
): Omit<StatusChange, 'seq'> {
  const { company, rng } = step;
  const { record } = request;
  const from = record.statusAndamentoSolicitacao ?? 0;
  const requester = userOf(company, record.solicitante);
  const last = request.history.at(-1);
  // The keeper who separated the request also delivers it.
  const keeperId = request.history.findLast(
    (h) => h.responsavelSaidaMaterial !== null,
  )?.responsavelSaidaMaterial;
  const keeper =
    keeperId === undefined || keeperId === null
      ? rng.pick(activeUsers(company).filter((u) => u.record.tipo === 3))
      : userOf(company, keeperId);
  const taker = rng.chance(0.8) ? requester : rng.pick(activeUsers(company));
  const entry = historyEntry({
    id: step.ids.take('andamento'),
    requestId: record.solicitacaoMaterialId,
    requester,
    stockroom: stockroomOf(company, record.almoxarifado),
    unitName: request.history[0]?.site_Nome ?? null,
    step: to,
    at: Math.max(step.at, last ? Date.parse(last.data) : step.at),
    keeper,
    taker,
  });
  request.history.push(entry);
  record.statusAndamentoSolicitacao = to;
  record.statusAndamentoSolicitacao_Nome = REQUEST_STATUS[to] ?? null;
  Object.assign(record, summaryOf(request.items));
  if (to === 4) record.concluidoComRessalvas = rng.chance(0.2);
  step.touchedRequests.add(record.solicitacaoMaterialId);
  return {
    kind: 'status',
    at: step.at,
    empresa: company.empresa,
    solicitacaoMaterialId: record.solicitacaoMaterialId,
    almoxarifado: record.almoxarifado,
    solicitante: record.solicitante,
    from,
    to,
    fromNome: REQUEST_STATUS[from] ?? String(from),
    toNome: REQUEST_STATUS[to] ?? String(to),
    andamentoSolicitacao: entry.andamentoSolicitacao,
    createdAt: request.createdAt,
    causedBy,
    compraRaised,
  };
}
