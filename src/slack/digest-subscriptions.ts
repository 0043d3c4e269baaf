import type { WebClient } from '@slack/web-api';
import type { PostNowResult } from '../domain/digest/scheduler.js';
import { type CheckListener, type ListenerCheck, listenerHold } from '../domain/listener-check.js';
import type { AnswerCallOptions } from '../domain/workspace.js';
import type { Logger } from '../lib/logger.js';
import { renderListenerStockroomNotActive } from '../render/channel-list.js';
import {
  renderAppRefused,
  renderDigestPosted,
  renderDigestRefused,
  renderDigestUnavailable,
  renderInviteBot,
  renderNotSubscribed,
  renderSubscribed,
  renderSubscribedInDoubt,
  renderSubscriptionList,
  renderUnsubscribed,
} from '../render/digest.js';
import type { Message, RenderContext } from '../render/types.js';
import type { Subscription, SubscriptionStore } from '../store/subscription-store.js';
import type { PostResult } from './digest-poster.js';

/** Posts one message in a channel (DigestPoster.post): the only Slack operation subscribing needs. */
export interface ChannelPoster {
  post(client: WebClient, workspaceId: string, channelId: string, message: Message): Promise<PostResult>;
}

/**
 * A DM (`D…`, channel_name `directmessage`) or a group DM (channel_name `mpdm-…`; its id may start with G, as a
 * private channel's does): where Slack refuses a post, nobody can invite the bot, and the command belongs in a channel.
 */
export function isDirectConversation(channelId: string, channelName?: string): boolean {
  return (
    channelId.startsWith('D') || channelName === 'directmessage' || channelName?.startsWith('mpdm-') === true
  );
}

export interface DigestSubscriptionsDeps {
  store: SubscriptionStore;
  poster: ChannelPoster;
  scheduler: { postNow(workspaceId: string, channelId: string): Promise<PostNowResult> };
  /** The link and `almox:N`, checked before a channel is subscribed. */
  checkListener: CheckListener;
  /** DIGEST_TZ: the time zone of new subscriptions. */
  timeZone: string;
  logger: Logger;
  now: () => number;
}

export interface SubscribeInput {
  workspaceId: string;
  channelId: string;
  userId: string;
  /** The command's channel_name: tells a group DM (`mpdm-…`) from a private channel. */
  channelName?: string | undefined;
  /** Names the command's upstream reads in logs; none from a caller that has no command. */
  correlationId?: string | undefined;
  hour: number;
  minute: number;
  stockroomId?: number | undefined;
  weekdaysOnly: boolean;
}

/**
 * `/estoque resumo assinar|cancelar|listar|agora`, for the Slack command handler. Every method returns the
 * ephemeral answer for who typed the command (null when there is nothing to add). Upstream and link failures
 * of `postNow` are thrown, for the handler's usual failure messages.
 */
export class DigestSubscriptions {
  constructor(private readonly deps: DigestSubscriptionsDeps) {}

  /**
   * Any member of the channel may subscribe it. The confirmation is posted IN the channel first, with `client`
   * (the command's): it tells the channel, and it is the check that the bot can post there. When Slack refuses
   * it (`not_in_channel`, `channel_not_found`, `is_archived`), nothing is subscribed and the answer says how to
   * invite the bot. Subscribing again changes the time and filters and keeps what was posted. `client` makes one
   * attempt (singleAttemptClient): a post that failed after it may have reached Slack (a 5xx, a reply lost) is not
   * repeated; the subscription is kept and the subscriber gets the confirmation with a note that it may be missing.
   * Before it, an `almox:N` not among the active stockrooms is refused, and the confirmation says when the digest
   * will not come yet (not linked, a broken link, a pause) and when N could not be checked now (as the alerts').
   */
  async subscribe(
    input: SubscribeInput,
    client: WebClient,
    calls?: AnswerCallOptions,
  ): Promise<Message | null> {
    const stockroomId = input.stockroomId ?? null;
    const checked = await checkNewListener(this.deps, 'digest', { ...input, stockroomId }, calls);
    if ('refusal' in checked) return checked.refusal;
    const { check } = checked;
    const existing = await this.deps.store.get(input.workspaceId, input.channelId);
    const now = this.deps.now();
    const candidate: Subscription = {
      workspaceId: input.workspaceId,
      channelId: input.channelId,
      hour: input.hour,
      minute: input.minute,
      timeZone: this.deps.timeZone,
      weekdaysOnly: input.weekdaysOnly,
      stockroomId,
      subscribedBy: input.userId,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
      paused: existing?.paused ?? null,
      lastPostedDay: existing?.lastPostedDay ?? null,
      lastPostedAt: existing?.lastPostedAt ?? null,
      lastDigestAt: existing?.lastDigestAt ?? null,
    };
    // A new subscription starts unpaused: without a link its first build pauses it (DigestScheduler.buildFailed).
    const hold = listenerHold(check.link, candidate.paused);
    const confirmation = renderSubscribed(candidate, {
      updated: existing !== null,
      hold,
      stockroomUnchecked:
        check.link.kind === 'linked' && check.stockroom === 'unchecked' ? stockroomId : null,
    });
    const posted = await this.deps.poster.post(client, input.workspaceId, input.channelId, confirmation);
    const inDoubt = !posted.ok && posted.kind === 'retry' && posted.mayHaveArrived === true;
    if (!posted.ok && !inDoubt) {
      this.deps.logger.info(
        { workspaceId: input.workspaceId, channelId: input.channelId, outcome: posted.kind },
        'digest subscription refused: cannot post in the channel',
      );
      if (posted.kind === 'channel_gone')
        return renderInviteBot(posted.error, {
          direct: isDirectConversation(input.channelId, input.channelName),
        });
      return posted.kind === 'unauthorized' ? renderAppRefused(posted.error) : renderDigestUnavailable();
    }
    await this.deps.store.upsert({
      workspaceId: candidate.workspaceId,
      channelId: candidate.channelId,
      hour: candidate.hour,
      minute: candidate.minute,
      timeZone: candidate.timeZone,
      weekdaysOnly: candidate.weekdaysOnly,
      stockroomId: candidate.stockroomId,
      subscribedBy: candidate.subscribedBy,
    });
    this.deps.logger.info(
      {
        workspaceId: input.workspaceId,
        channelId: input.channelId,
        updated: existing !== null,
        ...(hold && { hold: hold.kind }),
        ...(inDoubt && { confirmation: 'in doubt' }),
      },
      'digest subscribed',
    );
    return inDoubt ? renderSubscribedInDoubt(confirmation) : null;
  }

  async unsubscribe(workspaceId: string, channelId: string): Promise<Message> {
    const removed = await this.deps.store.remove(workspaceId, channelId);
    return removed ? renderUnsubscribed() : renderNotSubscribed();
  }

  async list(workspaceId: string, ctx: RenderContext): Promise<Message> {
    return renderSubscriptionList(await this.deps.store.listWorkspace(workspaceId), ctx);
  }

  /** Posts this channel's digest now (see DigestScheduler.postNow: the day's scheduled post still comes). */
  async postNow(workspaceId: string, channelId: string): Promise<Message> {
    const result = await this.deps.scheduler.postNow(workspaceId, channelId);
    switch (result.kind) {
      case 'not_subscribed':
        return renderNotSubscribed();
      case 'posted':
        return result.refused ? renderDigestRefused(result.refused, true) : renderDigestPosted();
      case 'refused':
        return renderDigestRefused(result.error, false);
      case 'channel_gone':
        return renderInviteBot(result.error);
      case 'unauthorized':
        return renderAppRefused(result.error);
      default:
        return renderDigestUnavailable();
    }
  }
}

/**
 * The check a channel's new listener (`resumo assinar`, `alertas assinar`) passes before it is confirmed
 * (checkListener): its result, or the refusal of an `almox:N` not among the active stockrooms (nothing posted,
 * nothing subscribed; logged once, `listener` naming which).
 */
export async function checkNewListener(
  deps: { checkListener: CheckListener; logger: Logger },
  listener: 'digest' | 'feed',
  input: {
    workspaceId: string;
    channelId: string;
    stockroomId: number | null;
    correlationId?: string | undefined;
  },
  calls?: AnswerCallOptions,
): Promise<{ check: ListenerCheck } | { refusal: Message }> {
  const { workspaceId, channelId, stockroomId } = input;
  const check = await deps.checkListener(workspaceId, stockroomId, input.correlationId, calls);
  if (stockroomId === null || check.stockroom !== 'inactive') return { check };
  deps.logger.info(
    { workspaceId, channelId, stockroomId },
    `${listener} subscription refused: stockroom not active`,
  );
  return { refusal: renderListenerStockroomNotActive(stockroomId) };
}
