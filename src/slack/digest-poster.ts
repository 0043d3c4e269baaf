import { setTimeout as delay } from 'node:timers/promises';
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
import type { Keys } from '../store/keys.js';
import type { KeyValue } from '../store/kv.js';
import type { Subscription, SubscriptionStore } from '../store/subscription-store.js';
import type { SlackClients } from './slack-clients.js';

/** Slack refusals that mean the workspace's token no longer works. */
const UNAUTHORIZED_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'team_access_not_granted',
]);
/** Slack allows about one message per second per channel. */
const CHANNEL_SLOT_MS = 1_000;
const SLOT_POLL_MS = 100;
/** 429s waited for in one post before giving the post back to a later tick. */
const MAX_RATE_LIMIT_WAITS = 3;

export type PostResult =
  | { ok: true; ts: string }
  | { ok: false; kind: 'channel_gone'; error: ChannelGoneError }
  | { ok: false; kind: 'retry'; reason: string }
  | { ok: false; kind: 'unauthorized'; error: string }
  | { ok: false; kind: 'stopped' };

export interface DigestPosterDeps {
  clients: SlackClients;
  subscriptions: SubscriptionStore;
  kv: KeyValue;
  keys: Keys;
  logger: Logger;
  sleep?: (ms: number) => Promise<void>;
  /** A 429 asking for a longer wait is not waited for: a later tick posts. Default 60 s (within a claim lease). */
  maxRetryAfterMs?: number;
  /** How long to wait for the channel's one-second slot before sending anyway (a 429 is handled). Default 5 s. */
  maxSlotWaitMs?: number;
}

/**
 * Posts digests (and other bot messages) in channels, Slack's way: one message per second per channel across
 * replicas (a one-second key per channel, `set onlyIfAbsent`), a 429 waited for as its Retry-After says, and the
 * three errors that mean the bot cannot post there any more (`not_in_channel`, `channel_not_found`,
 * `is_archived`) turned into removing the subscription and a DM to who subscribed.
 *
 * The clients from SlackClients reject rate-limited calls and do not retry (see slack-clients.ts), so every 429
 * and 5xx comes back here; a client with built-in retries (Bolt's, for confirmations) works too.
 */
export class DigestPoster implements DigestPublisher {
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxRetryAfterMs: number;
  private readonly maxSlotWaitMs: number;

  constructor(private readonly deps: DigestPosterDeps) {
    this.sleep = deps.sleep ?? ((ms) => delay(ms));
    this.maxRetryAfterMs = deps.maxRetryAfterMs ?? 60_000;
    this.maxSlotWaitMs = deps.maxSlotWaitMs ?? 5_000;
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
      { delayMs: delivery.delayMs },
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
    for (let waits = 0; ; waits += 1) {
      await this.waitForSlot(workspaceId, channelId);
      if (guard && !(await guard())) return { ok: false, kind: 'stopped' };
      try {
        const answer = await client.chat.postMessage({
          channel: channelId,
          text: message.text,
          blocks: message.blocks,
          unfurl_links: false,
          unfurl_media: false,
        });
        return { ok: true, ts: answer.ts ?? '' };
      } catch (error) {
        const failure = classify(error);
        if (failure.kind === 'rate_limited') {
          if (waits < MAX_RATE_LIMIT_WAITS && failure.retryAfterMs <= this.maxRetryAfterMs) {
            logger.info({ retryAfterMs: failure.retryAfterMs }, 'Slack rate limited the post; waiting');
            await this.sleep(failure.retryAfterMs);
            continue;
          }
          return { ok: false, kind: 'retry', reason: `ratelimited ${failure.retryAfterMs} ms` };
        }
        logger.warn({ slackError: failure.error, kind: failure.kind }, 'Slack refused the post');
        if (failure.kind === 'channel_gone') return { ok: false, kind: 'channel_gone', error: failure.error };
        if (failure.kind === 'unauthorized') return { ok: false, kind: 'unauthorized', error: failure.error };
        return { ok: false, kind: 'retry', reason: failure.error };
      }
    }
  }

  /** A DM from the bot (chat.postMessage to the user id); false when it could not be sent. */
  async dm(client: WebClient, userId: string, message: Message): Promise<boolean> {
    try {
      await client.chat.postMessage({ channel: userId, text: message.text, blocks: message.blocks });
      return true;
    } catch (error) {
      this.deps.logger.warn({ userId, slackError: classify(error).error }, 'could not DM the user');
      return false;
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
    await this.dm(client, sub.subscribedBy, renderSubscriptionRemovedDm(sub.channelId, error));
  }

  /** Takes the channel's one-second slot, waiting a little for it; posts anyway after maxSlotWaitMs. */
  private async waitForSlot(workspaceId: string, channelId: string): Promise<void> {
    const key = this.deps.keys.digestPostSlot(workspaceId, channelId);
    const deadline = Date.now() + this.maxSlotWaitMs;
    for (;;) {
      const taken = await this.deps.kv
        .set(key, '1', { ttlMs: CHANNEL_SLOT_MS, onlyIfAbsent: true })
        .catch(() => true);
      if (taken || Date.now() >= deadline) return;
      await this.sleep(SLOT_POLL_MS);
    }
  }
}

type Failure =
  | { kind: 'rate_limited'; error: string; retryAfterMs: number }
  | { kind: 'channel_gone'; error: ChannelGoneError }
  | { kind: 'unauthorized'; error: string }
  | { kind: 'other'; error: string };

/** What a WebClient error means here, by its documented `code` (no class import needed). */
function classify(error: unknown): Failure {
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
    if (isChannelGoneError(code)) return { kind: 'channel_gone', error: code };
    if (UNAUTHORIZED_ERRORS.has(code)) return { kind: 'unauthorized', error: code };
    return { kind: 'other', error: code };
  }
  if (e?.code === 'slack_webapi_http_error')
    return { kind: 'other', error: `http_${e.statusCode ?? 'error'}` };
  if (e?.code === 'slack_webapi_request_error') return { kind: 'other', error: 'request_error' };
  return { kind: 'other', error: error instanceof Error ? error.name : 'unknown' };
}
