import { setTimeout as delay } from 'node:timers/promises';
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
import { renderFeedLostDm, renderFeedPost } from '../render/feed.js';
import type { Message } from '../render/types.js';
import type { FeedListenerStore } from '../store/feed-listeners.js';
import type { Keys } from '../store/keys.js';
import type { KeyValue } from '../store/kv.js';
import type { SlackClients } from './slack-clients.js';

/** Refusals after which the bot can never post in that channel again: its feed goes. */
const CHANNEL_LOST_ERRORS = new Set(['not_in_channel', 'channel_not_found', 'is_archived']);
/** Refusals after which the bot can never DM that user: their follows end. */
const DM_LOST_ERRORS = new Set([
  'cannot_dm_bot',
  'user_not_found',
  'user_disabled',
  'user_not_visible',
  'messages_tab_disabled',
  'channel_not_found',
  'not_in_channel',
  'is_archived',
]);
/**
 * The workspace's bot token no longer works (Slack documents `account_inactive` as "the token is for a deleted
 * user or workspace"): not one target's fault, so nothing is lost; the workspace's feed pauses, as digests do.
 */
const UNAUTHORIZED_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'team_access_not_granted',
]);
/** Slack allows about one message per second per channel (DMs included). */
const CHANNEL_SLOT_MS = 1_000;
const SLOT_POLL_MS = 100;
/** 429s waited for in one post before the post is given back as transient. */
const MAX_RATE_LIMIT_WAITS = 3;

export type SlackFailure =
  | { kind: 'rate_limited'; error: string; retryAfterMs: number }
  | { kind: 'lost'; error: string }
  | { kind: 'unauthorized'; error: string }
  | { kind: 'transient'; error: string };

/**
 * What a WebClient error means for a feed post to `target`: `lost` (the channel or the DM can never be reached),
 * `unauthorized` (the workspace's token), `rate_limited` (with Retry-After) or `transient` (5xx, network, any
 * other refusal: nothing is removed, a later round tries again).
 */
export function classifyFeedError(error: unknown, target: FeedTarget): SlackFailure {
  const e = error as { code?: string; data?: { error?: string }; retryAfter?: number; statusCode?: number };
  if (e?.code === 'slack_webapi_rate_limited_error') {
    return {
      kind: 'rate_limited',
      error: 'ratelimited',
      retryAfterMs: Math.max(0, (e.retryAfter ?? 1) * 1000),
    };
  }
  if (e?.code === 'slack_webapi_platform_error') {
    const code = e.data?.error ?? 'unknown_error';
    if (code === 'ratelimited') return { kind: 'rate_limited', error: code, retryAfterMs: 1_000 };
    if (UNAUTHORIZED_ERRORS.has(code)) return { kind: 'unauthorized', error: code };
    const lost = target.kind === 'channel' ? CHANNEL_LOST_ERRORS : DM_LOST_ERRORS;
    if (lost.has(code)) return { kind: 'lost', error: code };
    return { kind: 'transient', error: code };
  }
  if (e?.code === 'slack_webapi_http_error')
    return { kind: 'transient', error: `http_${e.statusCode ?? 'error'}` };
  if (e?.code === 'slack_webapi_request_error') return { kind: 'transient', error: 'request_error' };
  return { kind: 'transient', error: error instanceof Error ? error.name : 'unknown' };
}

export interface SlackFeedPosterDeps {
  clients: SlackClients;
  /** Pauses the workspace's listeners when Slack says its token no longer works. */
  listeners: Pick<FeedListenerStore, 'pauseWorkspace'>;
  kv: KeyValue;
  keys: Keys;
  logger: Logger;
  /** DIGEST_TZ: times in the messages ("detectadas às 14:32"). */
  timeZone: string;
  now: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** A 429 asking for a longer wait is not waited for: the post is transient. Default 60 s. */
  maxRetryAfterMs?: number;
  /** How long to wait for the channel's one-second slot before sending anyway. Default 5 s. */
  maxSlotWaitMs?: number;
  /** Called after a post Slack accepted (the App Home of a user whose followed request changed is published again). */
  onDelivered?: (workspaceId: string, target: FeedTarget, client: WebClient) => void;
}

/**
 * The FeedPoster on Slack: one message per target and round (render/feed.ts), in a channel with
 * chat.postMessage, to a user as a DM (chat.postMessage to the user id opens the app's DM). One message per
 * second per channel across replicas (the same slot key the digest uses, so both space out in one channel),
 * 429s waited for as Retry-After says. It reports `lost`; removing the listener is the caller's (the delivery
 * loop), which then calls `tellFeedLost` for a channel.
 */
export class SlackFeedPoster implements FeedPoster {
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxRetryAfterMs: number;
  private readonly maxSlotWaitMs: number;

  constructor(private readonly deps: SlackFeedPosterDeps) {
    this.sleep = deps.sleep ?? ((ms) => delay(ms));
    this.maxRetryAfterMs = deps.maxRetryAfterMs ?? 60_000;
    this.maxSlotWaitMs = deps.maxSlotWaitMs ?? 5_000;
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
    for (let waits = 0; ; waits += 1) {
      await this.waitForSlot(workspaceId, channel);
      try {
        await client.client.chat.postMessage({
          channel,
          text: message.text,
          blocks: message.blocks,
          unfurl_links: false,
          unfurl_media: false,
        });
        logger.info({ events: events.length }, 'feed posted');
        this.deps.onDelivered?.(workspaceId, target, client.client);
        return { ok: true };
      } catch (error) {
        const failure = classifyFeedError(error, target);
        if (failure.kind === 'rate_limited') {
          if (waits < MAX_RATE_LIMIT_WAITS && failure.retryAfterMs <= this.maxRetryAfterMs) {
            logger.info({ retryAfterMs: failure.retryAfterMs }, 'Slack rate limited the feed post; waiting');
            await this.sleep(failure.retryAfterMs);
            continue;
          }
          return { ok: false, lost: false, error: `ratelimited ${failure.retryAfterMs} ms` };
        }
        logger.warn({ slackError: failure.error, kind: failure.kind }, 'Slack refused the feed post');
        if (failure.kind === 'unauthorized') {
          if (await this.deps.listeners.pauseWorkspace(workspaceId, 'tokens_revoked').catch(() => false))
            logger.warn('feed paused: the Slack token no longer works');
        }
        return { ok: false, lost: failure.kind === 'lost', error: failure.error };
      }
    }
  }

  async tellFeedLost(workspaceId: string, feed: ChannelFeed): Promise<void> {
    const client = await this.client(workspaceId);
    if (!client.ok) return;
    await this.dm(client.client, workspaceId, feed.subscribedBy, renderFeedLostDm(feed.channelId));
  }

  private async dm(
    client: WebClient,
    workspaceId: string,
    userId: string,
    message: Message,
  ): Promise<boolean> {
    try {
      await client.chat.postMessage({ channel: userId, text: message.text, blocks: message.blocks });
      return true;
    } catch (error) {
      const failure = classifyFeedError(error, { kind: 'dm', userId });
      this.deps.logger.warn({ workspaceId, userId, slackError: failure.error }, 'could not DM the user');
      return false;
    }
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

  /** Takes the channel's one-second slot, waiting a little for it; posts anyway after maxSlotWaitMs. */
  private async waitForSlot(workspaceId: string, channelId: string): Promise<void> {
    const key = this.deps.keys.digestPostSlot(workspaceId, channelId);
    let waited = 0;
    for (;;) {
      const taken = await this.deps.kv
        .set(key, '1', { ttlMs: CHANNEL_SLOT_MS, onlyIfAbsent: true })
        .catch(() => true);
      if (taken || waited >= this.maxSlotWaitMs) return;
      await this.sleep(SLOT_POLL_MS);
      waited += SLOT_POLL_MS;
    }
  }
}
