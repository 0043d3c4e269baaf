import type { ChannelFeed, FeedPauseReason, Follow } from '../../store/feed-listeners.js';
import type { Subscription } from '../../store/subscription-store.js';
import type { MaterialRequest } from '../../upstream/schemas.js';
import type { Freshness, LinkStatusView } from '../views.js';

/** Why the Home shows no requests of the user, or the requests it shows. */
export type MineSection =
  | { state: 'not_linked' }
  | { state: 'broken' }
  /** The user was never matched and the users list is not cached: `Atualizar` finds out. */
  | { state: 'unknown' }
  /** No upstream user has the Slack user's e-mail (or Slack gave none). */
  | { state: 'no_match'; email: string | null }
  /** Matched, but the user's list is not cached: `Atualizar` reads it. */
  | { state: 'not_cached'; upstreamUserName: string | null }
  /**
   * `Atualizar` could not read upstream and nothing was cached. `error`: why (the budget spent, a 5xx...), shown
   * as a command shows it; `correlationId`: the one its log line carries, named to the user for support.
   */
  | { state: 'unavailable'; code: string; error: unknown; correlationId: string }
  | {
      state: 'list';
      upstreamUserName: string | null;
      /**
       * Every open request among the rows read (the whole block of the list's first read, last 30 days), newest
       * first (newestFirst: the list's order is not documented). Until 2026-11-27 only those of the block's first
       * 10 rows, in the order served.
       */
      open: MaterialRequest[];
      /** Rows of the whole list (open or not), as upstream counted them (a lower bound unless `allRead`). */
      totalRows: number;
      /** Rows read (one block, LIST_BLOCK_SIZE at most). */
      rowsRead: number;
      /** Every row of the list was read: no open request of the user can be missing from `open`. */
      allRead: boolean;
      freshness: Freshness;
    };

/**
 * What the App Home tab shows to one user; built from stored and cached data only unless refreshed. A section
 * whose store read failed (a Redis hiccup) is null: shown as unavailable now, the rest of the Home still shown.
 */
export interface HomeView {
  userId: string;
  isAdmin: boolean;
  status: LinkStatusView | null;
  mine: MineSection;
  digests: Subscription[] | null;
  /** The change feed (PRODUCT.md, "Alerts"): what this user follows, and the workspace's channel alerts. */
  feed: {
    /** Null when the follows, or the follow of the user's own requests, could not be read. */
    follows: Follow[] | null;
    /** The e-mail when the user follows their own requests (`/solicitacao minhas acompanhar`). */
    ownFollowEmail: string | null;
    alerts: ChannelFeed[] | null;
    /** `unknown`: the pause could not be read (the sections say so). */
    paused: FeedPauseReason | null | 'unknown';
  };
}
