import { type Clock, systemClock, type TimerHandle } from '../lib/clock.js';
import { errFields, type Logger } from '../lib/logger.js';
import type { Budget, BudgetOptions, BudgetUsage, Demand, Priority, ScheduleOptions } from './budget.js';
import { BudgetClosedError, BudgetExhaustedError, BudgetStoreUnavailableError } from './budget-errors.js';
import { type BudgetPolicy, mapPriorities, PRIORITY_RANK } from './budget-policy.js';

/**
 * The answer of the shared store to "may a call of this priority start now?". A grant has already consumed the
 * slot. A refusal says, for every priority, in how many ms a slot could free (pause included): a lower bound, since
 * entries only leave the window as time passes.
 */
export type AcquireResult = { granted: true } | { granted: false; waitMs: Record<Priority, number> };

export type Acquire = (credentialId: string, priority: Priority) => Promise<AcquireResult>;

/**
 * The shared half of a budget: a sliding-window log per credential and its pause. The Redis and the memory
 * budgets differ only in this; `budgetOverWindow` makes either a Budget.
 */
export interface WindowStore {
  acquire: Acquire;
  /** Sets the credential's pause to `ms` from now unless a longer one is running. */
  pause(credentialId: string, ms: number): Promise<void>;
  /**
   * Budget.pauseAfter429 in the store: counts the 429 in the credential's streak unless a pause is in force, and
   * sets the pause to pauseAfter429Ms(retryAfterMs, streak) unless a longer one is running. Returns the pause in
   * force (ms from now) and the streak.
   */
  pauseAfter429(credentialId: string, retryAfterMs: number): Promise<{ pausedMs: number; streak: number }>;
  /** Calls that count now (the feed's among them); ms until the pause ends, and until an interactive slot frees (0: now). */
  usage(
    credentialId: string,
  ): Promise<{ used: number; pausedMs: number; waitMs: number; feedUsed: number; saturated: boolean }>;
}

/** setTimeout fires at once above this. */
const MAX_TIMER_MS = 2_147_483_647;

interface Job {
  priority: Priority;
  rank: number;
  fn: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  /** Monotonic ms; Infinity when the job may wait for ever. */
  deadline: number;
  /** Monotonic ms when it was queued. */
  queuedAt: number;
  timer: TimerHandle | null;
  detach: (() => void) | null;
  onQueued: ((position: number) => void) | null;
  demand: (() => Demand) | null;
  /** Arrival order in the process, the last tie-breaker. */
  seq: number;
}

interface Lane {
  credentialId: string;
  /** By priority, then arrival. */
  jobs: Job[];
  active: boolean;
  /** Monotonic ms before which each priority cannot get a slot, from the last refusal while jobs were waiting. */
  freeAt: Record<Priority, number> | null;
  /** Ends the pump's current sleep early. */
  wake: (() => void) | null;
  /** Monotonic ms when the slot question now in flight was sent to the store; null when none is. */
  askedAt: number | null;
}

/** A store answers a slot question in milliseconds: one in flight this long (or half a job's wait) did not answer. */
const STORE_SILENT_MS = 500;

/** About 24 days: a longer pause is a bug upstream of here, not a backoff. */
const MAX_PAUSE_MS = 2_147_483_647;

/**
 * The pause a 429's Retry-After asks for, in whole ms (0 when absent, zero or negative), at most the budget's window.
 * The limit upstream counts is per window (UPSTREAM_RATE_LIMIT): once a whole window has passed without a call,
 * none of the credential's calls still counts, so no longer wait is needed. A longer Retry-After (a year in seconds,
 * an HTTP date far ahead) would otherwise pause the credential on every replica for weeks (until 2026-11-27 up to
 * about 24.8 days, MAX_PAUSE_MS). Both window stores (Redis and memory) get their Retry-After from here.
 */
export function retryAfterPause(retryAfterMs: number | undefined, windowMs: number): number {
  if (retryAfterMs === undefined || !(retryAfterMs > 0)) return 0;
  return Math.ceil(Math.min(retryAfterMs, windowMs, MAX_PAUSE_MS));
}

/** A monotonic instant as epoch ms on this host's clock, for errors and reports. */
function toEpochMs(monotonic: number, clock: Clock = systemClock): number {
  return Math.round(clock.now() + (monotonic - clock.monotonic()));
}

/** A Budget over a window store: the queue schedules, the store counts, pauses and reports. */
export function budgetOverWindow(
  policy: BudgetPolicy,
  options: Pick<BudgetOptions, 'logger' | 'clock'>,
  store: WindowStore,
): Budget {
  const clock = options.clock ?? systemClock;
  const queue = new BudgetQueue(store.acquire, policy.maxWaitMs, options.logger, clock);
  return {
    schedule: (credentialId, priority, fn, scheduleOptions) =>
      queue.schedule(credentialId, priority, fn, scheduleOptions),

    async pause(credentialId, ms) {
      if (!(ms > 0)) return;
      const pausedMs = Math.ceil(Math.min(ms, MAX_PAUSE_MS));
      await store.pause(credentialId, pausedMs);
      options.logger?.warn({ credentialId, pausedMs }, 'upstream budget paused');
    },

    async pauseAfter429(credentialId, retryAfterMs) {
      const asked = retryAfterPause(retryAfterMs, policy.windowMs);
      if (retryAfterMs !== undefined && asked < retryAfterMs)
        options.logger?.warn(
          { credentialId, retryAfterMs, pauseCapMs: asked },
          'upstream Retry-After longer than the budget window; pausing for the window only',
        );
      const { pausedMs, streak } = await store.pauseAfter429(credentialId, asked);
      options.logger?.warn(
        { credentialId, pausedMs, streak, retryAfterMs },
        'upstream budget paused after a 429',
      );
      return pausedMs;
    },

    async usage(credentialId) {
      return usageOf(policy, await store.usage(credentialId), clock);
    },

    close: () => queue.close(),
  };
}

/** Builds the report from the store's relative answers; epoch values are on this host's clock. */
function usageOf(
  policy: BudgetPolicy,
  {
    used,
    pausedMs,
    waitMs,
    feedUsed,
    saturated,
  }: { used: number; pausedMs: number; waitMs: number; feedUsed: number; saturated: boolean },
  clock: Clock,
): BudgetUsage {
  const now = clock.monotonic();
  const nextMs = Math.max(pausedMs, waitMs);
  return {
    limit: policy.count,
    windowMs: policy.windowMs,
    used,
    remaining: Math.max(0, policy.count - used),
    pausedUntil: pausedMs > 0 ? toEpochMs(now + pausedMs, clock) : null,
    nextSlotAt: nextMs > 0 ? toEpochMs(now + nextMs, clock) : null,
    feed: {
      used: feedUsed,
      cap: saturated ? policy.feedCapSaturated : policy.feedCap,
      saturated,
      shareCap: policy.feedCap,
    },
  };
}

/**
 * The in-process half of a budget: per credential a queue ordered by priority then arrival, and one pump that asks
 * `acquire` for its head. Within the head's priority a granted slot goes to the call the most answers wait on, then
 * the one the most people looking at nothing wait on (mostWaitedOn); the places told to waiting calls follow that
 * order. A grant starts the job at once (its fn is not awaited before the next one is tried); a
 * refusal puts the pump to sleep until the head's slot could free, and a higher-priority arrival wakes it. A job
 * is rejected with BudgetExhaustedError as soon as a refusal shows its slot frees after its deadline, or when its
 * deadline passes. Shared by the Redis and the memory budgets, which only differ in `acquire`.
 */
export class BudgetQueue {
  private readonly lanes = new Map<string, Lane>();
  private readonly pumps = new Set<Promise<void>>();
  private closed = false;
  private arrivals = 0;

  constructor(
    private readonly acquire: Acquire,
    private readonly defaultMaxWaitMs: Readonly<Record<Priority, number>>,
    private readonly logger?: Logger,
    private readonly clock: Clock = systemClock,
  ) {}

  schedule<T>(
    credentialId: string,
    priority: Priority,
    fn: () => Promise<T>,
    options: ScheduleOptions = {},
  ): Promise<T> {
    if (this.closed) return Promise.reject(new BudgetClosedError());
    const { signal, raisable } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const maxWaitMs = Math.max(0, options.maxWaitMs ?? this.defaultMaxWaitMs[priority]);
    // Raised between the caller reading it and now: the more urgent of the two.
    const current =
      raisable && PRIORITY_RANK[raisable.priority] < PRIORITY_RANK[priority] ? raisable.priority : priority;

    return new Promise<T>((resolve, reject) => {
      const lane = this.laneOf(credentialId);
      const job: Job = {
        priority: current,
        rank: PRIORITY_RANK[current],
        fn,
        resolve: resolve as (value: unknown) => void,
        reject,
        deadline: this.clock.monotonic() + maxWaitMs,
        queuedAt: this.clock.monotonic(),
        timer: null,
        detach: null,
        onQueued: options.onQueued ?? null,
        demand: options.demand ?? null,
        seq: this.arrivals++,
      };
      // Jobs are waiting and the last refusal already says this one cannot make it.
      const knownFreeAt = lane.freeAt?.[current];
      if (knownFreeAt !== undefined && knownFreeAt > job.deadline) {
        reject(new BudgetExhaustedError(toEpochMs(knownFreeAt, this.clock), current));
        return;
      }

      const at = lane.jobs.findIndex((other) => other.rank > job.rank);
      lane.jobs.splice(at === -1 ? lane.jobs.length : at, 0, job);
      if (maxWaitMs > 0 && maxWaitMs <= MAX_TIMER_MS) {
        job.timer = this.clock.setTimeout(() => this.expire(lane, job), maxWaitMs);
      }
      const detach: (() => void)[] = [];
      if (signal) {
        const onAbort = () => this.drop(lane, job, signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        detach.push(() => signal.removeEventListener('abort', onAbort));
      }
      if (raisable) detach.push(raisable.onRaise(() => this.raise(lane, job, raisable.priority)));
      if (detach.length > 0) {
        job.detach = () => {
          for (const stop of detach) stop();
        };
      }
      if (lane.jobs[0] === job) lane.wake?.();
      // The lane is known to be full: this job waits, at its place in the queue.
      if (lane.freeAt !== null) this.tellQueued(lane, job);
      this.ensurePump(lane);
    });
  }

  /** Rejects every queued job, stops the timers and waits for the pumps to stop (no store call after this). */
  async close(): Promise<void> {
    this.closed = true;
    for (const lane of this.lanes.values()) {
      for (const job of [...lane.jobs]) this.drop(lane, job, new BudgetClosedError());
      lane.wake?.();
    }
    await Promise.allSettled([...this.pumps]);
  }

  private laneOf(credentialId: string): Lane {
    let lane = this.lanes.get(credentialId);
    if (lane === undefined) {
      lane = { credentialId, jobs: [], active: false, freeAt: null, wake: null, askedAt: null };
      this.lanes.set(credentialId, lane);
    }
    return lane;
  }

  private ensurePump(lane: Lane): void {
    if (lane.active) return;
    lane.active = true;
    const pump = this.pump(lane);
    this.pumps.add(pump);
    void pump.finally(() => this.pumps.delete(pump));
  }

  private async pump(lane: Lane): Promise<void> {
    try {
      while (!this.closed) {
        const head = lane.jobs[0];
        if (head === undefined) break;
        const knownFreeAt = lane.freeAt?.[head.priority] ?? 0;
        const now = this.clock.monotonic();
        if (knownFreeAt > now) {
          await this.sleep(lane, knownFreeAt - now);
          continue;
        }

        let answer: AcquireResult;
        lane.askedAt = now;
        try {
          answer = await this.acquire(lane.credentialId, head.priority);
        } catch (error) {
          // The store failed: fail closed for the job it was asked for; the next one gets its own attempt.
          this.logger?.warn({ ...errFields(error), credentialId: lane.credentialId }, 'budget store failed');
          this.drop(lane, head, new BudgetStoreUnavailableError(head.priority, error));
          continue;
        } finally {
          lane.askedAt = null;
        }
        if (this.closed) break;

        if (answer.granted) {
          // The slot was taken at `head`'s capacity: it may go to `head` or to a job at least as urgent that
          // arrived meanwhile. If `head` left (abort, deadline) and nothing as urgent is queued, it stays spent.
          const next = mostWaitedOn(lane.jobs);
          if (next !== undefined && next.rank <= head.rank) this.start(lane, next);
          continue;
        }

        const at = this.clock.monotonic();
        const { waitMs } = answer;
        lane.freeAt = mapPriorities((priority) => at + waitMs[priority]);
        this.logger?.debug(
          { credentialId: lane.credentialId, priority: head.priority, waitMs: waitMs[head.priority] },
          'budget full, waiting',
        );
        for (const job of [...lane.jobs]) {
          const freeAt = lane.freeAt[job.priority];
          if (freeAt > job.deadline)
            this.drop(lane, job, new BudgetExhaustedError(toEpochMs(freeAt, this.clock), job.priority));
        }
        this.tellAllQueued(lane);
      }
    } catch (error) {
      // A bug, not a store failure: do not leave callers hanging.
      this.logger?.error({ ...errFields(error), credentialId: lane.credentialId }, 'budget pump failed');
      for (const job of [...lane.jobs]) this.drop(lane, job, error);
    } finally {
      // Synchronously with the loop's end, so a job queued from now on starts a new pump.
      lane.active = false;
      lane.wake = null;
      lane.freeAt = null;
      if (this.lanes.get(lane.credentialId) === lane) this.lanes.delete(lane.credentialId);
    }
  }

  private sleep(lane: Lane, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.clock.clearTimeout(timer);
        if (lane.wake === done) lane.wake = null;
        resolve();
      };
      const timer = this.clock.setTimeout(done, Math.min(Math.ceil(ms), MAX_TIMER_MS));
      lane.wake = done;
    });
  }

  /** Tells `job` its place: how many waiting jobs a freed slot would go to before it, plus one. */
  private tellQueued(lane: Lane, job: Job): void {
    if (job.onQueued === null) return;
    const mine = keyOf(job);
    let before = 0;
    for (const other of lane.jobs) if (other !== job && goesFirst(keyOf(other), mine)) before += 1;
    this.notify(lane, job, before + 1);
  }

  /** Tells every waiting job its place, each demand read once. */
  private tellAllQueued(lane: Lane): void {
    if (!lane.jobs.some((job) => job.onQueued !== null)) return;
    const order = lane.jobs.map(keyOf).sort((a, b) => (goesFirst(a, b) ? -1 : 1));
    for (const [index, key] of order.entries()) this.notify(lane, key.job, index + 1);
  }

  /** A listener's failure is its own: the queue goes on. */
  private notify(lane: Lane, job: Job, position: number): void {
    if (job.onQueued === null) return;
    try {
      job.onQueued(position);
    } catch (error) {
      this.logger?.warn({ ...errFields(error), credentialId: lane.credentialId }, 'onQueued listener failed');
    }
  }

  /** A waiting job's priority was raised (ScheduleOptions.raisable): it moves to its new place in the queue. */
  private raise(lane: Lane, job: Job, priority: Priority): void {
    const rank = PRIORITY_RANK[priority];
    const index = lane.jobs.indexOf(job);
    if (index === -1 || rank >= job.rank) return;
    lane.jobs.splice(index, 1);
    job.priority = priority;
    job.rank = rank;
    const at = lane.jobs.findIndex((other) => other.rank > rank);
    lane.jobs.splice(at === -1 ? lane.jobs.length : at, 0, job);
    // Its slot may be free at once (the last slots of a window are kept for interactive calls): ask now.
    if (lane.jobs[0] === job) lane.wake?.();
    if (lane.freeAt !== null) this.tellAllQueued(lane);
  }

  /**
   * The job's wait is over. When the store's last answer says its slot is still not free, the budget is what it
   * waited for (BudgetExhaustedError, with when the slot frees). When instead a slot question has been in flight
   * for a while (STORE_SILENT_MS, or half the job's wait), the store is what it waited for: BudgetStoreUnavailableError,
   * so that the user is not told the query limit was reached (until 2026-11-27 a BudgetExhaustedError retrying "now").
   */
  private expire(lane: Lane, job: Job): void {
    const knownFreeAt = lane.freeAt?.[job.priority];
    const now = this.clock.monotonic();
    if (knownFreeAt !== undefined && knownFreeAt > now) {
      this.drop(lane, job, new BudgetExhaustedError(toEpochMs(knownFreeAt, this.clock), job.priority));
      return;
    }
    const silentMs = Math.min(STORE_SILENT_MS, (job.deadline - job.queuedAt) / 2);
    if (lane.askedAt !== null && now - lane.askedAt >= silentMs) {
      this.logger?.warn(
        { credentialId: lane.credentialId, priority: job.priority, waitedMs: now - lane.askedAt },
        'budget store did not answer before the call could wait no longer',
      );
      this.drop(lane, job, new BudgetStoreUnavailableError(job.priority));
      return;
    }
    this.drop(lane, job, new BudgetExhaustedError(toEpochMs(now, this.clock), job.priority));
  }

  private remove(lane: Lane, job: Job): boolean {
    const index = lane.jobs.indexOf(job);
    if (index === -1) return false;
    lane.jobs.splice(index, 1);
    if (job.timer !== null) this.clock.clearTimeout(job.timer);
    job.detach?.();
    // A new head may be due sooner (or the lane may be empty): let the pump look again.
    if (index === 0) lane.wake?.();
    return true;
  }

  private drop(lane: Lane, job: Job, reason: unknown): void {
    if (this.remove(lane, job)) job.reject(reason);
  }

  private start(lane: Lane, job: Job): void {
    this.remove(lane, job);
    new Promise<unknown>((resolve) => resolve(job.fn())).then(job.resolve, job.reject);
  }
}

/**
 * Of the waiting jobs of the most urgent priority (the queue's first ones), the one a freed slot goes to: the most
 * answers wait on it, then the most people looking at nothing, then it came first.
 */
function mostWaitedOn(jobs: readonly Job[]): Job | undefined {
  const first = jobs[0];
  if (first === undefined) return undefined;
  let best = keyOf(first);
  for (const job of jobs) {
    if (job.rank !== first.rank) break;
    if (job === first) continue;
    const key = keyOf(job);
    if (goesFirst(key, best)) best = key;
  }
  return best.job;
}

/** What a freed slot is given by, read once per decision. */
interface GrantKey {
  job: Job;
  rank: number;
  empty: number;
  answers: number;
  seq: number;
}

/**
 * Whether `a` gets a freed slot before `b`: priority, then answers waiting, then people looking at nothing, then
 * arrival. Answers come before people looking at nothing because one refresh of a hot entry answers every command
 * joined to it: put first, the people looking at nothing cost the hot entries' readers more fresh answers than
 * they gain (measured, bench/README.md, "Fresh answers with TTLs scaled").
 */
function goesFirst(a: GrantKey, b: GrantKey): boolean {
  if (a.rank !== b.rank) return a.rank < b.rank;
  if (a.answers !== b.answers) return a.answers > b.answers;
  if (a.empty !== b.empty) return a.empty > b.empty;
  return a.seq < b.seq;
}

/** A demand that throws or is not a pair of counts counts as one answer that shows nothing. */
function keyOf(job: Job): GrantKey {
  let answers = 1;
  let empty = 1;
  if (job.demand !== null) {
    try {
      const demand = job.demand();
      if (Number.isFinite(demand.answers) && Number.isFinite(demand.empty)) {
        answers = demand.answers;
        empty = Math.min(demand.empty, demand.answers);
      }
    } catch {
      // counted as one answer showing nothing
    }
  }
  return { job, rank: job.rank, empty, answers, seq: job.seq };
}
