import type { WebClient } from '@slack/web-api';
import type { FeedEventKind } from '../domain/feed/types.js';
import { type CheckListener, listenerHold } from '../domain/listener-check.js';
import type { AnswerCallOptions } from '../domain/workspace.js';
import type { Logger } from '../lib/logger.js';
import {
  renderAppRefused,
  renderDigestUnavailable,
  renderInviteBot,
  renderSubscribedInDoubt,
} from '../render/digest.js';
import {
  renderFeedList,
  renderFeedNotSubscribed,
  renderFeedSubscribed,
  renderFeedUnsubscribed,
  renderFollowing,
  renderOwnFollowing,
  renderOwnUnfollowed,
  renderUnfollowed,
} from '../render/feed-listeners.js';
import type { Message, RenderContext } from '../render/types.js';
import { type FeedListenerStore, normaliseKinds } from '../store/feed-listeners.js';
import { type ChannelPoster, checkNewListener, isDirectConversation } from './digest-subscriptions.js';

/** What following needs from the domain; upstream and link failures are thrown, for the usual messages. */
export interface FollowReads {
  /**
   * The request's current status name (null when unknown) and the company it was read from (the link's); throws
   * NotFound for a request that does not exist.
   */
  requestStatus(
    workspaceId: string,
    requestId: number,
    correlationId: string,
    calls?: AnswerCallOptions,
  ): Promise<{ statusName: string | null; empresaId: number | null }>;
  /**
   * The user's e-mail when it matches an upstream user, as `/solicitacao minhas` matches it; throws
   * UserNotMatchedError otherwise.
   */
  ownEmail(
    workspaceId: string,
    user: { id: string; email: () => Promise<string | null> },
    correlationId: string,
    calls?: AnswerCallOptions,
  ): Promise<string>;
}

export interface FeedSubscriptionsDeps {
  store: FeedListenerStore;
  poster: ChannelPoster;
  reads: FollowReads;
  /** The link and `almox:N`, checked before a channel is subscribed. */
  checkListener: CheckListener;
  logger: Logger;
}

export interface FeedSubscribeInput {
  workspaceId: string;
  channelId: string;
  userId: string;
  /** The command's channel_name: tells a group DM (`mpdm-…`) from a private channel. */
  channelName?: string | undefined;
  /** Names the command's upstream reads in logs; none from a caller that has no command. */
  correlationId?: string | undefined;
  stockroomId?: number | undefined;
  kinds?: FeedEventKind[] | undefined;
}

/**
 * `/estoque alertas assinar|cancelar|listar` and following requests (`Acompanhar`, `/solicitacao <id>
 * acompanhar|parar`, `minhas acompanhar|parar`), for the Slack handlers. Every method returns the ephemeral answer
 * for who asked (null when the channel already got it). The list of follows (`acompanhando`) is an answer of its
 * own, a route that pages (Answers).
 */
export class FeedSubscriptions {
  constructor(private readonly deps: FeedSubscriptionsDeps) {}

  /**
   * Any member of the channel may subscribe it. The confirmation is posted IN the channel first, with the
   * command's client: it tells the channel, and it is the check that the bot can post there. When Slack refuses
   * it, nothing is subscribed and the answer says how to invite the bot (in a DM, to use a channel). `client` makes
   * one attempt: a post in doubt is not repeated, and the feed is kept (as DigestSubscriptions.subscribe does).
   * Before it, an `almox:N` not among the active stockrooms is refused (nothing posted, nothing subscribed), and the
   * confirmation says when the alerts will not run yet (not linked, a broken link, a pause) and when N could not be
   * checked now.
   */
  async subscribe(
    input: FeedSubscribeInput,
    client: WebClient,
    calls?: AnswerCallOptions,
  ): Promise<Message | null> {
    const stockroomId = input.stockroomId ?? null;
    const checked = await checkNewListener(this.deps, 'feed', { ...input, stockroomId }, calls);
    if ('refusal' in checked) return checked.refusal;
    const { check } = checked;
    const hold = listenerHold(check.link, await this.deps.store.pausedReason(input.workspaceId));
    const existing = await this.deps.store.getChannel(input.workspaceId, input.channelId);
    const stored = {
      stockroomId,
      kinds: normaliseKinds(input.kinds),
      subscribedBy: input.userId,
    };
    const confirmation = renderFeedSubscribed(stored, {
      updated: existing !== null,
      hold,
      // Without a working link nothing could be checked, and the note on the link says what matters.
      stockroomUnchecked:
        check.link.kind === 'linked' && check.stockroom === 'unchecked' ? stockroomId : null,
    });
    const posted = await this.deps.poster.post(client, input.workspaceId, input.channelId, confirmation);
    const inDoubt = !posted.ok && posted.kind === 'retry' && posted.mayHaveArrived === true;
    if (!posted.ok && !inDoubt) {
      this.deps.logger.info(
        { workspaceId: input.workspaceId, channelId: input.channelId, outcome: posted.kind },
        'feed subscription refused: cannot post in the channel',
      );
      if (posted.kind === 'channel_gone')
        return renderInviteBot(posted.error, {
          direct: isDirectConversation(input.channelId, input.channelName),
        });
      return posted.kind === 'unauthorized' ? renderAppRefused(posted.error) : renderDigestUnavailable();
    }
    await this.deps.store.upsertChannel({
      workspaceId: input.workspaceId,
      channelId: input.channelId,
      stockroomId: stored.stockroomId,
      kinds: stored.kinds,
      subscribedBy: input.userId,
    });
    this.deps.logger.info(
      {
        workspaceId: input.workspaceId,
        channelId: input.channelId,
        updated: existing !== null,
        ...(hold && { hold: hold.kind }),
        ...(inDoubt && { confirmation: 'in doubt' }),
      },
      'feed subscribed',
    );
    return inDoubt ? renderSubscribedInDoubt(confirmation) : null;
  }

  async unsubscribe(workspaceId: string, channelId: string): Promise<Message> {
    return (await this.deps.store.removeChannel(workspaceId, channelId))
      ? renderFeedUnsubscribed()
      : renderFeedNotSubscribed();
  }

  async list(workspaceId: string, ctx: RenderContext): Promise<Message> {
    return renderFeedList(await this.deps.store.listChannels(workspaceId), ctx);
  }

  /** Follows the request with its current status (read first: a request that does not exist is not followed). */
  async follow(
    workspaceId: string,
    userId: string,
    requestId: number,
    correlationId: string,
    calls?: AnswerCallOptions,
  ): Promise<Message> {
    const { statusName, empresaId } = await this.deps.reads.requestStatus(
      workspaceId,
      requestId,
      correlationId,
      calls,
    );
    const { follow, created } = await this.deps.store.follow(
      workspaceId,
      userId,
      requestId,
      statusName,
      empresaId,
    );
    this.deps.logger.info({ workspaceId, correlationId, requestId, created }, 'request followed');
    return renderFollowing(follow, { already: !created });
  }

  async unfollow(workspaceId: string, userId: string, requestId: number): Promise<Message> {
    const wasFollowing = await this.deps.store.unfollow(workspaceId, userId, requestId);
    return renderUnfollowed(requestId, { wasFollowing });
  }

  async followOwn(
    workspaceId: string,
    user: { id: string; email: () => Promise<string | null> },
    correlationId: string,
    calls?: AnswerCallOptions,
  ): Promise<Message> {
    const email = await this.deps.reads.ownEmail(workspaceId, user, correlationId, calls);
    const { created } = await this.deps.store.followOwn(workspaceId, user.id, email);
    this.deps.logger.info({ workspaceId, correlationId, created }, 'own requests followed');
    return renderOwnFollowing(email, { already: !created });
  }

  async unfollowOwn(workspaceId: string, userId: string): Promise<Message> {
    return renderOwnUnfollowed({ wasFollowing: await this.deps.store.unfollowOwn(workspaceId, userId) });
  }
}
