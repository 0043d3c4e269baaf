import type { WebClient } from '@slack/web-api';
import type {
  ChannelFeed,
  FeedEvent,
  FeedPoster,
  FeedPostOptions,
  FeedPostResult,
  FeedTarget,
} from '../domain/feed/types.js';
import { errFields, type Logger } from '../lib/logger.js';
import { renderFeedLostDm, renderFeedPost, renderFollowsEndedDm } from '../render/feed.js';
import { renderFeedFallback } from '../render/post-fallbacks.js';
import type { FeedListenerStore } from '../store/feed-listeners.js';
import {
  classifyPostFailure,
  PacedPoster,
  type PacedPosterDeps,
  type PostFailure,
  slackCallFailure,
} from './paced-post.js';
import type { SlackClients } from './slack-clients.js';

/**
 * What a WebClient error means for a feed post to `target` (classifyPostFailure, the digest's reading too): `lost`
 * (the channel or the DM can never be reached), `unauthorized` (the workspace's token or the app: not one target's
 * fault, so nothing is lost and the workspace's feed pauses, as digests do), `content` (this message, for what it
 * holds), `rate_limited` (with Retry-After) or `transient` (5xx, network, any other refusal: nothing is removed, a
 * later round tries again).
 */
export function classifyFeedError(error: unknown, target: FeedTarget): PostFailure {
  return classifyPostFailure(slackCallFailure(error), target.kind);
}

/** With the pacing's (a 429 asking for a longer wait than maxRetryAfterMs makes the post transient). */
export interface SlackFeedPosterDeps extends PacedPosterDeps {
  clients: SlackClients;
  /** Pauses the workspace's listeners when Slack refuses the app or its token there (post-refusals.ts). */
  listeners: Pick<FeedListenerStore, 'pauseWorkspace'>;
  logger: Logger;
  /** DIGEST_TZ: times in the messages ("detectadas às 14:32"). */
  timeZone: string;
  now: () => number;
  /** Called after a post Slack accepted (the App Home of a user whose followed request changed is published again). */
  onDelivered?: (workspaceId: string, target: FeedTarget, client: WebClient) => void;
}

/**
 * The FeedPoster on Slack: one message per target and round (render/feed.ts), in a channel with
 * chat.postMessage, to a user as a DM (chat.postMessage to the user id opens the app's DM), paced as the digest
 * is (paced-post.ts: one message per second per channel across replicas, 429s waited for). It reports `lost`; removing the listener is the caller's (the delivery
 * loop), which then calls `tellFeedLost` for a channel. A message Slack refuses for what it holds gets a plain fallback
 * naming the events in its place; a fallback refused too comes back `givenUp`: the delivery loop never posts those
 * events to that target again.
 */
export class SlackFeedPoster implements FeedPoster {
  private readonly paced: PacedPoster;

  constructor(private readonly deps: SlackFeedPosterDeps) {
    this.paced = new PacedPoster(deps);
  }

  async post(
    workspaceId: string,
    target: FeedTarget,
    events: FeedEvent[],
    options: FeedPostOptions = {},
  ): Promise<FeedPostResult> {
    const message = renderFeedPost(
      target,
      events,
      { timeZone: this.deps.timeZone, now: this.deps.now() },
      options,
    );
    if (!message) return { ok: true };
    const client = await this.client(workspaceId);
    if (!client.ok) return { ok: false, lost: false, error: client.error };
    const channel = target.kind === 'channel' ? target.channelId : target.userId;
    const logger = this.deps.logger.child({ workspaceId, target: target.kind, channelId: channel });
    const result = await this.paced.postOrFallback(
      client.client,
      workspaceId,
      channel,
      target.kind,
      message,
      () => renderFeedFallback(target, events),
      logger,
      options.guard,
    );
    if (result.ok) {
      // The events' ids (derived from the data, no secret) and Slack's ts: a post made twice can be traced.
      logger.info(
        {
          events: events.length,
          eventIds: events.map((event) => event.id),
          ts: result.ts,
          ...(result.refused && { fallbackFor: result.refused }),
        },
        'feed posted',
      );
      this.deps.onDelivered?.(workspaceId, target, client.client);
      return { ok: true };
    }
    if (result.stopped) return { ok: false, lost: false, error: 'stopped' };
    const { failure } = result;
    if (failure.kind === 'rate_limited')
      return { ok: false, lost: false, error: `ratelimited ${failure.retryAfterMs} ms` };
    // The message refused for what it holds, its plain fallback too (postOrFallback logged both): given up.
    if (failure.kind === 'content')
      return { ok: false, lost: false, givenUp: true, error: result.refused ?? failure.error };
    const mayHaveArrived = failure.kind === 'transient' && failure.mayHaveArrived;
    logger.warn(
      { slackError: failure.error, kind: failure.kind, mayHaveArrived },
      'Slack refused the feed post',
    );
    if (failure.kind === 'unauthorized') {
      if (await this.deps.listeners.pauseWorkspace(workspaceId, 'tokens_revoked').catch(() => false))
        logger.error(
          'feed paused: Slack refuses the app or its token in this workspace; reinstall the app (or set a new ' +
            'SLACK_BOT_TOKEN) with the manifest scopes, which resumes it',
        );
    }
    return {
      ok: false,
      lost: failure.kind === 'lost',
      error: failure.error,
      ...(mayHaveArrived && { mayHaveArrived: true }),
    };
  }

  async tellFeedLost(workspaceId: string, feed: ChannelFeed, error?: string): Promise<void> {
    const client = await this.client(workspaceId);
    if (!client.ok) return;
    const notice = renderFeedLostDm(feed.channelId, error);
    await this.paced.dm(client.client, workspaceId, feed.subscribedBy, notice, this.deps.logger);
  }

  async tellFollowsEnded(workspaceId: string, userId: string, requestIds: readonly number[]): Promise<void> {
    const client = await this.client(workspaceId);
    if (!client.ok) return;
    const notice = renderFollowsEndedDm(requestIds);
    await this.paced.dm(client.client, workspaceId, userId, notice, this.deps.logger);
  }

  private async client(
    workspaceId: string,
  ): Promise<{ ok: true; client: WebClient } | { ok: false; error: string }> {
    try {
      const client = await this.deps.clients.forWorkspace(workspaceId);
      return client ? { ok: true, client } : { ok: false, error: 'no_installation' };
    } catch (error) {
      this.deps.logger.warn({ workspaceId, ...errFields(error) }, 'Slack client unavailable');
      return { ok: false, error: 'slack_client_unavailable' };
    }
  }
}
