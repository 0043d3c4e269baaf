import type { Clock, TimerHandle } from '../lib/clock.js';
import { orAfter } from '../lib/deadline.js';
import type { Logger } from '../lib/logger.js';
import { type Message, renderPending, renderQueued } from '../render/index.js';
import type { CallObserver } from '../upstream/call-observer.js';

/**
 * "First message, then replace it in place": how an answer that takes a while reaches the user. Whatever makes it
 * slow, the person never looks at nothing. Both notice times count from the command's arrival (`arrivedAt`), not
 * from when a call was queued, so a notice due at `budgetNoticeMs` is on screen within about that:
 *
 * - no answer by `budgetNoticeMs` and a call waiting for a budget slot (its own, or the one it joined, see
 *   upstream/call-observer.ts): the saved data, marked "atualizando…", or, with nothing saved, the command's place
 *   in the queue. A call queued later than that shows it at once;
 * - no answer by `budgetNoticeMs`, nothing queued and no call out at upstream (it waits for a read another
 *   replica makes, or for something before any call): the saved data, or "consultando…";
 * - a call out at upstream (slow, hanging) and no answer by `pendingNoticeMs`: "consultando…";
 * - then the answer (data or failure) replaces that first message; one that waits for the budget may replace a
 *   "consultando…" first (never saved data: that is already the best there is to show).
 * - at `deadlineMs + HARD_STOP_GRACE_MS` without an answer (the client cuts its calls at the deadline; this is
 *   the net under it) the timeout message, with `Tentar de novo`, is the answer; a later one is dropped.
 *
 * Used by every answer that goes through response_url except shared ones (deliver.ts).
 */

export interface AnswerTiming {
  /** From the command to its final answer; Infinity: none (the notices still come). */
  deadlineMs: number;
  /** From the command, no answer yet and its call out at upstream: "consultando…". */
  pendingNoticeMs: number;
  /** From the command, no answer yet and not at upstream: saved data, the place in the queue or "consultando…". */
  budgetNoticeMs: number;
}

export const DEFAULT_ANSWER_TIMING: AnswerTiming = Object.freeze({
  deadlineMs: 25_000,
  pendingNoticeMs: 3_000,
  budgetNoticeMs: 700,
});

/** How long a first message waits for the saved data before it goes without it. */
const SAVED_READ_MS = 500;

/** How long past the deadline the net waits for an answer the client should already have cut. */
export const HARD_STOP_GRACE_MS = 2_000;

/** Where an answer's calls stand; handed to the upstream client as the calls' observer. */
export class AnswerProgress implements CallObserver {
  /** Place in the budget queue while a call waits for a slot; null otherwise. */
  position: number | null = null;
  /** A call of this answer went out to upstream (an answer that is slow then is slow upstream). */
  calling = false;
  /**
   * The answer is built and only waits to be sent (behind other requests' acks, see deliver.ts): a notice now
   * would be a second post of nothing new.
   */
  isBuilt = false;
  /**
   * Saved data is the first message, on screen while the answer waits: among calls as many answers wait on, the
   * budget gives a freed slot first to one that people looking at nothing (a place in the queue, "consultando…")
   * wait on.
   */
  savedShown = false;
  private listener: (() => void) | null = null;

  readonly queued = (position: number): void => {
    this.position = position;
    this.listener?.();
  };

  readonly started = (): void => {
    this.position = null;
    this.calling = true;
  };

  readonly built = (): void => {
    this.isBuilt = true;
  };

  readonly showingData = (): boolean => this.savedShown;

  onQueued(listener: () => void): void {
    this.listener = listener;
  }
}

export interface FirstMessageRun {
  clock: Clock;
  timing: AnswerTiming;
  progress: AnswerProgress;
  /** When the command arrived, on `clock.monotonic()`; default: now. The notice times count from it. */
  arrivedAt?: number;
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

/** What a first message showed: saved data, the place in the queue, "consultando…". */
type Notice = 'saved' | 'queue' | 'pending';

/** Sends the answer, preceded by a first message when it is slow; resolves once the answer is sent. */
export async function firstMessageThenAnswer(run: FirstMessageRun): Promise<{ notices: Notice[] }> {
  const { clock, timing, progress } = run;
  const arrivedAt = run.arrivedAt ?? clock.monotonic();
  const timers = new Set<TimerHandle>();
  /** Runs `fn` `ms` after the command arrived (at once when that is past). */
  const afterArrival = (ms: number, fn: () => void) => {
    const timer = clock.setTimeout(
      () => {
        timers.delete(timer);
        fn();
      },
      Math.max(0, arrivedAt + ms - clock.monotonic()),
    );
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

  /** The saved data when there is some, else `otherwise`; recorded as what it showed. */
  const savedOr = (otherwise: () => Message, kind: Notice) => async (): Promise<Message | null> => {
    // Saved data that the store cannot give in time (Redis away) must not hold the notice back: "consultando…".
    const saved = await orAfter(
      run.saved().catch(() => null),
      SAVED_READ_MS,
      () => null,
    );
    if (answered) return null;
    shown.push(saved === null ? kind : 'saved');
    if (saved !== null) progress.savedShown = true;
    return saved ?? otherwise();
  };
  const pendingOnly = async (): Promise<Message | null> => {
    if (answered) return null;
    shown.push('pending');
    return renderPending();
  };
  // One first message, which a place in the queue may then replace once when it was "consultando…" (it says
  // more); saved data is never replaced by a notice.
  let noticing = false;
  let queueNoticed = false;
  const notice = (kind: Notice, make: () => Promise<Message | null>) => {
    if (answered || progress.isBuilt) return;
    if (kind === 'queue') {
      if (queueNoticed) return;
      queueNoticed = true;
      noticing = true;
      // Decided when its turn comes: the notice before it may still be being built.
      void enqueue(async () => (shown.every((k) => k === 'pending') ? make() : null), false);
      return;
    }
    if (noticing) return;
    noticing = true;
    void enqueue(make, false);
  };
  const queueNotice = () =>
    notice(
      'queue',
      savedOr(() => renderQueued(progress.position ?? 1), 'queue'),
    );

  let noticeTime = false;
  progress.onQueued(() => {
    if (noticeTime && progress.position !== null) queueNotice();
  });
  afterArrival(timing.budgetNoticeMs, () => {
    noticeTime = true;
    if (progress.position !== null) queueNotice();
    // Nothing queued and nothing at upstream: whatever it waits for, the saved data or "consultando…" beats nothing.
    else if (!progress.calling) notice('pending', savedOr(renderPending, 'pending'));
  });
  afterArrival(timing.pendingNoticeMs, () => notice('pending', pendingOnly));

  const final = new Promise<Message>((resolve) => {
    run.answer.then(resolve, () => resolve(run.timedOut()));
    // An answer without a deadline (Infinity: `/estoque resumo agora`, whose digest is built without one) has no net.
    if (Number.isFinite(timing.deadlineMs))
      afterArrival(timing.deadlineMs + HARD_STOP_GRACE_MS, () => {
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
