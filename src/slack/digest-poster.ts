import type { WebClient } from '@slack/web-api';
import {
  type ChannelGoneError,
  type DigestDelivery,
  type DigestPublisher,
  isChannelGoneError,
  type PublishOutcome,
} from '../domain/digest/publisher.js';
import { errFields, type Logger } from '../lib/logger.js';
import { renderDigest, renderSubscriptionRemovedDm } from '../render/digest.js';
import { renderDigestFallback } from '../render/post-fallbacks.js';
import type { Message } from '../render/types.js';
import type { Subscription, SubscriptionStore } from '../store/subscription-store.js';
import { classifyPostFailure, PacedPoster, type PacedPosterDeps, type PostFailure } from './paced-post.js';
import type { SlackClients } from './slack-clients.js';

export type PostResult =
  | { ok: true; ts: string }
  | { ok: false; kind: 'channel_gone'; error: ChannelGoneError }
  | { ok: false; kind: 'retry'; reason: string; mayHaveArrived?: boolean }
  | { ok: false; kind: 'unauthorized'; error: string }
  /** Refused for what the message holds (post-refusals.ts, CONTENT_REFUSED_ERRORS): the same message never goes. */
  | { ok: false; kind: 'refused'; error: string }
  | { ok: false; kind: 'stopped' };

/** With the pacing's (a 429 asking for a longer wait than maxRetryAfterMs is left to a later tick). */
export interface DigestPosterDeps extends PacedPosterDeps {
  clients: SlackClients;
  subscriptions: SubscriptionStore;
  logger: Logger;
}

/**
 * Posts digests (and other bot messages) in channels, paced Slack's way (paced-post.ts), and turns the errors that
 * mean the bot cannot post in that channel any more (CHANNEL_GONE_ERRORS: `not_in_channel`, `channel_not_found`,
 * `is_archived`...) into removing the subscription and a DM to who subscribed. Errors for the app or its token in
 * the workspace (UNAUTHORIZED_ERRORS) come back as `unauthorized`: the scheduler pauses the workspace's digests. A
 * digest Slack refuses for what it holds gets a plain fallback in its place (PacedPoster.postOrFallback), and the day
 * is done either way: built again, it would be refused again.
 */
export class DigestPoster implements DigestPublisher {
  private readonly paced: PacedPoster;

  constructor(private readonly deps: DigestPosterDeps) {
    this.paced = new PacedPoster(deps);
  }

  async publish(delivery: DigestDelivery, guard?: () => Promise<boolean>): Promise<PublishOutcome> {
    const { subscription: sub } = delivery;
    let client: WebClient | null;
    try {
      client = await this.deps.clients.forWorkspace(sub.workspaceId);
    } catch (error) {
      this.deps.logger.warn(
        { workspaceId: sub.workspaceId, ...errFields(error) },
        'Slack client unavailable',
      );
      return { kind: 'retry', reason: 'slack_client_unavailable' };
    }
    if (!client) return { kind: 'unauthorized', error: 'no_installation' };
    const message = renderDigest(
      delivery.view,
      { timeZone: sub.timeZone, now: delivery.now },
      { delayMs: delivery.delayMs, mayRepeatSince: delivery.mayRepeatSince ?? null },
    );
    const logger = this.deps.logger.child({ workspaceId: sub.workspaceId, channelId: sub.channelId });
    const result = await this.paced.postOrFallback(
      client,
      sub.workspaceId,
      sub.channelId,
      'channel',
      message,
      () => renderDigestFallback(sub.stockroomId),
      logger,
      guard,
    );
    if (result.ok)
      return { kind: 'posted', ts: result.ts, ...(result.refused && { refused: result.refused }) };
    if (result.stopped) return { kind: 'stopped' };
    // Only a fallback comes back refused for its content (the digest's own refusal got it sent).
    if (result.failure.kind === 'content')
      return {
        kind: 'refused',
        error: result.refused ?? result.failure.error,
        fallbackError: result.failure.error,
      };
    const { ok: _, ...outcome } = this.failed(result.failure, logger);
    if (outcome.kind === 'channel_gone') await this.dropSubscription(client, sub, outcome.error);
    if (outcome.kind === 'refused') return { ...outcome, fallbackError: outcome.error }; // not reached: see above
    return outcome;
  }

  /** Posts in a channel with spacing and Retry-After handling; reports channel errors without acting on them. */
  async post(
    client: WebClient,
    workspaceId: string,
    channelId: string,
    message: Message,
    guard?: () => Promise<boolean>,
  ): Promise<PostResult> {
    const logger = this.deps.logger.child({ workspaceId, channelId });
    const result = await this.paced.post(client, workspaceId, channelId, message, logger, guard);
    if (result.ok) return result;
    if (result.stopped) return { ok: false, kind: 'stopped' };
    return this.failed(classifyPostFailure(result.failure, 'channel'), logger);
  }

  /** What a failed post means for a channel's digest. */
  private failed(
    failure: PostFailure,
    logger: Logger,
  ): Exclude<PostResult, { ok: true } | { kind: 'stopped' }> {
    if (failure.kind === 'rate_limited')
      return { ok: false, kind: 'retry', reason: `ratelimited ${failure.retryAfterMs} ms` };
    logger.warn({ slackError: failure.error, kind: failure.kind }, 'Slack refused the post');
    switch (failure.kind) {
      case 'lost':
        // A channel's refusals: CHANNEL_GONE_ERRORS, every one.
        return isChannelGoneError(failure.error)
          ? { ok: false, kind: 'channel_gone', error: failure.error }
          : { ok: false, kind: 'retry', reason: failure.error };
      case 'unauthorized':
        return { ok: false, kind: 'unauthorized', error: failure.error };
      case 'content':
        return { ok: false, kind: 'refused', error: failure.error };
      case 'transient':
        return {
          ok: false,
          kind: 'retry',
          reason: failure.error,
          ...(failure.mayHaveArrived && { mayHaveArrived: true }),
        };
    }
  }

  private async dropSubscription(
    client: WebClient,
    sub: Subscription,
    error: ChannelGoneError,
  ): Promise<void> {
    await this.deps.subscriptions.remove(sub.workspaceId, sub.channelId);
    this.deps.logger.info(
      { workspaceId: sub.workspaceId, channelId: sub.channelId, slackError: error },
      'digest subscription removed: the bot cannot post in the channel',
    );
    const notice = renderSubscriptionRemovedDm(sub.channelId, error);
    await this.paced.dm(client, sub.workspaceId, sub.subscribedBy, notice, this.deps.logger);
  }
}
