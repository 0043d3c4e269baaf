import type { Demand, Priority } from './budget.js';
import { mayShare } from './budget-policy.js';
import { type CallObserver, SharedCallObserver } from './call-observer.js';

/**
 * Work in flight by key, in one process. A caller of a key that is running shares that job when its priority
 * may wait for it (mayShare: never a command behind a digest's or a prefetch's job); otherwise it starts its
 * own, which later callers of the key share instead. Every caller that shares a job hears its events (its place
 * in the budget queue, that it went out): the job gets one observer that tells them all.
 */
export class InFlight<T> {
  private readonly running = new Map<
    string,
    { priority: Priority; job: Promise<T>; observers: SharedCallObserver; callers: number }
  >();

  /**
   * `start` is handed the observer that tells every caller sharing the job where it stands, and who waits on it,
   * read when asked (callers join, first messages show saved data): how many callers share it and how many of
   * them show their person nothing yet. The budget gives a slot first to the call the most answers wait on, then
   * to the one the most people looking at nothing wait on.
   */
  run(
    key: string,
    priority: Priority,
    start: (observer: SharedCallObserver, demand: () => Demand) => Promise<T>,
    observer?: CallObserver,
  ): { job: Promise<T>; shared: boolean } {
    const running = this.running.get(key);
    if (running && mayShare(running.priority, priority)) {
      running.observers.add(observer);
      running.callers += 1;
      return { job: running.job, shared: true };
    }
    const observers = new SharedCallObserver();
    observers.add(observer);
    const entry = { priority, job: undefined as unknown as Promise<T>, observers, callers: 1 };
    // A caller that came without an observer cannot show saved data: it counts as looking at nothing.
    const demand = (): Demand => ({
      answers: entry.callers,
      empty: Math.max(0, entry.callers - observers.countShowingData()),
    });
    const job = start(observers, demand).finally(() => {
      if (this.running.get(key)?.job === job) this.running.delete(key);
    });
    entry.job = job;
    this.running.set(key, entry);
    return { job, shared: false };
  }
}
