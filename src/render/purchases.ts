import type { KnownBlock, SectionBlock } from '@slack/types';
import type { Route } from '../domain/routes.js';
import type {
  Answer,
  PendingPurchasesView,
  PurchaseListView,
  PurchaseRequestsView,
  ReceiptListView,
} from '../domain/views.js';
import type { GoodsReceipt, PurchaseOrder, Stockroom } from '../upstream/schemas.js';
import { answerMessage, localPage, pagedListMessage, pageLine, pagingButtons } from './answer.js';
import { context, header, routeButton, section } from './blocks.js';
import { describePurchaseFilters, describeReceiptFilters } from './filters.js';
import { plural, safeText } from './format.js';
import { recordId, recordLines, recordSection } from './labels.js';
import { requestRows } from './request-list.js';
import type { Message, RenderContext } from './types.js';

/** `/compras pendentes`, `/compras [filtros]`, `/compras <id>` and `/compras entradas`. */

export const PENDING_PAGE_SIZE = 8;
export const PURCHASE_REQUESTS_PAGE_SIZE = 10;
/** The API lists at most this many requests of a purchase. */
const PURCHASE_REQUESTS_CAP = 50;
const RECEIPT_ID_KEYS = ['entradaMaterialId', 'entradaId', 'id'] as const;
const STOCKROOM_KEYS = ['almoxarifado', 'almoxarifadoId', 'almoxarifado_Nome'] as const;

function linkedRequestsButton(purchaseId: number) {
  return routeButton('Solicitações vinculadas', { view: 'purchase', id: purchaseId, page: 1 });
}

/** A purchase order: its id, every scalar field that arrived, and the button to its linked requests. */
export function purchaseSection(
  purchase: PurchaseOrder,
  ctx: RenderContext,
  omit: readonly string[] = [],
): SectionBlock {
  const id = purchase.compraMaterialId;
  const lines = recordLines(purchase, ctx.timeZone, ['compraMaterialId', ...omit]);
  return recordSection(`*Compra ${id}*`, lines, linkedRequestsButton(id));
}

/** A goods receipt: its id when one is recognisable, every scalar field, and its purchase's requests. */
export function receiptSection(receipt: GoodsReceipt, ctx: RenderContext): SectionBlock {
  const found = recordId(receipt, RECEIPT_ID_KEYS);
  const lines = recordLines(receipt, ctx.timeZone, found ? [found.key] : []);
  // The receipt filter names the purchase OrdemCompra (`oc:`): a receipt may carry it under that name alone.
  const purchase = recordId(receipt, ['compraMaterialId', 'ordemCompra']);
  return recordSection(
    found ? `*Entrada ${found.id}*` : '*Entrada*',
    lines,
    purchase && purchase.id > 0 ? linkedRequestsButton(purchase.id) : null,
  );
}

function stockroomTitle(stockroom: Pick<Stockroom, 'almoxarifado' | 'nome'>): string {
  return stockroom.nome?.trim()
    ? `${safeText(stockroom.nome, 100)} (${stockroom.almoxarifado})`
    : `Almoxarifado ${stockroom.almoxarifado}`;
}

export function renderPendingPurchases(answer: Answer<PendingPurchasesView>, ctx: RenderContext): Message {
  const view = answer.data;
  const rows = view.groups.flatMap((group) => group.purchases.map((purchase) => ({ group, purchase })));
  const current = localPage(rows, view.page, PENDING_PAGE_SIZE);
  const route: Route = {
    view: 'pending',
    ...(view.stockroomId !== null && { stockroomId: view.stockroomId }),
    page: current.page,
  };
  const only =
    view.stockroomId === null
      ? null
      : (view.groups[0]?.stockroom ?? { almoxarifado: view.stockroomId, nome: null });
  const title = 'Compras com saldo a receber';
  const body: KnownBlock[] = [header(title)];
  const count = plural(rows.length, 'compra', 'compras');
  if (rows.length === 0) {
    body.push(
      section(
        only
          ? `Nenhuma compra com saldo a receber em ${stockroomTitle(only)}.`
          : 'Nenhuma compra com saldo a receber.',
      ),
    );
  } else {
    let lastGroup: unknown = null;
    for (const { group, purchase } of current.rows) {
      if (group !== lastGroup) {
        const groupCount = plural(group.purchases.length, 'compra', 'compras');
        body.push(section(`:package: *${stockroomTitle(group.stockroom)}* · ${groupCount}`));
        lastGroup = group;
      }
      body.push(purchaseSection(purchase, ctx, STOCKROOM_KEYS));
    }
    const groups = view.groups.filter((group) => group.purchases.length > 0).length;
    const where = only ? '' : ` em ${plural(groups, 'almoxarifado', 'almoxarifados')}`;
    body.push(context(pageLine(current.page, current.totalPages, `${count}${where}`)));
  }
  const unread = unreadStockroomsNote(view.unread ?? 0);
  if (unread) body.push(context(unread));
  return answerMessage({
    text: `${title}: ${count}`,
    body,
    route,
    freshness: answer.freshness,
    ctx,
    buttons: pagingButtons(route, current.page, current.totalPages),
  });
}

/** The documented status of a grouped purchase, which the purchase list never shows. */
const GROUPED_PURCHASE_STATUS = 5;

export function renderPurchaseList(answer: Answer<PurchaseListView>, ctx: RenderContext): Message {
  const { filters, list } = answer.data;
  const described = describePurchaseFilters(filters);
  // The API leaves grouped purchases (status 5) out of this list: said where someone would look for them.
  const grouped = 'Compras agrupadas (status 5) não aparecem nesta lista.';
  const asksGrouped = filters.status?.includes(GROUPED_PURCHASE_STATUS) === true;
  return pagedListMessage({
    title: 'Ordens de compra',
    intro: [
      ...(described ? [context(`Filtros: ${described}`)] : []),
      ...(asksGrouped && list.rows.length > 0 ? [context(grouped)] : []),
    ],
    list,
    row: (purchase) => purchaseSection(purchase, ctx),
    noun: ['compra', 'compras'],
    empty: `Nenhuma compra encontrada. ${grouped}`,
    route: { view: 'purchases', filters: filters, page: list.page },
    freshness: answer.freshness,
    ctx,
  });
}

export function renderPurchaseRequests(answer: Answer<PurchaseRequestsView>, ctx: RenderContext): Message {
  const view = answer.data;
  const current = localPage(view.requests, view.page, PURCHASE_REQUESTS_PAGE_SIZE);
  const route: Route = { view: 'purchase', id: view.purchaseId, page: current.page };
  const title = `Solicitações vinculadas à compra ${view.purchaseId}`;
  const body: KnownBlock[] = [header(title)];
  const count = plural(view.requests.length, 'solicitação', 'solicitações');
  if (view.requests.length === 0) {
    body.push(section(`Nenhuma solicitação vinculada à compra ${view.purchaseId}.`));
  } else {
    body.push(...requestRows(current.rows));
    const capped =
      view.requests.length >= PURCHASE_REQUESTS_CAP ? ' · O sistema mostra no máximo 50 por compra.' : '';
    body.push(context(`${pageLine(current.page, current.totalPages, count)}${capped}`));
  }
  return answerMessage({
    text: `${title}: ${count}`,
    body,
    route,
    freshness: answer.freshness,
    ctx,
    buttons: pagingButtons(route, current.page, current.totalPages),
  });
}

export function renderReceiptList(answer: Answer<ReceiptListView>, ctx: RenderContext): Message {
  const { filters, list } = answer.data;
  const described = describeReceiptFilters(filters);
  const intro: KnownBlock[] = described ? [context(`Filtros: ${described}`)] : [];
  if (filters.from || filters.to) {
    intro.push(
      section(':information_source: As datas filtram pela data da *compra*, não pela data da entrada.'),
    );
  }
  return pagedListMessage({
    title: 'Entradas de material',
    intro,
    list,
    row: (receipt) => receiptSection(receipt, ctx),
    noun: ['entrada', 'entradas'],
    empty: 'Nenhuma entrada encontrada.',
    route: { view: 'receipts', filters: filters, page: list.page },
    freshness: answer.freshness,
    ctx,
  });
}

/** Stockrooms whose pending purchases could not be read now are said to be missing, never silently left out. */
export function unreadStockroomsNote(unread: number): string | null {
  if (unread <= 0) return null;
  return (
    `:warning: ${plural(unread, 'almoxarifado não pôde ser consultado', 'almoxarifados não puderam ser consultados')} ` +
    'agora (limite de consultas ou falha do sistema de estoque); as compras deles não estão aqui. Tente de novo mais tarde.'
  );
}
