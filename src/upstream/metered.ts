import { type Metrics, secondsSince } from '../lib/metrics.js';
import type { Budget, BudgetUsage, Priority, ScheduleOptions } from './budget.js';
import { BudgetExhaustedError } from './budget-errors.js';
import { UpstreamNetworkError, UpstreamTimeoutError } from './errors.js';
import type { HttpResult } from './http.js';

/**
 * The upstream layer's metrics: a Budget that measures its waits and pauses and remembers which credentials it
 * served (for the budget gauges), and the timing of one HTTP attempt. Labels are the budget's priority, the
 * credential's id (already a short hash, see credential.ts) and the endpoint's template label.
 */
export class MeteredBudget implements Budget {
  private readonly credentials = new Set<string>();

  constructor(
    private readonly inner: Budget,
    private readonly metrics: Pick<Metrics, 'budgetWait' | 'budgetPause'>,
  ) {}

  async schedule<T>(
    credentialId: string,
    priority: Priority,
    fn: () => Promise<T>,
    options?: ScheduleOptions,
  ): Promise<T> {
    this.credentials.add(credentialId);
    const started = performance.now();
    let granted = false;
    try {
      return await this.inner.schedule(
        credentialId,
        priority,
        () => {
          granted = true;
          this.metrics.budgetWait(priority, 'granted', secondsSince(started));
          return fn();
        },
        options,
      );
    } catch (error) {
      if (!granted) {
        const outcome = error instanceof BudgetExhaustedError ? 'exhausted' : 'error';
        this.metrics.budgetWait(priority, outcome, secondsSince(started));
      }
      throw error;
    }
  }

  pause(credentialId: string, ms: number): Promise<void> {
    this.credentials.add(credentialId);
    this.metrics.budgetPause(credentialId);
    return this.inner.pause(credentialId, ms);
  }

  pauseAfter429(credentialId: string, retryAfterMs: number | undefined): Promise<number> {
    this.credentials.add(credentialId);
    this.metrics.budgetPause(credentialId);
    return this.inner.pauseAfter429(credentialId, retryAfterMs);
  }

  usage(credentialId: string): Promise<BudgetUsage> {
    return this.inner.usage(credentialId);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** The credentials this process has scheduled calls for (one per linked login: a small set). */
  seen(): string[] {
    return [...this.credentials];
  }
}

/** Times one HTTP attempt and counts it by endpoint template and status (or what kept it from having one). */
export async function observeAttempt(
  metrics: Pick<Metrics, 'upstreamCall'> | undefined,
  endpoint: string,
  send: () => Promise<HttpResult>,
): Promise<HttpResult> {
  if (!metrics) return send();
  const started = performance.now();
  try {
    const result = await send();
    metrics.upstreamCall(endpoint, String(result.status), secondsSince(started));
    return result;
  } catch (error) {
    metrics.upstreamCall(endpoint, failureStatus(error), secondsSince(started));
    throw error;
  }
}

function failureStatus(error: unknown): string {
  if (error instanceof UpstreamTimeoutError) return 'timeout';
  if (error instanceof UpstreamNetworkError) return 'network';
  return 'error';
}
