import { setTimeout as delay } from 'node:timers/promises';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../lib/logger.js';
import { neverSent } from '../lib/net-errors.js';
import type { Message } from '../render/types.js';
import type { Keys } from '../store/keys.js';
import type { KeyValue } from '../store/kv.js';
import { type PostTarget, refusalOf } from './post-refusals.js';

/**
 * Posting a bot message in a channel (or a DM, by user id) Slack's way, for the digest and the change feed: one
 * message per second per channel across replicas (a one-second key per channel, `set onlyIfAbsent`, shared by
 * both so they space out in one channel), a 429 waited for as its Retry-After says. What a refusal says (a channel
 * gone, a person lost, a token revoked, a message refused for its content) is read in one place for both,
 * classifyPostFailure (the codes: post-refusals.ts); what to do about it is each caller's, but for a message refused
 * for its content, which postOrFallback answers here with a plain fallback.
 *
 * The client must not retry by itself: a 5xx or a timeout may come after Slack posted the message, and a retry
 * would post it again. The clients from SlackClients reject rate-limited calls and do not retry (see
 * slack-clients.ts), and a listener's is given as singleAttemptClient (web-clients.ts), so every 429 and 5xx comes
 * back here, where only a 429 (nothing posted) is tried again.
 */

/**
 * `ok: false` answers after which the message may be in the channel all the same: chat.postMessage's errors say of
 * both "It's possible some aspect of the operation succeeded before the error was raised". They are read as a
 * failure on the way (a later try says it may repeat), not as a refusal.
 */
const MAY_HAVE_SUCCEEDED_ERRORS: ReadonlySet<string> = new Set(['fatal_error', 'internal_error']);
/** Slack allows about one message per second per channel (DMs included). */
const CHANNEL_SLOT_MS = 1_000;
const SLOT_POLL_MS = 100;
/** 429s waited for in one post before the post is given back to a later tick or round. */
const MAX_RATE_LIMIT_WAITS = 3;

/** A WebClient error, by its documented `code` (no class import needed). */
export type SlackCallFailure =
  | { kind: 'rate_limited'; error: string; retryAfterMs: number }
  /** Slack answered `ok: false` with this error code. */
  | { kind: 'platform'; error: string }
  /**
   * A 5xx, the network, anything else. `mayHaveArrived`: the call failed on the way (a timeout, a connection
   * cut) after it may have reached Slack, so a message may have been posted.
   */
  | { kind: 'transport'; error: string; mayHaveArrived: boolean };

export function slackCallFailure(error: unknown): SlackCallFailure {
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
    if (MAY_HAVE_SUCCEEDED_ERRORS.has(code)) return { kind: 'transport', error: code, mayHaveArrived: true };
    return { kind: 'platform', error: code };
  }
  // A 5xx may come after the message was posted (Slack's fatal_error: "some aspect of the operation may have
  // succeeded"; a gateway's 502 or 504 after Slack had it); another status was answered before any post.
  if (e?.code === 'slack_webapi_http_error')
    return {
      kind: 'transport',
      error: `http_${e.statusCode ?? 'error'}`,
      mayHaveArrived: (e.statusCode ?? 500) >= 500,
    };
  if (e?.code === 'slack_webapi_request_error')
    return { kind: 'transport', error: 'request_error', mayHaveArrived: !neverSent(error) };
  return {
    kind: 'transport',
    error: error instanceof Error ? error.name : 'unknown',
    mayHaveArrived: !neverSent(error),
  };
}

/** What a failed post says, for a post to `target` (post-refusals.ts). */
export type PostFailure =
  /** Rate limited for longer than the post waits: a later tick or round tries again. */
  | { kind: 'rate_limited'; error: string; retryAfterMs: number }
  /** The workspace's token or the app (UNAUTHORIZED_ERRORS): no post there can succeed until a reinstall. */
  | { kind: 'unauthorized'; error: string }
  /** This channel, or this person, can never be posted to again. */
  | { kind: 'lost'; error: string }
  /** This message, for what it holds (CONTENT_REFUSED_ERRORS): sending it again is refused again. */
  | { kind: 'content'; error: string }
  /** Of the moment (5xx, network, anything else): a later try may succeed. `mayHaveArrived`: see SlackCallFailure. */
  | { kind: 'transient'; error: string; mayHaveArrived: boolean };

/** The one reading of a failed chat.postMessage, for the digest and the feed alike. */
export function classifyPostFailure(failure: SlackCallFailure, target: PostTarget): PostFailure {
  if (failure.kind === 'rate_limited') return failure;
  if (failure.kind === 'transport')
    return { kind: 'transient', error: failure.error, mayHaveArrived: failure.mayHaveArrived };
  const kind = refusalOf(failure.error, target);
  return kind === 'other'
    ? { kind: 'transient', error: failure.error, mayHaveArrived: false }
    : { kind, error: failure.error };
}

/** What postOrFallback came to. */
export type FallbackPostResult =
  /** Slack has a message: the one given, or (`refused`: Slack's refusal of that one) its fallback. */
  | { ok: true; ts: string; refused?: string }
  /** The guard said no before a try: nothing was posted. */
  | { ok: false; stopped: true }
  /**
   * Not posted. `refused` set: the message was refused for its content and `failure` is its fallback's (a `content`
   * one: refused too, the message is given up).
   */
  | { ok: false; stopped: false; failure: PostFailure; refused?: string };

export type PacedPostResult =
  | { ok: true; ts: string }
  /** The guard said no before a try: nothing was posted. */
  | { ok: false; stopped: true }
  /** Refused, or rate limited longer than this post waits. */
  | { ok: false; stopped: false; failure: SlackCallFailure };

export interface PacedPosterDeps {
  kv: KeyValue;
  keys: Keys;
  sleep?: (ms: number) => Promise<void>;
  /** A 429 asking for a longer wait is not waited for: the post is given back. Default 60 s (within a lease). */
  maxRetryAfterMs?: number;
  /** How long to wait for the channel's one-second slot before sending anyway (a 429 is handled). Default 5 s. */
  maxSlotWaitMs?: number;
}

export class PacedPoster {
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly maxRetryAfterMs: number;
  private readonly maxSlotWaitMs: number;

  constructor(private readonly deps: PacedPosterDeps) {
    this.sleep = deps.sleep ?? ((ms) => delay(ms));
    this.maxRetryAfterMs = deps.maxRetryAfterMs ?? 60_000;
    this.maxSlotWaitMs = deps.maxSlotWaitMs ?? 5_000;
  }

  /** chat.postMessage to `channel` (a channel id, or a user id for a DM) in its slot; `guard` is asked before each try. */
  async post(
    client: WebClient,
    workspaceId: string,
    channel: string,
    message: Message,
    logger: Logger,
    guard?: () => Promise<boolean>,
  ): Promise<PacedPostResult> {
    for (let waits = 0; ; waits += 1) {
      await this.waitForSlot(workspaceId, channel);
      if (guard && !(await guard())) return { ok: false, stopped: true };
      try {
        const answer = await client.chat.postMessage({
          channel,
          text: message.text,
          // A text-only message (a fallback) sends no blocks at all: only its text shows.
          ...(message.blocks.length > 0 && { blocks: message.blocks }),
          unfurl_links: false,
          unfurl_media: false,
        });
        return { ok: true, ts: answer.ts ?? '' };
      } catch (error) {
        const failure = slackCallFailure(error);
        if (
          failure.kind === 'rate_limited' &&
          waits < MAX_RATE_LIMIT_WAITS &&
          failure.retryAfterMs <= this.maxRetryAfterMs
        ) {
          logger.info({ retryAfterMs: failure.retryAfterMs }, 'Slack rate limited the post; waiting');
          await this.sleep(failure.retryAfterMs);
          continue;
        }
        return { ok: false, stopped: false, failure };
      }
    }
  }

  /**
   * `post`, and when Slack refuses the message for what it holds (CONTENT_REFUSED_ERRORS: blocks not valid, text too
   * long...), `fallback()` once in its place: a short plain text that cannot be refused that way, so the people there
   * learn something came. Sending the same message again would be refused again, so it never is. The refusal is
   * logged as an error with the message's sizes, for whoever runs the bot to fix the renderer; a fallback refused for
   * its content too is logged and comes back as a `content` failure: the caller gives the message up. Any other
   * failure of the fallback (a 429, the channel lost, the token refused) comes back as it would for any post.
   */
  async postOrFallback(
    client: WebClient,
    workspaceId: string,
    channel: string,
    target: PostTarget,
    message: Message,
    fallback: () => Message,
    logger: Logger,
    guard?: () => Promise<boolean>,
  ): Promise<FallbackPostResult> {
    const first = await this.post(client, workspaceId, channel, message, logger, guard);
    if (first.ok || first.stopped) return first;
    const failure = classifyPostFailure(first.failure, target);
    if (failure.kind !== 'content') return { ok: false, stopped: false, failure };
    const sizes = sizesOf(message);
    logger.error(
      { slackError: failure.error, ...sizes },
      'Slack refused the message for what it holds; a plain fallback is posted instead (the renderer needs a fix)',
    );
    const plain = fallback();
    const second = await this.post(client, workspaceId, channel, plain, logger, guard);
    if (second.ok) return { ok: true, ts: second.ts, refused: failure.error };
    if (second.stopped) return second;
    const fallbackFailure = classifyPostFailure(second.failure, target);
    if (fallbackFailure.kind === 'content')
      logger.error(
        {
          slackError: failure.error,
          fallbackError: fallbackFailure.error,
          ...sizes,
          fallbackTextLength: plain.text.length,
        },
        'Slack refused the plain fallback too; the message is given up',
      );
    return { ok: false, stopped: false, failure: fallbackFailure, refused: failure.error };
  }

  /**
   * A notice by DM (a post to the user id, in the bot's DM with them), paced like any post: a 429 waits for its
   * Retry-After. False, logged, when it could not be sent.
   */
  async dm(client: WebClient, workspaceId: string, userId: string, message: Message, logger: Logger) {
    const result = await this.post(
      client,
      workspaceId,
      userId,
      message,
      logger.child({ workspaceId, userId }),
    );
    if (!result.ok && !result.stopped)
      logger.warn({ workspaceId, userId, slackError: result.failure.error }, 'could not DM the user');
    return result.ok;
  }

  /** Takes the channel's one-second slot, waiting a little for it; posts anyway after maxSlotWaitMs. */
  private async waitForSlot(workspaceId: string, channel: string): Promise<void> {
    const key = this.deps.keys.digestPostSlot(workspaceId, channel);
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

/** What an operator needs to find what Slack refused: how many blocks, how long their JSON and the text are. */
function sizesOf(message: Message): { blocks: number; blocksChars: number; textLength: number } {
  return {
    blocks: message.blocks.length,
    blocksChars: JSON.stringify(message.blocks).length,
    textLength: message.text.length,
  };
}
