import { LinkBrokenError, NotFoundError, NotLinkedError, UserNotMatchedError } from '../domain/errors.js';
import type { Route } from '../domain/routes.js';
import { errFields, type Logger } from '../lib/logger.js';
import {
  type Message,
  type RenderContext,
  renderBadUpstreamData,
  renderBudgetExhausted,
  renderCredentialsExpired,
  renderForbidden,
  renderNotFound,
  renderNotLinked,
  renderServerError,
  renderTimeout,
  renderUnexpected,
  renderUpstreamRejected,
  renderUserNotMatched,
} from '../render/index.js';
import { BudgetExhaustedError } from '../upstream/budget-errors.js';
import {
  CredentialsExpiredError,
  InvalidArgumentError,
  UpstreamBadRequestError,
  UpstreamError,
  UpstreamForbiddenError,
  UpstreamNetworkError,
  UpstreamNotFoundError,
  UpstreamRateLimitedError,
  UpstreamSchemaError,
  UpstreamServerError,
  UpstreamTimeoutError,
} from '../upstream/errors.js';

/**
 * Turns any failure of an answer into the short pt-BR message the user sees, and logs it once with the
 * correlation id. Never a stack trace, never a secret: upstream errors carry only labels and ProblemDetails text.
 */
export function failureMessage(
  error: unknown,
  route: Route | null,
  correlationId: string,
  render: RenderContext,
  logger: Logger,
  budget?: { limit: number; windowMs: number },
): Message {
  const [level, code, message] = classify(error, route, correlationId, render, budget);
  logger[level](
    {
      correlationId,
      code,
      route: route?.view,
      ...errFields(error),
    },
    'answer failed',
  );
  return message;
}

type Classified = ['info' | 'warn' | 'error', string, Message];

function classify(
  error: unknown,
  route: Route | null,
  correlationId: string,
  render: RenderContext,
  budget?: { limit: number; windowMs: number },
): Classified {
  if (error instanceof NotLinkedError) return ['info', error.code, renderNotLinked()];
  if (error instanceof LinkBrokenError || error instanceof CredentialsExpiredError) {
    return ['warn', 'credentials_expired', renderCredentialsExpired()];
  }
  if (error instanceof NotFoundError) return ['info', error.code, renderNotFound(error.what, error.id)];
  if (error instanceof UserNotMatchedError) return ['info', error.code, renderUserNotMatched(error.email)];
  if (error instanceof UpstreamNotFoundError) {
    const what = route?.view === 'purchase' ? 'purchase' : 'request';
    const id = route && 'id' in route ? route.id : 0;
    return ['info', error.code, renderNotFound(what, id)];
  }
  if (error instanceof UpstreamForbiddenError) return ['warn', error.code, renderForbidden()];
  if (error instanceof BudgetExhaustedError)
    return ['warn', error.code, renderBudgetExhausted(error.retryAt, render, budget)];
  if (error instanceof UpstreamRateLimitedError) {
    return [
      'warn',
      error.code,
      renderBudgetExhausted(render.now + (error.retryAfterMs ?? 60_000), render, budget),
    ];
  }
  if (error instanceof UpstreamServerError)
    return ['error', error.code, renderServerError(error.hash, correlationId)];
  if ((error instanceof UpstreamTimeoutError || error instanceof UpstreamNetworkError) && route) {
    return ['warn', error.code, renderTimeout(route, correlationId)];
  }
  if (error instanceof UpstreamSchemaError)
    return ['error', error.code, renderBadUpstreamData(correlationId)];
  if (error instanceof UpstreamBadRequestError)
    return ['warn', error.code, renderUpstreamRejected(error.detail)];
  if (error instanceof InvalidArgumentError) return ['warn', error.code, renderUpstreamRejected(null)];
  return [
    'error',
    error instanceof UpstreamError ? error.code : 'unexpected',
    renderUnexpected(correlationId),
  ];
}
