import type { Clock } from './clock.js';
import type { Logger } from './logger.js';

export interface OutageLogOptions {
  logger: Logger;
  clock: Pick<Clock, 'monotonic'>;
  /** At most one reminder per this while the outage lasts. Default 30 s. */
  remindMs?: number;
  messages: {
    /** The first failure (warn). */
    first: string;
    /** A reminder (warn), with `downMs` and how many `failures` so far. */
    reminder: string;
    /** The end (info), with `downMs` and `failures`. */
    ended: string;
  };
}

/**
 * An outage said as the wait for Redis says it (store/redis-connection.ts): its first failure at once, then a
 * reminder at most every `remindMs` however often it fails, and its end once; a line per failed attempt of a
 * client that retries every second or two would bury everything else in the log.
 */
export class OutageLog {
  private since: number | null = null;
  private lastSaid = 0;
  private failures = 0;
  private readonly remindMs: number;

  constructor(private readonly options: OutageLogOptions) {
    this.remindMs = options.remindMs ?? 30_000;
  }

  /** One more failed attempt; `fields` (the error) go on the lines said. */
  failed(fields: Record<string, unknown> = {}): void {
    const now = this.options.clock.monotonic();
    this.failures += 1;
    if (this.since === null) {
      this.since = now;
      this.lastSaid = now;
      this.options.logger.warn(fields, this.options.messages.first);
      return;
    }
    if (now - this.lastSaid < this.remindMs) return;
    this.lastSaid = now;
    this.options.logger.warn(
      { ...fields, downMs: Math.round(now - this.since), failures: this.failures },
      this.options.messages.reminder,
    );
  }

  /** It works again: said once if it had failed. */
  recovered(): void {
    if (this.since === null) return;
    this.options.logger.info(
      { downMs: Math.round(this.options.clock.monotonic() - this.since), failures: this.failures },
      this.options.messages.ended,
    );
    this.since = null;
    this.failures = 0;
  }
}
