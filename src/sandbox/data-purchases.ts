import type { CompanyCatalog } from './catalog.js';
import {
  type CompanyData,
  ITEM_PURCHASE_STATUS,
  PURCHASE_STATUS,
  type PurchaseRow,
  type ReceiptRow,
  type RequestRow,
  type StockroomRow,
  type Supplier,
} from './model.js';
import { formatLocal } from './query.js';
import { type Random, round2 } from './random.js';

/**
 * Purchases raised for requests (a few grouped into later ones, status 5), stock replenishment purchases,
 * and the receipts of what arrived. Dates are offsets from `now`; every draw is independent of it.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;

interface PurchaseDraft {
  stockroom: StockroomRow;
  at: number;
  status: number;
  supplier: Supplier | null;
  requests: RequestRow[];
  comprada: number;
  recebida: number;
  valorTotal: number;
  observacao: string | null;
  parent: PurchaseDraft | null;
  id: number;
}

export function generatePurchases(
  company: CompanyData,
  catalog: CompanyCatalog,
  rng: Random,
  now: number,
): PurchaseRow[] {
  const drafts: PurchaseDraft[] = [];
  const newDraft = (stockroom: StockroomRow, at: number, status: number): PurchaseDraft => ({
    stockroom,
    at: Math.floor(Math.min(at, now - 10 * MINUTE) / MINUTE) * MINUTE,
    status,
    supplier: status === 1 && rng.chance(0.6) ? null : rng.pick(company.suppliers),
    requests: [],
    comprada: 0,
    recebida: 0,
    valorTotal: 0,
    observacao: rng.chance(0.6)
      ? null
      : rng.pick(['Compra emergencial', 'Reposição de estoque mínimo', 'Cotação com três fornecedores']),
    parent: null,
    id: 0,
  });
  const linkedBudget = catalog.purchases - catalog.grouped - Math.ceil(catalog.purchases / 5);

  // Purchases raised for requests, grouped per stockroom.
  const buckets = new Map<StockroomRow, RequestRow[]>();
  const flush = (stockroom: StockroomRow, bucket: RequestRow[]) => {
    if (bucket.length === 0) return;
    const statuses = bucket.map((r) => r.record.statusAndamentoSolicitacao);
    const status =
      statuses.includes(5) || statuses.includes(2) ? rng.pick([1, 2]) : statuses.includes(3) ? 3 : 4;
    const latest = Math.max(...bucket.map((r) => r.createdAt));
    const draft = newDraft(stockroom, latest + rng.between(0.1, 2) * DAY, status);
    draft.requests = [...bucket];
    buy(draft, rng);
    drafts.push(draft);
    buckets.set(stockroom, []);
  };
  for (const request of company.requests) {
    const status = request.record.statusAndamentoSolicitacao;
    const needs =
      status === 5 ||
      ((status === 3 || status === 4) && rng.chance(0.3)) ||
      (status === 2 && rng.chance(0.15));
    if (!needs) continue;
    const stockroom = company.stockrooms.find((s) => s.record.almoxarifado === request.record.almoxarifado);
    if (!stockroom) continue;
    const bucket = buckets.get(stockroom) ?? [];
    bucket.push(request);
    buckets.set(stockroom, bucket);
    if (bucket.length >= rng.int(1, 3)) flush(stockroom, bucket);
  }
  for (const [stockroom, bucket] of buckets) flush(stockroom, bucket);
  // Keep the newest when there are more than the budget.
  drafts.sort((a, b) => a.at - b.at);
  for (const dropped of drafts.splice(0, Math.max(0, drafts.length - linkedBudget))) {
    for (const request of dropped.requests) unbuy(request);
  }

  // Stock replenishment purchases, not linked to any request.
  const activeRooms = company.stockrooms.filter((s) => s.record.status === 1);
  for (let n = 0; drafts.length < catalog.purchases - catalog.grouped; n++) {
    const ageDays = rng.between(1, 200);
    const status =
      n === 0 ? 6 : ageDays < 10 ? rng.pick([1, 2, 2]) : ageDays < 40 ? rng.pick([2, 3, 4, 4]) : 4;
    const draft = newDraft(rng.pick(activeRooms), now - ageDays * DAY, status);
    draft.comprada = rng.int(5, 80);
    draft.recebida = receivedFor(status, draft.comprada, rng);
    draft.valorTotal = round2(draft.comprada * rng.between(8, 120));
    if (status === 6) draft.observacao = 'Cancelada: fornecedor sem estoque';
    drafts.push(draft);
  }

  // Grouped purchases (status 5): merged into a later purchase of the same stockroom.
  const parents = rng.sample(
    drafts.filter((d) => [2, 3, 4].includes(d.status) && d.requests.length > 0),
    catalog.grouped,
  );
  for (const parent of parents) {
    const child = newDraft(parent.stockroom, parent.at - rng.between(0.5, 3) * DAY, 5);
    child.supplier = parent.supplier;
    child.parent = parent;
    child.requests = parent.requests.slice(0, 1);
    child.comprada = rng.int(2, 20);
    child.valorTotal = round2(child.comprada * rng.between(8, 120));
    drafts.push(child);
  }

  drafts.sort((a, b) => a.at - b.at);
  drafts.forEach((d, i) => {
    d.id = catalog.ids.compra + i;
  });
  let purchaseItemId = catalog.ids.compraItem;
  return drafts.map((d) => {
    const itemIds: number[] = [];
    for (const request of d.requests) {
      request.purchaseIds.push(d.id);
      if (d.status !== 5) {
        for (const item of request.items) {
          if (item.compraMaterialItem !== -1) continue;
          item.compraMaterialItem = purchaseItemId++;
          itemIds.push(item.solicitacaoMaterialItemId);
        }
      }
    }
    return {
      at: d.at,
      requestIds: d.requests.map((r) => r.record.solicitacaoMaterialId),
      itemIds,
      record: {
        compraMaterialId: d.id,
        almoxarifado: d.stockroom.record.almoxarifado,
        almoxarifado_Nome: d.stockroom.record.nome,
        fornecedor: d.supplier?.id ?? null,
        fornecedor_Nome: d.supplier?.nome ?? null,
        status: d.status,
        status_Nome: PURCHASE_STATUS[d.status] ?? null,
        dataCompra: formatLocal(d.at),
        valorTotal: d.valorTotal,
        quantidadeComprada: d.comprada,
        quantidadeRecebida: d.recebida,
        observacao: d.parent ? `Agrupada na compra ${d.parent.id}` : d.observacao,
        compraAgrupadora: d.parent?.id ?? null,
      },
    };
  });
}

function receivedFor(status: number, comprada: number, rng: Random): number {
  if (status === 4) return comprada;
  if (status === 3) return Math.max(1, Math.min(comprada - 1, Math.floor(comprada * rng.between(0.3, 0.8))));
  return 0;
}

/** Marks the items a purchase buys (compraMaterialItem -1 until ids are given) and sums quantities and value. */
function buy(draft: PurchaseDraft, rng: Random): void {
  const itemStatus: Record<number, () => number> = {
    1: () => 2,
    2: () => 3,
    3: () => rng.pick([3, 4]),
    4: () => 4,
  };
  for (const request of draft.requests) {
    const visible = request.items.filter((i) => draft.stockroom.materials.has(i.material));
    let needed = visible.filter(
      (i) => i.estoqueAtual < (i.estoqueMinimo ?? 0) || i.estoqueAtual < i.quantidade,
    );
    if (needed.length === 0) needed = visible.slice(0, 1);
    for (const item of needed) {
      item.statusCompra = itemStatus[draft.status]?.() ?? 3;
      item.statusCompraMaterial_Nome = ITEM_PURCHASE_STATUS[item.statusCompra] ?? null;
      item.compraMaterialItem = -1;
      const quantity = item.quantidade + Math.max(0, (item.estoqueMinimo ?? 0) - item.estoqueAtual);
      draft.comprada += quantity;
      draft.valorTotal = round2(draft.valorTotal + quantity * (item.valorUnitario ?? 25));
    }
  }
  if (draft.status === 3 && draft.comprada < 2) draft.comprada = 2;
  draft.recebida = receivedFor(draft.status, draft.comprada, rng);
}

function unbuy(request: RequestRow): void {
  for (const item of request.items) {
    if (item.compraMaterialItem === -1) {
      item.compraMaterialItem = null;
      item.statusCompra = 1;
      item.statusCompraMaterial_Nome = ITEM_PURCHASE_STATUS[1] ?? null;
    }
  }
}

export function generateReceipts(
  company: CompanyData,
  catalog: CompanyCatalog,
  rng: Random,
  now: number,
): ReceiptRow[] {
  const drafts: Omit<ReceiptRow['record'], 'entradaMaterialId'>[] = [];
  const times: { at: number; purchaseAt: number }[] = [];
  for (const purchase of company.purchases) {
    const { record } = purchase;
    if (record.quantidadeRecebida <= 0) continue;
    const parts = record.status === 4 && record.quantidadeRecebida > 1 && rng.chance(0.35) ? 2 : 1;
    const first = Math.floor(record.quantidadeRecebida / parts);
    let at = purchase.at;
    for (let part = 0; part < parts; part++) {
      const quantity = part === parts - 1 ? record.quantidadeRecebida - first * (parts - 1) : first;
      at = Math.min(at + rng.between(0.5, 8) * DAY, now - 10 * MINUTE);
      at = Math.floor(at / MINUTE) * MINUTE;
      times.push({ at, purchaseAt: purchase.at });
      drafts.push({
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
      });
    }
  }
  const order = drafts.map((_, i) => i).sort((a, b) => (times[a]?.at ?? 0) - (times[b]?.at ?? 0));
  return order.map((index, position) => {
    const draft = drafts[index];
    const time = times[index];
    if (!draft || !time) throw new Error('receipt draft missing');
    return { ...time, record: { entradaMaterialId: catalog.ids.entrada + position, ...draft } };
  });
}
