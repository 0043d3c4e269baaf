import { vi } from 'vitest';
import type { Clock } from '../../src/lib/clock.js';

/**
 * A Clock on vitest's fake timers (install them with `vi.useFakeTimers()` first): its monotonic time is the fake
 * Date, so instants are exact and move only when the test moves them.
 */
export const fakeClock: Clock = {
  now: () => Date.now(),
  monotonic: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (timer) => clearTimeout(timer),
};

/** Runs due timers, one after another, until `work` settles; returns its outcome. */
export async function settle<T>(work: Promise<T>): Promise<T> {
  let settled = false;
  const done = () => {
    settled = true;
  };
  work.then(done, done);
  for (let steps = 0; !settled; steps += 1) {
    if (steps > 10_000) throw new Error('the work did not settle: no timer left would settle it');
    await vi.advanceTimersToNextTimerAsync();
  }
  return work;
}
