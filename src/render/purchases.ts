import type { KnownBlock, SectionBlock } from '@slack/types';
import type { Route } from '../domain/routes.js';
import type {
  Answer,
  PendingPurchasesView,
  PurchaseListView,
  PurchaseRequestsView,
  ReceiptListView,
  UnreadStockroom,
} from '../domain/views.js';
import type { GoodsReceipt, PurchaseOrder, Stockroom } from '../upstream/schemas.js';
import { answerMessage, localPage, pagedListMessage, pageLine, pagingButtons } from './answer.js';
import { context, header, routeButton, section } from './blocks.js';
import { describePurchaseFilters, describeReceiptFilters } from './filters.js';
import { formatNumber, plural, safeText, visibleText } from './format.js';
import { recordId, recordLines, recordSection } from './labels.js';
import { noActiveStockroomsText, stockroomNotActiveText } from './link.js';
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
  return visibleText(stockroom.nome)
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
  if (view.noActiveStockrooms) {
    // No stockroom was asked: the company linked shows none (until 2026-11-27 "Nenhuma compra com saldo a receber.").
    body.push(section(noActiveStockroomsText(view.noActiveStockrooms)));
    return answerMessage({
      text: `${title}: a empresa vinculada não mostra nenhum almoxarifado ativo`,
      body,
      route,
      freshness: answer.freshness,
      ctx,
      buttons: [],
    });
  }
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
  for (const note of unreadStockroomsNotes(view.unread ?? [])) body.push(context(note));
  // Read all the same (an inactive stockroom may still await goods), and said: until 2026-11-27 an unknown number
  // read as a stockroom with nothing pending.
  if (view.stockroomNotActive && view.stockroomId !== null)
    body.push(context(stockroomNotActiveText(view.stockroomId)));
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
    empty: `Nenhuma compra encontrada. ${grouped}${notActive(answer.data, filters.stockroomId)}`,
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
    empty: `Nenhuma entrada encontrada.${notActive(answer.data, filters.stockroomId)}`,
    route: { view: 'receipts', filters: filters, page: list.page },
    freshness: answer.freshness,
    ctx,
  });
}

/** " O almoxarifado 99 não está entre os ativos…" after an empty list's text, when that is why it may be empty. */
function notActive(view: { stockroomNotActive?: true }, stockroomId: number | undefined): string {
  return view.stockroomNotActive && stockroomId !== undefined
    ? ` ${stockroomNotActiveText(stockroomId)}`
    : '';
}

/** At most this many stockrooms are named in a note; the rest are counted. */
const NAMED_STOCKROOMS = 5;

/** "Torre Norte (2)" (a leading "Almoxarifado" left to the sentence, which says it), or "2" without a name. */
function stockroomRef(stockroom: Pick<Stockroom, 'almoxarifado' | 'nome'>): string {
  const name = visibleText(stockroom.nome).replace(/^almoxarifado\s+(?=\S)/i, '');
  return name ? `${safeText(name, 100)} (${stockroom.almoxarifado})` : String(stockroom.almoxarifado);
}

/** "A", "A e B", "A, B e C", "A, B, C, D, E e mais 2". */
function stockroomRefs(unread: readonly UnreadStockroom[]): string {
  const refs = unread.slice(0, NAMED_STOCKROOMS).map((entry) => stockroomRef(entry.stockroom));
  const more = unread.length - refs.length;
  if (more > 0) return `${refs.join(', ')} e mais ${formatNumber(more)}`;
  return refs.length <= 1 ? (refs[0] ?? '') : `${refs.slice(0, -1).join(', ')} e ${refs.at(-1)}`;
}

/**
 * Stockrooms whose pending purchases could not be read are said to be missing, never silently left out: each
 * named, grouped by why, since what to do differs. A 403 is no permission, which no wait mends; other refusals no
 * retry mends either; the budget or an upstream failure is "try again later". Until 2026-11-27 one count, every
 * cause "limite de consultas ou falha… Tente de novo mais tarde", no stockroom named.
 */
export function unreadStockroomsNotes(unread: readonly UnreadStockroom[]): string[] {
  const of = (reason: UnreadStockroom['reason']) => unread.filter((entry) => entry.reason === reason);
  const notes: string[] = [];
  const forbidden = of('forbidden');
  if (forbidden.length > 0) {
    const one = forbidden.length === 1;
    notes.push(
      `:no_entry: Sem permissão para ${one ? 'o almoxarifado' : 'os almoxarifados'} ${stockroomRefs(forbidden)}: ` +
        `o login vinculado não pode consultá-${one ? 'lo' : 'los'} no sistema de estoque, e as compras ` +
        `${one ? 'dele' : 'deles'} não estão aqui. Quem administra o sistema de estoque pode liberar o acesso.`,
    );
  }
  const refused = of('refused');
  if (refused.length > 0) {
    const one = refused.length === 1;
    notes.push(
      `:warning: O sistema de estoque recusou a consulta ${one ? 'do almoxarifado' : 'dos almoxarifados'} ` +
        `${stockroomRefs(refused)}; as compras ${one ? 'dele' : 'deles'} não estão aqui.`,
    );
  }
  const later = of('later');
  if (later.length > 0) {
    notes.push(
      `:warning: ${plural(later.length, 'almoxarifado não pôde ser consultado', 'almoxarifados não puderam ser consultados')} ` +
        `agora (limite de consultas ou falha do sistema de estoque): ${stockroomRefs(later)}. ` +
        `As compras ${later.length === 1 ? 'dele' : 'deles'} não estão aqui. Tente de novo mais tarde.`,
    );
  }
  return notes;
}
