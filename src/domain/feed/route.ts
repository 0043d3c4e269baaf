import type { WorkspaceListeners } from '../../store/feed-listeners.js';
import type { ChannelFeed, FeedEvent, FeedTarget } from './types.js';

/**
 * Which listener gets which event (PRODUCT.md, "Alerts"): a channel feed its kinds of its stockroom (or every
 * stockroom); a follower the status changes of the request and the receipts of purchases linked to it; an own
 * follower the same of every request whose requester e-mail is theirs, new ones included. A user's follows and own follow
 * make one DM. A listener gets only events detected since it began listening, so a new feed does not receive what
 * an outbox still holds for others. A status event that names its `followers` goes to their DMs alone; one that
 * names a user in `seenBy` (shown its new status when they followed) goes to every listener but them.
 */

export interface Delivery {
  /** Names the target in delivery claims: `c-<channel>` or `u-<user>`. */
  key: string;
  target: FeedTarget;
  /** Oldest first. */
  events: FeedEvent[];
  /** The channel's feed, for `tellFeedLost` when the channel is lost. */
  feed: ChannelFeed | null;
}

export function targetKey(target: FeedTarget): string {
  return target.kind === 'channel' ? `c-${target.channelId}` : `u-${target.userId}`;
}

export function route(listeners: WorkspaceListeners, events: readonly FeedEvent[]): Delivery[] {
  if (listeners.paused !== null || events.length === 0) return [];
  const ordered = [...events].sort((a, b) => a.detectedAt - b.detectedAt || a.id.localeCompare(b.id));
  const out: Delivery[] = [];

  for (const feed of listeners.channels) {
    if (feed.paused !== null) continue;
    const matching = ordered.filter(
      (event) =>
        event.detectedAt >= feed.createdAt &&
        feed.kinds.includes(event.kind) &&
        // A followed request older than the 30 days is read for its followers only, and a change found against what
        // followers were shown is theirs alone.
        !(event.kind === 'status' && (event.outsideRecent === true || event.followers !== undefined)) &&
        (feed.stockroomId === null || event.stockroomId === feed.stockroomId),
    );
    const target: FeedTarget = { kind: 'channel', channelId: feed.channelId };
    if (matching.length > 0) out.push({ key: targetKey(target), target, events: matching, feed });
  }

  const users = new Set([
    ...listeners.follows.map((follow) => follow.userId),
    ...listeners.ownFollows.map((own) => own.userId),
  ]);
  for (const userId of [...users].sort()) {
    const follows = listeners.follows.filter((follow) => follow.userId === userId);
    const own = listeners.ownFollows.find((entry) => entry.userId === userId);
    const email = own?.email.trim().toLowerCase() ?? null;
    const followedSince = (requestId: number) =>
      follows.find((follow) => follow.requestId === requestId)?.createdAt ?? null;
    const matching = ordered.filter((event) => {
      if (event.kind === 'recebimentos') {
        const followed = event.requestIds.some((id) => {
          const since = followedSince(id);
          return since !== null && event.detectedAt >= since;
        });
        const ownLinked =
          own !== undefined &&
          email !== null &&
          event.detectedAt >= own.createdAt &&
          (event.requesterEmails ?? []).includes(email);
        return followed || ownLinked;
      }
      if (event.kind === 'status') {
        // Shown this status already (they followed after the change): not news to them, by any of their follows.
        if (event.seenBy?.includes(userId)) return false;
        const since = followedSince(event.requestId);
        const followed = since !== null && event.detectedAt >= since;
        if (event.followers !== undefined) return followed && event.followers.includes(userId);
        if (followed) return true;
      }
      return (
        own !== undefined &&
        email !== null &&
        event.detectedAt >= own.createdAt &&
        event.requesterEmail?.trim().toLowerCase() === email
      );
    });
    const target: FeedTarget = { kind: 'dm', userId };
    if (matching.length > 0) out.push({ key: targetKey(target), target, events: matching, feed: null });
  }
  return out;
}
