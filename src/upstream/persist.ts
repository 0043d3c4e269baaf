import { withRetry } from './retry.js';

/** Waits from 100 ms doubling to 5 s, no jitter: one process asking its own store again. */
const PERSIST_POLICY = Object.freeze({
  retries: Number.POSITIVE_INFINITY,
  minDelayMs: 100,
  maxDelayMs: 5_000,
  factor: 2,
  jitter: 'none' as const,
});

/**
 * `write` until it succeeds, for at most `forMs` (withRetry, whatever the error); then its last error. For the record
 * of something done outside that cannot be undone (a post Slack accepted): a store restarting for a moment (ioredis
 * refuses commands after about a second of reconnecting) must not make it forgotten, and done again.
 */
export async function persistently(
  write: () => Promise<unknown>,
  forMs: number,
  /** The waits and the clock they are measured on (a test's fake clock moves both). */
  time: { sleep: (ms: number) => Promise<void>; now: () => number } = {
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: Date.now,
  },
): Promise<void> {
  const until = time.now() + forMs;
  await withRetry(write, {
    policy: PERSIST_POLICY,
    shouldRetry: () => true,
    sleep: time.sleep,
    remainingMs: () => until - time.now(),
  });
}
