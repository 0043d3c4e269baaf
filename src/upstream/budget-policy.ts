import type { BudgetOptions, Priority } from './budget.js';

/** Highest first: the order of the in-process queue and of the capacities below. */
export const PRIORITIES = [
  'interactive',
  'digest',
  'feed',
  'background',
] as const satisfies readonly Priority[];

export const PRIORITY_RANK: Readonly<Record<Priority, number>> = {
  interactive: 0,
  digest: 1,
  feed: 2,
  background: 3,
};

/**
 * Whether a caller at `waiting` priority may wait for the same call already made at `running` priority: only
 * when that call gets its budget slot no later than the caller's own would (a command never waits behind a
 * digest's or a prefetch's call, which may wait minutes for a slot or not at all).
 */
export function mayShare(running: Priority, waiting: Priority): boolean {
  return PRIORITY_RANK[running] <= PRIORITY_RANK[waiting];
}

/**
 * The feed and background calls never take a slot an interactive user of any process waits for (the feed: "never
 * the slots interactive users need"); digests keep their own reserve and their hour.
 */
export function yieldsToInteractive(priority: Priority): boolean {
  return PRIORITY_RANK[priority] >= PRIORITY_RANK.feed;
}

/** How long a job may wait for a slot unless `schedule` says otherwise; 0 = only if a slot is free now. */
export const DEFAULT_MAX_WAIT_MS: Readonly<Record<Priority, number>> = {
  interactive: 10_000,
  digest: 600_000,
  // A round waits a little for its next call; past that it stops and the next round reports everything since.
  feed: 30_000,
  background: 0,
};

/** Share of COUNT that lower priorities leave for higher ones, rounded up. */
const DEFAULT_RESERVE_SHARE: Readonly<Record<Priority, number>> = {
  interactive: 0,
  digest: 0.1,
  feed: 0.2,
  background: 0.3,
};

export const DEFAULT_FEED_SHARE_PERCENT = 20;

/**
 * The feed's calls per window for a share of COUNT: rounded down, but at least one when the share is above 0, so
 * that a small limit (4 calls a minute at 20 %) slows the feed down instead of turning it off in silence. The feed's
 * capacity (COUNT less the reserve above it) is always at least one slot, so that one call can always be paid.
 */
export function feedShareCalls(count: number, sharePercent: number): number {
  return sharePercent <= 0 ? 0 : Math.max(1, Math.floor((count * sharePercent) / 100));
}

/**
 * The feed's share while commands of the credential are being refused slots. At saturation every slot the feed
 * takes is one a command waits for a window longer; 5 % still lets a round run (250/h: 12 calls an hour, a round
 * costs one call, a receipts round a few) while the users who keep the window full get the rest.
 */
export const DEFAULT_FEED_SATURATED_SHARE_PERCENT = 5;

/**
 * A margin added to the window: an entry keeps counting for `windowMs + guardMs`. The decision is taken in Redis
 * but the call leaves a few milliseconds later (reply, event loop, network), and that delay varies from call to
 * call; without a margin, a call that left late and a call that left early could both fall in one window as the
 * upstream measures it. 2% of the window, at most one second (36 s of a 1 h window would waste budget).
 */
function defaultGuardMs(windowMs: number): number {
  return Math.min(1_000, Math.ceil(windowMs * 0.02));
}

export interface BudgetPolicy {
  count: number;
  windowMs: number;
  guardMs: number;
  /** `windowMs + guardMs`: how long a call counts against the budget. */
  spanMs: number;
  /** How many calls in the span a call of each priority may find before it has to wait. */
  capacity: Readonly<Record<Priority, number>>;
  /** Most calls of the 'feed' priority that may count at once (its share of COUNT); 0: none. */
  feedCap: number;
  /** The same while the credential is saturated (an interactive call refused within the last window). */
  feedCapSaturated: number;
  /**
   * How long past the slot it waits for a refused interactive call keeps feed and background calls off the
   * credential: time for its retry to arrive and take that slot.
   */
  waitingMarginMs: number;
  maxWaitMs: Readonly<Record<Priority, number>>;
}

export function mapPriorities<T>(f: (priority: Priority) => T): Record<Priority, T> {
  return {
    interactive: f('interactive'),
    digest: f('digest'),
    feed: f('feed'),
    background: f('background'),
  };
}

function nonNegativeInteger(value: number, what: string): number {
  if (!Number.isInteger(value) || value < 0)
    throw new RangeError(`${what} must be a non-negative integer, got ${value}`);
  return value;
}

function percentIn(value: number, what: string): number {
  if (!(value >= 0 && value <= 100)) throw new RangeError(`${what} must be in [0, 100], got ${value}`);
  return value;
}

export function resolveBudgetPolicy(options: BudgetOptions): BudgetPolicy {
  const { count, windowMs } = options.limit;
  if (!Number.isSafeInteger(count) || count < 1)
    throw new RangeError(`limit.count must be a positive integer, got ${count}`);
  if (!Number.isSafeInteger(windowMs) || windowMs < 1) {
    throw new RangeError(`limit.windowMs must be a positive integer, got ${windowMs}`);
  }
  const guardMs = nonNegativeInteger(options.guardMs ?? defaultGuardMs(windowMs), 'guardMs');

  // Always at least one slot, and never more for a lower priority than for a higher one.
  const capacity = mapPriorities((priority) => {
    const reserve = options.reserve?.[priority] ?? Math.ceil(count * DEFAULT_RESERVE_SHARE[priority]);
    return Math.max(1, count - nonNegativeInteger(reserve, `reserve.${priority}`));
  });
  capacity.digest = Math.min(capacity.digest, capacity.interactive);
  capacity.feed = Math.min(capacity.feed, capacity.digest);
  capacity.background = Math.min(capacity.background, capacity.feed);

  const share = percentIn(options.feedSharePercent ?? DEFAULT_FEED_SHARE_PERCENT, 'feedSharePercent');
  const feedCap = feedShareCalls(count, share);
  const saturatedShare = percentIn(
    options.feedSaturatedSharePercent ?? DEFAULT_FEED_SATURATED_SHARE_PERCENT,
    'feedSaturatedSharePercent',
  );
  // Never above the share; at least one call when the share grants any, so that a saturated credential's rounds go on.
  const feedCapSaturated = Math.min(feedCap, feedShareCalls(count, saturatedShare));

  const maxWaitMs = mapPriorities((priority) => {
    const value = options.maxWaitMs?.[priority] ?? DEFAULT_MAX_WAIT_MS[priority];
    if (Number.isNaN(value) || value < 0)
      throw new RangeError(`maxWaitMs.${priority} must be >= 0, got ${value}`);
    return value;
  });

  return {
    count,
    windowMs,
    guardMs,
    spanMs: windowMs + guardMs,
    capacity,
    feedCap,
    feedCapSaturated,
    // The window's guard plus 100 ms: a waiting caller retries when its slot frees, a few ms later in practice.
    waitingMarginMs: guardMs + 100,
    maxWaitMs,
  };
}
