import type { Priority, RaisablePriority } from './budget.js';
import { PRIORITY_RANK } from './budget-policy.js';

/**
 * The priority of work that several callers share, raised to the most urgent caller's: a command that joins a token
 * renewal a digest started must not wait at the digest's place in the budget queue. Given to Budget.schedule as
 * ScheduleOptions.raisable; never lowered.
 */
export class RaisedPriority implements RaisablePriority {
  private current: Priority;
  private readonly listeners = new Set<() => void>();

  constructor(priority: Priority) {
    this.current = priority;
  }

  get priority(): Priority {
    return this.current;
  }

  /** Raises to `priority` when it is more urgent than the current one, and tells the calls waiting under it. */
  raise(priority: Priority): void {
    if (PRIORITY_RANK[priority] >= PRIORITY_RANK[this.current]) return;
    this.current = priority;
    for (const listener of [...this.listeners]) listener();
  }

  onRaise(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
