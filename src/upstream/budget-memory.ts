import { systemClock } from '../lib/clock.js';
import { type Budget, type BudgetOptions, type Priority, pauseAfter429Ms } from './budget.js';
import { mapPriorities, resolveBudgetPolicy, yieldsToInteractive } from './budget-policy.js';
import { type Acquire, budgetOverWindow } from './budget-queue.js';

/**
 * The budget of a single process (local mode): the same sliding window, capacities, pause and queue as the Redis
 * budget, kept in memory on the monotonic clock. Two processes using it do not share anything.
 */
export function createMemoryBudget(options: BudgetOptions): Budget {
  const policy = resolveBudgetPolicy(options);
  const clock = options.clock ?? systemClock;
  /** Per credential, the start of every call that still counts, oldest first. */
  const logs = new Map<string, number[]>();
  /** Per credential, the same for the change feed's calls only (its share of the window). */
  const feedLogs = new Map<string, number[]>();
  /** Per credential, the monotonic instant a pause ends. */
  const pauses = new Map<string, number>();
  /** Per credential, until when an interactive call waits for a slot (feed and background calls leave it to it). */
  const interactiveWaiting = new Map<string, number>();
  /** Per credential, its 429s in a row and until when the streak lasts (a window after the pause without a 429). */
  const streaks = new Map<string, { streak: number; until: number }>();
  /** Per credential, until when it counts as saturated (an interactive call was refused): the feed's smaller share. */
  const saturatedUntil = new Map<string, number>();

  const liveLog = (credentialId: string, now: number, of = logs): number[] => {
    const log = of.get(credentialId) ?? [];
    let gone = 0;
    while (gone < log.length && (log[gone] ?? 0) <= now - policy.spanMs) gone += 1;
    if (gone > 0) log.splice(0, gone);
    if (log.length === 0) of.delete(credentialId);
    return log;
  };

  /** How long until the instant `until` holds for the credential (a pause's end, a waiting call's slot); 0 once
   * past, and the entry is dropped. */
  const remainingMs = (until: Map<string, number>, credentialId: string, now: number): number => {
    const end = until.get(credentialId);
    if (end === undefined) return 0;
    if (end > now) return end - now;
    until.delete(credentialId);
    return 0;
  };

  /** When the entry that has to leave for a call at `capacity` does leave. */
  const windowWait = (log: number[], capacity: number, now: number): number => {
    if (log.length < capacity) return 0;
    return (log[log.length - capacity] ?? now) + policy.spanMs - now;
  };

  const acquire: Acquire = async (credentialId: string, priority: Priority) => {
    const now = clock.monotonic();
    const paused = remainingMs(pauses, credentialId, now);
    const log = liveLog(credentialId, now);
    const feedLog = liveLog(credentialId, now, feedLogs);
    const feedCap =
      remainingMs(saturatedUntil, credentialId, now) > 0 ? policy.feedCapSaturated : policy.feedCap;
    const shareFree = priority !== 'feed' || feedLog.length < feedCap;
    const waiting = remainingMs(interactiveWaiting, credentialId, now);
    const yields = yieldsToInteractive(priority) && waiting > 0;
    if (paused === 0 && !yields && log.length < policy.capacity[priority] && shareFree) {
      log.push(now);
      logs.set(credentialId, log);
      if (priority === 'feed') {
        feedLog.push(now);
        feedLogs.set(credentialId, feedLog);
      }
      return { granted: true };
    }
    // The feed also waits for one of its own calls to leave the window when its share is full.
    const shareWait = feedCap === 0 ? policy.spanMs : windowWait(feedLog, feedCap, now);
    const waitMs = mapPriorities((p) =>
      Math.max(
        paused,
        windowWait(log, policy.capacity[p], now),
        p === 'feed' ? shareWait : 0,
        yieldsToInteractive(p) ? waiting : 0,
      ),
    );
    if (priority === 'interactive') {
      const until = now + waitMs.interactive + policy.waitingMarginMs;
      if (until > (interactiveWaiting.get(credentialId) ?? 0)) interactiveWaiting.set(credentialId, until);
      saturatedUntil.set(credentialId, now + policy.spanMs);
    }
    return { granted: false, waitMs };
  };

  return budgetOverWindow(
    policy,
    { ...options, clock },
    {
      acquire,
      async pause(credentialId, ms) {
        const until = clock.monotonic() + ms;
        if (until > (pauses.get(credentialId) ?? 0)) pauses.set(credentialId, until);
      },
      async pauseAfter429(credentialId, retryAfterMs) {
        const now = clock.monotonic();
        const paused = remainingMs(pauses, credentialId, now);
        const last = streaks.get(credentialId);
        const kept = last !== undefined && last.until > now ? last.streak : 0;
        // A 429 during a pause answers a call made before it: the same burst, not one more in a row.
        const streak = paused > 0 ? Math.max(kept, 1) : kept + 1;
        const pausedMs = Math.max(paused, pauseAfter429Ms(retryAfterMs, streak, policy.windowMs));
        pauses.set(credentialId, now + pausedMs);
        streaks.set(credentialId, { streak, until: now + pausedMs + policy.windowMs });
        return { pausedMs, streak };
      },
      async usage(credentialId) {
        const now = clock.monotonic();
        const log = liveLog(credentialId, now);
        return {
          used: log.length,
          pausedMs: remainingMs(pauses, credentialId, now),
          waitMs: windowWait(log, policy.count, now),
          feedUsed: liveLog(credentialId, now, feedLogs).length,
          saturated: remainingMs(saturatedUntil, credentialId, now) > 0,
        };
      },
    },
  );
}
