import { setTimeout as delay } from 'node:timers/promises';
import { UpstreamError, UpstreamRateLimitedError, UpstreamServerError } from './errors.js';

export interface RetryPolicy {
  /** Retries after the first attempt: at most retries + 1 attempts in all. */
  retries: number;
  /** Delay before the first retry, and the floor of every delay. */
  minDelayMs: number;
  /** Ceiling of every backoff delay; a Retry-After longer than this ends the retries instead. */
  maxDelayMs: number;
  factor: number;
  jitter: 'full' | 'none';
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  retries: 3,
  minDelayMs: 500,
  maxDelayMs: 8_000,
  factor: 2,
  jitter: 'full',
});

/** Same shape, tiny delays: for tests. */
export const FAST_RETRY_POLICY: RetryPolicy = Object.freeze({
  retries: 3,
  minDelayMs: 5,
  maxDelayMs: 20,
  factor: 2,
  jitter: 'full',
});

/**
 * Delay before retry number `attempt` (1 for the first retry). Without jitter: minDelayMs × factor^(attempt−1),
 * capped at maxDelayMs. With full jitter: uniform between minDelayMs and minDelayMs × factor^attempt (capped),
 * so even the first retries of many clients spread out, and no delay is shorter than minDelayMs.
 */
export function backoffDelay(
  policy: RetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const n = Math.max(1, Math.floor(attempt));
  const cap = (exponent: number) =>
    Math.min(policy.maxDelayMs, policy.minDelayMs * policy.factor ** exponent);
  if (policy.jitter === 'none') return Math.round(Math.max(policy.minDelayMs, cap(n - 1)));
  const low = Math.min(policy.minDelayMs, policy.maxDelayMs);
  const high = Math.max(low, cap(n));
  const unit = Math.min(Math.max(random(), 0), 1);
  return Math.round(low + unit * (high - low));
}

function defaultShouldRetry(err: unknown): boolean {
  return err instanceof UpstreamError && err.retryable;
}

function retryAfterOf(err: unknown): number | undefined {
  if (err instanceof UpstreamRateLimitedError || err instanceof UpstreamServerError) return err.retryAfterMs;
  return undefined;
}

export interface RetryOptions {
  policy: RetryPolicy;
  /** Default: an UpstreamError marked retryable (429, 5xx, timeout, network). */
  shouldRetry?: (err: unknown) => boolean;
  /** Called before each wait with the error, the number of the attempt that failed (1-based) and the wait. */
  onRetry?: (err: unknown, n: number, delayMs: number) => void;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Time left before the caller's deadline: a retry whose wait would not end before it is not made. */
  remainingMs?: () => number;
}

/**
 * Runs `attempt(n)` (n = 1, 2, …) until it succeeds, the error is not retryable, or `policy.retries` retries are
 * spent; then rethrows the last error. A Retry-After (429, 503) is honoured as a lower bound; when it asks for
 * more than maxDelayMs the error is rethrown at once, so the caller can tell the user when to come back rather
 * than hold a Slack interaction for minutes.
 */
export async function withRetry<T>(attempt: (n: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const { policy } = options;
  const shouldRetry = options.shouldRetry ?? defaultShouldRetry;
  const sleep = options.sleep ?? ((ms: number) => delay(ms));
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      if (n > policy.retries || !shouldRetry(err)) throw err;
      const retryAfterMs = retryAfterOf(err);
      if (retryAfterMs !== undefined && retryAfterMs > policy.maxDelayMs) throw err;
      const waitMs = Math.max(backoffDelay(policy, n, options.random), retryAfterMs ?? 0);
      if (options.remainingMs !== undefined && waitMs >= options.remainingMs()) throw err;
      options.onRetry?.(err, n, waitMs);
      await sleep(waitMs);
    }
  }
}
