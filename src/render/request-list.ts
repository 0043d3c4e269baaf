import type { KnownBlock, SectionBlock } from '@slack/types';
import type { Route } from '../domain/routes.js';
import type { Answer, RequestListView } from '../domain/views.js';
import type { MaterialRequest } from '../upstream/schemas.js';
import { answerMessage, pageLine, pagingButtons } from './answer.js';
import { context, header, routeButton, section } from './blocks.js';
import { describeRequestFilters } from './filters.js';
import { formatNumber, plural, safeText } from './format.js';
import { statusText } from './requests.js';
import type { Message, RenderContext } from './types.js';

/** `/solicitacao [filtros]` and `/solicitacao minhas`: one upstream page of requests, each with a "Ver" button. */

/** One message holds at most this many rows (a page is normally 10); the rest of an oversized page is counted. */
export const MAX_LIST_ROWS = 25;

/** A request as one list row: number, stockroom, requester, status, and "Ver" opening its items. */
export function requestRow(request: MaterialRequest): SectionBlock {
  const id = request.solicitacaoMaterialId;
  const caveat = request.concluidoComRessalvas ? ' (concluída com ressalvas)' : '';
  const text =
    `*${id}* · ${safeText(request.almoxarifado_Nome, 100)}\n` +
    `Solicitante: ${safeText(request.solicitante_Nome, 100)} · Status: ${statusText(request.statusAndamentoSolicitacao_Nome, request.statusAndamentoSolicitacao)}${caveat}`;
  return section(text, routeButton('Ver', { r: 'request', id, p: 1 }));
}

/** Rows that fit, plus a context line counting those left out. */
export function requestRows(requests: readonly MaterialRequest[]): KnownBlock[] {
  const blocks: KnownBlock[] = requests.slice(0, MAX_LIST_ROWS).map(requestRow);
  const left = requests.length - MAX_LIST_ROWS;
  if (left > 0)
    blocks.push(
      context(`E mais ${plural(left, 'solicitação', 'solicitações')} que não cabem nesta mensagem.`),
    );
  return blocks;
}

function titleOf(view: RequestListView): string {
  const who = view.mine ? 'Suas solicitações' : 'Solicitações';
  return view.defaultPeriod ? `${who} dos últimos 30 dias` : who;
}

export function renderRequestList(answer: Answer<RequestListView>, ctx: RenderContext): Message {
  const view = answer.data;
  const { list } = view;
  const route: Route = { r: 'requests', f: view.filters, p: list.page, ...(view.mine && { mine: true }) };
  const title = titleOf(view);
  const filters = describeRequestFilters(view.filters, { includePeriod: !view.defaultPeriod });
  const notes = [
    filters ? `Filtros: ${filters}` : null,
    view.mine?.upstreamUserName
      ? `Solicitante no sistema: ${safeText(view.mine.upstreamUserName, 100)}`
      : null,
  ].filter((note): note is string => note !== null);

  const body: KnownBlock[] = [header(title)];
  if (notes.length > 0) body.push(context(notes.join(' · ')));
  const count = plural(list.totalRows, 'solicitação', 'solicitações');
  if (list.rows.length === 0) {
    const empty =
      list.page > 1
        ? 'Nenhuma solicitação nesta página.'
        : view.defaultPeriod
          ? 'Nenhuma solicitação nos últimos 30 dias. Para ver mais antigas, use `de:dd/mm/aaaa`.'
          : 'Nenhuma solicitação encontrada.';
    body.push(section(empty));
  } else {
    body.push(...requestRows(list.rows));
    body.push(context(pageLine(list.page, list.totalPages, count)));
  }
  return answerMessage({
    text:
      list.rows.length === 0 ? `${title}: nenhuma` : `${title}: ${count} (página ${formatNumber(list.page)})`,
    body,
    route,
    freshness: answer.freshness,
    ctx,
    buttons: pagingButtons(route, list.page, list.totalPages),
  });
}
