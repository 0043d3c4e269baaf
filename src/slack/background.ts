import type { Logger } from '../lib/logger.js';

/**
 * Work that outlives the Slack request (everything after `ack()`). Tracked so that shutdown waits for it and
 * so that a failure is logged even when nobody awaits it; the work itself reports failures to the user.
 */
export class BackgroundTasks {
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly logger: Logger) {}

  run(name: string, work: () => Promise<unknown>): Promise<void> {
    const task = work()
      .catch((error: unknown) => {
        this.logger.error(
          {
            task: name,
            err: error instanceof Error ? { name: error.name, message: error.message } : String(error),
          },
          'background task failed',
        );
      })
      .finally(() => this.running.delete(task));
    this.running.add(task);
    return task.then(() => undefined);
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
