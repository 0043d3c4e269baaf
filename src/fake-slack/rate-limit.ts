/**
 * Slack's per-channel limit on chat.postMessage: about one message per second per channel, with short
 * bursts tolerated. A token bucket per channel: `burst` tokens, refilled at one per second.
 */
export class ChannelRateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly burst: number,
    private readonly now: () => number,
  ) {}

  /** Takes a token for the channel; false when the channel is over its rate. */
  tryPost(channel: string): boolean {
    const at = this.now();
    const bucket = this.buckets.get(channel) ?? { tokens: this.burst, at };
    const tokens = Math.min(this.burst, bucket.tokens + (at - bucket.at) / 1000);
    if (tokens < 1) {
      this.buckets.set(channel, { tokens, at });
      return false;
    }
    this.buckets.set(channel, { tokens: tokens - 1, at });
    return true;
  }

  reset(): void {
    this.buckets.clear();
  }
}
