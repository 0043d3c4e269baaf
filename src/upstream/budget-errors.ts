import { UpstreamError, UpstreamErrorCode } from './errors.js';

/**
 * Errors of the request budget. BudgetExhaustedError is an UpstreamError (no call was made, and none should be
 * retried now), so callers that treat upstream failures alike treat it alike; it is defined here only.
 */

/** The request budget (250 calls an hour per credential) has no room for a call of this priority now. */
export class BudgetExhaustedError extends UpstreamError {
  override readonly name = 'BudgetExhaustedError';
  readonly code = UpstreamErrorCode.BudgetExhausted;
  readonly retryable = false;
  /** Epoch ms at which the budget is expected to have room again. */
  readonly retryAt: number;
  readonly priority: string;

  constructor(retryAt: number, priority: string, endpoint?: string) {
    super(`Request budget exhausted for ${priority} calls until ${new Date(retryAt).toISOString()}`, {
      endpoint,
    });
    this.retryAt = retryAt;
    this.priority = priority;
  }
}

/**
 * The budget's shared store (Redis) did not answer the question "may this call start?" before the call's wait
 * ended, or failed it: no call was made, and the upstream's limit is not what stopped it. Until 2026-11-27 a wait
 * that ended so was a BudgetExhaustedError (retry at "now"), and users read that the query limit was reached
 * while `/estoque status` showed the budget free.
 */
export class BudgetStoreUnavailableError extends UpstreamError {
  override readonly name = 'BudgetStoreUnavailableError';
  readonly code = UpstreamErrorCode.BudgetStoreUnavailable;
  readonly retryable = false;
  readonly priority: string;

  constructor(priority: string, cause?: unknown) {
    super(
      `The budget store did not answer for a ${priority} call${
        cause instanceof Error ? `: ${cause.message}` : ''
      }`,
      { cause },
    );
    this.priority = priority;
  }
}

/**
 * Waiting mends it: a spent budget, a budget store that did not answer, or an upstream failure a retry may get
 * past (429, 5xx, timeout, network).
 */
export function isTransient(error: unknown): boolean {
  return (
    error instanceof BudgetExhaustedError ||
    error instanceof BudgetStoreUnavailableError ||
    (error instanceof UpstreamError && error.retryable)
  );
}

/** Upstream refused in a way no wait or retry mends: a 4xx, an answer of the wrong shape or size. */
export function isLastingRefusal(error: unknown): boolean {
  return error instanceof UpstreamError && !isTransient(error);
}

/** The budget was closed: queued jobs are rejected with this and new ones are refused. */
export class BudgetClosedError extends Error {
  override readonly name = 'BudgetClosedError';
  readonly code = 'budget_closed';

  constructor() {
    super('The upstream budget was closed before the call could run');
  }
}
