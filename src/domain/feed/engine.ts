import { createHash, randomBytes } from 'node:crypto';
import { type Clock, systemClock, type TimerHandle } from '../../lib/clock.js';
import { orAfter } from '../../lib/deadline.js';
import { errFields, type Logger } from '../../lib/logger.js';
import type { FeedListenerStore, Follow, WorkspaceListeners } from '../../store/feed-listeners.js';
import type { FeedRoundState, FeedSnapshotStore } from '../../store/feed-snapshot-store.js';
import type { WorkspaceLink } from '../../store/link-store.js';
import type { DomainDeps } from '../deps.js';
import { LinkBrokenError, NotLinkedError } from '../errors.js';
import { type DeliveryOutcome, deliverOutbox } from './deliver.js';
import { FeedRound, RECEIPTS_EVERY_INTERVALS, RoundLeaseLostError, type RoundOutcome } from './round.js';
import type { FeedPoster } from './types.js';

/**
 * The change feed's scheduler, one per replica. The workspaces with listeners wait in one sorted set in the store,
 * scored by when their next round is due (`Keys.feedSchedule`); every tick asks it for the due ones only and runs
 * the round of each, under a lease in the store so that one round of a workspace runs at a time across replicas.
 * A workspace's first round (it only records) runs at the first tick after its first listener arrives; the round after
 * it falls at the workspace's place in the interval, an offset derived from its id (at least an interval later), and
 * each round plans the next one interval later, so the rounds of many workspaces spread over the interval instead of
 * firing together. (One found recorded but never planned, state an earlier version left, is placed at its offset.)
 * A replica that dies mid-round leaves its lease to expire and the workspace's score (and `nextRoundAt`) unchanged: the
 * next tick of any replica runs it, and the snapshot and the outbox make it report everything since.
 *
 * The interval stretches when the feed's share of the budget cannot pay for it: a round that cost C calls, with a
 * share of S calls per window W, may run at most every C × W / S.
 */

export const ROUND_LEASE_MS = 3 * 60_000;
/** How long stop() waits for the round in progress by default (as the digest scheduler's). */
export const FEED_STOP_WAIT_MS = 10_000;
const DEFAULT_TICK_MS = 5_000;
const DEFAULT_BATCH = 200;

export type FeedListenerSource = Pick<
  FeedListenerStore,
  'listWorkspaces' | 'listWorkspace' | 'removeChannel' | 'removeUser' | 'updateLastSeen' | 'unfollow'
>;

export interface FeedEngineOptions {
  domain: DomainDeps;
  snapshots: FeedSnapshotStore;
  listeners: FeedListenerSource;
  poster: FeedPoster;
  logger: Logger;
  /** FEED_INTERVAL. */
  intervalMs: number;
  /** The budget's window and the feed's share of it in calls (feedShareCalls: at least 1 unless the share is 0). */
  share: { windowMs: number; calls: number };
  /** The loop's timers (the time itself comes from domain.now). */
  clock?: Clock;
  owner?: string;
  leaseMs?: number;
  tickMs?: number;
  /** How many due workspaces one read of the schedule asks for (a tick reads again while a batch comes back full). */
  batch?: number;
}

export type RoundReport =
  | {
      ran: true;
      workspaceId: string;
      round: RoundOutcome;
      delivery: DeliveryOutcome;
      /** The interval the share pays for (the next round's plan). */
      intervalMs: number;
      /** How often the rounds really come (the status's interval). */
      intervalInForceMs: number;
      /** When the round was due (its plan) and when it started: how late the scheduler ran it. */
      plannedAt: number | null;
      startedAt: number;
    }
  | {
      ran: false;
      workspaceId: string;
      reason:
        | 'planned'
        | 'not-due'
        | 'leased'
        | 'lease-lost'
        | 'no-listeners'
        | 'paused'
        | 'not-linked'
        | 'feed-off'
        | 'stopping';
    };

/** What `/estoque status` shows of the feed. */
export interface FeedStatus {
  listening: boolean;
  /** The interval in force: how often the rounds really come (see intervalInForce). */
  intervalMs: number;
  /**
   * Why it is longer than FEED_INTERVAL: `share`, the feed's share of the window cannot pay for rounds that often;
   * `load`, complete rounds came later than planned (their reads waited for slots: interactive users come first).
   */
  stretchedBy: 'share' | 'load' | null;
  lastRoundAt: number | null;
  lastRoundCalls: number | null;
}

export class FeedEngine {
  private readonly owner: string;
  private readonly leaseMs: number;
  private readonly tickMs: number;
  private readonly clock: Clock;
  private readonly now: () => number;
  private timer: TimerHandle | null = null;
  private ticking: Promise<void> | null = null;
  private stopped = true;
  /** stop() was called: a tick under way starts no further round, and a round that fails now is left due. */
  private halting = false;
  /** When this replica next reconciles the schedule with the listener index (0: on its first tick). */
  private reconcileAt = 0;
  private readonly batch: number;

  constructor(private readonly options: FeedEngineOptions) {
    this.owner = options.owner ?? `p${process.pid}-${randomBytes(4).toString('hex')}`;
    this.leaseMs = options.leaseMs ?? ROUND_LEASE_MS;
    this.tickMs = options.tickMs ?? Math.min(DEFAULT_TICK_MS, Math.max(250, options.intervalMs / 4));
    this.clock = options.clock ?? systemClock;
    this.now = options.domain.now;
    this.batch = options.batch ?? DEFAULT_BATCH;
  }

  /** The shortest interval the share pays for, for a round that cost `calls`. */
  intervalFor(calls: number): number {
    const { share, intervalMs } = this.options;
    if (share.calls <= 0) return Number.POSITIVE_INFINITY;
    return Math.max(intervalMs, Math.ceil((Math.max(1, calls) * share.windowMs) / share.calls));
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.halting = false;
    this.schedule(0);
  }

  /**
   * Stops the loop: the tick in progress starts no further round (the workspaces it had not reached take no lease),
   * and the round in flight finishes or gives its lease back. Waits for it at most `waitMs`; a round still running
   * then (waiting for the budget, a slow upstream) is cut by the container closing the budget and the connections:
   * it gives its lease back and stays due, so another replica runs it at once instead of after the lease.
   */
  async stop(waitMs = FEED_STOP_WAIT_MS): Promise<void> {
    this.stopped = true;
    this.halting = true;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    if (this.ticking === null) return;
    await orAfter(this.ticking, waitMs, () => undefined, this.clock);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.ticking = this.tick()
        .then(() => undefined)
        .catch((error: unknown) => this.options.logger.error(errFields(error), 'feed tick failed'))
        .finally(() => {
          this.ticking = null;
          this.schedule(this.tickMs);
        });
    }, ms);
  }

  /**
   * One pass: asks the schedule for the workspaces due now (`batch` at a time, most overdue first) and runs the
   * round of each one no other replica runs. A workspace not due costs this replica nothing. Once an interval, and on the
   * first tick, it also enters in the schedule the indexed workspaces that are not in it (see `reconcile`).
   */
  async tick(): Promise<RoundReport[]> {
    if (this.options.share.calls <= 0) return [];
    const reports: RoundReport[] = [];
    if (this.now() >= this.reconcileAt) {
      this.reconcileAt = this.now() + this.options.intervalMs;
      await this.reconcile();
    }
    // Batch after batch until fewer than a batch are due. A round run, planned or dropped leaves the due range; one
    // another replica holds stays in it, so the next batch skips as many as were left behind. A stop ends it before
    // the next workspace: the rest stay due, unleased, for the other replicas.
    let behind = 0;
    while (!this.halting) {
      const due = await this.options.snapshots.due(this.now(), this.batch, behind);
      for (const workspaceId of due) {
        if (this.halting) break;
        try {
          const report = await this.runLeased(workspaceId);
          reports.push(report);
          if (!report.ran && (report.reason === 'leased' || report.reason === 'lease-lost')) behind += 1;
        } catch (error) {
          behind += 1;
          this.options.logger.error({ workspaceId, ...errFields(error) }, 'feed round failed');
        }
      }
      if (due.length < this.batch) break;
    }
    return reports;
  }

  /**
   * Enters in the schedule every workspace with listeners that is not in it, at its stored next round (or now: the
   * round then plans it on first sight). The schedule is kept by the listener store as listeners come and go; this
   * covers the state an earlier version left (rounds planned in the round state only) and a listener that arrived
   * while a round took its workspace out. Returns how many were entered.
   */
  async reconcile(): Promise<number> {
    const { snapshots, listeners } = this.options;
    const scheduled = await snapshots.scheduled();
    let entered = 0;
    for (const workspaceId of await listeners.listWorkspaces()) {
      if (scheduled.has(workspaceId)) continue;
      const state = await snapshots.state(workspaceId);
      await snapshots.enter(workspaceId, state.nextRoundAt ?? this.now());
      entered += 1;
    }
    if (entered > 0) this.options.logger.info({ entered }, 'feed schedule: workspaces entered');
    return entered;
  }

  /** Runs the workspace's round if it is due and no other process runs it. */
  async runIfDue(workspaceId: string): Promise<RoundReport> {
    if (this.options.share.calls <= 0) return { ran: false, workspaceId, reason: 'feed-off' };
    const planned = await this.options.snapshots.state(workspaceId);
    if (planned.nextRoundAt !== null && planned.nextRoundAt > this.now())
      return { ran: false, workspaceId, reason: 'not-due' };
    return this.runLeased(workspaceId);
  }

  /** Takes the round's lease, then plans (first sight) or runs the round if it is (still) due. */
  private async runLeased(workspaceId: string): Promise<RoundReport> {
    const { snapshots, logger } = this.options;
    if (!(await snapshots.takeRound(workspaceId, this.owner, this.leaseMs)))
      return { ran: false, workspaceId, reason: 'leased' };
    try {
      if (this.halting) return { ran: false, workspaceId, reason: 'stopping' };
      const state = await snapshots.state(workspaceId);
      // First sight of a workspace the feed never recorded: its first listener just arrived (the listener store
      // entered it due now). Its recording round runs now, not at its place in the interval: until that round reads,
      // whatever appears is recorded as what exists, never told, so that wait must be short. It runs as any round,
      // at the feed's priority and within its share; the rounds after it come an interval apart from it.
      if (state.nextRoundAt === null && state.recordedAt === null)
        return await this.runRound(workspaceId, state);
      if (state.nextRoundAt === null) {
        // First sight of a workspace recorded before (state an earlier version left): its place in the interval
        // comes from its id.
        await snapshots.updateState(workspaceId, {
          nextRoundAt: this.now() + spreadOffset(workspaceId, this.options.intervalMs),
        });
        return { ran: false, workspaceId, reason: 'planned' };
      }
      if (state.nextRoundAt > this.now()) {
        // Another replica finished the round between the look and the lease (the schedule has moved already), or
        // the schedule was behind the round state (a listener came back within an interval): put it in step.
        await snapshots.updateState(workspaceId, { nextRoundAt: state.nextRoundAt });
        return { ran: false, workspaceId, reason: 'not-due' };
      }
      return await this.runRound(workspaceId, state);
    } catch (error) {
      // Another process holds the round now and will plan the next one.
      if (error instanceof RoundLeaseLostError) {
        logger.warn({ workspaceId }, 'feed round lease lost; the round is left to the process that holds it');
        return { ran: false, workspaceId, reason: 'lease-lost' };
      }
      if (this.halting) {
        // Cut by the stop (its budget closed, its connections cut): as if the replica had died, without the wait
        // for the lease. The snapshot and the outbox make the next holder report everything since.
        logger.warn(
          { workspaceId, ...errFields(error) },
          'feed round cut by the stop; left due for another replica',
        );
        return { ran: false, workspaceId, reason: 'stopping' };
      }
      logger.error({ workspaceId, ...errFields(error) }, 'feed round failed');
      await snapshots.updateState(workspaceId, { nextRoundAt: this.now() + this.options.intervalMs });
      throw error;
    } finally {
      await snapshots.releaseRound(workspaceId, this.owner).catch(() => undefined);
    }
  }

  /**
   * A link to another company: the request numbers followed were that company's requests, and name others under the
   * new link, whose changes their followers would be DMed about as if they were theirs. Those follows end, and each
   * follower is told which (own follows, by e-mail, still mean the person's requests, and stay). Each step may run
   * again: a round that dies midway leaves the old scope, and the next one ends what is left. A follow already ended
   * (by the link itself, or another replica's round) is not told again.
   */
  private async endFollowsOfAnotherCompany(workspaceId: string, follows: readonly Follow[]): Promise<void> {
    const byUser = new Map<string, number[]>();
    for (const follow of follows) {
      if (!(await this.options.listeners.unfollow(workspaceId, follow.userId, follow.requestId))) continue;
      byUser.set(follow.userId, [...(byUser.get(follow.userId) ?? []), follow.requestId]);
    }
    for (const [userId, requestIds] of byUser) {
      await this.options.poster.tellFollowsEnded(workspaceId, userId, requestIds).catch((error: unknown) => {
        this.options.logger.warn(
          { workspaceId, userId, ...errFields(error) },
          'could not tell a follower their follows ended with the link to another company',
        );
      });
    }
    if (byUser.size > 0)
      this.options.logger.info(
        { workspaceId, follows: follows.length, followers: byUser.size },
        'follows of request numbers ended: the workspace links another company',
      );
  }

  private async runRound(workspaceId: string, planned: FeedRoundState): Promise<RoundReport> {
    let state = planned;
    const { snapshots, domain, logger } = this.options;
    const startedAt = this.now();
    const later = (ms: number) => snapshots.updateState(workspaceId, { nextRoundAt: startedAt + ms });
    let listeners = await this.options.listeners.listWorkspace(workspaceId);
    if (listeners.paused !== null) {
      await later(this.options.intervalMs);
      return { ran: false, workspaceId, reason: 'paused' };
    }
    if (!hasListeners(listeners)) {
      // Out of the schedule; a second look puts it back if a listener arrived meanwhile (the listener store
      // enters it only when it is not there, which it was until now). What the feed saw goes too: whenever a
      // listener comes back, its first round only records, instead of reporting everything since as new.
      // No plan is written after the forget: a listener who comes is the workspace's first again, and its
      // recording round runs at once (see runLeased), not up to an interval later.
      await snapshots.leave(workspaceId);
      await snapshots.forget(workspaceId);
      const again = await this.options.listeners.listWorkspace(workspaceId);
      if (again.paused !== null || hasListeners(again)) await snapshots.enter(workspaceId, startedAt);
      return { ran: false, workspaceId, reason: 'no-listeners' };
    }
    let ws: Awaited<ReturnType<DomainDeps['workspaces']['resolve']>>;
    try {
      ws = await domain.workspaces.resolve(workspaceId, 'feed', `feed-${workspaceId}-${startedAt}`);
    } catch (error) {
      if (!(error instanceof NotLinkedError || error instanceof LinkBrokenError)) throw error;
      await later(this.options.intervalMs);
      return { ran: false, workspaceId, reason: 'not-linked' };
    }
    // The snapshot belongs to the company (and unit) it was read from. Linked to another one since (directly, or
    // unlinked and linked again), its requests are other requests under the same numbers: start over, recording.
    const scope = feedScope(ws.link);
    const seen = state.scope;
    if (seen !== null && seen !== scope) {
      logger.info({ workspaceId }, 'feed starts over: the workspace links another company or unit');
      await snapshots.forget(workspaceId);
      state = await snapshots.state(workspaceId);
    }
    // A follow names the request of the company linked when it was made (Follow.empresaId); one made before that
    // was recorded counts as the company the feed last read. Until 2026-11-27 every follow ended at a company
    // change, those made under the new link (before this round) too.
    const companyChanged = seen !== null && seen.split(':')[0] !== scope.split(':')[0];
    const another = listeners.follows.filter((follow) =>
      follow.empresaId === undefined ? companyChanged : follow.empresaId !== ws.link.empresaId,
    );
    if (another.length > 0) {
      await this.endFollowsOfAnotherCompany(workspaceId, another);
      listeners = await this.options.listeners.listWorkspace(workspaceId);
    }
    if (seen !== scope) await snapshots.setScope(workspaceId, scope);

    const intervalMs = this.intervalFor(state.lastRoundCalls ?? 1);
    const round = await new FeedRound(
      domain,
      snapshots,
      ws,
      listeners,
      state,
      RECEIPTS_EVERY_INTERVALS * intervalMs,
      () => snapshots.renewRound(workspaceId, this.owner, this.leaseMs),
    ).run();
    const delivery = await deliverOutbox(
      {
        snapshots,
        listeners: this.options.listeners,
        poster: this.options.poster,
        logger,
        now: this.now,
        owner: this.owner,
        claimLeaseMs: this.leaseMs,
      },
      listeners,
      () => snapshots.renewRound(workspaceId, this.owner, this.leaseMs),
      lateSince(state, startedAt, intervalMs),
      state.resumedAt,
    );
    // The interval the share pays for, measured on this round; a spent budget puts the next round after its slot.
    // The plan follows the share only: the interval in force (what the rounds really achieve, below) is reported,
    // never planned with, or one slow stretch would keep the rounds apart after the load has gone.
    const nextInterval = this.intervalFor(round.calls);
    const after = Math.max(startedAt + nextInterval, round.budgetRetryAt ?? 0);
    // The round after a workspace's first (run as its first listener came) falls at the workspace's place in the
    // interval, derived from its id: the rounds of workspaces whose first rounds ran together (a deployment's first
    // start with many listeners, the feed turned on) spread over the interval instead of firing together for good.
    // Not when the first round was cut short (a spent share): the recording goes on as soon as it may.
    const nextRoundAt =
      planned.nextRoundAt === null && round.complete
        ? placeInInterval(after, workspaceId, this.options.intervalMs)
        : after;
    const { intervalMs: inForce, lateMs } = intervalInForce(
      state,
      round.complete,
      startedAt,
      this.now(),
      nextInterval,
    );
    await snapshots.updateState(workspaceId, {
      nextRoundAt,
      intervalMs: inForce,
      shareIntervalMs: nextInterval,
      lateMs,
      lastRoundCalls: round.calls,
      lastRoundAt: startedAt,
      ...(round.readList && { lastReadAt: startedAt }),
      ...(round.complete && { lastCompleteAt: startedAt }),
    });
    logger.info(
      {
        workspaceId,
        ...round,
        ...delivery,
        intervalMs: nextInterval,
        intervalInForceMs: inForce,
        correlationId: ws.call.correlationId,
      },
      'feed round',
    );
    return {
      ran: true,
      workspaceId,
      round,
      delivery,
      intervalMs: nextInterval,
      intervalInForceMs: inForce,
      plannedAt: state.nextRoundAt,
      startedAt,
    };
  }

  /**
   * The workspace was just linked to another company (LinkService.link): the follows made under another company
   * (or before follows recorded theirs) end at once, and their followers are told, rather than at the next round.
   * What the feed saw is left to that round, under its lease: it sees the new scope and starts over, recording.
   */
  async linkedAnotherCompany(workspaceId: string, empresaId: number | null): Promise<void> {
    const { follows } = await this.options.listeners.listWorkspace(workspaceId);
    const another = follows.filter((follow) => follow.empresaId !== empresaId);
    if (another.length > 0) await this.endFollowsOfAnotherCompany(workspaceId, another);
  }

  async status(workspaceId: string): Promise<FeedStatus> {
    const [state, listeners] = await Promise.all([
      this.options.snapshots.state(workspaceId),
      this.options.listeners.listWorkspace(workspaceId),
    ]);
    const shareMs = state.shareIntervalMs ?? this.intervalFor(state.lastRoundCalls ?? 1);
    const intervalMs = Math.max(state.intervalMs ?? shareMs, shareMs);
    // Later than planned by more than the scheduler's tick: the wait for slots stretched it.
    const late = (state.lateMs ?? 0) > this.tickMs;
    return {
      listening: listeners.paused === null && hasListeners(listeners),
      intervalMs,
      stretchedBy: late ? 'load' : intervalMs > this.options.intervalMs ? 'share' : null,
      lastRoundAt: state.lastRoundAt,
      lastRoundCalls: state.lastRoundCalls,
    };
  }
}

/**
 * How often the rounds really come, as a round ends: the interval the share pays for, or longer when complete rounds
 * came further apart (the spacing of the last two complete rounds' starts; after an incomplete round, the time since
 * the last complete one started). `lateMs`: how much longer that was than the rounds were planned (the previous
 * round's share interval, or this one's): time lost waiting for slots that interactive users took, for a budget
 * that was spent, or for a replica that was down: what the listeners saw either way.
 */
export function intervalInForce(
  state: Pick<FeedRoundState, 'lastCompleteAt' | 'shareIntervalMs'>,
  complete: boolean,
  startedAt: number,
  now: number,
  shareIntervalMs: number,
): { intervalMs: number; lateMs: number } {
  if (state.lastCompleteAt === null) return { intervalMs: shareIntervalMs, lateMs: 0 };
  const observed = complete ? startedAt - state.lastCompleteAt : now - state.lastCompleteAt;
  const planned = Math.max(shareIntervalMs, state.shareIntervalMs ?? 0);
  return { intervalMs: Math.max(shareIntervalMs, observed), lateMs: Math.max(0, observed - planned) };
}

/**
 * When the changes a round reports may have happened since, if that is late: more than two intervals since the last
 * round that read the list (no replica ran, or the budget was spent). A round the budget stopped before any read
 * does not count, or changes that waited through a spent share for hours would be posted as if they had just
 * happened. (State written before `lastReadAt` existed falls back on the last round.)
 */
function lateSince(
  state: Pick<FeedRoundState, 'lastReadAt' | 'lastRoundAt'>,
  startedAt: number,
  intervalMs: number,
): number | null {
  const lastRead = state.lastReadAt ?? state.lastRoundAt;
  return lastRead !== null && startedAt - lastRead > 2 * intervalMs ? lastRead : null;
}

/** The company and unit a snapshot is read from, as FeedRoundState.scope notes it. */
export function feedScope(link: Pick<WorkspaceLink, 'empresaId' | 'unidadeId'>): string {
  return `${link.empresaId}:${link.unidadeId ?? ''}`;
}

function hasListeners(listeners: WorkspaceListeners): boolean {
  return (
    listeners.channels.some((feed) => feed.paused === null) ||
    listeners.follows.length > 0 ||
    listeners.ownFollows.length > 0
  );
}

/** Where in the interval a workspace's rounds fall: stable, from its id. */
export function spreadOffset(workspaceId: string, intervalMs: number): number {
  const hash = createHash('sha256').update(workspaceId).digest().readUInt32BE(0);
  return hash % Math.max(1, Math.floor(intervalMs));
}

/** The first instant at or after `at` that falls at the workspace's place in the interval (spreadOffset). */
export function placeInInterval(at: number, workspaceId: string, intervalMs: number): number {
  const interval = Math.max(1, Math.floor(intervalMs));
  const wait = (((spreadOffset(workspaceId, interval) - at) % interval) + interval) % interval;
  return at + wait;
}
