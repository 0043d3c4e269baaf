import type { KnownBlock, SectionBlock } from '@slack/types';
import type { DigestView, PendingRow, StatusCount } from '../domain/digest/digest-view.js';
import { isEmptyDigest } from '../domain/digest/digest-view.js';
import type { ChannelGoneError } from '../domain/digest/publisher.js';
import type { Route } from '../domain/routes.js';
import type { Subscription } from '../store/subscription-store.js';
import { cacheLine, degradedWarning } from './answer.js';
import { actions, context, finalizeMessage, header, routeButton, section } from './blocks.js';
import { confirmationWithNotes, type ListenerNotes, pausedNote, renderChannelList } from './channel-list.js';
import {
  escapeMrkdwnEntities,
  formatAt,
  formatDate,
  formatDateTime,
  formatLocalDate,
  formatNumber,
  mentionChannel,
  mentionUser,
  plural,
  safeText,
  visibleText,
} from './format.js';
import { recordLines, shortValue } from './labels.js';
import { noActiveStockroomsText } from './link.js';
import { stockBounds } from './materials.js';
import { unreadStockroomsNotes } from './purchases.js';
import { requestRow } from './request-list.js';
import { statusText } from './requests.js';
import type { Message, RenderContext } from './types.js';

/** The daily digest and the `/estoque resumo` answers. */

/**
 * A digest posted this much after its time says it is late. The scheduler ticks every 30 s (DigestScheduler.start),
 * so a post up to half a minute after its time, plus its build, is the schedule and says nothing; from a minute on
 * (a replica that started after the hour, a build that waited for the budget) the post says how late it is. Until
 * 2026-11-27 this was 5 minutes, and a digest 1 to 4 minutes late said nothing.
 */
export const LATE_NOTE_AFTER_MS = 60_000;
const SUBSCRIBE_USAGE = '`/estoque resumo assinar [HH:MM] [almox:ID] [dias:uteis]`';
const CANCEL_HINT = 'Para parar: `/estoque resumo cancelar`.';

export interface DigestRenderOptions {
  /** How late the post is against its scheduled time; a note shows from LATE_NOTE_AFTER_MS on. */
  delayMs?: number;
  /** An earlier post of this digest, attempted then, may have reached Slack: this one says it may repeat it. */
  mayRepeatSince?: number | null;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** "25 min", "2 h", "2 h 5 min". */
export function formatDelay(ms: number): string {
  const minutes = Math.max(1, Math.round(ms / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`;
}

function delayNote(ctx: RenderContext, delayMs: number | undefined): string | null {
  if (delayMs === undefined || delayMs < LATE_NOTE_AFTER_MS) return null;
  const due = formatAt(ctx.now - delayMs, ctx.now, ctx.timeZone);
  return `:hourglass_flowing_sand: Este resumo saiu com atraso de ${formatDelay(delayMs)} (previsto ${due}).`;
}

function stockroomLabel(view: DigestView): string {
  if (view.stockroomId === null) return 'Todos os almoxarifados';
  return view.stockroomName
    ? `${safeText(view.stockroomName, 100)} (${view.stockroomId})`
    : `Almoxarifado ${view.stockroomId}`;
}

function sinceText(view: DigestView, ctx: RenderContext): string {
  return formatDateTime(view.since, ctx.timeZone);
}

function notes(view: DigestView, ctx: RenderContext, options: DigestRenderOptions): string[] {
  const repeat =
    options.mayRepeatSince === undefined || options.mayRepeatSince === null
      ? null
      : `:repeat: Este resumo pode repetir um enviado ${formatAt(options.mayRepeatSince, ctx.now, ctx.timeZone)}: ` +
        'o envio anterior foi interrompido antes de o Slack confirmar.';
  return [delayNote(ctx, options.delayMs), degradedWarning(view.freshness, ctx), repeat].filter(
    (note): note is string => note !== null,
  );
}

/** "E mais 12 solicitações."; "E mais pelo menos 95 …" when the total is a lower bound. */
function moreLine(
  total: number,
  shown: number,
  singular: string,
  pluralForm: string,
  atLeast = false,
): KnownBlock[] {
  const left = total - shown;
  return left > 0
    ? [context(`E mais ${atLeast ? 'pelo menos ' : ''}${plural(left, singular, pluralForm)}.`)]
    : [];
}

function openedBlocks(view: DigestView, ctx: RenderContext): KnownBlock[] {
  const { opened } = view;
  const since = sinceText(view, ctx);
  if (opened.total === 0) return [section(`:inbox_tray: *Novas solicitações:* nenhuma desde ${since}.`)];
  const route: Route = {
    view: 'requests',
    filters: { ...(view.stockroomId !== null && { stockroomId: view.stockroomId }), from: opened.fromDay },
    page: 1,
  };
  const blocks: KnownBlock[] = [
    section(
      `:inbox_tray: *Novas solicitações desde ${since}:* ${opened.atLeast ? 'pelo menos ' : ''}${formatNumber(opened.total)}`,
    ),
    ...opened.rows.map(requestRow),
    ...moreLine(opened.total, opened.rows.length, 'solicitação', 'solicitações', opened.atLeast),
  ];
  const all = actions([routeButton(`Ver desde ${formatLocalDate(opened.fromDay).slice(0, 5)}`, route)]);
  if (all) blocks.push(all);
  return blocks;
}

function statusRow(view: DigestView, entry: StatusCount): SectionBlock {
  const name =
    entry.name === null && entry.status === null ? 'Sem status' : statusText(entry.name, entry.status);
  const text = `*${name}:* ${plural(entry.count, 'solicitação', 'solicitações')}`;
  const route: Route | null =
    entry.status === null || entry.status < 1
      ? null
      : {
          view: 'requests',
          filters: {
            ...(view.stockroomId !== null && { stockroomId: view.stockroomId }),
            status: [entry.status],
            from: view.inProgress.fromDay,
          },
          page: 1,
        };
  return section(text, route ? routeButton('Ver', route) : null);
}

function inProgressBlocks(view: DigestView): KnownBlock[] {
  const { inProgress } = view;
  const lead = ':clipboard: *Em andamento (abertas nos últimos 30 dias):*';
  if (inProgress.total === 0) return [section(`${lead} nenhuma.`)];
  const shown = inProgress.statuses.slice(0, 5);
  const blocks: KnownBlock[] = [
    section(`${lead} ${plural(inProgress.total, 'solicitação', 'solicitações')}`),
    ...shown.map((entry) => statusRow(view, entry)),
  ];
  const others = inProgress.statuses.slice(5).reduce((sum, entry) => sum + entry.count, 0);
  const extra = [
    others > 0 ? `Outros status: ${plural(others, 'solicitação', 'solicitações')}.` : null,
    inProgress.complete ? null : 'Contagem parcial: o período tem mais solicitações do que o resumo lê.',
  ].filter((line): line is string => line !== null);
  if (extra.length > 0) blocks.push(context(extra.join(' ')));
  return blocks;
}

function pendingRow(row: PendingRow, ctx: RenderContext): SectionBlock {
  const id = row.purchase.compraMaterialId;
  const place = visibleText(row.stockroom.nome)
    ? safeText(row.stockroom.nome, 80)
    : `Almoxarifado ${row.stockroom.almoxarifado}`;
  const details = recordLines(row.purchase, ctx.timeZone, [
    'compraMaterialId',
    'almoxarifado',
    'almoxarifadoId',
    'almoxarifado_Nome',
  ])
    .slice(0, 3)
    .map((line) => `${line.label}: ${shortValue(line, 80)}`);
  const text = [`*Compra ${id}* · ${place}`, details.join(' · ')].filter((line) => line !== '').join('\n');
  return section(text, routeButton('Solicitações', { view: 'purchase', id, page: 1 }));
}

function pendingBlocks(view: DigestView, ctx: RenderContext): KnownBlock[] {
  const { pending } = view;
  const lead = ':package: *Compras com saldo a receber:*';
  // No stockroom was read: said, never "nenhuma" (until 2026-11-27 this section read "nenhuma").
  if (pending.noActiveStockrooms)
    return [
      section(`${lead} nenhum almoxarifado ativo a consultar.`),
      context(noActiveStockroomsText(pending.noActiveStockrooms)),
    ];
  const unread = unreadStockroomsNotes(pending.unread ?? []).map((note) => context(note));
  if (pending.total === 0)
    return [
      section(`${lead} nenhuma${unread.length > 0 ? ' nos almoxarifados consultados' : ''}.`),
      ...unread,
    ];
  const where =
    view.stockroomId === null ? ` em ${plural(pending.stockrooms, 'almoxarifado', 'almoxarifados')}` : '';
  const blocks: KnownBlock[] = [
    section(`${lead} ${plural(pending.total, 'compra', 'compras')}${where}`),
    ...pending.rows.map((row) => pendingRow(row, ctx)),
    ...moreLine(pending.total, pending.rows.length, 'compra', 'compras'),
    ...unread,
  ];
  const route: Route = {
    view: 'pending',
    ...(view.stockroomId !== null && { stockroomId: view.stockroomId }),
    page: 1,
  };
  const all = actions([routeButton('Ver todas', route)]);
  if (all) blocks.push(all);
  return blocks;
}

function belowMinimumBlocks(view: DigestView, ctx: RenderContext): KnownBlock[] {
  const { belowMinimum } = view;
  const lead = ':warning: *Materiais abaixo do mínimo:*';
  const read =
    belowMinimum.newRequests > 0
      ? ` Itens lidos de ${formatNumber(belowMinimum.itemListsRead)} de ${plural(belowMinimum.newRequests, 'solicitação nova', 'solicitações novas')}.`
      : '';
  const caveat = `Último saldo conhecido, visto nos itens das solicitações; não é o saldo em tempo real.${read}`;
  if (belowMinimum.total === 0)
    return [section(`${lead} nenhum entre os saldos conhecidos.`), context(caveat)];
  const rows = belowMinimum.rows.map(({ stock, name, stockroomName }) => {
    const title = name ? safeText(name, 150) : `Material ${stock.materialId}`;
    // A digest of every stockroom says whose balance each is (a material may be below in more than one).
    const place =
      view.stockroomId === null && typeof stock.stockroomId === 'number'
        ? `${stockroomName ? `${safeText(stockroomName, 80)} (${stock.stockroomId})` : `Almoxarifado ${stock.stockroomId}`} · visto`
        : 'Visto';
    const text =
      `*${title}* — saldo ${formatNumber(stock.current)}${stockBounds(stock.minimum, stock.maximum)}\n` +
      `${place} na solicitação ${stock.requestId} em ${formatDateTime(stock.seenAt, ctx.timeZone)}`;
    return section(text, routeButton('Ver solicitação', { view: 'request', id: stock.requestId, page: 1 }));
  });
  const materials = belowMinimum.materials ?? belowMinimum.total;
  const count =
    materials === belowMinimum.total
      ? plural(materials, 'material', 'materiais')
      : `${plural(belowMinimum.total, 'saldo', 'saldos')} de ${plural(materials, 'material', 'materiais')}`;
  return [
    section(`${lead} ${count}`),
    ...rows,
    ...(materials === belowMinimum.total
      ? moreLine(belowMinimum.total, rows.length, 'material', 'materiais')
      : moreLine(belowMinimum.total, rows.length, 'saldo', 'saldos')),
    context(caveat),
  ];
}

function summaryText(view: DigestView, ctx: RenderContext): string {
  return (
    `Resumo do estoque de ${formatDate(ctx.now, ctx.timeZone)}: ` +
    `${view.opened.atLeast ? 'pelo menos ' : ''}${plural(view.opened.total, 'solicitação nova', 'solicitações novas')}, ` +
    `${formatNumber(view.inProgress.total)} em andamento, ` +
    (view.pending.noActiveStockrooms
      ? 'compras com saldo a receber não consultadas (nenhum almoxarifado ativo), '
      : `${plural(view.pending.total, 'compra', 'compras')} com saldo a receber, `) +
    `${plural(view.belowMinimum.materials ?? view.belowMinimum.total, 'material', 'materiais')} abaixo do mínimo.`
  );
}

/** The daily digest; when there is nothing to report, the one short line of renderDigestNothing. */
export function renderDigest(
  view: DigestView,
  ctx: RenderContext,
  options: DigestRenderOptions = {},
): Message {
  if (isEmptyDigest(view)) return renderDigestNothing(view, ctx, options);
  const footer = [cacheLine(view.freshness, ctx), CANCEL_HINT].filter(
    (line): line is string => line !== null,
  );
  const blocks: KnownBlock[] = [
    header(`Resumo do estoque · ${formatDate(ctx.now, ctx.timeZone)}`),
    context(`${stockroomLabel(view)} · novidades desde ${sinceText(view, ctx)}`),
    ...notes(view, ctx, options).map((note) => section(note)),
    ...openedBlocks(view, ctx),
    ...inProgressBlocks(view),
    ...pendingBlocks(view, ctx),
    ...belowMinimumBlocks(view, ctx),
    context(...footer),
  ];
  return finalizeMessage({ text: summaryText(view, ctx), blocks });
}

/** Nothing new, nothing open, nothing to receive, nothing short: one line (and the late/cache notes, if any). */
export function renderDigestNothing(
  view: DigestView,
  ctx: RenderContext,
  options: DigestRenderOptions = {},
): Message {
  const where = view.stockroomId === null ? '' : ` · ${stockroomLabel(view)}`;
  const line = `:white_check_mark: Resumo do estoque de ${formatDate(ctx.now, ctx.timeZone)}${where}: nada a relatar.`;
  const extra = [...notes(view, ctx, options), cacheLine(view.freshness, ctx)].filter(
    (note): note is string => note !== null,
  );
  const blocks: KnownBlock[] = [section(line)];
  if (extra.length > 0) blocks.push(context(...extra));
  return finalizeMessage({ text: line, blocks });
}

/** "de segunda a sexta às 08:00 (America/Sao_Paulo) · almoxarifado 2" */
export function describeSubscription(sub: Subscription): string {
  const days = sub.weekdaysOnly ? 'de segunda a sexta' : 'todo dia';
  const where = sub.stockroomId === null ? 'todos os almoxarifados' : `almoxarifado ${sub.stockroomId}`;
  // An IANA zone name from the configuration, not outside text: its `_` (Sao_Paulo) sits within a word and stays.
  return `${days} às ${pad(sub.hour)}:${pad(sub.minute)} (${escapeMrkdwnEntities(sub.timeZone)}) · ${where}`;
}

/** Posted in the channel when it subscribes: everyone there sees it, and it proves the bot can post there. */
export function renderSubscribed(
  sub: Subscription,
  options: { updated?: boolean } & ListenerNotes = {},
): Message {
  const verb = options.updated ? 'atualizou' : 'assinou';
  const text =
    `:white_check_mark: ${mentionUser(sub.subscribedBy)} ${verb} o resumo diário do estoque neste canal: ` +
    `${describeSubscription(sub)}. ${CANCEL_HINT}`;
  return confirmationWithNotes(text, 'digest', options);
}

/** `/estoque resumo listar`: every subscription of the workspace. */
export function renderSubscriptionList(subs: Subscription[], ctx: RenderContext): Message {
  if (subs.length === 0) {
    const text = `Nenhum canal deste workspace assina o resumo diário. Para assinar, use ${SUBSCRIBE_USAGE} no canal.`;
    return finalizeMessage({ text, blocks: [section(text)] });
  }
  const entries = subs.map((sub) => {
    const last =
      sub.lastPostedAt === null
        ? 'ainda não enviado'
        : `último envio em ${formatDateTime(sub.lastPostedAt, ctx.timeZone)}`;
    return (
      `${mentionChannel(sub.channelId)} · ${describeSubscription(sub)}\n` +
      `Assinado por ${mentionUser(sub.subscribedBy)} · ${last}${pausedNote(sub.paused)}`
    );
  });
  return renderChannelList('Resumos diários assinados', entries, '/estoque resumo cancelar');
}

export function renderUnsubscribed(): Message {
  const text = 'Resumo diário cancelado neste canal.';
  return finalizeMessage({ text, blocks: [section(text)] });
}

export function renderNotSubscribed(): Message {
  const text = `Este canal não assina o resumo diário. Para assinar: ${SUBSCRIBE_USAGE}.`;
  return finalizeMessage({ text, blocks: [section(text)] });
}

/**
 * A subscription refused because the bot cannot post in the channel: inviting it mends only its absence (the
 * default, what Slack says of a private channel it is not in); an archived or restricted channel stays as it is.
 * `direct`: the command came from a DM or a group DM, where no one can invite the bot (until 2026-11-27 it was told
 * to all the same): it is to be used in a channel.
 */
export function renderInviteBot(
  reason: ChannelGoneError = 'not_in_channel',
  options: { direct?: boolean } = {},
): Message {
  const text = options.direct
    ? 'Não consigo postar nesta conversa: alertas e resumos diários são postados em canais, então use o comando em um canal.'
    : invitingMends(reason)
      ? 'Não consigo postar neste canal. Convide o bot com `/invite @estoque-bot` e tente de novo.'
      : `Não consigo postar neste canal: ${GONE_TEXT[reason]}. Use o comando em outro canal.`;
  return finalizeMessage({ text, blocks: [section(text)] });
}

/** Whether inviting the bot to the channel would let it post there again. */
export function invitingMends(reason: ChannelGoneError): boolean {
  return reason === 'not_in_channel' || reason === 'channel_not_found' || reason === 'no_permission';
}

/** Why the bot cannot post in a channel, as a clause ("o canal foi arquivado"). */
export function channelGoneText(reason: ChannelGoneError): string {
  return GONE_TEXT[reason];
}

/** `/estoque resumo agora`, to the one who asked, once the digest is in the channel. */
export function renderDigestPosted(): Message {
  const text = 'Resumo postado neste canal.';
  return finalizeMessage({ text, blocks: [section(text)] });
}

/**
 * A subscription kept although Slack did not say whether its confirmation reached the channel (a 5xx, a reply lost
 * on the way: the post is not repeated, it may be there): the person who subscribed gets the confirmation, with a
 * note. `confirmation`: the channel's (renderSubscribed, renderFeedSubscribed).
 */
export function renderSubscribedInDoubt(confirmation: Message): Message {
  const note = 'O Slack não confirmou se este aviso apareceu no canal; a assinatura foi feita assim mesmo.';
  return finalizeMessage({
    text: `${confirmation.text}\n${note}`,
    blocks: [...confirmation.blocks, context(note)],
  });
}

/**
 * Slack refused a post for a command because of the app or its token in this workspace (slack/paced-post.ts,
 * UNAUTHORIZED_ERRORS: `missing_scope`, a revoked token...): no post can succeed until an admin reinstalls the app,
 * so the answer says that rather than to try again (until 2026-11-27 it said to try again in a moment).
 */
export function renderAppRefused(error: string): Message {
  const code = /^[a-z_]{1,40}$/.test(error) ? ` (\`${error}\`)` : '';
  const text =
    `Não consigo postar neste canal: o Slack não aceita mais o app neste workspace${code}. ` +
    'Peça a um administrador do Slack que reinstale o app; até lá, resumos e alertas ficam parados.';
  return finalizeMessage({ text, blocks: [section(text)] });
}

/**
 * `/estoque resumo agora`, when Slack refused the digest for what it holds (`invalid_blocks`, `msg_too_long`...): a
 * retry would be refused the same way, so the answer does not offer one. `fallbackPosted`: the short plain notice went
 * to the channel in its place.
 */
export function renderDigestRefused(error: string, fallbackPosted: boolean): Message {
  const code = /^[a-z_]{1,40}$/.test(error) ? ` (\`${error}\`)` : '';
  const where = fallbackPosted
    ? 'Postei no canal um aviso curto no lugar dele.'
    : 'Nem um aviso curto no lugar dele foi aceito.';
  const text =
    `O Slack recusou a mensagem do resumo${code}. ${where} O problema ficou registrado para quem mantém o bot; ` +
    'enquanto isso, veja as solicitações com `/solicitacao` e as compras a receber com `/compras pendentes`.';
  return finalizeMessage({ text, blocks: [section(text)] });
}

/** Slack failed (5xx, network, rate limit) while posting for a command: nothing was done. */
export function renderDigestUnavailable(): Message {
  const text =
    'Não consegui postar neste canal agora: o Slack não aceitou a mensagem. Tente de novo em instantes.';
  return finalizeMessage({ text, blocks: [section(text)] });
}

const GONE_TEXT: Record<ChannelGoneError, string> = {
  not_in_channel: 'o bot não está mais no canal',
  channel_not_found: 'o canal não existe mais ou o bot perdeu o acesso a ele',
  is_archived: 'o canal foi arquivado',
  restricted_action: 'uma configuração do workspace impede',
  restricted_action_read_only_channel: 'o canal só aceita mensagens de quem o administra',
  restricted_action_thread_only_channel: 'o canal só aceita respostas em conversas',
  no_permission: 'o bot não tem permissão no canal',
  ekm_access_denied: 'os administradores suspenderam as mensagens no canal',
  access_denied: 'o Slack negou ao bot o acesso ao canal',
};

/** The DM to who subscribed, when the bot could no longer post in the channel and removed the subscription. */
export function renderSubscriptionRemovedDm(channelId: string, reason: ChannelGoneError): Message {
  const again = !invitingMends(reason)
    ? 'Para receber o resumo em outro canal, use `/estoque resumo assinar` lá.'
    : 'Para assinar de novo, convide o bot com `/invite @estoque-bot` e use `/estoque resumo assinar` no canal.';
  const text =
    `:warning: Cancelei a assinatura do resumo diário do estoque em ${mentionChannel(channelId)}: ` +
    `não consigo mais postar lá (${GONE_TEXT[reason]}). ${again}`;
  return finalizeMessage({ text, blocks: [section(text)] });
}
