import {
  DomainError,
  type DomainErrorCode,
  type LinkBrokenError,
  type NotFoundError,
  type NotLinkedError,
  type UserEmailUnavailableError,
  type UserNotMatchedError,
} from '../domain/errors.js';
import type { Route } from '../domain/routes.js';
import type { BudgetExhaustedError, BudgetStoreUnavailableError } from '../upstream/budget-errors.js';
import {
  type AuthRejectedError,
  type CredentialsExpiredError,
  type InvalidArgumentError,
  type UpstreamBadRequestError,
  UpstreamError,
  type UpstreamErrorCode,
  type UpstreamForbiddenError,
  type UpstreamNetworkError,
  type UpstreamNotFoundError,
  type UpstreamRateLimitedError,
  type UpstreamResponseTooLargeError,
  type UpstreamSchemaError,
  type UpstreamServerError,
  type UpstreamTimeoutError,
  type UpstreamUnauthorizedError,
  type UpstreamUnexpectedStatusError,
} from '../upstream/errors.js';
import {
  renderBadUpstreamData,
  renderBotStoreUnavailable,
  renderBudgetExhausted,
  renderCredentialsExpired,
  renderForbidden,
  renderInvalidQuery,
  renderNotFound,
  renderNothingFound,
  renderNotLinked,
  renderResponseTooLarge,
  renderServerError,
  renderTimeout,
  renderUnauthorized,
  renderUnexpected,
  renderUpstreamRejected,
  renderUserEmailUnavailable,
  renderUserNotMatched,
} from './errors.js';
import type { Message, RenderContext } from './types.js';

/**
 * Any failure as the short pt-BR message the user sees, by the error's `code`: one table for the commands, the
 * buttons, the modals and the Home (slack/failures.ts logs it once beside).
 */

/** Every error the bot shows with a message of its own; its `code` tells them apart. */
type ShownError =
  | NotLinkedError
  | LinkBrokenError
  | NotFoundError
  | UserNotMatchedError
  | UserEmailUnavailableError
  | UpstreamBadRequestError
  | UpstreamUnauthorizedError
  | UpstreamForbiddenError
  | UpstreamNotFoundError
  | UpstreamRateLimitedError
  | UpstreamServerError
  | UpstreamTimeoutError
  | UpstreamNetworkError
  | UpstreamSchemaError
  | UpstreamResponseTooLargeError
  | UpstreamUnexpectedStatusError
  | InvalidArgumentError
  | AuthRejectedError
  | CredentialsExpiredError
  | BudgetExhaustedError
  | BudgetStoreUnavailableError;

/** Both families' codes: each one is a key of the table below. */
type ShownCode = UpstreamErrorCode | DomainErrorCode;

/** What the message of a failure may draw on besides the error. */
export interface FailureContext {
  route: Route | null;
  correlationId: string;
  render: RenderContext;
  budget: { limit: number; windowMs: number } | undefined;
}

export type Failure = { level: 'info' | 'warn' | 'error'; message: Message };

const unexpected = ({ correlationId }: FailureContext): Failure => ({
  level: 'error',
  message: renderUnexpected(correlationId),
});

const timeout = (at: FailureContext): Failure => ({
  level: 'warn',
  message: renderTimeout(at.route, at.correlationId),
});

/**
 * The one table from an error's code to what the user sees (and the level it is logged at). Every code of the
 * upstream and domain families has an entry: a new code does not compile until it is given its message.
 */
const FAILURES: {
  [C in ShownCode]: (error: Extract<ShownError, { code: C }>, at: FailureContext) => Failure;
} = {
  not_linked: (error) => ({ level: 'info', message: renderNotLinked(error.lost) }),
  link_broken: () => ({ level: 'warn', message: renderCredentialsExpired() }),
  upstream_credentials_expired: () => ({ level: 'warn', message: renderCredentialsExpired() }),
  not_found: (error) => ({ level: 'info', message: renderNotFound(error.what, error.id) }),
  user_not_matched: (error) => ({ level: 'info', message: renderUserNotMatched(error.email) }),
  user_email_unavailable: () => ({ level: 'warn', message: renderUserEmailUnavailable() }),
  // A 404 names the request or purchase the answer was about; a list's (or one with no route) names none.
  upstream_not_found: (_, { route }) => ({
    level: 'info',
    message:
      route && 'id' in route
        ? renderNotFound(route.view === 'purchase' ? 'purchase' : 'request', route.id)
        : renderNothingFound(),
  }),
  upstream_forbidden: () => ({ level: 'warn', message: renderForbidden() }),
  // The bot's own store did not answer during the wait for a budget slot: not the upstream's limit.
  upstream_budget_store_unavailable: (_, { correlationId }) => ({
    level: 'error',
    message: renderBotStoreUnavailable(correlationId),
  }),
  upstream_budget_exhausted: (error, { render, budget }) => ({
    level: 'warn',
    message: renderBudgetExhausted(error.retryAt, render, budget),
  }),
  upstream_rate_limited: (error, { render, budget }) => ({
    level: 'warn',
    message: renderBudgetExhausted(
      error.pausedUntil ?? render.now + (error.retryAfterMs ?? 60_000),
      render,
      budget,
    ),
  }),
  upstream_server_error: (error, { correlationId }) => ({
    level: 'error',
    message: renderServerError(error.hash, correlationId),
  }),
  upstream_timeout: (_, at) => timeout(at),
  upstream_network_error: (_, at) => timeout(at),
  upstream_schema_mismatch: (_, { correlationId }) => ({
    level: 'error',
    message: renderBadUpstreamData(correlationId),
  }),
  upstream_bad_request: (error, { route }) => ({
    level: 'warn',
    message: renderUpstreamRejected(error.detail, { requestList: route?.view === 'requests' }),
  }),
  // Refused by the bot before any call (queries.ts), not by upstream.
  upstream_invalid_argument: (error) => ({
    level: 'info',
    message: renderInvalidQuery(error.field),
  }),
  upstream_response_too_large: (_, { correlationId }) => ({
    level: 'warn',
    message: renderResponseTooLarge(correlationId),
  }),
  // Still refused after a renewal and a new login: the login's access or permission, not a passing glitch.
  upstream_unauthorized: (_, { correlationId }) => ({
    level: 'warn',
    message: renderUnauthorized(correlationId),
  }),
  upstream_unexpected_status: (_, at) => unexpected(at),
  upstream_auth_rejected: (_, at) => unexpected(at),
};

function describe(error: ShownError, at: FailureContext): Failure {
  // The table's type pairs each code with its own class; a lookup by a code known only at run time cannot.
  const entry = FAILURES[error.code] as (error: ShownError, at: FailureContext) => Failure;
  return entry(error, at);
}

function isShown(error: unknown): error is ShownError {
  return error instanceof UpstreamError || error instanceof DomainError;
}

/** The message of any failure (an error the table does not know: renderUnexpected), the level to log it at, its code. */
export function describeFailure(error: unknown, at: FailureContext): Failure & { code: string } {
  if (!isShown(error)) return { ...unexpected(at), code: 'unexpected' };
  return { ...describe(error, at), code: error.code };
}
