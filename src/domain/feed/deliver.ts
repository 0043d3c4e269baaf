import { errFields, type Logger } from '../../lib/logger.js';
import type { FeedListenerStore, WorkspaceListeners } from '../../store/feed-listeners.js';
import type { FeedSnapshotStore } from '../../store/feed-snapshot-store.js';
import { persistently } from '../persist.js';
import { route } from './route.js';
import type { FeedEvent, FeedPoster } from './types.js';

/**
 * Hands the outbox to the listeners: per target at most one FeedPoster.post per round, with every event of the
 * outbox that matches it and that it has not had yet. Exactly once per target and event, across replicas and
 * restarts: before posting, each event is claimed for the target in the store (`posting`, a lease); once Slack has
 * the message the claim becomes `sent` (kept 30 days, and for as long as the workspace is paused, since its outbox
 * waits as long), and an event claimed or sent is never posted to that target again. A post that fails gives its
 * claims back, so the next round posts them (late, with their detection time); a process that dies mid-post leaves
 * claims that expire, with the same outcome. An event leaves the outbox once every target it matches has it (or is
 * gone).
 *
 * The one case that posts twice: a process that dies after Slack took its message and before the claims became
 * `sent` (Slack's reply on its way, or the write under way). Its claims expire and the events are posted again:
 * twice rather than never, because chat.postMessage has no idempotency key and finding our own message in the
 * channel would need history scopes the bot does not ask for. The window is kept to one reply and one write: the
 * post's events become `sent` together, in one store write, so a death there leaves all of them sent or none.
 * The same holds for a post whose reply was lost on the way (a timeout, a connection cut). Such a repeat is not
 * silent: each post is noted before it goes (`notePostAttempt`) and the note is cleared once its outcome is known,
 * so a post that finds a note naming some of its events says it may repeat the one made then.
 * A post that waits (Slack's 429s) can outlast its claims: the poster asks a guard before every attempt, which
 * extends them, and sends nothing once they are gone (another process may be posting those events).
 */

/** Events older than this leave the outbox undelivered (a target that failed for a week is not coming back). */
export const OUTBOX_KEEP_MS = 7 * 86_400_000;

export interface DeliveryOutcome {
  posts: number;
  /** (target, event) pairs posted. */
  delivered: number;
  failed: number;
  lostTargets: number;
  /**
   * Posts Slack refused for what they hold, and their plain fallback too: their events count as delivered to that
   * target (never posted there again), as a retry would be refused the same way.
   */
  givenUp: number;
}

export interface DeliverDeps {
  snapshots: FeedSnapshotStore;
  listeners: Pick<FeedListenerStore, 'removeChannel' | 'removeUser' | 'updateLastSeen'>;
  poster: FeedPoster;
  logger: Logger;
  now: () => number;
  /** Names this process in claims. */
  owner: string;
  /** How long a `posting` claim holds when its process dies. */
  claimLeaseMs: number;
}

export async function deliverOutbox(
  deps: DeliverDeps,
  listeners: WorkspaceListeners,
  /** Called before each post: false when this process lost the round's lease (then it stops). */
  stillOwner: () => Promise<boolean>,
  /** When the last round that read the list started, when this one comes late (downtime, a spent budget). */
  lateSince: number | null = null,
  /** When the workspace last resumed from a pause: events that waited through it are kept from then. */
  resumedAt: number | null = null,
): Promise<DeliveryOutcome> {
  const { snapshots, poster, logger, owner } = deps;
  const { workspaceId } = listeners;
  const outcome: DeliveryOutcome = { posts: 0, delivered: 0, failed: 0, lostTargets: 0, givenUp: 0 };
  // A paused workspace keeps its outbox for when it resumes.
  if (listeners.paused !== null) return outcome;
  const now = deps.now();
  const all = await snapshots.outbox<FeedEvent>(workspaceId);
  const keptFrom = (event: FeedEvent) => Math.max(event.detectedAt, resumedAt ?? 0);
  const expired = all.filter((event) => now - keptFrom(event) > OUTBOX_KEEP_MS).map((event) => event.id);
  if (expired.length > 0) {
    logger.warn({ workspaceId, events: expired.length }, 'feed events expired undelivered');
    await snapshots.removeFromOutbox(workspaceId, expired);
  }
  const events = all.filter((event) => now - keptFrom(event) <= OUTBOX_KEEP_MS);
  if (events.length === 0) return outcome;

  /** Events some target still has to get: they stay in the outbox. */
  const unfinished = new Set<string>();
  /** The round's lease went to another process midway: the targets after it were never looked at. */
  let stopped = false;
  for (const delivery of route(listeners, events)) {
    const claimed: FeedEvent[] = [];
    for (const event of delivery.events) {
      if (await snapshots.claimDelivery(workspaceId, delivery.key, event.id, owner, deps.claimLeaseMs)) {
        claimed.push(event);
        continue;
      }
      const current = await snapshots.delivery(workspaceId, delivery.key, event.id);
      // Another process is posting it right now: leave it in the outbox until it says sent.
      if (current?.state !== 'sent') unfinished.add(event.id);
    }
    if (claimed.length === 0) continue;
    const giveBack = async () => {
      for (const event of claimed) {
        await snapshots.releaseDelivery(workspaceId, delivery.key, event.id, owner);
        unfinished.add(event.id);
      }
    };
    if (!(await stillOwner())) {
      await giveBack();
      stopped = true;
      break;
    }
    // An earlier post of some of these events whose outcome is not known (its process died before Slack's reply,
    // or the reply was lost): Slack may have shown them, so this post says it may repeat that one. The attempt is
    // noted before the post and cleared once its outcome is known.
    const claimedIds = claimed.map((event) => event.id);
    const prior = await snapshots.postAttempt(workspaceId, delivery.key);
    const inDoubt = prior?.eventIds.some((id) => claimedIds.includes(id)) ? prior : null;
    await snapshots.notePostAttempt(workspaceId, delivery.key, claimedIds, deps.now());
    /** Nothing reached Slack: what was in doubt before this post still is. */
    const notSent = () =>
      inDoubt === null
        ? snapshots.clearPostAttempt(workspaceId, delivery.key)
        : snapshots.notePostAttempt(workspaceId, delivery.key, inDoubt.eventIds, inDoubt.at);
    // Asked by the poster before every send attempt (a post can wait on Slack's 429s longer than a claim's lease):
    // the round is still this process's, and so is every claim, extended for the attempt. Otherwise another
    // process may be posting these events, and this one must not.
    let refused: 'round' | 'claims' | null = null;
    const guard = async () => {
      if (!(await stillOwner())) refused = 'round';
      else if (
        !(await snapshots.renewDeliveries(
          workspaceId,
          delivery.key,
          claimed.map((event) => event.id),
          owner,
          deps.claimLeaseMs,
        ))
      )
        refused = 'claims';
      return refused === null;
    };
    // What `/solicitacao acompanhando` and the Home show: the status the follower is being told about. Kept before
    // the post, so that the Home the poster republishes after a DM already shows it (a post that fails is retried
    // with the same status).
    if (delivery.target.kind === 'dm') {
      for (const event of claimed) {
        if (event.kind !== 'status') continue;
        await deps.listeners
          .updateLastSeen(workspaceId, delivery.target.userId, event.requestId, event.toStatus)
          .catch((error: unknown) => logger.warn({ workspaceId, ...errFields(error) }, 'last seen not kept'));
      }
    }
    let result: Awaited<ReturnType<FeedPoster['post']>>;
    try {
      result = await poster.post(workspaceId, delivery.target, claimed, {
        lateSince,
        guard,
        mayRepeatSince: inDoubt?.at ?? null,
      });
    } catch (error) {
      logger.warn({ workspaceId, target: delivery.key, ...errFields(error) }, 'feed post failed');
      result = { ok: false, lost: false, error: error instanceof Error ? error.message : String(error) };
    }
    if (refused !== null) {
      logger.info({ workspaceId, target: delivery.key, lost: refused }, 'feed post stopped before sending');
      await giveBack();
      await notSent();
      if (refused === 'round') {
        stopped = true;
        break;
      }
      continue;
    }
    outcome.posts += 1;
    // Refused for what it holds, its plain fallback too: sent again, it would be refused again. Given up for this
    // target: its claims become `sent`, as a post's do, so no round and no replica posts these events there again.
    const givenUp = !result.ok && result.givenUp === true;
    if (result.ok || givenUp) {
      // Slack has it: the claims must say so, or they expire and it is posted again. A store that cannot take them
      // for a moment (a Redis restart) is asked again within half the claims' lease, renewed right before the post.
      await persistently(
        () => snapshots.markDelivered(workspaceId, delivery.key, claimedIds, deps.now()),
        deps.claimLeaseMs / 2,
      );
      await snapshots.clearPostAttempt(workspaceId, delivery.key);
      if (result.ok) outcome.delivered += claimed.length;
      else {
        outcome.givenUp += 1;
        logger.error(
          { workspaceId, target: delivery.key, error: result.error, events: claimedIds.length },
          'feed post refused by Slack for what it holds, its plain fallback too: given up for this target',
        );
      }
      continue;
    }
    if (!result.lost) {
      outcome.failed += 1;
      logger.warn(
        {
          workspaceId,
          target: delivery.key,
          error: result.error,
          mayHaveArrived: result.mayHaveArrived === true,
        },
        'feed post refused; retried next round',
      );
      await giveBack();
      // Slack may have it: the attempt stays, and the next post of these events says it may repeat it.
      if (result.mayHaveArrived !== true) await notSent();
      continue;
    }
    await snapshots.clearPostAttempt(workspaceId, delivery.key);
    // The target can never be reached again: its listeners end, and its claims are kept (nothing to retry).
    outcome.lostTargets += 1;
    logger.info(
      { workspaceId, target: delivery.key, error: result.error },
      'feed target lost; its listeners end',
    );
    if (delivery.target.kind === 'channel') {
      await deps.listeners.removeChannel(workspaceId, delivery.target.channelId);
      if (delivery.feed) {
        await poster.tellFeedLost(workspaceId, delivery.feed, result.error).catch((error: unknown) => {
          logger.warn(
            { workspaceId, ...errFields(error) },
            'could not tell the subscriber the feed was lost',
          );
        });
      }
    } else {
      await deps.listeners.removeUser(workspaceId, delivery.target.userId);
    }
  }
  // Stopped midway, nothing leaves the outbox: an event may be due to a target not reached yet, and the process
  // that holds the round now delivers it (the claims keep what was posted from being posted again).
  if (stopped) return outcome;
  const done = events.map((event) => event.id).filter((id) => !unfinished.has(id));
  await snapshots.removeFromOutbox(workspaceId, done);
  return outcome;
}
