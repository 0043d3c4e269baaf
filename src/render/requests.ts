import type { KnownBlock, SectionBlock } from '@slack/types';
import type { Route } from '../domain/routes.js';
import type { Answer, RequestDetailView, RequestHeader, RequestHistoryView } from '../domain/views.js';
import type { HistoryEntry, RequestItem } from '../upstream/schemas.js';
import { answerMessage, countOf, localPage, pageLine, pagingButtons } from './answer.js';
import { context, fieldsSection, header, routeButton, section } from './blocks.js';
import { followButton, unfollowButton } from './follow-buttons.js';
import {
  EMPTY,
  formatDate,
  formatDateTime,
  formatMoney,
  formatNumber,
  plural,
  safeText,
  visibleText,
} from './format.js';
import { BELOW_MINIMUM, isBelowMinimum, stockBounds } from './materials.js';
import type { Message, RenderContext } from './types.js';

/** `/solicitacao <id>` (items) and `/solicitacao <id> historico`. */

export const ITEMS_PAGE_SIZE = 8;
const SECTION_CHARS = 2900;

/**
 * A status name with its number, "Aprovada (2)" (`status:` takes the number, and nothing else shows it), else
 * "status N", else "—".
 */
export function statusText(name: string | null | undefined, status: number | null | undefined): string {
  if (visibleText(name)) return status == null ? safeText(name, 80) : `${safeText(name, 80)} (${status})`;
  return status == null ? EMPTY : `status ${status}`;
}

function headerFields(info: RequestHeader, ctx: RenderContext): string[] {
  const fields = [
    `*Almoxarifado*\n${safeText(info.stockroomName, 150)}`,
    `*Solicitante*\n${safeText(info.requesterName, 150)}`,
    `*Status*\n${statusText(info.statusName, info.status)}`,
    `*Aberta em*\n${formatDateTime(info.openedAt, ctx.timeZone)}`,
  ];
  if (info.lastChangeAt && info.lastChangeAt !== info.openedAt) {
    fields.push(`*Última mudança*\n${formatDateTime(info.lastChangeAt, ctx.timeZone)}`);
  }
  return fields;
}

/** The item's own material name, else the last one the bot saw for that material, else its id. */
function itemName(item: RequestItem, knownNames: ReadonlyMap<number, string>): string {
  const name = visibleText(item.material_Nome) || visibleText(knownNames.get(item.material));
  return name ? safeText(name, 200) : `Material ${item.material}`;
}

function itemBlock(
  item: RequestItem,
  knownNames: ReadonlyMap<number, string>,
  ctx: RenderContext,
): SectionBlock {
  const name = itemName(item, knownNames);
  const below = isBelowMinimum(item.estoqueAtual, item.estoqueMinimo) ? ` · ${BELOW_MINIMUM}` : '';
  const purchase =
    item.statusCompraMaterial_Nome?.trim() || item.statusCompra != null
      ? statusText(item.statusCompraMaterial_Nome, item.statusCompra)
      : null;
  const lines = [
    `*${name}*`,
    `Qtd.: ${formatNumber(item.quantidade)} · Entregue: ${formatNumber(item.quantidadeEntregue)}`,
    `Estoque: ${formatNumber(item.estoqueAtual)}${stockBounds(item.estoqueMinimo, item.estoqueMaximo)}${below}`,
    purchase === null ? null : `Compra: ${purchase}`,
    item.valorUnitario === null && item.valorTotal === null
      ? null
      : `Valor: ${formatMoney(item.valorUnitario)} un. · ${formatMoney(item.valorTotal)} total`,
    item.prazoDevolucao ? `Devolver até ${formatDate(item.prazoDevolucao, ctx.timeZone)}` : null,
  ];
  return section(lines.filter((line): line is string => line !== null).join('\n'));
}

function requestButtons(id: number) {
  return {
    items: routeButton('Itens', { view: 'request', id, page: 1 }),
    history: routeButton('Histórico', { view: 'history', id, page: 1 }),
  };
}

/** Whether the reader follows the request: null when unknown (a shared message, seen by many). */
export interface FollowState {
  following?: boolean | null;
}

/** `Deixar de acompanhar` for who follows it; `Acompanhar` otherwise (and on shared messages). */
function followToggle(id: number, ctx: RenderContext, state: FollowState) {
  return state.following === true && !ctx.shared ? unfollowButton(id) : followButton(id);
}

export function renderRequestDetail(
  answer: Answer<RequestDetailView>,
  ctx: RenderContext,
  follow: FollowState = {},
): Message {
  const view = answer.data;
  const current = localPage(view.items, view.page, ITEMS_PAGE_SIZE);
  const route: Route = { view: 'request', id: view.id, page: current.page };
  const body: KnownBlock[] = [header(`Solicitação ${view.id}`)];
  if (view.header) body.push(fieldsSection(headerFields(view.header, ctx)));
  else body.push(context('Almoxarifado, solicitante e status indisponíveis agora; os itens estão abaixo.'));

  const count = plural(view.items.length, 'item', 'itens');
  if (view.items.length === 0) {
    body.push(
      section(
        `A solicitação ${view.id} não tem itens com material cadastrado no almoxarifado dela (só esses aparecem).`,
      ),
    );
  } else {
    body.push(...current.rows.map((item) => itemBlock(item, view.knownNames, ctx)));
    const values = view.items
      .map((item) => item.valorTotal)
      .filter((value): value is number => value !== null);
    const total =
      values.length > 0 ? ` · Total: ${formatMoney(values.reduce((sum, value) => sum + value, 0))}` : '';
    // The API lists only the items whose material is registered in the request's stockroom: the count and the
    // total are of those.
    body.push(
      context(
        `${pageLine(current.page, current.totalPages, count)}${total} · só aparecem itens com material cadastrado no almoxarifado da solicitação`,
      ),
    );
  }
  const status = view.header ? ` · ${statusText(view.header.statusName, view.header.status)}` : '';
  const buttons = requestButtons(view.id);
  return answerMessage({
    text: `Solicitação ${view.id}${status} · ${count}`,
    body,
    route,
    freshness: answer.freshness,
    ctx,
    buttons: [
      ...pagingButtons(route, current.page, current.totalPages),
      buttons.items,
      buttons.history,
      followToggle(view.id, ctx, follow),
    ],
    refresh: true,
  });
}

/**
 * The people a history entry names: who handed the material out and who picked it up. The entry has no field for
 * who made the change, so nobody else is credited with it (its `solicitante_Nome` is the request's requester, whom
 * the request's detail shows).
 */
function whoOf(entry: HistoryEntry): string | null {
  const parts: string[] = [];
  if (visibleText(entry.responsavelSaidaMaterial_Nome))
    parts.push(`saída: ${safeText(entry.responsavelSaidaMaterial_Nome, 80)}`);
  if (visibleText(entry.responsavelRetirada_Nome))
    parts.push(`retirada: ${safeText(entry.responsavelRetirada_Nome, 80)}`);
  return parts.length === 0 ? null : parts.join(' · ');
}

function timeOf(entry: HistoryEntry): number {
  const ms = Date.parse(entry.data);
  return Number.isNaN(ms) ? 0 : ms;
}

/** Lines grouped into sections that stay under the section text limit. */
export function lineSections(lines: readonly string[]): SectionBlock[] {
  const sections: SectionBlock[] = [];
  let current = '';
  for (const line of lines) {
    if (current !== '' && current.length + line.length + 1 > SECTION_CHARS) {
      sections.push(section(current));
      current = '';
    }
    current = current === '' ? line : `${current}\n${line}`;
  }
  if (current !== '') sections.push(section(current));
  return sections;
}

export function renderRequestHistory(
  answer: Answer<RequestHistoryView>,
  ctx: RenderContext,
  follow: FollowState = {},
): Message {
  const { id, history } = answer.data;
  const route: Route = { view: 'history', id, page: history.page };
  // The service sends the history in chronological order; sorting again keeps "oldest first" whatever comes.
  const entries = history.rows
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => timeOf(a.entry) - timeOf(b.entry) || a.index - b.index)
    .map(({ entry }) => entry);
  const body: KnownBlock[] = [header(`Histórico da solicitação ${id}`)];
  if (entries.length === 0) {
    body.push(
      section(
        history.page > 1
          ? 'Nenhum registro nesta página.'
          : `Nenhum registro no histórico da solicitação ${id}.`,
      ),
    );
  } else {
    const lines = entries.map((entry) => {
      const who = whoOf(entry);
      return `• *${formatDateTime(entry.data, ctx.timeZone)}* — ${statusText(entry.statusAndamentoSolicitacao_Nome, entry.status)}${who ? ` — ${who}` : ''}`;
    });
    body.push(...lineSections(lines));
    body.push(
      context(
        pageLine(
          history.page,
          history.totalPages,
          countOf(history, 'registro', 'registros'),
          history.totalUnknown,
        ),
      ),
    );
  }
  return answerMessage({
    text: `Histórico da solicitação ${id}`,
    body,
    route,
    freshness: answer.freshness,
    ctx,
    buttons: [
      ...pagingButtons(route, history.page, history.totalPages),
      requestButtons(id).items,
      followToggle(id, ctx, follow),
    ],
    refresh: true,
  });
}
