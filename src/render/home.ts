import type { Button, KnownBlock, HomeView as SlackHomeView } from '@slack/types';
import type { HomeView, MineSection } from '../domain/home/home-view.js';
import type { FeedEventKind, FeedPauseReason } from '../store/feed-listeners.js';
import type { Subscription } from '../store/subscription-store.js';
import { actions, button, context, finalizeMessage, header, section } from './blocks.js';
import { describeSubscription } from './digest.js';
import { describeFailure } from './failures.js';
import { escapeMrkdwn, formatAge, formatDateTime, mentionUser, plural, safeText } from './format.js';
import { ActionIds } from './ids.js';
import { Limits } from './limits.js';
import { statusText } from './requests.js';
import { brokenLinkText, budgetText, feedText } from './status.js';
import type { RenderContext } from './types.js';

/** Digest subscriptions listed on the Home; a workspace with more gets "e mais N" (the Home holds 100 blocks). */
export const HOME_MAX_DIGESTS = 20;
/** Open requests listed on the Home (one upstream page is 10). */
export const HOME_MAX_REQUESTS = 10;
/** Followed requests and channel alerts listed on the Home; more get "e mais N". */
export const HOME_MAX_FOLLOWS = 15;
export const HOME_MAX_ALERTS = 15;

const KIND_NAMES: Record<FeedEventKind, string> = {
  novas: 'novas',
  status: 'mudanças de status',
  recebimentos: 'recebimentos',
};
const FEED_PAUSE_TEXT: Record<FeedPauseReason | 'unknown', string> = {
  unknown: 'talvez pausados (não consegui verificar agora)',
  unlinked: 'pausados enquanto o workspace estiver desvinculado',
  tokens_revoked:
    'pausados: o Slack não aceita mais o app neste workspace; um administrador precisa reinstalá-lo',
};

const divider: KnownBlock = { type: 'divider' };

/** A section whose store read failed (HomeView's null): said so, the rest of the Home shown. */
function unreadable(what: string): KnownBlock[] {
  return [section(`:warning: Não consegui ler ${what} agora. Abra a aba de novo daqui a pouco.`)];
}

export interface HomeRenderOptions {
  /** The upstream budget's figures, for "Limite de N consultas por hora atingido" as the commands say it. */
  budget?: { limit: number; windowMs: number } | undefined;
}

/** The App Home tab of one user (views.publish). Never more than Slack's 100 blocks. */
export function renderHome(
  view: HomeView,
  ctx: RenderContext,
  options: HomeRenderOptions = {},
): SlackHomeView {
  const blocks: KnownBlock[] = [
    header('Estoque no Slack'),
    ...linkBlocks(view, ctx),
    divider,
    header('Minhas solicitações'),
    ...mineBlocks(view.mine, ctx, options),
    divider,
    header('Acompanhando'),
    ...followBlocks(view),
    divider,
    header('Alertas nos canais'),
    ...alertBlocks(view),
    divider,
    header('Resumos diários'),
    ...(view.digests === null ? unreadable('os resumos diários') : digestBlocks(view.digests)),
    divider,
  ];
  const shortcuts = actions([
    button({ text: 'Buscar material', actionId: ActionIds.homeSearch, style: 'primary' }),
    button({ text: 'Consultar solicitação', actionId: ActionIds.homeLookup }),
    button({ text: 'Ajuda', actionId: ActionIds.homeHelp }),
  ]);
  if (shortcuts) blocks.push(shortcuts);
  blocks.push(
    context(
      'Atalhos também no menu *…* de uma mensagem (*Abrir solicitação*) e no botão de atalhos (*Buscar material*).',
    ),
  );
  const fitted = finalizeMessage({ text: 'Estoque no Slack', blocks }, Limits.modalBlocks);
  return { type: 'home', blocks: fitted.blocks };
}

function linkBlocks(view: HomeView, ctx: RenderContext): KnownBlock[] {
  const { status } = view;
  if (status === null) return unreadable('o vínculo deste workspace');
  const linkButton = button({
    text: status.linked ? 'Vincular de novo' : 'Vincular',
    actionId: ActionIds.openLinkModal,
    ...(!status.linked && { style: 'primary' as const }),
  });
  if (!status.linked) {
    const how = view.isAdmin
      ? 'Vincule com o botão abaixo (ou `/estoque vincular`): login, senha e empresa de um usuário do sistema.'
      : 'Um administrador do workspace vincula com `/estoque vincular`; até lá os comandos não trazem dados.';
    const blocks: KnownBlock[] = [
      section(`*Este workspace não está vinculado ao sistema de estoque.* ${how}`),
    ];
    const admin = view.isAdmin ? actions([linkButton]) : null;
    if (admin) blocks.push(admin);
    return blocks;
  }
  const by = status.linkedBy ? mentionUser(status.linkedBy) : 'alguém';
  const when = status.linkedAt === null ? '' : ` em ${formatDateTime(status.linkedAt, ctx.timeZone)}`;
  const unit = status.unidadeId === null ? '' : `, unidade ${status.unidadeId}`;
  const blocks: KnownBlock[] = [
    section(`*Vinculado* à empresa ${status.empresaId ?? '—'}${unit} por ${by}${when}.`),
  ];
  if (status.broken) {
    blocks.push(
      section(
        brokenLinkText(
          status.checks,
          ctx,
          view.isAdmin
            ? {
                ifNeeded: 'Se a senha mudou ou o login perdeu o acesso, vincule de novo com o botão abaixo.',
                now: 'Vincule de novo com o botão abaixo.',
              }
            : {
                ifNeeded: 'Se não voltar, um administrador precisa vincular de novo.',
                now: 'Um administrador precisa vincular de novo.',
              },
        ),
      ),
    );
  }
  if (view.isAdmin) {
    if (status.budget) blocks.push(context(`Consultas ao sistema: ${budgetText(status.budget)}.`));
    if (status.feed) blocks.push(context(`Alertas: ${feedText(status.feed)}.`));
    const admin = actions([
      linkButton,
      button({
        text: 'Desvincular',
        actionId: ActionIds.homeUnlink,
        style: 'danger',
        confirm: {
          title: { type: 'plain_text', text: 'Desvincular o workspace?' },
          text: {
            type: 'plain_text',
            text: 'Os comandos param de trazer dados e os resumos ficam pausados até um novo vínculo.',
          },
          confirm: { type: 'plain_text', text: 'Desvincular' },
          deny: { type: 'plain_text', text: 'Cancelar' },
          style: 'danger',
        },
      }),
    ]);
    if (admin) blocks.push(admin);
  }
  return blocks;
}

function refreshButton(): Button {
  return button({ text: 'Atualizar', actionId: ActionIds.homeRefresh });
}

function mineBlocks(mine: MineSection, ctx: RenderContext, options: HomeRenderOptions): KnownBlock[] {
  switch (mine.state) {
    case 'not_linked':
      return [section('Aparecem aqui quando o workspace estiver vinculado.')];
    case 'broken':
      return [section('Indisponível enquanto o vínculo não for refeito.')];
    case 'unknown':
      return [
        section(
          'Ainda não sei qual usuário do sistema é você (pelo seu e-mail do Slack). Toque em *Atualizar* para buscar.',
          refreshButton(),
        ),
      ];
    case 'no_match':
      return [
        section(
          mine.email
            ? `Nenhum usuário ativo do sistema tem o e-mail ${escapeMrkdwn(mine.email)}, o seu no Slack.`
            : 'Nenhum usuário ativo do sistema tem o seu e-mail do Slack.',
          refreshButton(),
        ),
      ];
    case 'not_cached':
      return [
        section(
          'Suas solicitações ainda não foram lidas. Toque em *Atualizar* (ou use `/solicitacao minhas`).',
          refreshButton(),
        ),
      ];
    case 'unavailable':
      return unavailableBlocks(mine, ctx, options);
    case 'list':
      return listBlocks(mine, ctx);
  }
}

/**
 * Why `Atualizar` could not read, as `/solicitacao minhas` says it (render/failures.ts): when the budget frees, a
 * 5xx's code for support, the reference. Until 2026-11-27 always "Não foi possível ler suas solicitações agora".
 * Its own `Tentar de novo` (an answer's route) is left out: `Atualizar` beside the text is the Home's.
 */
function unavailableBlocks(
  mine: Extract<MineSection, { state: 'unavailable' }>,
  ctx: RenderContext,
  options: HomeRenderOptions,
): KnownBlock[] {
  const { message } = describeFailure(mine.error, {
    route: null,
    correlationId: mine.correlationId,
    render: ctx,
    budget: options.budget,
  });
  const blocks = message.blocks.filter((block) => block.type !== 'actions');
  const first = blocks.findIndex((block) => block.type === 'section' && block.accessory === undefined);
  const lead = blocks[first];
  if (lead?.type !== 'section') return [section(message.text, refreshButton()), ...blocks];
  blocks[first] = { ...lead, accessory: refreshButton() };
  return blocks;
}

function listBlocks(mine: Extract<MineSection, { state: 'list' }>, ctx: RenderContext): KnownBlock[] {
  const who = mine.upstreamUserName ? ` (${safeText(mine.upstreamUserName, 80)})` : '';
  // Where the open ones were looked for: the whole list, or (more than one block of it) the rows read.
  const among = mine.allRead
    ? 'nos últimos 30 dias'
    : `entre as ${mine.rowsRead} lidas ${mine.totalRows > mine.rowsRead ? `de ${mine.totalRows} ` : ''}dos últimos 30 dias`;
  const blocks: KnownBlock[] = [];
  if (mine.open.length === 0) {
    blocks.push(section(`Nenhuma solicitação sua${who} em andamento ${among}.`));
  }
  // `open` is newest first (the service sorts it): the ones shown are the newest.
  for (const request of mine.open.slice(0, HOME_MAX_REQUESTS)) {
    const id = request.solicitacaoMaterialId;
    blocks.push(
      section(
        `*${id}* · ${safeText(request.almoxarifado_Nome, 100)}\n` +
          `Status: ${statusText(request.statusAndamentoSolicitacao_Nome, request.statusAndamentoSolicitacao)}`,
        button({ text: 'Abrir', actionId: `${ActionIds.requestOpenPrefix}${id}`, value: String(id) }),
      ),
    );
  }
  const shown = mine.open.length > HOME_MAX_REQUESTS ? ` · aqui as ${HOME_MAX_REQUESTS} mais novas` : '';
  const more = shown || !mine.allRead ? ': `/solicitacao minhas` lista todas' : '';
  blocks.push(
    section(
      `${plural(mine.open.length, 'em andamento', 'em andamento')}${who} ${among}${shown}${more}\n` +
        `_Dados salvos ${formatAge(mine.freshness.fetchedAt, ctx.now)} (${formatDateTime(mine.freshness.fetchedAt, ctx.timeZone)})._`,
      refreshButton(),
    ),
  );
  return blocks;
}

function followBlocks(view: HomeView): KnownBlock[] {
  const { follows, ownFollowEmail, paused } = view.feed;
  if (follows === null) return unreadable('o que você acompanha');
  const blocks: KnownBlock[] = [];
  if (follows.length === 0) {
    blocks.push(
      section(
        'Você não acompanha nenhuma solicitação. Use *Acompanhar* numa solicitação ou `/solicitacao <número> acompanhar`.',
      ),
    );
  }
  for (const follow of follows.slice(0, HOME_MAX_FOLLOWS)) {
    const status =
      follow.lastSeenStatus === null ? 'status ainda não visto' : statusText(follow.lastSeenStatus, null);
    blocks.push(
      section(
        `*${follow.requestId}* · último status visto: ${status}`,
        button({
          text: 'Deixar de acompanhar',
          actionId: `${ActionIds.homeUnfollowPrefix}${follow.requestId}`,
          value: String(follow.requestId),
        }),
      ),
    );
  }
  const notes = [
    follows.length > HOME_MAX_FOLLOWS
      ? `e mais ${plural(follows.length - HOME_MAX_FOLLOWS, 'solicitação', 'solicitações')}: \`/solicitacao acompanhando\``
      : null,
    ownFollowEmail
      ? `Você também acompanha as suas próprias solicitações (${escapeMrkdwn(ownFollowEmail)}); para parar: \`/solicitacao minhas parar\`.`
      : null,
    paused ? `:double_vertical_bar: Avisos ${FEED_PAUSE_TEXT[paused]}.` : null,
  ].filter((note): note is string => note !== null);
  if (notes.length > 0) blocks.push(context(...notes));
  return blocks;
}

function alertBlocks(view: HomeView): KnownBlock[] {
  const { alerts, paused } = view.feed;
  if (alerts === null) return unreadable('os alertas dos canais');
  if (alerts.length === 0) {
    return [section('Nenhum canal recebe alertas. Em um canal: `/estoque alertas assinar`.')];
  }
  const blocks: KnownBlock[] = alerts.slice(0, HOME_MAX_ALERTS).map((feed) => {
    const kinds =
      feed.kinds.length === 3 ? 'todos os eventos' : feed.kinds.map((kind) => KIND_NAMES[kind]).join(', ');
    const where = feed.stockroomId === null ? 'todos os almoxarifados' : `almoxarifado ${feed.stockroomId}`;
    return section(`${channelMention(feed.channelId)} · ${kinds} · ${where}`);
  });
  const notes = [
    alerts.length > HOME_MAX_ALERTS
      ? `e mais ${plural(alerts.length - HOME_MAX_ALERTS, 'canal', 'canais')}: \`/estoque alertas listar\``
      : null,
    paused ? `:double_vertical_bar: Alertas ${FEED_PAUSE_TEXT[paused]}.` : null,
  ].filter((note): note is string => note !== null);
  if (notes.length > 0) blocks.push(context(...notes));
  return blocks;
}

function digestBlocks(digests: Subscription[]): KnownBlock[] {
  if (digests.length === 0) {
    return [section('Nenhum canal assina o resumo diário. Em um canal: `/estoque resumo assinar [HH:MM]`.')];
  }
  const blocks: KnownBlock[] = digests.slice(0, HOME_MAX_DIGESTS).map((sub) => {
    const paused = sub.paused ? ' · :double_vertical_bar: pausado' : '';
    return section(`${channelMention(sub.channelId)} · ${describeSubscription(sub)}${paused}`);
  });
  const left = digests.length - HOME_MAX_DIGESTS;
  if (left > 0) blocks.push(context(`e mais ${plural(left, 'canal', 'canais')}: \`/estoque resumo listar\``));
  return blocks;
}

function channelMention(channelId: string): string {
  return /^[CGD][A-Z0-9]{2,}$/.test(channelId) ? `<#${channelId}>` : escapeMrkdwn(channelId);
}
