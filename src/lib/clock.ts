/** A timer handle as setTimeout returns it (vitest's fake timers return the same shape). */
export type TimerHandle = ReturnType<typeof setTimeout>;

/**
 * The time and the timers of code that waits. Injected, so tests run it on fake timers instead of waiting; the
 * system clock reads the globals at each call, so it also follows `vi.useFakeTimers()` where the test installs
 * them before the call.
 */
export interface Clock {
  /** Epoch ms (Date.now). */
  now(): number;
  /** Monotonic ms, for measuring waits: never jumps with the wall clock (performance.now). */
  monotonic(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(timer: TimerHandle): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (timer) => clearTimeout(timer),
};
