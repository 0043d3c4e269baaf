import { LinkBrokenError } from '../domain/errors.js';
import type { Route } from '../domain/routes.js';
import type { Logger } from '../lib/logger.js';
import type { Message } from '../render/index.js';
import type { AnswerRequest, Answers } from './answers.js';
import { failureMessage } from './failures.js';
import { answerOutcome } from './slack-metrics.js';

/** An answer as the person will see it: the data, or the failure already turned into its message. */
export interface Answered {
  message: Message;
  /** True when `message` tells a failure (it is then never shared in a channel). */
  failed: boolean;
  /** The metrics' outcome label: `ok`, or the stable code of the failure shown. */
  outcome: string;
  /** The link turned out broken and this answer is the one (across processes) that tells the admin who linked. */
  brokenLink: { workspaceId: string; linkedBy: string } | null;
}

/**
 * Builds answers: every read, every render, every failure message. What delivers them (deliver.ts, the request
 * modal) only sends what comes back, so the building can run on another thread (answer-thread.ts) while the
 * thread that acks Slack's requests never waits behind it.
 */
export interface AnswerEngine {
  /** The route's answer, or its failure as a message; never throws. */
  answer(route: Route, request: AnswerRequest): Promise<Answered>;
  /** The saved data only, marked as being refreshed; null when nothing is saved or it cannot be read. */
  saved(route: Route, request: AnswerRequest): Promise<Message | null>;
}

export interface LocalAnswerEngineOptions {
  logger: Logger;
  /** The budget a "budget spent" message names. */
  budget: { limit: number; windowMs: number };
}

/** Answers in this thread, with the services of this process. */
export class LocalAnswerEngine implements AnswerEngine {
  constructor(
    private readonly answers: Answers,
    private readonly options: LocalAnswerEngineOptions,
  ) {}

  async answer(route: Route, request: AnswerRequest): Promise<Answered> {
    try {
      const message = await this.answers.answer(route, request);
      return { message, failed: false, outcome: 'ok', brokenLink: null };
    } catch (error) {
      const logger = this.options.logger.child({
        correlationId: request.correlationId,
        workspaceId: request.workspaceId,
        route: route.view,
      });
      const message = failureMessage(
        error,
        route,
        request.correlationId,
        { ...request.render, shared: undefined },
        logger,
        this.options.budget,
      );
      const brokenLink =
        error instanceof LinkBrokenError && error.firstNotice
          ? { workspaceId: error.workspaceId, linkedBy: error.linkedBy }
          : null;
      return { message, failed: true, outcome: answerOutcome(error), brokenLink };
    }
  }

  async saved(route: Route, request: AnswerRequest): Promise<Message | null> {
    try {
      return await this.answers.answer(route, {
        ...request,
        render: { ...request.render, refreshing: true },
        calls: { savedOnly: true },
      });
    } catch {
      return null;
    }
  }
}
