import { describe, expect, it } from 'vitest';
import {
  UpstreamBadRequestError,
  UpstreamForbiddenError,
  UpstreamNetworkError,
  UpstreamNotFoundError,
  UpstreamRateLimitedError,
  UpstreamSchemaError,
  UpstreamServerError,
  UpstreamTimeoutError,
  UpstreamUnauthorizedError,
} from '../../src/upstream/errors.js';
import {
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  FAST_RETRY_POLICY,
  type RetryPolicy,
  withRetry,
} from '../../src/upstream/retry.js';

const endpoint = 'GET /v1/materiais';
const noJitter: RetryPolicy = { retries: 3, minDelayMs: 100, maxDelayMs: 1_000, factor: 2, jitter: 'none' };

/** Runs withRetry against a script of outcomes, recording attempts and waits instead of sleeping. */
async function run(outcomes: unknown[], policy: RetryPolicy = noJitter, random?: () => number) {
  const attempts: number[] = [];
  const waits: number[] = [];
  const retried: Array<[number, number]> = [];
  let result: unknown;
  let error: unknown;
  try {
    result = await withRetry(
      async (n) => {
        attempts.push(n);
        const outcome = outcomes[n - 1];
        if (outcome instanceof Error) throw outcome;
        return outcome;
      },
      {
        policy,
        sleep: async (ms) => {
          waits.push(ms);
        },
        onRetry: (_err, n, delayMs) => retried.push([n, delayMs]),
        ...(random === undefined ? {} : { random }),
      },
    );
  } catch (err) {
    error = err;
  }
  return { attempts, waits, retried, result, error };
}

describe('withRetry', () => {
  it('returns the first success without waiting', async () => {
    const outcome = await run(['ok']);
    expect(outcome).toMatchObject({ attempts: [1], waits: [], result: 'ok' });
  });

  it.each([
    ['400', new UpstreamBadRequestError(endpoint, 'período inválido')],
    ['401', new UpstreamUnauthorizedError(endpoint)],
    ['403', new UpstreamForbiddenError(endpoint)],
    ['404', new UpstreamNotFoundError(endpoint)],
    ['a schema mismatch', new UpstreamSchemaError(endpoint, '$[0].material: expected int')],
    ['a plain Error', new Error('bug')],
  ])('does not retry %s', async (_name, failure) => {
    const outcome = await run([failure, 'ok']);
    expect(outcome.attempts).toEqual([1]);
    expect(outcome.waits).toEqual([]);
    expect(outcome.error).toBe(failure);
  });

  it.each([
    ['429', new UpstreamRateLimitedError(endpoint)],
    ['500', new UpstreamServerError(endpoint, 500, { hash: 'H' })],
    ['503', new UpstreamServerError(endpoint, 503)],
    ['a timeout', new UpstreamTimeoutError(endpoint, 1_000)],
    ['a network failure', new UpstreamNetworkError(endpoint, new Error('ECONNRESET'))],
  ])('retries %s and returns the later success', async (_name, failure) => {
    const outcome = await run([failure, failure, 'ok']);
    expect(outcome.attempts).toEqual([1, 2, 3]);
    expect(outcome.result).toBe('ok');
    expect(outcome.retried.map(([n]) => n)).toEqual([1, 2]);
  });

  it('is bounded by retries and rethrows the last error', async () => {
    const failures = [1, 2, 3, 4, 5].map((n) => new UpstreamServerError(endpoint, 500, { hash: `H${n}` }));
    const outcome = await run(failures);
    expect(outcome.attempts).toEqual([1, 2, 3, 4]);
    expect(outcome.waits).toHaveLength(3);
    expect(outcome.error).toBe(failures[3]);
  });

  it('retries: 0 means a single attempt', async () => {
    const outcome = await run([new UpstreamTimeoutError(endpoint, 10), 'ok'], { ...noJitter, retries: 0 });
    expect(outcome.attempts).toEqual([1]);
    expect(outcome.error).toBeInstanceOf(UpstreamTimeoutError);
  });

  it('waits exponentially longer between attempts, capped', async () => {
    const failure = new UpstreamServerError(endpoint, 500);
    const outcome = await run([failure, failure, failure, failure, failure], { ...noJitter, retries: 4 });
    expect(outcome.waits).toEqual([100, 200, 400, 800]);
    const capped = await run([failure, failure, failure, failure, failure, failure], {
      ...noJitter,
      retries: 5,
      maxDelayMs: 300,
    });
    expect(capped.waits).toEqual([100, 200, 300, 300, 300]);
  });

  it('spreads the waits with full jitter, using the injected random', async () => {
    const failure = new UpstreamTimeoutError(endpoint, 10);
    const jittered: RetryPolicy = { ...noJitter, jitter: 'full' };
    const draws = [0, 0.5, 0.999];
    const outcome = await run([failure, failure, failure, failure], jittered, () => draws.shift() ?? 0);
    // Retry n waits between 100 and min(1000, 100 × 2^n).
    expect(outcome.waits).toEqual([100, 250, 799]);
  });

  it('waits at least the Retry-After of a 429', async () => {
    const outcome = await run([new UpstreamRateLimitedError(endpoint, 700), 'ok']);
    expect(outcome.waits).toEqual([700]);
    expect(outcome.retried).toEqual([[1, 700]]);
  });

  it('gives up at once when Retry-After exceeds maxDelayMs', async () => {
    const failure = new UpstreamRateLimitedError(endpoint, 60_000);
    const outcome = await run([failure, 'ok']);
    expect(outcome.attempts).toEqual([1]);
    expect(outcome.error).toBe(failure);
  });

  it('accepts a custom shouldRetry', async () => {
    const attempts: number[] = [];
    const result = await withRetry(
      async (n) => {
        attempts.push(n);
        if (n === 1) throw new UpstreamUnauthorizedError(endpoint);
        return n;
      },
      { policy: FAST_RETRY_POLICY, shouldRetry: (err) => err instanceof UpstreamUnauthorizedError },
    );
    expect(result).toBe(2);
    expect(attempts).toEqual([1, 2]);
  });

  it('really sleeps with the default sleep', async () => {
    const started = Date.now();
    const outcome = withRetry(
      async (n) => {
        if (n < 3) throw new UpstreamServerError(endpoint, 502);
        return 'ok';
      },
      { policy: { ...FAST_RETRY_POLICY, jitter: 'none' } },
    );
    await expect(outcome).resolves.toBe('ok');
    expect(Date.now() - started).toBeGreaterThanOrEqual(14);
  });
});

describe('backoffDelay', () => {
  it('without jitter: minDelay × factor^(attempt − 1), capped at maxDelay', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, jitter: 'none' } as const;
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(policy, n))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
  });

  it('with full jitter: between minDelay and the doubled ceiling, never above maxDelay', () => {
    expect(backoffDelay(DEFAULT_RETRY_POLICY, 1, () => 0)).toBe(500);
    expect(backoffDelay(DEFAULT_RETRY_POLICY, 1, () => 0.999_999)).toBe(1000);
    expect(backoffDelay(DEFAULT_RETRY_POLICY, 3, () => 0.5)).toBe(2250);
    expect(backoffDelay(DEFAULT_RETRY_POLICY, 10, () => 0.999_999)).toBe(8000);
    for (let attempt = 1; attempt <= 8; attempt += 1) {
      for (let i = 0; i < 50; i += 1) {
        const delay = backoffDelay(DEFAULT_RETRY_POLICY, attempt);
        expect(delay).toBeGreaterThanOrEqual(500);
        expect(delay).toBeLessThanOrEqual(8000);
      }
    }
  });

  it('the named policies', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      retries: 3,
      minDelayMs: 500,
      maxDelayMs: 8_000,
      factor: 2,
      jitter: 'full',
    });
    expect(FAST_RETRY_POLICY).toMatchObject({ retries: 3, minDelayMs: 5, maxDelayMs: 20 });
  });
});
