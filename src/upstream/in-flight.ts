import type { Priority } from './budget.js';
import { mayShare } from './budget-policy.js';

/**
 * Work in flight by key, in one process. A caller of a key that is running shares that job when its priority
 * may wait for it (mayShare: never a command behind a digest's or a prefetch's job); otherwise it starts its
 * own, which later callers of the key share instead.
 */
export class InFlight<T> {
  private readonly running = new Map<string, { priority: Priority; job: Promise<T> }>();

  run(key: string, priority: Priority, start: () => Promise<T>): { job: Promise<T>; shared: boolean } {
    const running = this.running.get(key);
    if (running && mayShare(running.priority, priority)) return { job: running.job, shared: true };
    const job = start().finally(() => {
      if (this.running.get(key)?.job === job) this.running.delete(key);
    });
    this.running.set(key, { priority, job });
    return { job, shared: false };
  }
}
