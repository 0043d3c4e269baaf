import {
  activeUsers,
  type Item,
  moveRequest,
  pendingPurchasesOf,
  type Step,
  setItemStatus,
  setPurchaseStatus,
  stockroomOf,
} from './advance-step.js';
import type { NewRequestChange, StatusChange } from './changes.js';
import { deliveredFor, generateItems, historyEntry, keepPartial, summaryOf } from './data-flow.js';
import { PURCHASE_STATUS, REQUEST_STATUS, type RequestRow, type StockroomRow } from './model.js';
import { formatLocal } from './query.js';
import { round2 } from './random.js';

/** Requests that appear, and requests that move along their status chain by themselves. */

function activeMaterials(step: Step, stockroom: StockroomRow): number {
  return step.company.materials.filter((m) => m.status === 1 && stockroom.materials.has(m.material)).length;
}

/** Stockrooms a new request can be raised against: active, with active materials registered. */
export function newRequestStockrooms(step: Step): StockroomRow[] {
  return step.company.stockrooms.filter((s) => s.record.status === 1 && activeMaterials(step, s) > 0);
}

export function addRequest(step: Step, stockrooms: StockroomRow[]): Omit<NewRequestChange, 'seq'> {
  const { company, rng, ids, at } = step;
  // Busy stockrooms get more requests, as the demo catalog's weights make them.
  const stockroom = rng.weighted(
    stockrooms,
    (s) => 1 + company.requests.filter((r) => r.record.almoxarifado === s.record.almoxarifado).length,
  );
  const requester = rng.pick(activeUsers(company));
  const id = ids.take('solicitacao');
  const items = generateItems(company, stockroom, 1, 0, at, id, rng, () => ids.take('item'), false);
  const entry = historyEntry({
    id: ids.take('andamento'),
    requestId: id,
    requester,
    stockroom,
    unitName: company.units.find((u) => u.id === stockroom.record.site)?.nome ?? null,
    step: 1,
    at,
    keeper: requester,
    taker: requester,
  });
  const summary = summaryOf(items);
  const request: RequestRow = {
    record: {
      solicitacaoMaterialId: id,
      almoxarifado: stockroom.record.almoxarifado,
      site: stockroom.record.site ?? 0,
      solicitante: requester.record.usuario,
      almoxarifado_Nome: stockroom.record.nome,
      solicitante_Nome: requester.record.nome,
      listaStatusAndamentoSolicitacao: summary.listaStatusAndamentoSolicitacao,
      statusAndamentoSolicitacao: 1,
      statusAndamentoSolicitacao_Nome: REQUEST_STATUS[1] ?? null,
      ocorrencias: summary.ocorrencias,
      concluidoComRessalvas: false,
    },
    createdAt: at,
    purchaseIds: [],
    items,
    history: [entry],
  };
  company.requests.push(request);
  step.touchedRequests.add(id);
  return {
    kind: 'novas',
    at,
    empresa: company.empresa,
    solicitacaoMaterialId: id,
    almoxarifado: request.record.almoxarifado,
    solicitante: request.record.solicitante,
    status: 1,
    andamentoSolicitacao: entry.andamentoSolicitacao,
    itemIds: items.map((i) => i.solicitacaoMaterialItemId),
  };
}

/** Items a purchase would buy for the request: visible ones short of stock, or the first visible one. */
function itemsToBuy(step: Step, request: RequestRow): Item[] {
  const registered = stockroomOf(step.company, request.record.almoxarifado).materials;
  const visible = request.items.filter((i) => registered.has(i.material));
  const short = visible.filter(
    (i) => i.estoqueAtual < (i.estoqueMinimo ?? 0) || i.estoqueAtual < i.quantidade,
  );
  return short.length > 0 ? short : visible.slice(0, 1);
}

/**
 * Where a request can go by itself, with weights. A request waiting on a pending purchase moves only when
 * goods arrive (advance-receipts.ts), so it has no move here.
 */
function movesOf(step: Step, request: RequestRow): { to: number; weight: number }[] {
  const status = request.record.statusAndamentoSolicitacao;
  if (status === 1)
    return [
      { to: 2, weight: 9 },
      { to: 6, weight: 1 },
    ];
  if (status !== 2 && status !== 3 && status !== 5) return [];
  if (pendingPurchasesOf(step.company, request).length > 0) return [];
  if (status === 3) return [{ to: 4, weight: 1 }];
  // A request waiting for a purchase that never came (or was received already) gets served from stock.
  if (status === 5) return [{ to: 3, weight: 1 }];
  const moves = [
    { to: 4, weight: 4 },
    { to: 3, weight: 2 },
    { to: 6, weight: 1 },
  ];
  if (itemsToBuy(step, request).length > 0 && step.company.suppliers.length > 0)
    moves.push({ to: 5, weight: 3 });
  return moves;
}

export function movableRequests(step: Step): RequestRow[] {
  return step.company.requests.filter(
    (r) => !step.touchedRequests.has(r.record.solicitacaoMaterialId) && movesOf(step, r).length > 0,
  );
}

/** What an item shows once its request reached `to`. */
function follow(step: Step, item: Item, to: number): void {
  if (to === 2 || to === 5) item.quantidadeEntregue = 0;
  else if (to === 6) item.quantidadeEntregue = null;
  else if (to === 4) item.quantidadeEntregue = item.quantidade;
  else if ((item.quantidadeEntregue ?? 0) < item.quantidade) {
    const delivered = deliveredFor(3, item.quantidade, step.rng).quantity ?? 0;
    item.quantidadeEntregue = Math.max(item.quantidadeEntregue ?? 0, delivered);
  }
  const served = item.quantidadeEntregue !== null && item.quantidadeEntregue >= item.quantidade;
  setItemStatus(item, to === 3 && served ? 4 : to);
}

/** Moves the request one step along its chain; the items follow. */
export function moveByItself(step: Step, request: RequestRow): Omit<StatusChange, 'seq'> {
  const { to } = step.rng.weighted(movesOf(step, request), (m) => m.weight);
  for (const item of request.items) follow(step, item, to);
  if (to === 3) keepPartial(request.items);
  const raised = to === 5 ? raisePurchase(step, request) : null;
  return moveRequest(step, request, to, null, raised);
}

/** A purchase (approved, supplier chosen) for the items the request lacks; it joins the pending list. */
function raisePurchase(step: Step, request: RequestRow): number {
  const { company, rng, ids, at } = step;
  const stockroom = stockroomOf(company, request.record.almoxarifado);
  const supplier = rng.pick(company.suppliers);
  let comprada = 0;
  let valorTotal = 0;
  const bought = itemsToBuy(step, request);
  for (const item of bought) {
    setPurchaseStatus(item, 3);
    item.compraMaterialItem = ids.take('compraItem');
    const quantity = item.quantidade + Math.max(0, (item.estoqueMinimo ?? 0) - item.estoqueAtual);
    comprada += quantity;
    valorTotal = round2(valorTotal + quantity * (item.valorUnitario ?? 25));
  }
  const id = ids.take('compra');
  company.purchases.push({
    at,
    requestIds: [request.record.solicitacaoMaterialId],
    itemIds: bought.map((i) => i.solicitacaoMaterialItemId),
    record: {
      compraMaterialId: id,
      almoxarifado: stockroom.record.almoxarifado,
      almoxarifado_Nome: stockroom.record.nome,
      fornecedor: supplier.id,
      fornecedor_Nome: supplier.nome,
      status: 2,
      status_Nome: PURCHASE_STATUS[2] ?? null,
      dataCompra: formatLocal(at),
      valorTotal,
      quantidadeComprada: comprada,
      quantidadeRecebida: 0,
      observacao: rng.chance(0.6) ? null : 'Compra emergencial',
      compraAgrupadora: null,
    },
  });
  request.purchaseIds.push(id);
  step.touchedPurchases.add(id);
  return id;
}
