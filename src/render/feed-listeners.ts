import type { ChannelFeed, FeedEventKind, Follow } from '../domain/feed/types.js';
import type { Route } from '../domain/routes.js';
import { answerMessage, localPage, pageLine, pagingButtons } from './answer.js';
import { actions, context, finalizeMessage, header, routeButton, section } from './blocks.js';
import { confirmationWithNotes, type ListenerNotes, pausedNote, renderChannelList } from './channel-list.js';
import { followButton, unfollowButton } from './follow-buttons.js';
import { escapeMrkdwn, formatDateTime, formatNumber, mentionChannel, mentionUser, plural } from './format.js';
import { statusText } from './requests.js';
import type { Message, RenderContext } from './types.js';

/** The answers of `/estoque alertas …` and of following requests (`Acompanhar`, `/solicitacao … acompanhar`). */

const SUBSCRIBE_USAGE = '`/estoque alertas assinar [almox:ID] [eventos:novas,status,recebimentos]`';
/** Rows of one page of `/solicitacao acompanhando`: as many as a page of the request list. */
export const FOLLOWING_PAGE_SIZE = 10;

const KIND_TEXT: Record<FeedEventKind, string> = {
  novas: 'novas solicitações',
  status: 'mudanças de status',
  recebimentos: 'recebimentos de compras',
};

/** "novas solicitações e mudanças de status · almoxarifado 2" */
export function describeChannelFeed(feed: Pick<ChannelFeed, 'kinds' | 'stockroomId'>): string {
  const kinds = feed.kinds.map((kind) => KIND_TEXT[kind]);
  const what = kinds.length === 3 ? 'todas as mudanças' : kinds.join(' e ');
  const where = feed.stockroomId === null ? 'todos os almoxarifados' : `almoxarifado ${feed.stockroomId}`;
  return `${what} · ${where}`;
}

/** Posted in the channel when it subscribes: everyone there sees it, and it proves the bot can post there. */
export function renderFeedSubscribed(
  feed: Pick<ChannelFeed, 'kinds' | 'stockroomId' | 'subscribedBy'>,
  options: { updated?: boolean } & ListenerNotes = {},
): Message {
  const verb = options.updated ? 'atualizou' : 'assinou';
  const text =
    `:bell: ${mentionUser(feed.subscribedBy)} ${verb} os alertas do estoque neste canal: ` +
    `${describeChannelFeed(feed)}. Para parar: \`/estoque alertas cancelar\`.`;
  return confirmationWithNotes(text, 'alerts', options);
}

export function renderFeedUnsubscribed(): Message {
  const text = 'Alertas do estoque cancelados neste canal.';
  return finalizeMessage({ text, blocks: [section(text)] });
}

export function renderFeedNotSubscribed(): Message {
  const text = `Este canal não recebe alertas do estoque. Para assinar: ${SUBSCRIBE_USAGE}.`;
  return finalizeMessage({ text, blocks: [section(text)] });
}

/** `/estoque alertas listar`: every channel feed of the workspace. */
export function renderFeedList(feeds: ChannelFeed[], ctx: RenderContext): Message {
  if (feeds.length === 0) {
    const text = `Nenhum canal deste workspace recebe alertas do estoque. Para assinar, use ${SUBSCRIBE_USAGE} no canal.`;
    return finalizeMessage({ text, blocks: [section(text)] });
  }
  const entries = feeds.map(
    (feed) =>
      `${mentionChannel(feed.channelId)} · ${describeChannelFeed(feed)}\n` +
      `Assinado por ${mentionUser(feed.subscribedBy)} em ${formatDateTime(feed.createdAt, ctx.timeZone)}${pausedNote(feed.paused)}`,
  );
  return renderChannelList('Alertas do estoque assinados', entries, '/estoque alertas cancelar');
}

export function renderFollowing(follow: Follow, options: { already: boolean }): Message {
  const status = follow.lastSeenStatus ? ` (status agora: ${statusText(follow.lastSeenStatus, null)})` : '';
  const lead = options.already ? 'Você já acompanha' : ':eyes: Você passou a acompanhar';
  const text =
    `${lead} a solicitação ${follow.requestId}${status}. ` +
    'Vou mandar uma mensagem direta a cada mudança dela e quando uma compra ligada a ela for recebida.';
  const buttons = actions([unfollowButton(follow.requestId)]);
  return finalizeMessage({ text, blocks: [section(text), ...(buttons ? [buttons] : [])] });
}

export function renderUnfollowed(requestId: number, options: { wasFollowing: boolean }): Message {
  const text = options.wasFollowing
    ? `Você deixou de acompanhar a solicitação ${requestId}.`
    : `Você não acompanhava a solicitação ${requestId}.`;
  const buttons = actions([followButton(requestId)]);
  return finalizeMessage({ text, blocks: [section(text), ...(buttons ? [buttons] : [])] });
}

/**
 * `/solicitacao acompanhando [pagina:N]`: the requests the reader follows, oldest first, with the status last seen,
 * FOLLOWING_PAGE_SIZE a page; each row opens the request (whose detail has `Deixar de acompanhar`). No `Compartilhar no
 * canal`: the list is one person's (routes.ts, isShareable).
 */
export function renderFollowList(
  follows: Follow[],
  own: { email: string } | null,
  ctx: RenderContext,
  page = 1,
): Message {
  const ownLine = own
    ? `Você também acompanha as suas próprias solicitações (pelo e-mail ${escapeMrkdwn(own.email)}). Para parar: \`/solicitacao minhas parar\`.`
    : null;
  if (follows.length === 0) {
    const text =
      'Você não acompanha nenhuma solicitação. Use o botão *Acompanhar* numa solicitação ou ' +
      '`/solicitacao <número> acompanhar`.';
    return finalizeMessage({
      text,
      blocks: [section(text), ...(ownLine ? [context(ownLine)] : [])],
    });
  }
  const current = localPage(follows, page, FOLLOWING_PAGE_SIZE);
  const route: Route = { view: 'following', page: current.page };
  const rows = current.rows.map((follow) => {
    const status =
      follow.lastSeenStatus === null ? 'status ainda não visto' : statusText(follow.lastSeenStatus, null);
    // The follow keeps when it began, not when its status changed: said as the follow's time (until 2026-11-27
    // "Em separação · desde 13:28" read as the status's).
    return section(
      `*${follow.requestId}* — ${status} · acompanhando desde ${formatDateTime(follow.createdAt, ctx.timeZone)}`,
      routeButton('Ver', { view: 'request', id: follow.requestId, page: 1 }),
    );
  });
  const count = plural(follows.length, 'solicitação', 'solicitações');
  const notes = [
    pageLine(current.page, current.totalPages, count),
    'Para parar: `/solicitacao <número> parar`, ou *Deixar de acompanhar* no detalhe (*Ver*).',
    ownLine,
  ].filter((note): note is string => note !== null);
  return answerMessage({
    text: `Você acompanha ${count}${current.totalPages > 1 ? ` (página ${formatNumber(current.page)})` : ''}`,
    body: [header('Solicitações que você acompanha'), ...rows, context(...notes)],
    route,
    freshness: null,
    ctx,
    buttons: pagingButtons(route, current.page, current.totalPages),
  });
}

export function renderOwnFollowing(email: string, options: { already: boolean }): Message {
  const lead = options.already ? 'Você já acompanha' : ':eyes: Você passou a acompanhar';
  const text =
    `${lead} as suas solicitações (solicitante com o e-mail ${escapeMrkdwn(email)}), inclusive as novas. ` +
    'Vou mandar uma mensagem direta a cada mudança. Para parar: `/solicitacao minhas parar`.';
  return finalizeMessage({ text, blocks: [section(text)] });
}

export function renderOwnUnfollowed(options: { wasFollowing: boolean }): Message {
  const text = options.wasFollowing
    ? 'Você deixou de acompanhar as suas solicitações.'
    : 'Você não acompanhava as suas solicitações.';
  return finalizeMessage({ text, blocks: [section(text)] });
}
