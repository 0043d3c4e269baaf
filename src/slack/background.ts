import { type Clock, systemClock } from '../lib/clock.js';
import { errFields, type Logger } from '../lib/logger.js';
import { AckPriority } from './ack-priority.js';

export interface TaskOptions {
  /**
   * Tells the person waiting for this work that it will not come (the process is stopping): called when the
   * work is still running at the end of the shutdown grace, or at once when the work arrives after shutdown began.
   */
  onAbandon?: () => Promise<unknown>;
}

export interface ShutdownReport {
  /** Work that finished within the grace. */
  finished: number;
  /** Work still running at the end of the grace whose users were told to try again. */
  told: number;
  /** Work still running at the end of the grace with nobody to tell (a link, an unlink, a digest command). */
  dropped: number;
}

interface Running {
  name: string;
  done: Promise<void>;
  options: TaskOptions;
  settled: boolean;
}

/** How long the "bot is restarting" notices may take, after the grace, before the process exits anyway. */
export const ABANDON_NOTICE_MS = 3_000;

/**
 * Work that outlives the Slack request (everything after `ack()`). Tracked so that shutdown waits for it and
 * so that a failure is logged even when nobody awaits it; the work itself reports failures to the user.
 */
export class BackgroundTasks {
  private readonly running = new Set<Running>();
  private stopping = false;

  constructor(
    private readonly logger: Logger,
    /** Background work starts, and goes on at `checkpoint()`, once no Slack request waits for its ack. */
    readonly priority: AckPriority = new AckPriority(),
  ) {}

  run(name: string, work: () => Promise<unknown>, options: TaskOptions = {}): Promise<void> {
    if (this.stopping && options.onAbandon) {
      // Shutdown began: a new answer would not finish. Say so now instead of starting it.
      this.logger.info({ task: name }, 'work refused: shutting down');
      return this.tell(name, options.onAbandon);
    }
    const entry: Running = { name, options, settled: false, done: Promise.resolve() };
    entry.done = this.priority
      .yield()
      .then(work)
      .then(
        () => undefined,
        (error: unknown) => {
          this.logger.error({ task: name, ...errFields(error) }, 'background task failed');
        },
      )
      .finally(() => {
        entry.settled = true;
        this.running.delete(entry);
      });
    this.running.add(entry);
    return entry.done;
  }

  /** A place in background work where requests waiting for their ack go first. */
  checkpoint(): Promise<void> {
    return this.priority.yield();
  }

  get size(): number {
    return this.running.size;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }

  /** Waits for running work, at most `timeoutMs`. */
  async drain(timeoutMs: number, clock: Clock = systemClock): Promise<void> {
    await this.waitAll(timeoutMs, clock);
  }

  /**
   * SIGTERM: no new work starts (whoever asks is told at once), work in flight may finish within `graceMs`,
   * and whoever still waits then is told to try again (at most ABANDON_NOTICE_MS for those notices).
   */
  async shutdown(graceMs: number, clock: Clock = systemClock): Promise<ShutdownReport> {
    this.stopping = true;
    const atStart = this.running.size;
    await this.waitAll(graceMs, clock);
    const left = [...this.running].filter((entry) => !entry.settled);
    const toTell = left.filter((entry) => entry.options.onAbandon);
    const notices = toTell.map((entry) => this.tell(entry.name, entry.options.onAbandon!));
    await this.within(Promise.allSettled(notices), ABANDON_NOTICE_MS, clock);
    const report = {
      finished: atStart - left.length,
      told: toTell.length,
      dropped: left.length - toTell.length,
    };
    this.logger.info({ graceMs, ...report }, 'background work stopped');
    return report;
  }

  private async tell(name: string, onAbandon: () => Promise<unknown>): Promise<void> {
    try {
      await onAbandon();
    } catch (error) {
      this.logger.warn({ task: name, ...errFields(error) }, 'could not tell the user the bot is restarting');
    }
  }

  private waitAll(timeoutMs: number, clock: Clock): Promise<unknown> {
    return this.within(Promise.allSettled([...this.running].map((entry) => entry.done)), timeoutMs, clock);
  }

  private async within(work: Promise<unknown>, timeoutMs: number, clock: Clock): Promise<void> {
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = clock.setTimeout(resolve, timeoutMs);
      (timer as { unref?: () => void }).unref?.();
    });
    await Promise.race([work, deadline]);
    if (timer !== undefined) clock.clearTimeout(timer);
  }
}
