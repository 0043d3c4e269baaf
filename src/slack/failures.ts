import type { Route } from '../domain/routes.js';
import { errFields, type Logger } from '../lib/logger.js';
import { describeFailure } from '../render/failures.js';
import type { Message, RenderContext } from '../render/index.js';

/**
 * Turns any failure of an answer into the short pt-BR message the user sees, and logs it once with the
 * correlation id and the error's code. Never a stack trace, never a secret: upstream errors carry only labels and
 * ProblemDetails text.
 */
export function failureMessage(
  error: unknown,
  route: Route | null,
  correlationId: string,
  render: RenderContext,
  logger: Logger,
  budget?: { limit: number; windowMs: number },
): Message {
  const { level, message, code } = describeFailure(error, { route, correlationId, render, budget });
  // A caller's child logger may carry correlationId and route already: pino would write them twice.
  const bound = logger.bindings();
  logger[level](
    {
      ...(bound.correlationId === undefined && { correlationId }),
      ...(bound.route === undefined && route && { route: route.view }),
      code,
      ...errFields(error),
    },
    'answer failed',
  );
  return message;
}
