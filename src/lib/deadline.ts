import { type Clock, systemClock, type TimerHandle } from './clock.js';

/**
 * `work`'s value, or `fallback()`'s once `ms` have passed without it (`work` goes on; its late value or failure
 * is dropped). For checks that must answer in time whatever the store or network does: a health probe, a metrics
 * scrape, the saved data of a first message, a stop that waits for work under way at most so long. `clock` sets
 * the timer (a test's manual clock).
 */
export async function orAfter<T>(
  work: Promise<T>,
  ms: number,
  fallback: () => T,
  clock: Pick<Clock, 'setTimeout' | 'clearTimeout'> = systemClock,
): Promise<T> {
  let timer: TimerHandle | undefined;
  const late = new Promise<T>((resolve) => {
    timer = clock.setTimeout(() => resolve(fallback()), ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    if (timer !== undefined) clock.clearTimeout(timer);
  }
}
