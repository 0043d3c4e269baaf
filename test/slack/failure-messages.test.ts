import { describe, expect, it } from 'vitest';
import {
  LinkBrokenError,
  NotFoundError,
  NotLinkedError,
  UserNotMatchedError,
} from '../../src/domain/errors.js';
import type { Route } from '../../src/domain/routes.js';
import {
  type RenderContext,
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
  renderUserNotMatched,
} from '../../src/render/index.js';
import { failureMessage } from '../../src/slack/failures.js';
import {
  BudgetClosedError,
  BudgetExhaustedError,
  BudgetStoreUnavailableError,
} from '../../src/upstream/budget-errors.js';
import {
  AuthRejectedError,
  CredentialsExpiredError,
  InvalidArgumentError,
  UpstreamBadRequestError,
  UpstreamForbiddenError,
  UpstreamNetworkError,
  UpstreamNotFoundError,
  UpstreamRateLimitedError,
  UpstreamResponseTooLargeError,
  UpstreamSchemaError,
  UpstreamServerError,
  UpstreamTimeoutError,
  UpstreamUnauthorizedError,
  UpstreamUnexpectedStatusError,
} from '../../src/upstream/errors.js';
import { captureLogger } from '../helpers/upstream-stack.js';

const render: RenderContext = { timeZone: 'America/Sao_Paulo', now: Date.UTC(2026, 10, 23, 13) };
const budget = { limit: 250, windowMs: 3_600_000 };
const CORRELATION = 'corr-123';
const PURCHASE: Route = { view: 'purchase', id: 321, page: 1 };
const ep = 'GET /v1/materiais';

/** The message a failure becomes, and the level and code of the one line logged for it. */
function shown(error: unknown, route: Route | null = PURCHASE) {
  const { logger, lines } = captureLogger('info');
  const message = failureMessage(error, route, CORRELATION, render, logger, budget);
  expect(lines).toHaveLength(1);
  const line = JSON.parse(lines[0] ?? '{}') as { level: number; code: string; correlationId: string };
  expect(line.correlationId).toBe(CORRELATION);
  const level = ({ 30: 'info', 40: 'warn', 50: 'error' } as Record<number, string>)[line.level];
  return { message, level, code: line.code };
}

describe('failure messages', () => {
  it.each([
    ['not linked', new NotLinkedError('T1'), renderNotLinked(), 'info'],
    ['a link Redis lost', new NotLinkedError('T1', true), renderNotLinked(true), 'info'],
    ['a broken link', new LinkBrokenError('T1', 'U1', true), renderCredentialsExpired(), 'warn'],
    ['expired credentials', new CredentialsExpiredError(), renderCredentialsExpired(), 'warn'],
    ['a purchase not found', new NotFoundError('purchase', 5), renderNotFound('purchase', 5), 'info'],
    [
      'no matching user',
      new UserNotMatchedError('ana@example.com'),
      renderUserNotMatched('ana@example.com'),
      'info',
    ],
    ['a 404 of the route', new UpstreamNotFoundError(ep), renderNotFound('purchase', 321), 'info'],
    ['a 403', new UpstreamForbiddenError(ep), renderForbidden(), 'warn'],
    [
      'no budget slot',
      new BudgetExhaustedError(render.now + 90_000, 'interactive'),
      renderBudgetExhausted(render.now + 90_000, render, budget),
      'warn',
    ],
    [
      'a budget store that did not answer during the wait for a slot',
      new BudgetStoreUnavailableError('interactive'),
      renderBotStoreUnavailable(CORRELATION),
      'error',
    ],
    [
      'a 429 with Retry-After',
      new UpstreamRateLimitedError(ep, 5_000),
      renderBudgetExhausted(render.now + 5_000, render, budget),
      'warn',
    ],
    [
      'a 429 without Retry-After',
      new UpstreamRateLimitedError(ep),
      renderBudgetExhausted(render.now + 60_000, render, budget),
      'warn',
    ],
    [
      'a 429 after which the client paused the credential for 15 minutes',
      new UpstreamRateLimitedError(ep, undefined, render.now + 900_000),
      renderBudgetExhausted(render.now + 900_000, render, budget),
      'warn',
    ],
    [
      'a 500 with its hash',
      new UpstreamServerError(ep, 500, { hash: 'abc123' }),
      renderServerError('abc123', CORRELATION),
      'error',
    ],
    ['a timeout', new UpstreamTimeoutError(ep, 10_000), renderTimeout(PURCHASE, CORRELATION), 'warn'],
    [
      'a network failure',
      new UpstreamNetworkError(ep, new Error('x')),
      renderTimeout(PURCHASE, CORRELATION),
      'warn',
    ],
    [
      'an unexpected shape',
      new UpstreamSchemaError(ep, 'x: expected number'),
      renderBadUpstreamData(CORRELATION),
      'error',
    ],
    [
      'a 400 with its detail',
      new UpstreamBadRequestError(ep, 'período inválido'),
      renderUpstreamRejected('período inválido'),
      'warn',
    ],
    [
      'an argument the bot refuses before any call (not upstream)',
      new InvalidArgumentError('id', 'out of range'),
      renderInvalidQuery('id'),
      'info',
    ],
    [
      'a period of the request list past 12 months (the bot refuses it before any call)',
      new InvalidArgumentError('dataInicial', 'the period is limited to 12 months'),
      renderInvalidQuery('dataInicial'),
      'info',
    ],
    [
      'a 401 that renewing did not cure',
      new UpstreamUnauthorizedError(ep),
      renderUnauthorized(CORRELATION),
      'warn',
    ],
    [
      'an answer over the size cap',
      new UpstreamResponseTooLargeError(ep, 4_194_304, 4_200_000),
      renderResponseTooLarge(CORRELATION),
      'warn',
    ],
    [
      'an unexpected status',
      new UpstreamUnexpectedStatusError(ep, 418),
      renderUnexpected(CORRELATION),
      'error',
    ],
    ['a refused login', new AuthRejectedError('no', false), renderUnexpected(CORRELATION), 'error'],
  ])('%s', (_, error, message, level) => {
    const result = shown(error);
    expect(result.message).toEqual(message);
    expect(result.level).toBe(level);
    expect(result.code).toBe(error.code);
  });

  it('a 404 without a route or of a list names no id; a timeout without a route says so, with nothing to retry', () => {
    expect(shown(new UpstreamNotFoundError(ep), null).message).toEqual(renderNothingFound());
    const list: Route = { view: 'requests', filters: { stockroomId: 999 }, page: 1 };
    expect(shown(new UpstreamNotFoundError(ep), list).message).toEqual(renderNothingFound());
    expect(renderNothingFound().text).not.toMatch(/\b0\b/);
    // A follow or `minhas acompanhar` that upstream did not answer in time: not "algo deu errado do nosso lado".
    const timedOut = shown(new UpstreamTimeoutError(ep, 10_000), null);
    expect(timedOut).toEqual({
      message: renderTimeout(null, CORRELATION),
      level: 'warn',
      code: 'upstream_timeout',
    });
    expect(timedOut.message.text).toContain('demorou demais para responder');
    expect(JSON.stringify(timedOut.message.blocks)).not.toContain('Tentar de novo');
  });

  it('a 400 names the 12 months only under a request list, the one list the API limits to them', () => {
    const refused = new UpstreamBadRequestError(ep, null);
    const period = 'o período das solicitações vai até 12 meses';
    const requests: Route = { view: 'requests', filters: { status: [1] }, page: 1 };
    expect(shown(refused, requests).message.text).toContain(period);
    expect(shown(refused, { ...requests, mine: true }).message.text).toContain(period);
    const purchases: Route = { view: 'purchases', filters: { supplierId: 12 }, page: 1 };
    const receipts: Route = { view: 'receipts', filters: { purchaseId: 5678 }, page: 1 };
    for (const route of [purchases, receipts, PURCHASE, null]) {
      const { text } = shown(refused, route).message;
      expect(text, JSON.stringify(route)).toContain(
        'O sistema de estoque recusou a consulta. Confira os filtros.',
      );
      expect(text, JSON.stringify(route)).not.toContain('12 meses');
    }
  });

  it('anything else is unexpected, logged as such', () => {
    for (const error of [new Error('boom'), new BudgetClosedError(), 'a string']) {
      expect(shown(error)).toEqual({
        message: renderUnexpected(CORRELATION),
        level: 'error',
        code: 'unexpected',
      });
    }
  });
});
