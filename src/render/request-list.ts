import type { KnownBlock, SectionBlock } from '@slack/types';
import type { Answer, RequestListView } from '../domain/views.js';
import type { MaterialRequest } from '../upstream/schemas.js';
import { cappedRows, pagedListMessage } from './answer.js';
import { actions, context, routeButton, section } from './blocks.js';
import { describeRequestFilters } from './filters.js';
import { followButton, unfollowButton } from './follow-buttons.js';
import { safeText } from './format.js';
import { statusText } from './requests.js';
import type { Message, RenderContext } from './types.js';

/** `/solicitacao [filtros]` and `/solicitacao minhas`: one upstream page of requests, each with a "Ver" button. */

/** One message holds at most this many rows (a page is normally 10); the rest of an oversized page is counted. */

/** A request as one list row: number, stockroom, requester, status, and "Ver" opening its items. */
export function requestRow(request: MaterialRequest): SectionBlock {
  const id = request.solicitacaoMaterialId;
  const caveat = request.concluidoComRessalvas ? ' (concluída com ressalvas)' : '';
  const text =
    `*${id}* · ${safeText(request.almoxarifado_Nome, 100)}\n` +
    `Solicitante: ${safeText(request.solicitante_Nome, 100)} · Status: ${statusText(request.statusAndamentoSolicitacao_Nome, request.statusAndamentoSolicitacao)}${caveat}`;
  return section(text, routeButton('Ver', { view: 'request', id, page: 1 }));
}

/** Rows that fit, plus a context line counting those left out. */
export function requestRows(requests: readonly MaterialRequest[]): KnownBlock[] {
  return cappedRows(requests, requestRow, ['solicitação', 'solicitações']);
}

function titleOf(view: RequestListView): string {
  const who = view.mine ? 'Suas solicitações' : 'Solicitações';
  return view.defaultPeriod ? `${who} dos últimos 30 dias` : who;
}

/**
 * Rows of a page that still get their own `Acompanhar` button: a row and its buttons take two blocks, and a
 * message holds 50 (an upstream page has 10 rows).
 */
export const FOLLOW_BUTTON_MAX_ROWS = 15;

/** The requests the reader follows: null when unknown (a shared message, seen by many). */
export interface ListFollowState {
  followed?: ReadonlySet<number> | null;
}

function rowWithFollow(ctx: RenderContext, state: ListFollowState) {
  return (request: MaterialRequest): KnownBlock[] => {
    const id = request.solicitacaoMaterialId;
    const following = !ctx.shared && state.followed?.has(id) === true;
    const buttons = actions([following ? unfollowButton(id) : followButton(id)]);
    return buttons ? [requestRow(request), buttons] : [requestRow(request)];
  };
}

export function renderRequestList(
  answer: Answer<RequestListView>,
  ctx: RenderContext,
  follow: ListFollowState = {},
): Message {
  const view = answer.data;
  const filters = describeRequestFilters(view.filters, { includePeriod: !view.defaultPeriod });
  const notes = [
    filters ? `Filtros: ${filters}` : null,
    view.mine?.upstreamUserName
      ? `Solicitante no sistema: ${safeText(view.mine.upstreamUserName, 100)}`
      : null,
  ].filter((note): note is string => note !== null);
  return pagedListMessage({
    title: titleOf(view),
    intro: notes.length > 0 ? [context(notes.join(' · '))] : [],
    list: view.list,
    row: view.list.rows.length <= FOLLOW_BUTTON_MAX_ROWS ? rowWithFollow(ctx, follow) : requestRow,
    noun: ['solicitação', 'solicitações'],
    empty: view.defaultPeriod
      ? 'Nenhuma solicitação nos últimos 30 dias. Para ver mais antigas, use `de:dd/mm/aaaa`.'
      : 'Nenhuma solicitação encontrada.',
    route: {
      view: 'requests',
      filters: view.filters,
      page: view.list.page,
      ...(view.mine && { mine: true }),
    },
    freshness: answer.freshness,
    ctx,
  });
}
