import { type Clock, systemClock, type TimerHandle } from '../../lib/clock.js';
import { orAfter } from '../../lib/deadline.js';
import { errFields, type Logger } from '../../lib/logger.js';
import type { Subscription, SubscriptionStore } from '../../store/subscription-store.js';
import { LinkBrokenError, NotLinkedError } from '../errors.js';
import { persistently } from '../persist.js';
import type { DigestClaims, HeldClaim } from './claims.js';
import type { DigestService } from './digest-service.js';
import type { DigestView } from './digest-view.js';
import type { DigestPublisher, PublishOutcome } from './publisher.js';
import { isWeekend, localDayOf, zonedInstant } from './schedule.js';

/*
 * Why every subscription gets exactly one post per local day, however many replicas tick and restart
 * (no job queue: a clock tick and one Redis key per subscription and day):
 *
 * 1. Every tick of every replica computes, for each subscription, today's local day in its time zone and the
 *    instant of its time that day (schedule.ts: DST gaps move to the first valid instant after, repeated hours
 *    take the first occurrence). Only today is ever considered: days that passed while no replica ran are not
 *    posted later in a burst, and today's digest, if its time has passed and it was not posted, is posted by the
 *    first tick that sees it (late, saying so).
 * 2. To post, a replica must create the claim key of (workspace, channel, day) with SET NX (claims.ts). Redis
 *    serialises the SETs, so one replica wins; the others skip. The winner holds a 2-minute lease, renewed
 *    every 30 s while it builds (a digest may wait minutes for the budget), renewed again right before each
 *    Slack call and never during one: a call (30 s timeout, a Retry-After of at most 60 s before the next
 *    renewal) always ends within the lease it started with.
 * 3. Right after Slack accepts the message the claim becomes `posted` (kept 3 days, longer than any local day),
 *    and then the subscription records the day. Any later tick, of any replica, fails the SET NX or sees the
 *    day recorded, and skips: not doubled.
 * 4. When the work fails before anything was posted (budget still exhausted after the digest's bounded wait,
 *    upstream down, Slack 5xx or network error), the claim is released and a retry time recorded: a later tick
 *    of the same local day retries. When the process dies, its lease expires and a later tick retries: not lost.
 *
 * The one window left: the process dies (or Redis fails) between Slack's answer and the write of `posted`, a
 * few milliseconds. The lease then expires and another tick posts again: one duplicate. Slack offers no
 * idempotency key for chat.postMessage, and reading the channel history first would need a scope the bot does
 * not ask for, so the window is kept as small as it can be: the `posted` write is the very next thing done.
 * A Slack call that times out after Slack accepted it is the same case (treated as a network error), and so is
 * a process frozen for longer than a lease (2 min) between its last renewal and its Slack call.
 *
 * `agora` (postNow) posts at once without claiming the day and without recording it: it is a look at the
 * digest now, and the scheduled digest still comes at its time, covering everything since the last scheduled one.
 */

const DAY_MS = 86_400_000;
/** Ticks this far apart: well under the minute after which a digest says it is late (render/digest.ts). */
const DEFAULT_INTERVAL_MS = 30_000;
const STOP_WAIT_MS = 10_000;

export interface TickReport {
  /** Clock time of the tick. */
  at: number;
  /** Subscriptions whose time today has passed and whose day is not posted yet. */
  due: number;
  /** Of those, claimed by this process. */
  claimed: number;
  posted: number;
  /** Given back for a later tick (budget, upstream, Slack 5xx or network). */
  failed: number;
  /** Removed because the bot cannot post in the channel any more. */
  removed: number;
  /** Paused (workspace not linked, Slack token gone). */
  paused: number;
  /** Claims lost while working (lease expired): nothing posted by this process. */
  lost: number;
  /**
   * Claims given back unposted because the subscription was cancelled, paused or changed after the claim: the
   * build was for a subscription that is no longer there.
   */
  stale: number;
  /** Digest views built: one per workspace, stockroom filter and starting point. */
  builds: number;
  /**
   * Digests Slack refused for what they hold (`invalid_blocks`, `msg_too_long`...): their day is done, with the plain
   * fallback posted in their place (counted in `posted` too) or, refused as well, given up. Never built again.
   */
  refused: number;
}

export type PostNowResult = { kind: 'not_subscribed' } | PublishOutcome;

export interface DigestSchedulerDeps {
  subscriptions: SubscriptionStore;
  claims: DigestClaims;
  digests: DigestService;
  publisher: DigestPublisher;
  logger: Logger;
  now: () => number;
  /** Digest groups worked on at once. Default 4. */
  concurrency?: number;
  /** Wait before retrying after the n-th failed attempt. Default 1, 2, 4… minutes, at most 30. */
  retryBackoff?: (failures: number) => number;
  /** How long the records of a post Slack accepted are asked again of a store that refuses them (RECORD_RETRY_MS). */
  recordRetryMs?: number;
  /** Lease renewal period. Default a quarter of the lease. */
  renewEveryMs?: number;
  /** Waits while Slack requests wait for their ack (slack/ack-priority.ts); a digest is never that urgent. */
  yieldToAcks?: () => Promise<void>;
  /**
   * The timers of the tick loop (start, stop). Lease renewals and write retries keep the real timers: they pace
   * claims whose leases expire on the Redis clock.
   */
  clock?: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
}

export interface Due {
  day: string;
  /** The scheduled instant of that day. */
  at: number;
}

interface Job {
  subscription: Subscription;
  due: Due;
  claim: HeldClaim;
  lost: boolean;
  /**
   * Between the renewal right before a Slack call and the end of the post. Periodic renewals skip it: a renewal
   * frees the key for an instant (claims.ts), which must not happen while a message may be on its way; the
   * renewal before the call leaves a whole lease for it (the Slack call times out well within it).
   */
  sending: boolean;
  /** Renewals of this claim run one after the other (two at once could each see the key freed by the other). */
  queue: Promise<unknown>;
  /** Set by the check right before sending: the subscription is gone, paused or changed since the claim. */
  stale: 'gone' | 'paused' | 'changed' | null;
}

export function defaultRetryBackoff(failures: number): number {
  return Math.min(30, 2 ** Math.max(0, failures - 1)) * 60_000;
}

/** Today's post of the subscription, when its time today has passed; null otherwise. */
export function dueToday(sub: Subscription, now: number): Due | null {
  const day = localDayOf(now, sub.timeZone);
  if (sub.weekdaysOnly && isWeekend(day)) return null;
  const at = zonedInstant(day, sub.hour, sub.minute, sub.timeZone);
  if (now < at) return null;
  // Subscribed after today's time: the first post is the next one, not an instant "late" one. Creation, not the
  // last change: `assinar` run again (a new filter, a new time) keeps a day the subscription already owes and has
  // not posted (until 2026-11-27 it used updatedAt, and an edit after a failed post dropped the day).
  if (at < sub.createdAt) return null;
  return { day, at };
}

export class DigestScheduler {
  private timer: TimerHandle | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;
  private readonly concurrency: number;
  private readonly backoff: (failures: number) => number;
  private readonly clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  /** Days this process posted whose records the store could not take (RECORD_RETRY_MS): never posted again here. */
  private readonly unrecorded = new Map<
    string,
    { workspaceId: string; channelId: string; day: string; postedAt: number; coveredUntil: number }
  >();

  constructor(private readonly deps: DigestSchedulerDeps) {
    this.concurrency = Math.max(1, deps.concurrency ?? 4);
    this.backoff = deps.retryBackoff ?? defaultRetryBackoff;
    this.clock = deps.clock ?? systemClock;
  }

  /** Ticks now and then every intervalMs (a tick never overlaps the previous one of this process). */
  start(intervalMs: number = DEFAULT_INTERVAL_MS): void {
    if (this.timer !== null || this.running !== null) return;
    this.stopped = false;
    const loop = async () => {
      this.timer = null;
      this.running = this.tick().catch((error: unknown) =>
        this.deps.logger.error(errFields(error), 'digest tick failed'),
      );
      await this.running;
      this.running = null;
      if (!this.stopped) this.timer = unref(this.clock.setTimeout(loop, intervalMs));
    };
    this.timer = unref(this.clock.setTimeout(loop, 0));
  }

  /**
   * Stops ticking and waits for a running tick to end, at most STOP_WAIT_MS (a digest may be waiting for the
   * budget for minutes; close the budget too and its queued calls fail at once). Claims still held then expire
   * with their lease and another replica posts.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    if (this.running === null) return;
    await orAfter(
      this.running.then(() => undefined),
      STOP_WAIT_MS,
      () => undefined,
      this.clock,
    );
  }

  async tick(): Promise<TickReport> {
    await this.recordLater();
    const now = this.deps.now();
    const report: TickReport = {
      at: now,
      due: 0,
      claimed: 0,
      posted: 0,
      failed: 0,
      removed: 0,
      paused: 0,
      lost: 0,
      stale: 0,
      builds: 0,
      refused: 0,
    };
    const candidates: { subscription: Subscription; due: Due }[] = [];
    for (const subscription of await this.deps.subscriptions.listAll()) {
      if (subscription.paused) continue;
      const due = dueToday(subscription, now);
      if (due && subscription.lastPostedDay !== due.day) candidates.push({ subscription, due });
    }
    report.due = candidates.length;
    if (candidates.length === 0) return report;

    const jobs: Job[] = [];
    for (const candidate of candidates) {
      const job = await this.claim(candidate.subscription, candidate.due, now);
      if (job) jobs.push(job);
    }
    report.claimed = jobs.length;
    if (jobs.length === 0) return report;

    const renewal = setInterval(
      () => {
        for (const job of jobs) {
          void inQueue(job, async () => {
            if (job.lost || job.sending) return;
            if (!(await job.claim.renew())) job.lost = true;
          }).catch(() => undefined);
        }
      },
      this.deps.renewEveryMs ?? Math.max(10, Math.floor(this.deps.claims.leaseLength / 4)),
    );
    renewal.unref();
    try {
      const groups = new Map<string, Job[]>();
      for (const job of jobs) {
        const key = this.deps.digests.groupKey({
          workspaceId: job.subscription.workspaceId,
          stockroomId: job.subscription.stockroomId,
          since: sinceOf(job.subscription, job.due.at),
        });
        groups.set(key, [...(groups.get(key) ?? []), job]);
      }
      report.builds = groups.size;
      await runPool([...groups.values()], this.concurrency, (group) => this.runGroup(group, report));
    } finally {
      clearInterval(renewal);
    }
    return report;
  }

  /**
   * `/estoque resumo agora`: this channel's digest, posted now, from the last scheduled digest on. It does not
   * claim nor record the day (see the comment at the top). Upstream and link errors are thrown to the caller.
   */
  async postNow(workspaceId: string, channelId: string): Promise<PostNowResult> {
    const subscription = await this.deps.subscriptions.get(workspaceId, channelId);
    if (!subscription) return { kind: 'not_subscribed' };
    const now = this.deps.now();
    const view = await this.deps.digests.build({
      workspaceId,
      stockroomId: subscription.stockroomId,
      since: subscription.lastDigestAt ?? now - DAY_MS,
    });
    return this.deps.publisher.publish({ subscription, view, now: this.deps.now(), delayMs: 0 });
  }

  private async claim(subscription: Subscription, due: Due, now: number): Promise<Job | null> {
    const { workspaceId, channelId } = subscription;
    // Posted by this process, not recorded yet (tick() asks again): never posted twice.
    if (this.unrecorded.has(postedKey(workspaceId, channelId, due.day))) return null;
    const retryAt = await this.deps.subscriptions.retryNotBefore(workspaceId, channelId);
    if (retryAt !== null && retryAt > now) return null;
    const result = await this.deps.claims.acquire(workspaceId, channelId, due.day);
    if (!result.acquired) {
      if (result.current?.state === 'posted') {
        // Posted, but the subscription did not record it (the process stopped in between): record it now.
        await this.deps.subscriptions.markPosted(workspaceId, channelId, {
          day: due.day,
          postedAt: result.current.postedAt,
          coveredUntil: result.current.coveredUntil ?? result.current.postedAt,
        });
      }
      return null;
    }
    // Holding the claim, look again: another replica may have just posted, or a person changed or cancelled it.
    const fresh = await this.deps.subscriptions.get(workspaceId, channelId);
    const freshDue = fresh && !fresh.paused ? dueToday(fresh, now) : null;
    if (!fresh || !freshDue || freshDue.day !== due.day || fresh.lastPostedDay === due.day) {
      await result.claim.release();
      return null;
    }
    return {
      subscription: fresh,
      due: freshDue,
      claim: result.claim,
      lost: false,
      sending: false,
      queue: Promise.resolve(),
      stale: null,
    };
  }

  private async runGroup(group: Job[], report: TickReport): Promise<void> {
    const first = group[0];
    if (!first) return;
    const { workspaceId, stockroomId } = first.subscription;
    let view: DigestView;
    await this.deps.yieldToAcks?.();
    try {
      view = await this.deps.digests.build({
        workspaceId,
        stockroomId,
        since: sinceOf(first.subscription, first.due.at),
      });
    } catch (error) {
      await this.buildFailed(group, error, report);
      return;
    }
    for (const job of group) {
      await this.deps.yieldToAcks?.();
      await this.deliver(job, view, report).catch(async (error: unknown) => {
        this.deps.logger.error(
          { workspaceId, channelId: job.subscription.channelId, ...errFields(error) },
          'digest delivery failed',
        );
        await this.giveBack(job, this.backoff).catch(() => undefined);
        report.failed += 1;
      });
    }
  }

  private async deliver(job: Job, view: DigestView, report: TickReport): Promise<void> {
    const { subscription, claim, due } = job;
    const { workspaceId, channelId } = subscription;
    if (job.lost) {
      report.lost += 1;
      return;
    }
    const now = this.deps.now();
    // An earlier attempt of this day whose outcome is not known (a process that died before Slack's reply, a
    // reply lost, a 5xx): Slack may have shown it, so this post says it may repeat it. Each attempt is noted right
    // before it is sent, and settled once its outcome is known.
    const mayRepeatSince = await claim.previousAttempt();
    let attempted = false;
    const outcome = await this.deps.publisher
      .publish({ subscription, view, now, delayMs: Math.max(0, now - due.at), mayRepeatSince }, () =>
        inQueue(job, async () => {
          job.sending = false;
          if (job.lost || !(await claim.renew())) return false;
          // The build may have waited minutes (the budget): look at the subscription again, holding the claim.
          job.stale = await this.staleness(job);
          if (job.stale !== null) return false;
          await claim.noteAttempt(this.deps.now());
          attempted = true;
          job.sending = true;
          return true;
        }),
      )
      .finally(() => {
        job.sending = false;
      });
    // Posted (the day is done) or in doubt: the note stays. Known not to have reached Slack: it goes back to what
    // it was before this post.
    const mayBeInSlack =
      outcome.kind === 'posted' || (outcome.kind === 'retry' && outcome.mayHaveArrived === true);
    if (attempted && !mayBeInSlack) await claim.settleAttempt(mayRepeatSince).catch(() => undefined);
    const logger = this.deps.logger.child({ workspaceId, channelId, day: due.day });
    switch (outcome.kind) {
      case 'posted':
      case 'refused': {
        // Done for the day either way: a digest Slack refused for what it holds would be refused again, built again.
        await this.recordDone(job, view, logger);
        const refusal = outcome.kind === 'refused' ? outcome.error : outcome.refused;
        if (refusal !== undefined) report.refused += 1;
        if (outcome.kind === 'refused') {
          logger.error(
            { slackError: outcome.error, fallbackError: outcome.fallbackError },
            'digest refused by Slack for what it holds, and its plain fallback too: given up for the day',
          );
          return;
        }
        report.posted += 1;
        logger.info(
          { delayMs: Math.max(0, this.deps.now() - due.at), ...(refusal && { fallbackFor: refusal }) },
          refusal ? 'digest refused by Slack; its plain fallback posted in its place' : 'digest posted',
        );
        return;
      }
      case 'channel_gone':
        await claim.release();
        report.removed += 1;
        return;
      case 'unauthorized':
        report.paused += await this.deps.subscriptions.pauseWorkspace(workspaceId, 'tokens_revoked');
        await claim.release();
        // Nobody in the workspace can be told by a post (the same refusal): `resumo listar`, the Home and a command's
        // answer say it; the log tells whoever runs the bot.
        logger.error(
          { slackError: outcome.error },
          'digests paused: Slack refuses the app or its token in this workspace; reinstall the app (or set a new ' +
            'SLACK_BOT_TOKEN) with the manifest scopes, which resumes them',
        );
        return;
      case 'retry':
        await this.giveBack(job, this.backoff);
        report.failed += 1;
        logger.warn({ reason: outcome.reason }, 'digest not posted; a later tick retries');
        return;
      case 'stopped':
        if (job.stale !== null) {
          // Nothing sent. Cancelled: nothing to post. Paused: a new link resumes it, and the day with it. Changed:
          // the changed subscription is due on its own schedule (its new time today if not passed yet, else at the
          // next tick), built with its new filters. No backoff: nothing failed.
          await claim.release();
          report.stale += 1;
          logger.info({ why: job.stale }, 'digest not posted: the subscription changed while it was built');
          return;
        }
        job.lost = true;
        report.lost += 1;
        logger.warn('digest claim lost before posting; another replica takes it');
        return;
    }
  }

  /**
   * Records the day as done: Slack has the digest (or its fallback), or refused it for good. Two records, each enough
   * to stop a second post: the claim (first, at once) and the subscription's day. Never released after this point,
   * whatever fails. A store that cannot take them now (a Redis restart) is asked again for RECORD_RETRY_MS, while the
   * tick's renewals keep the claim; after that this process still never posts the day again, and writes the records
   * at its next tick.
   */
  private async recordDone(job: Job, view: DigestView, logger: Logger): Promise<void> {
    const { claim, due } = job;
    const { workspaceId, channelId } = job.subscription;
    const postedAt = this.deps.now();
    const posted = { day: due.day, postedAt, coveredUntil: view.coveredUntil };
    const until = Date.now() + (this.deps.recordRetryMs ?? RECORD_RETRY_MS);
    const left = () => Math.max(0, until - Date.now());
    const recorded = await persistently(() => claim.markPosted(postedAt, view.coveredUntil), left())
      .then(() =>
        persistently(() => this.deps.subscriptions.markPosted(workspaceId, channelId, posted), left()),
      )
      .then(
        () => true,
        (error: unknown) => {
          logger.error(errFields(error), 'digest posted but not recorded; recorded at a later tick');
          return false;
        },
      );
    if (!recorded)
      this.unrecorded.set(postedKey(workspaceId, channelId, due.day), { workspaceId, channelId, ...posted });
  }

  private async buildFailed(group: Job[], error: unknown, report: TickReport): Promise<void> {
    const first = group[0];
    if (!first) return;
    const { workspaceId } = first.subscription;
    // Not linked, or a link whose credentials can no longer be renewed: paused until an admin links again, which
    // resumes them at once (PRODUCT.md: unlink and a broken link pause digests, a new link resumes them).
    if (error instanceof NotLinkedError || error instanceof LinkBrokenError) {
      report.paused += await this.deps.subscriptions.pauseWorkspace(workspaceId, 'unlinked');
      for (const job of group) await job.claim.release();
      this.deps.logger.info(
        { workspaceId, why: error instanceof LinkBrokenError ? 'link broken' : 'not linked' },
        'digests paused until the workspace is linked again',
      );
      return;
    }
    const backoff = this.backoff;
    for (const job of group) {
      await this.giveBack(job, backoff);
      report.failed += 1;
    }
    this.deps.logger.warn(
      { workspaceId, channels: group.length, ...errFields(error) },
      'digest could not be built; a later tick retries',
    );
  }

  /**
   * The records of the days this process posted but could not record (a store that refused them past
   * RECORD_RETRY_MS): the claim (taken again, unless another record of the day is there) and the subscription's
   * day. Each is asked again at every tick until it is through, whatever day it is now.
   */
  private async recordLater(): Promise<void> {
    for (const [key, posted] of this.unrecorded) {
      const { workspaceId, channelId, day } = posted;
      try {
        const result = await this.deps.claims.acquire(workspaceId, channelId, day);
        if (result.acquired) await result.claim.markPosted(posted.postedAt, posted.coveredUntil);
        await this.deps.subscriptions.markPosted(workspaceId, channelId, posted);
        this.unrecorded.delete(key);
        this.deps.logger.info({ workspaceId, channelId, day }, 'digest posted earlier now recorded');
      } catch (error) {
        this.deps.logger.warn(
          { workspaceId, channelId, day, ...errFields(error) },
          'digest posted earlier still not recorded',
        );
      }
    }
  }

  /** Why the claimed subscription must not get this build any more; null when it still should. */
  private async staleness(job: Job): Promise<Job['stale']> {
    const { workspaceId, channelId } = job.subscription;
    const fresh = await this.deps.subscriptions.get(workspaceId, channelId);
    if (!fresh) return 'gone';
    if (fresh.paused) return 'paused';
    // The build stands while the subscription still asks for it: the same stockroom (what shapes its content),
    // and still due today under its settings now (a time moved to one already past: posted now, not built again).
    // A stockroom changed, or a time moved later (or the day no longer one it posts on): its own schedule.
    const due = dueToday(fresh, this.deps.now());
    return fresh.stockroomId === job.subscription.stockroomId && due?.day === job.due.day ? null : 'changed';
  }

  /** Records when to retry, then releases the claim (in that order, so no replica retries at once). */
  private async giveBack(job: Job, backoff: (failures: number) => number): Promise<void> {
    const { workspaceId, channelId } = job.subscription;
    await this.deps.subscriptions.recordFailure(workspaceId, channelId, backoff).catch(() => undefined);
    await job.claim.release();
  }
}

/** The loop's timers do not keep the process alive (a fake timer of a test may have no unref). */
function unref(timer: TimerHandle): TimerHandle {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

/** Runs `work` after the job's earlier renewals. */
function inQueue<T>(job: Job, work: () => Promise<T>): Promise<T> {
  const next = job.queue.then(work, work);
  job.queue = next.catch(() => undefined);
  return next;
}

/** Where a scheduled digest starts: where the last one ended, else a day before its time. */
function sinceOf(subscription: Subscription, scheduledAt: number): number {
  return subscription.lastDigestAt ?? scheduledAt - DAY_MS;
}

/**
 * How long a record of a post Slack accepted is asked again of a store that cannot take it now: a Redis restart,
 * whose commands ioredis refuses after about a second (until 2026-11-27 three tries within 0.3 s, after which the
 * lease ran out and another replica posted the day again).
 */
export const RECORD_RETRY_MS = 5 * 60_000;

function postedKey(workspaceId: string, channelId: string, day: string): string {
  return JSON.stringify([workspaceId, channelId, day]);
}

async function runPool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next];
      next += 1;
      if (item !== undefined) await work(item);
    }
  });
  await Promise.all(workers);
}
