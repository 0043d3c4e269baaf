import type { Clock, TimerHandle } from '../../src/lib/clock.js';

/**
 * A Clock a test moves by hand, for code that also does real I/O (Redis, HTTP), where vitest's fake timers would
 * stop the I/O's own timers too. Moving it fires nothing: `runDue()` runs the timers that are due.
 */
export class ManualClock implements Clock {
  private readonly timers = new Map<number, { at: number; fn: () => void }>();
  private lastId = 0;

  constructor(private at: number) {}

  readonly now = (): number => this.at;
  readonly monotonic = (): number => this.at;

  readonly setTimeout = (fn: () => void, ms: number): TimerHandle => {
    this.lastId += 1;
    this.timers.set(this.lastId, { at: this.at + Math.max(0, ms), fn });
    return this.lastId as unknown as TimerHandle;
  };

  readonly clearTimeout = (timer: TimerHandle): void => {
    this.timers.delete(timer as unknown as number);
  };

  set(at: number): void {
    this.at = at;
  }

  advance(ms: number): void {
    this.at += ms;
  }

  /** Timers set and not yet run or cleared. */
  get pending(): number {
    return this.timers.size;
  }

  /** Runs every timer due now, earliest first (and those they set that are due too); returns how many ran. */
  runDue(): number {
    let ran = 0;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.timers)
        if (entry[1].at <= this.at && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) return ran;
      this.timers.delete(next[0]);
      next[1].fn();
      ran += 1;
    }
  }
}
