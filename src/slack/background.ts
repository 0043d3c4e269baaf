import { errFields, type Logger } from '../lib/logger.js';
import { AckPriority } from './ack-priority.js';

/**
 * Work that outlives the Slack request (everything after `ack()`). Tracked so that shutdown waits for it and
 * so that a failure is logged even when nobody awaits it; the work itself reports failures to the user.
 */
export class BackgroundTasks {
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    private readonly logger: Logger,
    /** Background work starts, and goes on at `checkpoint()`, once no Slack request waits for its ack. */
    readonly priority: AckPriority = new AckPriority(),
  ) {}

  run(name: string, work: () => Promise<unknown>): Promise<void> {
    const task = this.priority
      .yield()
      .then(work)
      .catch((error: unknown) => {
        this.logger.error(
          {
            task: name,
            ...errFields(error),
          },
          'background task failed',
        );
      })
      .finally(() => this.running.delete(task));
    this.running.add(task);
    return task.then(() => undefined);
  }

  /** A place in background work where requests waiting for their ack go first. */
  checkpoint(): Promise<void> {
    return this.priority.yield();
  }

  get size(): number {
    return this.running.size;
  }

  /** Waits for running work, at most `timeoutMs`. */
  async drain(timeoutMs: number): Promise<void> {
    const deadline = new Promise((resolve) => setTimeout(resolve, timeoutMs).unref());
    await Promise.race([Promise.allSettled([...this.running]), deadline]);
  }
}
