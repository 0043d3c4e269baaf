/**
 * Errors of the budget. `BudgetExhaustedError` is the upstream client's own (errors.ts already defines it with
 * `new BudgetExhaustedError(retryAt, priority)`): one class, so `instanceof` holds wherever it is caught.
 */
export { BudgetExhaustedError } from './errors.js';

/** The budget was closed: queued jobs are rejected with this and new ones are refused. */
export class BudgetClosedError extends Error {
  override readonly name = 'BudgetClosedError';
  readonly code = 'budget_closed';

  constructor() {
    super('The upstream budget was closed before the call could run');
  }
}
