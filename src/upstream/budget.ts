import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';

/**
 * The request budget's types. Two implementations share them: budget-redis.ts (every replica on one Redis) and
 * budget-memory.ts (one process, local mode); both are a budget-queue.ts queue over a sliding-window store, under
 * the capacities of budget-policy.ts. The budget's errors are in budget-errors.ts.
 */

export type Priority = 'interactive' | 'digest' | 'feed' | 'background';

export interface BudgetUsage {
  limit: number;
  windowMs: number;
  /** Calls that still count against the window. */
  used: number;
  remaining: number;
  /** Epoch ms at which a pause after a 429 ends; null when not paused. */
  pausedUntil: number | null;
  /** Epoch ms at which an interactive call could run; null when one could run now. */
  nextSlotAt: number | null;
  /**
   * The change feed's calls that count now, and the most the window may hold now (BudgetOptions.feedSharePercent,
   * or feedSaturatedSharePercent while `saturated`: commands of the credential were refused a slot within the last
   * window).
   */
  feed: {
    used: number;
    cap: number;
    saturated: boolean;
    /** The cap outside saturation (FEED_BUDGET_SHARE's calls): 0 only when that share is 0. */
    shareCap: number;
  };
}

export interface ScheduleOptions {
  /** Overrides the priority's default wait; 0 = run only if a slot is free at the next attempt. */
  maxWaitMs?: number;
  signal?: AbortSignal;
  /**
   * Told when the call has to wait for a slot, with its place among the calls of this credential waiting in this
   * process (1 = next), and again whenever a refusal finds it still waiting.
   */
  onQueued?: (position: number) => void;
  /**
   * Who waits on this call now (the readers joined to it). When a slot frees, it goes to the waiting call of the
   * highest priority that the most answers wait on, then the one the most people looking at nothing wait on, the
   * earliest first among equals: one call answers as many commands as it can, and among calls that answer as
   * many, someone shown only a place in the queue gets data before someone already shown saved data. Read at
   * each grant; one answer that shows nothing when not given.
   */
  demand?: () => Demand;
  /**
   * The call's priority, when its caller may raise it while the call waits (a command joined a token renewal that
   * a digest started): the queue asks for a slot at its current value, `priority` is its value at scheduling, and a
   * raise moves the waiting call to its new place at once. The call's longest wait stays the one it was scheduled
   * with.
   */
  raisable?: RaisablePriority;
}

/** A priority that may be raised, never lowered (RaisedPriority, budget-raise.ts). */
export interface RaisablePriority {
  readonly priority: Priority;
  /** Calls `listener` after each raise; returns what stops that. */
  onRaise(listener: () => void): () => void;
}

/** The answers that wait on one call: all of them, and those whose person sees no data yet (no saved data shown). */
export interface Demand {
  answers: number;
  empty: number;
}

export interface Budget {
  /** Waits for a slot of `credentialId`'s shared window at `priority`, then runs fn. Throws BudgetExhaustedError when no slot can be had within maxWaitMs. */
  schedule<T>(
    credentialId: string,
    priority: Priority,
    fn: () => Promise<T>,
    options?: ScheduleOptions,
  ): Promise<T>;
  /** Pauses the credential on every process for ms. Extends a pause, never shortens one. */
  pause(credentialId: string, ms: number): Promise<void>;
  /**
   * After a 429 for the credential (a data or a token call): counts it in the credential's streak of 429s, which
   * every process shares, and pauses the credential on every process for pauseAfter429Ms of that streak. A 429
   * that arrives while a pause is in force answers a call made before it (the same burst) and does not lengthen
   * the streak; the streak ends once a whole window has passed after the pause without a 429 (a 2xx does not end
   * it: one call let through says little about the window upstream counts). Returns how long the pause in force
   * lasts from now, in ms.
   */
  pauseAfter429(credentialId: string, retryAfterMs: number | undefined): Promise<number>;
  usage(credentialId: string): Promise<BudgetUsage>;
  /** Rejects queued jobs and stops timers; running calls are left to finish. Does not close the Redis connection. */
  close(): Promise<void>;
}

export interface BudgetOptions {
  limit: { count: number; windowMs: number };
  logger?: Logger;
  /** Defaults: interactive 10 s, digest 10 min, feed 30 s, background 0 (only if a slot is free now). */
  maxWaitMs?: Partial<Record<Priority, number>>;
  /**
   * Slots of the window a priority leaves to higher ones. Defaults: digest ceil(10%), feed ceil(20%), background
   * ceil(30%) of COUNT.
   */
  reserve?: Partial<Record<Priority, number>>;
  /**
   * Most calls of the change feed any window may hold, in percent of COUNT (FEED_BUDGET_SHARE, default 20):
   * floor(COUNT * share / 100). 0 grants the feed nothing.
   */
  feedSharePercent?: number;
  /**
   * The same while an interactive call of the credential was refused a slot within the last window
   * (FEED_BUDGET_SHARE_SATURATED, default 5), at most `feedSharePercent`; at least one call when it is above 0 and
   * the share grants any.
   */
  feedSaturatedSharePercent?: number;
  /** Margin after the window during which a call still counts (default 2% of the window, at most 1 s). */
  guardMs?: number;
  /** The queue's waits and timers (and the memory budget's window); the system clock unless a test injects one. */
  clock?: Clock;
  /**
   * Redis budget: how often a process that holds calls still counting or a pause looks whether Redis lost them
   * (default DEFAULT_LOSS_CHECK_MS); it also looks at once when its connection comes back.
   */
  lossCheckMs?: number;
  /**
   * Redis budget: how long no call is granted, on any process, once one found the state lost, so that every
   * process puts back its own calls first (default DEFAULT_LOSS_SETTLE_MS, at most the window plus its guard).
   */
  lossSettleMs?: number;
}

export const DEFAULT_LOSS_CHECK_MS = 1_000;
/**
 * Covers the check period and a reconnection: after a Redis restart each replica's connection comes back within
 * its retry delay (at most 5 s, store/redis-connection.ts), and puts its calls back as soon as it does.
 */
export const DEFAULT_LOSS_SETTLE_MS = 10_000;

/** Steps of the backoff after 429s in a row: the eighth 429 waits as long as the seventh. */
export const BACKOFF_STEPS = 7;

/**
 * The backoff after the credential's `streak`-th 429 in a row: from a 60th of the window (at least 250 ms, at most
 * 60 s), doubling with each 429, to at most a quarter of the window.
 */
export function backoffAfter429(streak: number, windowMs: number): number {
  const base = Math.max(250, Math.min(60_000, windowMs / 60));
  return Math.min(windowMs / 4, base * 2 ** Math.min(Math.max(streak, 1) - 1, BACKOFF_STEPS - 1));
}

/**
 * How long a 429 pauses its credential on every replica: the backoff of the credential's streak of 429s, or the
 * upstream's Retry-After when that asks for longer. Retry-After is not in the API document (which says: on 429,
 * wait, back off exponentially, spread the calls), so it may only lengthen the wait: a `Retry-After: 0`, or an HTTP
 * date already past, still waits the backoff. The Retry-After it gets is already capped at the window
 * (retryAfterPause, budget-queue.ts): no 429 pauses a credential longer than the window upstream counts in.
 */
export function pauseAfter429Ms(retryAfterMs: number | undefined, streak: number, windowMs: number): number {
  return Math.max(
    retryAfterMs !== undefined && retryAfterMs > 0 ? retryAfterMs : 0,
    backoffAfter429(streak, windowMs),
  );
}
