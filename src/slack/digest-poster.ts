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
import type { Message } from '../render/types.js';
import type { Subscription, SubscriptionStore } from '../store/subscription-store.js';
import {
  PacedPoster,
  type PacedPosterDeps,
  type SlackCallFailure,
  UNAUTHORIZED_ERRORS,
} from './paced-post.js';
import type { SlackClients } from './slack-clients.js';

export type PostResult =
  | { ok: true; ts: string }
  | { ok: false; kind: 'channel_gone'; error: ChannelGoneError }
  | { ok: false; kind: 'retry'; reason: string; mayHaveArrived?: boolean }
  | { ok: false; kind: 'unauthorized'; error: string }
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
 * the workspace (UNAUTHORIZED_ERRORS) come back as `unauthorized`: the scheduler pauses the workspace's digests.
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
    const result = await this.post(client, sub.workspaceId, sub.channelId, message, guard);
    if (result.ok) return { kind: 'posted', ts: result.ts };
    if (result.kind === 'channel_gone') await this.dropSubscription(client, sub, result.error);
    return result;
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
    const { failure } = result;
    if (failure.kind === 'rate_limited')
      return { ok: false, kind: 'retry', reason: `ratelimited ${failure.retryAfterMs} ms` };
    const refusal = classify(failure);
    logger.warn({ slackError: refusal.error, kind: refusal.kind }, 'Slack refused the post');
    if (refusal.kind === 'channel_gone') return { ok: false, kind: 'channel_gone', error: refusal.error };
    if (refusal.kind === 'unauthorized') return { ok: false, kind: 'unauthorized', error: refusal.error };
    const mayHaveArrived = failure.kind === 'transport' && failure.mayHaveArrived;
    return {
      ok: false,
      kind: 'retry',
      reason: refusal.error,
      ...(mayHaveArrived && { mayHaveArrived: true }),
    };
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

type Refusal =
  | { kind: 'channel_gone'; error: ChannelGoneError }
  | { kind: 'unauthorized'; error: string }
  | { kind: 'other'; error: string };

/** What a refusal means for a channel's digest. */
function classify(failure: Exclude<SlackCallFailure, { kind: 'rate_limited' }>): Refusal {
  if (failure.kind === 'platform') {
    if (isChannelGoneError(failure.error)) return { kind: 'channel_gone', error: failure.error };
    if (UNAUTHORIZED_ERRORS.has(failure.error)) return { kind: 'unauthorized', error: failure.error };
  }
  return { kind: 'other', error: failure.error };
}
