/** A rate budget written as `COUNT/DURATION`, for example `250/1h`, `25/36s` or `10/2s`. */
export interface RateLimitSpec {
  count: number;
  windowMs: number;
}

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * The longest budget window: the upstream counts per hour, and a window is kept in Redis and waited out with
 * timers; past this a window is a typo (`1/1000000000d` once passed here and stopped start-up in the budget).
 */
const MAX_WINDOW_MS = 86_400_000;

const SPEC = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)?\s*(ms|s|min|m|h|d)\s*$/i;

/** Parses `COUNT/DURATION`; returns an error message instead of throwing so config can report every bad variable. */
export function parseRateLimit(text: string): RateLimitSpec | string {
  const match = SPEC.exec(text);
  if (!match) return `expected COUNT/DURATION such as 250/1h or 25/36s, got "${text}"`;
  const count = Number(match[1]);
  const amount = match[2] === undefined ? 1 : Number(match[2]);
  const unit = UNIT_MS[(match[3] ?? '').toLowerCase()];
  if (unit === undefined) return `unknown duration unit in "${text}"`;
  const windowMs = Math.round(amount * unit);
  if (!Number.isSafeInteger(count) || count < 1) return `COUNT must be a positive integer in "${text}"`;
  if (windowMs < 100) return `DURATION must be at least 100ms in "${text}"`;
  if (!Number.isSafeInteger(windowMs) || windowMs > MAX_WINDOW_MS)
    return `DURATION must be at most 1 day (24h) in "${text}"`;
  return { count, windowMs };
}

const DURATION = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|min|m|h|d)\s*$/i;

/** Parses a duration such as `25s`, `1500ms`, `2m`; null when it is not one. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text);
  const unit = UNIT_MS[(match?.[2] ?? '').toLowerCase()];
  if (!match || unit === undefined) return null;
  const ms = Math.round(Number(match[1]) * unit);
  return Number.isSafeInteger(ms) ? ms : null;
}

export function formatRateLimit(spec: RateLimitSpec): string {
  const { count, windowMs } = spec;
  if (windowMs % 3_600_000 === 0) return `${count}/${windowMs / 3_600_000}h`;
  if (windowMs % 60_000 === 0) return `${count}/${windowMs / 60_000}m`;
  if (windowMs % 1_000 === 0) return `${count}/${windowMs / 1_000}s`;
  return `${count}/${windowMs}ms`;
}
