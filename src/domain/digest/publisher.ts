import type { Subscription } from '../../store/subscription-store.js';
import type { DigestView } from './digest-view.js';

/**
 * Slack errors after which the bot cannot post in a channel any more: the subscription goes. The `restricted_action`
 * ones (chat.postMessage: a workspace preference, a read-only or thread-only channel) last as long as the setting;
 * until 2026-11-27 they were retried every tick, every day, and the subscriber never told. So were `no_permission`
 * ("make sure your app is a member of the conversation it's attempting to post a message to") and
 * `ekm_access_denied` ("administrators have suspended the ability to post a message": Enterprise Key Management
 * revoked for that conversation). So was `access_denied` ("Access to a resource specified in the request is denied":
 * the one resource a post names is its channel) until 2026-11-27. Refusals for the token or the app, in every channel:
 * UNAUTHORIZED_ERRORS (slack/post-refusals.ts).
 */
export const CHANNEL_GONE_ERRORS = [
  'not_in_channel',
  'channel_not_found',
  'is_archived',
  'restricted_action',
  'restricted_action_read_only_channel',
  'restricted_action_thread_only_channel',
  'no_permission',
  'ekm_access_denied',
  'access_denied',
] as const;
export type ChannelGoneError = (typeof CHANNEL_GONE_ERRORS)[number];

export function isChannelGoneError(error: string): error is ChannelGoneError {
  return (CHANNEL_GONE_ERRORS as readonly string[]).includes(error);
}

export type PublishOutcome =
  /**
   * Slack accepted the message. `refused`: Slack refused the digest itself for what it holds (`invalid_blocks`,
   * `msg_too_long`...) and took the short plain fallback posted in its place (`ts`): the day is done all the same.
   */
  | { kind: 'posted'; ts: string; refused?: string }
  /**
   * Slack refused the digest for what it holds (`error`), and its plain fallback too (`fallbackError`): given up for
   * that day, never built nor posted again (a retry would be refused the same way). Nothing to pause or remove.
   */
  | { kind: 'refused'; error: string; fallbackError: string }
  /** The bot cannot post there any more; the subscription was removed and the subscriber told. */
  | { kind: 'channel_gone'; error: ChannelGoneError }
  /**
   * Not posted as far as is known (a long rate limit, an unexpected refusal; a 5xx or a cut connection, after
   * which `mayHaveArrived`: Slack may have shown it): try again later.
   */
  | { kind: 'retry'; reason: string; mayHaveArrived?: boolean }
  /** The workspace's bot token is gone or refused (uninstalled, revoked). */
  | { kind: 'unauthorized'; error: string }
  /** The guard said stop (the claim was lost) before anything was sent. */
  | { kind: 'stopped' };

export interface DigestDelivery {
  subscription: Subscription;
  view: DigestView;
  /** Render time. */
  now: number;
  /** How late the post is against its scheduled time (0 for `agora`). */
  delayMs: number;
  /** An earlier post of this digest was attempted then, with an outcome not known: the post says it may repeat. */
  mayRepeatSince?: number | null;
}

/**
 * Where digests go. Implemented on the Slack side (src/slack/digest-poster.ts), so the scheduler knows nothing of
 * Slack. `guard` is asked right before every send attempt; when it answers false nothing is sent.
 */
export interface DigestPublisher {
  publish(delivery: DigestDelivery, guard?: () => Promise<boolean>): Promise<PublishOutcome>;
}
