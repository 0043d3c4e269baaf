import type { Clock, TimerHandle } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { type Message, renderPending, renderQueued } from '../render/index.js';
import type { CallObserver } from '../upstream/client.js';

/**
 * "First message, then replace it in place": how an answer that takes a while reaches the user. Whatever makes it
 * slow, the person never looks at nothing:
 *
 * - waiting for a budget slot longer than `budgetNoticeMs`: the saved data, marked "atualizando…", or, with
 *   nothing saved, the command's place in the queue;
 * - no answer after `pendingNoticeMs` (upstream slow, hanging): "consultando…";
 * - then the answer (data or failure) replaces that first message; one that waits for the budget may replace a
 *   "consultando…" first.
 * - at `deadlineMs + HARD_STOP_GRACE_MS` without an answer (the client cuts its calls at the deadline; this is
 *   the net under it) the timeout message, with `Tentar de novo`, is the answer; a later one is dropped.
 *
 * Used by every answer that goes through response_url except shared ones (deliver.ts).
 */

export interface AnswerTiming {
  /** From the command to its final answer. */
  deadlineMs: number;
  /** No answer after this: "consultando…". */
  pendingNoticeMs: number;
  /** Waiting this long for a budget slot: saved data or the place in the queue. */
  budgetNoticeMs: number;
}

export const DEFAULT_ANSWER_TIMING: AnswerTiming = Object.freeze({
  deadlineMs: 25_000,
  pendingNoticeMs: 3_000,
  budgetNoticeMs: 1_000,
});

/** How long past the deadline the net waits for an answer the client should already have cut. */
export const HARD_STOP_GRACE_MS = 2_000;

/** Where an answer's calls stand; handed to the upstream client as the calls' observer. */
export class AnswerProgress implements CallObserver {
  /** Place in the budget queue while a call waits for a slot; null otherwise. */
  position: number | null = null;
  private listener: (() => void) | null = null;

  readonly queued = (position: number): void => {
    this.position = position;
    this.listener?.();
  };

  readonly started = (): void => {
    this.position = null;
  };

  onQueued(listener: () => void): void {
    this.listener = listener;
  }
}

export interface FirstMessageRun {
  clock: Clock;
  timing: AnswerTiming;
  progress: AnswerProgress;
  logger: Logger;
  /** The answer; a failure is already its message. */
  answer: Promise<Message>;
  /** The saved data as a first message ("atualizando…"), or null when nothing is saved. */
  saved: () => Promise<Message | null>;
  /** The answer when the deadline passed without one. */
  timedOut: () => Message;
  /** Sends a message: `replacing` once a first message was sent (it replaces that one in place). */
  send: (message: Message, replacing: boolean) => Promise<void>;
}

type Notice = 'pending' | 'budget';

/** Sends the answer, preceded by a first message when it is slow; resolves once the answer is sent. */
export async function firstMessageThenAnswer(run: FirstMessageRun): Promise<{ notices: Notice[] }> {
  const { clock, timing, progress } = run;
  const timers = new Set<TimerHandle>();
  const after = (ms: number, fn: () => void) => {
    const timer = clock.setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };
  const shown: Notice[] = [];
  let answered = false;
  let sent = false;
  // Sends go one after another, so a replacement never overtakes the message it replaces.
  let chain: Promise<void> = Promise.resolve();
  const enqueue = (make: () => Promise<Message | null>, last: boolean) => {
    chain = chain.then(async () => {
      const message = await make().catch((error: unknown) => {
        run.logger.warn({ err: String(error) }, 'first message could not be built');
        return null;
      });
      // The answer came while this notice was being built: it goes alone.
      if (message === null || (answered && !last)) return;
      await run.send(message, sent);
      sent = true;
    });
    return chain;
  };

  const notice = (kind: Notice, make: () => Promise<Message | null>) => {
    if (answered || shown.includes(kind) || (kind === 'pending' && shown.length > 0)) return;
    shown.push(kind);
    void enqueue(make, false);
  };
  const budgetNotice = () =>
    notice('budget', async () => (await run.saved()) ?? renderQueued(progress.position ?? 1));

  let budgetArmed = false;
  progress.onQueued(() => {
    if (budgetArmed || answered) return;
    budgetArmed = true;
    after(timing.budgetNoticeMs, () => {
      if (progress.position !== null) budgetNotice();
    });
  });
  after(timing.pendingNoticeMs, () => notice('pending', async () => renderPending()));

  const final = new Promise<Message>((resolve) => {
    run.answer.then(resolve, () => resolve(run.timedOut()));
    after(timing.deadlineMs + HARD_STOP_GRACE_MS, () => {
      if (!answered) run.logger.warn({ deadlineMs: timing.deadlineMs }, 'answer past its deadline');
      resolve(run.timedOut());
    });
  });
  const message = await final;
  answered = true;
  for (const timer of timers) clock.clearTimeout(timer);
  timers.clear();
  await enqueue(async () => message, true);
  return { notices: shown };
}
