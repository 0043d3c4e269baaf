import type { Priority } from './budget.js';
import { mayShare } from './budget-policy.js';

/**
 * Work in flight by key, in one process. A caller of a key that is running shares that job when its priority
 * may wait for it (mayShare: never a command behind a digest's or a prefetch's job); otherwise it starts its
 * own, which later callers of the key share instead.
 */
export class InFlight<T> {
  private readonly running = new Map<string, { priority: Priority; job: Promise<T>; callers: number }>();

  /**
   * `start` is handed how many callers share the job it starts, read when asked (it grows as callers join):
   * the budget gives a slot first to the call the most answers wait on.
   */
  run(
    key: string,
    priority: Priority,
    start: (callers: () => number) => Promise<T>,
  ): { job: Promise<T>; shared: boolean } {
    const running = this.running.get(key);
    if (running && mayShare(running.priority, priority)) {
      running.callers += 1;
      return { job: running.job, shared: true };
    }
    const entry = { priority, job: undefined as unknown as Promise<T>, callers: 1 };
    const job = start(() => entry.callers).finally(() => {
      if (this.running.get(key)?.job === job) this.running.delete(key);
    });
    entry.job = job;
    this.running.set(key, entry);
    return { job, shared: false };
  }
}
