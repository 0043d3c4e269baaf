import type { Button, KnownBlock, SectionBlock } from '@slack/types';
import { isChannelGoneError } from '../domain/digest/publisher.js';
import type { FeedEvent, FeedTarget } from '../domain/feed/types.js';
import { context, finalizeMessage, header, routeButton, section } from './blocks.js';
import { channelGoneText, formatDelay, invitingMends } from './digest.js';
import { formatAt, mentionChannel, plural, safeText, truncate, visibleText } from './format.js';
import { statusText } from './requests.js';
import type { Message, RenderContext } from './types.js';

/** One round's message for one listener (PRODUCT.md, "Alerts: the change feed"). */

/** Rows of one feed message; the rest of the round is counted ("e mais N"). */
export const FEED_MAX_ROWS = 10;
/** A post this long after its round's detection says when the changes were detected. */
export const FEED_LATE_AFTER_MS = 5 * 60_000;
const REQUEST_LIST_CHARS = 400;

export interface FeedRenderOptions {
  /**
   * Set when the changes may have happened well before they were detected (the last round that read the list
   * started at `lateSince`: downtime, a spent budget). The message says so.
   */
  lateSince?: number | null;
  /** Some events were in an earlier post, made then, that may have reached Slack: the message may repeat it. */
  mayRepeatSince?: number | null;
}

/** "Nova solicitação 4221 — Almoxarifado Central — Márcia Conceição", escaped. */
export function feedEventLine(event: FeedEvent): string {
  switch (event.kind) {
    case 'novas': {
      const parts = [`Nova solicitação *${event.requestId}*`];
      if (visibleText(event.stockroomName)) parts.push(safeText(event.stockroomName, 100));
      if (visibleText(event.requesterName)) parts.push(safeText(event.requesterName, 100));
      return parts.join(' — ');
    }
    case 'status':
      return `Solicitação *${event.requestId}*: ${statusText(event.fromStatus, null)} → ${statusText(event.toStatus, null)}`;
    case 'recebimentos': {
      const verb = event.complete ? 'recebida' : 'recebida em parte';
      const supplier = visibleText(event.supplierName) ? ` (${safeText(event.supplierName, 100)})` : '';
      const line = `Compra *${event.purchaseId}* ${verb}${supplier}`;
      if (event.requestIds.length === 0) return line;
      const ids = truncate(event.requestIds.join(', '), REQUEST_LIST_CHARS);
      return `${line}\n${event.requestIds.length === 1 ? 'Solicitação' : 'Solicitações'}: ${ids}`;
    }
  }
}

/** The button to the event's detail: the request, or the purchase's linked requests. */
function detailButton(event: FeedEvent): Button | null {
  return event.kind === 'recebimentos'
    ? routeButton('Ver compra', { view: 'purchase', id: event.purchaseId, page: 1 })
    : routeButton('Ver', { view: 'request', id: event.requestId, page: 1 });
}

export function feedEventRow(event: FeedEvent): SectionBlock {
  return section(feedEventLine(event), detailButton(event));
}

/** Plain words for the notification text: no mrkdwn bold. */
function plainLine(event: FeedEvent): string {
  return feedEventLine(event).split('\n')[0]?.replace(/\*/g, '') ?? '';
}

function lateNote(
  events: readonly FeedEvent[],
  ctx: RenderContext,
  options: FeedRenderOptions,
): string | null {
  const detectedAt = Math.min(...events.map((event) => event.detectedAt));
  const since = options.lateSince;
  if (since !== undefined && since !== null && since < detectedAt) {
    return (
      `:hourglass_flowing_sand: Mudanças detectadas ${formatAt(detectedAt, ctx.now, ctx.timeZone)}, ` +
      `com atraso: a verificação anterior foi ${formatAt(since, ctx.now, ctx.timeZone)}; ` +
      'podem ter acontecido em qualquer momento entre as duas.'
    );
  }
  const delay = ctx.now - detectedAt;
  if (delay < FEED_LATE_AFTER_MS) return null;
  return `:hourglass_flowing_sand: Mudanças detectadas ${formatAt(detectedAt, ctx.now, ctx.timeZone)}, avisadas com atraso de ${formatDelay(delay)}.`;
}

function repeatNote(ctx: RenderContext, options: FeedRenderOptions): string | null {
  const since = options.mayRepeatSince;
  if (since === undefined || since === null) return null;
  return (
    `:repeat: Este aviso pode repetir parte de um enviado ${formatAt(since, ctx.now, ctx.timeZone)}: ` +
    'o envio anterior foi interrompido antes de o Slack confirmar.'
  );
}

/**
 * A channel's or a follower's message for one round: a title, at most FEED_MAX_ROWS rows (each with a button to
 * its detail), "e mais N" for the rest, and a note when the changes were detected late. Upstream text is escaped
 * (no mention or link can come from it). Null when there is nothing to say.
 */
export function renderFeedPost(
  target: FeedTarget,
  events: readonly FeedEvent[],
  ctx: RenderContext,
  options: FeedRenderOptions = {},
): Message | null {
  if (events.length === 0) return null;
  const title = target.kind === 'channel' ? 'Novidades do estoque' : 'Novidades do que você acompanha';
  const blocks: KnownBlock[] = [header(title)];
  blocks.push(...events.slice(0, FEED_MAX_ROWS).map(feedEventRow));
  const left = events.length - FEED_MAX_ROWS;
  const notes = [
    left > 0 ? `E mais ${plural(left, 'mudança', 'mudanças')} nesta rodada.` : null,
    lateNote(events, ctx, options),
    repeatNote(ctx, options),
  ].filter((note): note is string => note !== null);
  if (notes.length > 0) blocks.push(context(...notes));
  const first = plainLine(events[0] as FeedEvent);
  const text =
    events.length === 1 ? first : `${plural(events.length, 'mudança', 'mudanças')} no estoque: ${first} …`;
  return finalizeMessage({ text, blocks });
}

/** Request numbers a DM names at most; the rest are counted. */
const FOLLOWS_ENDED_NAMED = 20;

/**
 * The DM to a follower whose follows of request numbers ended because the workspace was linked to another company:
 * the same numbers are other requests there. Own follows (by e-mail) are not among them.
 */
export function renderFollowsEndedDm(requestIds: readonly number[]): Message {
  const sorted = [...requestIds].sort((a, b) => a - b);
  const named = sorted.slice(0, FOLLOWS_ENDED_NAMED).join(', ');
  const left = sorted.length - FOLLOWS_ENDED_NAMED;
  const list = left > 0 ? `${named} e mais ${left}` : named;
  const which = sorted.length === 1 ? `a solicitação ${list}` : `as solicitações ${list}`;
  const text =
    `:information_source: Este espaço de trabalho foi vinculado a outra empresa no sistema de estoque, onde os ` +
    `mesmos números são outras solicitações. Por isso deixei de acompanhar para você ${which}. Para acompanhar ` +
    'uma solicitação da nova empresa, use `/solicitacao <número> acompanhar`.';
  return finalizeMessage({ text, blocks: [section(text)] });
}

/**
 * The DM to who subscribed a channel, when the bot could no longer post there and the feed was removed; `reason`,
 * Slack's refusal when it is one of those (else the usual causes are named).
 */
export function renderFeedLostDm(channelId: string, reason?: string): Message {
  const known = reason !== undefined && isChannelGoneError(reason) ? reason : null;
  const why = known ? channelGoneText(known) : 'o canal foi arquivado, apagado, ou o bot saiu dele';
  const again =
    known && !invitingMends(known)
      ? 'Para receber os alertas em outro canal, use `/estoque alertas assinar` lá.'
      : 'Para assinar de novo, convide o bot com `/invite @estoque-bot` e use `/estoque alertas assinar` no canal.';
  const text = `:warning: Cancelei os alertas do estoque em ${mentionChannel(channelId)}: não consigo mais postar lá (${why}). ${again}`;
  return finalizeMessage({ text, blocks: [section(text)] });
}
