import {
  isPending,
  moveRequest,
  pendingPurchasesOf,
  type Step,
  setItemStatus,
  setPurchaseStatus,
  stockroomOf,
} from './advance-step.js';
import type { ReceiptChange, UnloggedChange } from './changes.js';
import { summaryOf } from './data-flow.js';
import { PURCHASE_STATUS, type PurchaseRow, type RequestRow } from './model.js';
import { formatLocal } from './query.js';
import { round2 } from './random.js';

/**
 * Goods arriving for a pending purchase: its balance falls, a receipt is recorded, and the requests it was
 * bought for get their items; a request waiting for it moves on when that serves it.
 */

const MAX_LINKED_REQUESTS = 50;

/** Pending purchases of active stockrooms (the ones a poller of the pending list sees) not touched yet. */
export function receivablePurchases(step: Step): PurchaseRow[] {
  const { company } = step;
  return company.purchases.filter(
    (p) =>
      isPending(p) &&
      stockroomOf(company, p.record.almoxarifado).record.status === 1 &&
      !step.touchedPurchases.has(p.record.compraMaterialId) &&
      !p.requestIds.some((id) => step.touchedRequests.has(id)),
  );
}

/** The linked requests, in the order GET /v1/compras-materiais/{id}/solicitacoes gives them. */
function linkedRequests(step: Step, purchase: PurchaseRow): RequestRow[] {
  return step.company.requests
    .filter((r) => purchase.requestIds.includes(r.record.solicitacaoMaterialId))
    .slice(0, MAX_LINKED_REQUESTS);
}

export function receive(step: Step, purchase: PurchaseRow): UnloggedChange[] {
  const { company, rng, ids, at } = step;
  const { record } = purchase;
  const pendingBefore = record.quantidadeComprada - record.quantidadeRecebida;
  const whole = pendingBefore <= 1 || rng.chance(0.55);
  const quantity = whole
    ? pendingBefore
    : Math.max(1, Math.min(pendingBefore - 1, Math.floor(pendingBefore * rng.between(0.3, 0.7))));
  const statusFrom = record.status;
  record.quantidadeRecebida += quantity;
  record.status = record.quantidadeRecebida >= record.quantidadeComprada ? 4 : 3;
  record.status_Nome = PURCHASE_STATUS[record.status] ?? null;
  // Goods come from somebody: a purchase still in quotation gets its supplier now.
  if (record.fornecedor === null && company.suppliers.length > 0) {
    const supplier = rng.pick(company.suppliers);
    record.fornecedor = supplier.id;
    record.fornecedor_Nome = supplier.nome;
  }
  const entradaMaterialId = ids.take('entrada');
  company.receipts.push({
    at,
    purchaseAt: purchase.at,
    record: {
      entradaMaterialId,
      compraMaterialId: record.compraMaterialId,
      ordemCompra: record.compraMaterialId,
      almoxarifado: record.almoxarifado,
      almoxarifado_Nome: record.almoxarifado_Nome,
      dataEntrada: formatLocal(at),
      dataCompra: record.dataCompra,
      fornecedor_Nome: record.fornecedor_Nome,
      numeroNotaFiscal: rng.chance(0.1) ? null : String(rng.int(10_000, 999_999)).padStart(9, '0'),
      valorTotal: round2((record.valorTotal * quantity) / record.quantidadeComprada),
      observacao: record.status === 3 ? 'Entrega parcial' : null,
    },
  });
  step.touchedPurchases.add(record.compraMaterialId);

  const linked = linkedRequests(step, purchase);
  const change: Omit<ReceiptChange, 'seq'> = {
    kind: 'recebimentos',
    at,
    empresa: company.empresa,
    compraMaterialId: record.compraMaterialId,
    almoxarifado: record.almoxarifado,
    entradaMaterialId,
    quantidade: quantity,
    pendingBefore,
    pendingAfter: record.quantidadeComprada - record.quantidadeRecebida,
    statusFrom,
    statusTo: record.status,
    leftPendingList: !isPending(purchase),
    solicitacaoMaterialIds: linked.map((r) => r.record.solicitacaoMaterialId),
  };
  const moved: UnloggedChange[] = [];
  for (const request of linked) {
    const to = serve(step, purchase, request);
    step.touchedRequests.add(request.record.solicitacaoMaterialId);
    if (to !== null) {
      moved.push(
        moveRequest(step, request, to, { compraMaterialId: record.compraMaterialId, entradaMaterialId }),
      );
    }
  }
  return [change, ...moved];
}

/**
 * Hands the received goods to one linked request: the items this purchase buys show the share received
 * (all of it once the purchase is complete), and a request that was held for the purchase gets its other
 * items too, except those another pending purchase still brings. Returns the request's new status, or null.
 */
function serve(step: Step, purchase: PurchaseRow, request: RequestRow): number | null {
  const { record } = purchase;
  const status = request.record.statusAndamentoSolicitacao ?? 0;
  const complete = record.status === 4;
  const bought = new Set(purchase.itemIds);
  const awaited = new Set(
    pendingPurchasesOf(step.company, request)
      .filter((p) => p !== purchase)
      .flatMap((p) => p.itemIds),
  );
  for (const item of request.items) {
    if (!bought.has(item.solicitacaoMaterialItemId)) continue;
    if (complete) setPurchaseStatus(item, 4);
    else if (item.statusCompra === 2) setPurchaseStatus(item, 3);
  }
  // A cancelled request takes nothing; a served one has nothing left to take.
  if (status !== 2 && status !== 3 && status !== 5) return null;
  const share = record.quantidadeRecebida / record.quantidadeComprada;
  for (const item of request.items) {
    const id = item.solicitacaoMaterialItemId;
    if (awaited.has(id)) continue;
    const due = bought.has(id)
      ? complete
        ? item.quantidade
        : Math.floor(item.quantidade * share)
      : item.quantidade;
    if (due <= (item.quantidadeEntregue ?? 0)) continue;
    item.quantidadeEntregue = due;
    setItemStatus(item, due >= item.quantidade ? 4 : 3);
  }
  // The list row summarizes its items, whether or not the request moves.
  Object.assign(request.record, summaryOf(request.items));
  const delivered = request.items.map((i) => i.quantidadeEntregue ?? 0);
  const to = request.items.every((i, k) => (delivered[k] ?? 0) >= i.quantidade)
    ? 4
    : delivered.some((q) => q > 0)
      ? 3
      : status;
  return to === status ? null : to;
}
