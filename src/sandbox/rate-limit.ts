/**
 * Sliding-window limiter per credential: a call is accepted when fewer than `count` calls were accepted in
 * the `windowMs` before it, whatever the alignment of the window. Refused calls are not counted, so a client
 * that backs off gets through again as soon as the oldest accepted call leaves the window.
 */
export class SlidingWindowLimiter {
  private readonly accepted = new Map<string, number[]>();

  constructor(
    readonly count: number,
    readonly windowMs: number,
    private readonly now: () => number,
  ) {
    if (!Number.isInteger(count) || count < 1)
      throw new RangeError('rateLimit.count must be a positive integer');
    if (!(windowMs > 0)) throw new RangeError('rateLimit.windowMs must be positive');
  }

  /** Counts a call for `key` and returns true, or returns false when the window is full. */
  tryAcquire(key: string): boolean {
    const at = this.now();
    const recent = (this.accepted.get(key) ?? []).filter((t) => t > at - this.windowMs);
    if (recent.length >= this.count) {
      this.accepted.set(key, recent);
      return false;
    }
    recent.push(at);
    this.accepted.set(key, recent);
    return true;
  }

  /** Calls accepted for `key` in the window ending now. */
  used(key: string): number {
    const at = this.now();
    return (this.accepted.get(key) ?? []).filter((t) => t > at - this.windowMs).length;
  }
}
