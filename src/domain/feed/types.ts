/**
 * The change feed's shared vocabulary (PRODUCT.md, "Alerts: the change feed"). The detection rounds
 * (domain/feed) produce FeedEvents; listeners (channel feeds, follows, own-request follows) are kept by a
 * FeedListeners store; a FeedPoster (slack layer) turns one round's events for one listener into one message.
 */

// The listeners' types live with their store (a lower layer may not import this one); named here as well.
export type {
  ChannelFeed,
  FeedEventKind,
  FeedPauseReason,
  Follow,
  OwnFollow,
} from '../../store/feed-listeners.js';
export { FEED_EVENT_KINDS } from '../../store/feed-listeners.js';

import type { ChannelFeed } from '../../store/feed-listeners.js';

interface FeedEventBase {
  /** Derived from the data (workspace + subject + transition), so two replicas or a rerun get the same id. */
  id: string;
  workspaceId: string;
  /** The round that saw it (epoch ms). */
  detectedAt: number;
  /** Stockroom of the request or purchase when known, for `almox:` filters. */
  stockroomId: number | null;
}

export interface NewRequestEvent extends FeedEventBase {
  kind: 'novas';
  requestId: number;
  stockroomName: string | null;
  requesterName: string | null;
  requesterEmail: string | null;
  statusName: string | null;
}

export interface StatusEvent extends FeedEventBase {
  kind: 'status';
  requestId: number;
  fromStatus: string | null;
  toStatus: string | null;
  requesterEmail: string | null;
  /**
   * The request is older than the rounds' 30 days (the list has not shown it within them), read only because someone
   * follows it: its change is for its followers, not for channel feeds (which cover the 30-day list).
   */
  outsideRecent?: boolean;
  /**
   * Set when the change was found against what these users were shown when they followed the request (the round
   * that first reads it has no status of its own to compare): only their DMs get it, no channel, no own follow.
   */
  followers?: string[];
  /**
   * Followers of the request who had already been shown `toStatus` when the change was found (they followed it after
   * it happened): not told of it in a DM. The channels still get it. Absent on events stored before 2026-11-27.
   */
  seenBy?: string[];
}

export interface ReceiptEvent extends FeedEventBase {
  kind: 'recebimentos';
  purchaseId: number;
  supplierName: string | null;
  /** True when the purchase left the pending list; false when only its pending balance fell. */
  complete: boolean;
  /** Requests linked to the purchase (`/compras-materiais/{id}/solicitacoes`), for follows. */
  requestIds: number[];
  /**
   * Their requesters' e-mails (lower case), for own-request follows; empty when nobody followed their own requests
   * at detection, or the users list could not be read. Absent on events stored before it existed.
   */
  requesterEmails?: string[];
}

export type FeedEvent = NewRequestEvent | StatusEvent | ReceiptEvent;

/** Who gets one round's message. */
export type FeedTarget = { kind: 'channel'; channelId: string } | { kind: 'dm'; userId: string };

/**
 * What posting one message came to (a message Slack refused for what it holds and whose plain fallback it took is
 * `ok`). `lost`: the target can never be reached again (channel gone, DM refused).
 */
export type FeedPostResult =
  | { ok: true }
  | {
      ok: false;
      lost: boolean;
      error: string;
      /** The post failed on the way after it may have reached Slack (a timeout, a connection cut). */
      mayHaveArrived?: boolean;
      /**
       * Refused for good for what the message holds, and so was the short plain one sent in its place: posting these
       * events to this target again would be refused again. They count as delivered there (logged), never retried.
       */
      givenUp?: true;
    };

export interface FeedPostOptions {
  /**
   * The last round of the workspace that read the request list started then: the changes happened at some point
   * since (said when late).
   */
  lateSince?: number | null;
  /**
   * Some of these events were in a post made then whose outcome is unknown (its process died, or its reply was
   * lost): Slack may have shown them already. The message says it may repeat that one.
   */
  mayRepeatSince?: number | null;
  /**
   * Asked right before every send attempt (the first, and each after a wait for Slack's rate limit): false means
   * the claims on these events ran out and another process may post them, so nothing is sent.
   */
  guard?: () => Promise<boolean>;
}

/**
 * The slack layer's side: posts at most one message per target and round, listing every event of the round
 * for that target (at most 10 rows and "e mais N", each with a button to its detail). `lateSince` set when
 * the events were detected later than they happened (a round after downtime or a spent budget).
 */
export interface FeedPoster {
  post(
    workspaceId: string,
    target: FeedTarget,
    events: FeedEvent[],
    options?: FeedPostOptions,
  ): Promise<FeedPostResult>;
  /** Tells a subscriber that their channel feed was removed because the channel is lost. */
  /** `error`: Slack's refusal that lost the channel. */
  tellFeedLost(workspaceId: string, feed: ChannelFeed, error?: string): Promise<void>;
  /**
   * Tells a follower that their follows of these request numbers ended because the workspace now links another
   * company (the numbers name other requests there).
   */
  tellFollowsEnded(workspaceId: string, userId: string, requestIds: readonly number[]): Promise<void>;
}
