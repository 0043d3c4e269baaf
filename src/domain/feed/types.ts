/**
 * The change feed's shared vocabulary (PRODUCT.md, "Alerts: the change feed"). The detection rounds
 * (domain/feed) produce FeedEvents; listeners (channel feeds, follows, own-request follows) are kept by a
 * FeedListeners store; a FeedPoster (slack layer) turns one round's events for one listener into one message.
 */

export type FeedEventKind = 'novas' | 'status' | 'recebimentos';

export const FEED_EVENT_KINDS: readonly FeedEventKind[] = ['novas', 'status', 'recebimentos'];

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
}

export interface ReceiptEvent extends FeedEventBase {
  kind: 'recebimentos';
  purchaseId: number;
  supplierName: string | null;
  /** True when the purchase left the pending list; false when only its pending balance fell. */
  complete: boolean;
  /** Requests linked to the purchase (`/compras-materiais/{id}/solicitacoes`), for follows. */
  requestIds: number[];
}

export type FeedEvent = NewRequestEvent | StatusEvent | ReceiptEvent;

export type FeedPauseReason = 'unlinked' | 'tokens_revoked';

/** `/estoque alertas assinar [almox:ID] [eventos:...]` in a channel. One per workspace and channel. */
export interface ChannelFeed {
  workspaceId: string;
  channelId: string;
  /** null: every stockroom. */
  stockroomId: number | null;
  /** Never empty; default every kind. */
  kinds: FeedEventKind[];
  subscribedBy: string;
  createdAt: number;
  paused: FeedPauseReason | null;
}

/** A user following one request (`Acompanhar`, `/solicitacao <id> acompanhar`). */
export interface Follow {
  workspaceId: string;
  userId: string;
  requestId: number;
  /** Status name when the follow began or last changed: what `/solicitacao acompanhando` shows. */
  lastSeenStatus: string | null;
  createdAt: number;
}

/** A user following every request whose requester is them (`/solicitacao minhas acompanhar`). */
export interface OwnFollow {
  workspaceId: string;
  userId: string;
  /** The e-mail matched against the requester's, as `/solicitacao minhas` does. */
  email: string;
  createdAt: number;
}

/** Who gets one round's message. */
export type FeedTarget = { kind: 'channel'; channelId: string } | { kind: 'dm'; userId: string };

/** What posting one message came to. `lost`: the target can never be reached again (channel gone, DM refused). */
export type FeedPostResult = { ok: true } | { ok: false; lost: boolean; error: string };

/**
 * The slack layer's side: posts at most one message per target and round, listing every event of the round
 * for that target (at most 10 rows and "e mais N", each with a button to its detail). `lateSince` set when
 * the events were detected later than they happened (a round after downtime or a spent budget).
 */
export interface FeedPoster {
  post(workspaceId: string, target: FeedTarget, events: FeedEvent[]): Promise<FeedPostResult>;
  /** Tells a subscriber that their channel feed was removed because the channel is lost. */
  tellFeedLost(workspaceId: string, feed: ChannelFeed): Promise<void>;
}
