import type { Button, KnownBlock } from '@slack/types';
import { isShareable, type Route, withPage } from '../domain/routes.js';
import type { Freshness } from '../domain/views.js';
import type { Page } from '../upstream/client.js';
import { actions, context, finalizeMessage, header, routeButton, section } from './blocks.js';
import { formatAge, formatAt, formatDateTime, formatNumber, mentionUser, plural } from './format.js';
import { ActionIds } from './ids.js';
import { REFRESHING_MARK } from './progress.js';
import type { Message, RenderContext } from './types.js';

/** The frame every answer shares: freshness warnings, the body, the buttons, who shared it. */

export interface AnswerParts {
  /** Notification fallback, already escaped. */
  text: string;
  body: KnownBlock[];
  /** The route of this answer: `Compartilhar no canal` and `Atualizar` carry it. */
  route: Route;
  freshness: Freshness | null;
  ctx: RenderContext;
  /** Buttons of this answer (pages, related views), shown before `Atualizar` and `Compartilhar no canal`. */
  buttons?: (Button | null)[];
  refresh?: boolean;
}

function savedAt(freshness: Freshness, ctx: RenderContext): string {
  return `${formatDateTime(freshness.fetchedAt, ctx.timeZone)} (${formatAge(freshness.fetchedAt, ctx.now)})`;
}

/** A clear warning when upstream could not be asked and saved data is shown instead. */
export function degradedWarning(freshness: Freshness | null, ctx: RenderContext): string | null {
  if (ctx.refreshing && freshness?.fromCache) {
    return `${REFRESHING_MARK} mostrando dados salvos de ${savedAt(freshness, ctx)}; esta mensagem muda quando a consulta terminar.`;
  }
  if (!freshness?.degraded) return null;
  const lead =
    freshness.degraded === 'budget'
      ? 'Limite de consultas ao sistema atingido'
      : 'O sistema de estoque não respondeu';
  const frees =
    freshness.degraded === 'budget' && freshness.retryAt !== undefined && freshness.retryAt > ctx.now
      ? ` Novas consultas ${formatAt(freshness.retryAt, ctx.now, ctx.timeZone)}.`
      : '';
  return `:warning: ${lead}: mostrando dados salvos de ${savedAt(freshness, ctx)}.${frees}`;
}

/** "Dados de 22/11/2026 10:31 (cache, há 5 min)" for cached answers; nothing for fresh ones. */
export function cacheLine(freshness: Freshness | null, ctx: RenderContext): string | null {
  if (!freshness?.fromCache || freshness.degraded || ctx.refreshing) return null;
  return `Dados de ${formatDateTime(freshness.fetchedAt, ctx.timeZone)} (cache, ${formatAge(freshness.fetchedAt, ctx.now)})`;
}

export function sharedLine(ctx: RenderContext): string | null {
  return ctx.shared ? `Compartilhado por ${mentionUser(ctx.shared.byUserId)}` : null;
}

/** `Compartilhar no canal`, except on a shared answer and on one person's own answer (isShareable). */
export function shareButton(route: Route, ctx: RenderContext): Button | null {
  if (ctx.shared || !isShareable(route)) return null;
  return routeButton('Compartilhar no canal', route, ActionIds.sharePrefix);
}

export function answerMessage(parts: AnswerParts): Message {
  const { ctx, route, freshness } = parts;
  const blocks: KnownBlock[] = [];
  const warning = degradedWarning(freshness, ctx);
  if (warning) blocks.push(section(warning));
  blocks.push(...parts.body);
  const buttons = actions([
    ...(parts.buttons ?? []),
    parts.refresh ? routeButton('Atualizar', route, ActionIds.refreshPrefix) : null,
    shareButton(route, ctx),
  ]);
  if (buttons) blocks.push(buttons);
  const footer = [cacheLine(freshness, ctx), sharedLine(ctx)].filter((line): line is string => line !== null);
  if (footer.length > 0) blocks.push(context(...footer));
  return finalizeMessage({ text: parts.text, blocks });
}

/** Rows of one message at most; a longer upstream page says how many were left out. */
export const MAX_LIST_ROWS = 25;

export interface PagedListParts<T> {
  title: string;
  /** Blocks under the header (filters, notes). */
  intro: KnownBlock[];
  list: Page<T>;
  /** One row: a block, or a few (a row and its buttons). */
  row: (item: T) => KnownBlock | KnownBlock[];
  /** Singular and plural of what the list holds: `['compra', 'compras']`. */
  noun: readonly [string, string];
  /** The line shown when the first page is empty. */
  empty: string;
  route: Route;
  freshness: Freshness | null;
  ctx: RenderContext;
}

/** One page of an upstream-paged list: header, intro, rows, "Página 2 de 7 · 63 …", Anterior/Próxima. */
export function pagedListMessage<T>(parts: PagedListParts<T>): Message {
  const { list, noun, title } = parts;
  const body: KnownBlock[] = [header(title), ...parts.intro];
  const count = countOf(list, noun[0], noun[1]);
  if (list.rows.length === 0) {
    body.push(section(list.page > 1 ? `Nenhuma ${noun[0]} nesta página.` : parts.empty));
  } else {
    body.push(...cappedRows(list.rows, parts.row, noun));
    body.push(context(pageLine(list.page, list.totalPages, count, list.totalUnknown)));
  }
  return answerMessage({
    text:
      list.rows.length === 0 ? `${title}: nenhuma` : `${title}: ${count} (página ${formatNumber(list.page)})`,
    body,
    route: parts.route,
    freshness: parts.freshness,
    ctx: parts.ctx,
    buttons: pagingButtons(parts.route, list.page, list.totalPages),
  });
}

/** The rows that fit, plus a context line counting those left out. */
export function cappedRows<T>(
  items: readonly T[],
  row: (item: T) => KnownBlock | KnownBlock[],
  noun: readonly [string, string],
): KnownBlock[] {
  const blocks = items.slice(0, MAX_LIST_ROWS).flatMap(row);
  const left = items.length - MAX_LIST_ROWS;
  if (left > 0)
    blocks.push(context(`E mais ${plural(left, noun[0], noun[1])} que não cabem nesta mensagem.`));
  return blocks;
}

/** `Anterior` / `Próxima` carrying the same route on the neighbouring pages. */
export function pagingButtons(route: Route, page: number, totalPages: number): (Button | null)[] {
  return [
    page > 1 ? routeButton('Anterior', withPage(route, Math.min(page - 1, totalPages))) : null,
    page < totalPages ? routeButton('Próxima', withPage(route, page + 1)) : null,
  ];
}

/**
 * "Página 2 de 7 · 63 solicitações"; just the count when everything fits on one page; "Página 2 · pelo menos 100
 * solicitações" when the service's total was not believed (Page.totalUnknown): how many pages there are is unknown.
 */
export function pageLine(page: number, totalPages: number, count: string, totalUnknown = false): string {
  if (totalUnknown) return `Página ${formatNumber(page)} · ${count}`;
  return totalPages > 1 ? `Página ${formatNumber(page)} de ${formatNumber(totalPages)} · ${count}` : count;
}

/** "63 solicitações" of an upstream page; "pelo menos 100 solicitações" when its total is a lower bound. */
export function countOf(
  list: Pick<Page<unknown>, 'totalRows' | 'totalUnknown'>,
  singular: string,
  pluralForm: string,
): string {
  const count = plural(list.totalRows, singular, pluralForm);
  return list.totalUnknown ? `pelo menos ${count}` : count;
}

export interface LocalPage<T> {
  rows: T[];
  page: number;
  totalPages: number;
}

/** One page of a list the renderer pages itself; a page past the end shows the last one. */
export function localPage<T>(items: readonly T[], page: number, pageSize: number): LocalPage<T> {
  const totalPages = Math.max(1, Math.ceil(items.length / pageSize));
  const current = Math.min(Math.max(1, Math.floor(page) || 1), totalPages);
  return { rows: items.slice((current - 1) * pageSize, current * pageSize), page: current, totalPages };
}
