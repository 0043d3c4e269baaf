import type { Route } from '../domain/routes.js';
import { errFields, type Logger } from '../lib/logger.js';
import type { Message } from '../render/index.js';
import {
  AnswerChannelClient,
  type ChannelEnd,
  type FromAnswerThread,
  type ToAnswerThread,
} from './answer-channel.js';
import type { AnswerEngine, Answered } from './answer-engine.js';
import type { AnswerRequest } from './answers.js';

/** A worker thread as this module uses it (node:worker_threads' Worker; a test may hand a fake). */
export interface AnswerWorker extends ChannelEnd<FromAnswerThread, ToAnswerThread> {
  on(event: 'message', listener: (message: FromAnswerThread) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  terminate(): Promise<number>;
}

export interface AnswerThreadOptions {
  /** Starts a new answer thread (its entry builds the services and calls serveAnswers). */
  spawn: () => AnswerWorker;
  /** Answers built here: while the thread starts or restarts, and again for answers a dying thread took along. */
  local: AnswerEngine;
  logger: Logger;
  /** How long after a thread died the next one starts; doubles up to 30 s while they keep dying early. */
  restartDelayMs?: number;
  /** How long a thread may take to say it is ready (it connects to Redis first). */
  readyTimeoutMs?: number;
  /** How long `close` waits for the thread to close its connections before it is stopped. */
  closeTimeoutMs?: number;
}

interface Running {
  worker: AnswerWorker;
  client: AnswerChannelClient;
  ready: boolean;
  startedAt: number;
}

/**
 * Answers built on a worker thread. On one event loop, the ack of a request that just arrived waits behind
 * whatever runs: another answer's reads, its rendering, and above all the garbage collector's pauses, which grow
 * with everything an answer keeps while it waits seconds for a budget slot. The thread has its own event loop
 * and its own heap (its own store connection, upstream client and budget client, like one more replica), so the
 * thread that acks only routes, acks and sends. Nothing is lost to it: until the thread says it is ready the
 * answers are built here, and an answer a dying thread took along is built here again; a new thread starts.
 */
export class ThreadedAnswerEngine implements AnswerEngine {
  private running: Running | null = null;
  private closing = false;
  private restartTimer: ReturnType<typeof setTimeout> | null = null;
  private delayMs: number;

  constructor(private readonly options: AnswerThreadOptions) {
    this.delayMs = options.restartDelayMs ?? 1_000;
  }

  /** Starts the thread; resolves once it is ready (or failed to start: answers are then built here). */
  start(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.spawn(resolve);
    });
  }

  /** True while answers go to the thread. */
  get threaded(): boolean {
    return this.running?.ready === true;
  }

  answer(route: Route, request: AnswerRequest): Promise<Answered> {
    const running = this.readyThread();
    if (!running) return this.options.local.answer(route, request);
    // A thread that dies mid-answer rejects it: the answer is built here instead, within the same deadline.
    return running.client.answer(route, request).catch(() => this.options.local.answer(route, request));
  }

  saved(route: Route, request: AnswerRequest): Promise<Message | null> {
    const running = this.readyThread();
    if (!running) return this.options.local.saved(route, request);
    return running.client.saved(route, request).catch(() => this.options.local.saved(route, request));
  }

  /** The thread's counters and histograms for the scrape (prom-client JSON); none while it is not running. */
  metrics(): Promise<unknown[]> {
    const running = this.readyThread();
    return running ? running.client.metrics() : Promise.resolve([]);
  }

  /**
   * Stops the thread: it closes its connections (at most `closeTimeoutMs`), then it is terminated. Answers still
   * on it are not built again: the process is stopping and their users were told (BackgroundTasks.shutdown).
   */
  async close(): Promise<void> {
    this.closing = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const running = this.running;
    this.running = null;
    if (!running) return;
    const closed = new Promise<void>((resolve) => {
      running.worker.on('message', (message) => {
        if (message.t === 'closed') resolve();
      });
      running.worker.on('exit', () => resolve());
    });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.closeTimeoutMs ?? 1_500);
    });
    try {
      running.worker.postMessage({ t: 'close' });
    } catch {
      // Already gone.
    }
    await Promise.race([closed, timeout]);
    clearTimeout(timer);
    await running.worker.terminate().catch(() => 0);
  }

  private readyThread(): Running | null {
    return this.running?.ready ? this.running : null;
  }

  private spawn(onSettled: () => void = () => undefined): void {
    if (this.closing) {
      onSettled();
      return;
    }
    let worker: AnswerWorker;
    try {
      worker = this.options.spawn();
    } catch (error) {
      this.options.logger.error(errFields(error), 'answer thread not started: answers are built here');
      this.scheduleRestart();
      onSettled();
      return;
    }
    const running: Running = {
      worker,
      client: new AnswerChannelClient(worker),
      ready: false,
      startedAt: Date.now(),
    };
    this.running = running;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      clearTimeout(readyTimer);
      onSettled();
    };
    const readyTimer = setTimeout(() => {
      if (running.ready) return;
      this.options.logger.error(
        'answer thread not ready in time: answers are built here, it is started again',
      );
      void worker.terminate().catch(() => 0);
      settle();
    }, this.options.readyTimeoutMs ?? 30_000);
    worker.on('message', (message) => {
      if (message.t !== 'ready' || running.ready) return;
      running.ready = true;
      this.options.logger.info('answer thread ready');
      settle();
    });
    worker.on('error', (error) => {
      this.options.logger.error(errFields(error), 'answer thread failed');
    });
    worker.on('exit', (code) => {
      settle();
      running.ready = false;
      if (this.running === running) this.running = null;
      // Closing: what it still held was told to its users already (see close()).
      if (this.closing) return;
      running.client.fail(new Error(`answer thread exited (${code})`));
      this.options.logger.error(
        { exitCode: code, waiting: running.client.waiting },
        'answer thread exited: answers are built here until a new one is ready',
      );
      // One that lived a while gets the short delay again; one that keeps dying at start waits longer each time.
      if (Date.now() - running.startedAt > 60_000) this.delayMs = this.options.restartDelayMs ?? 1_000;
      this.scheduleRestart();
    });
  }

  private scheduleRestart(): void {
    if (this.closing || this.restartTimer) return;
    const delay = this.delayMs;
    this.delayMs = Math.min(this.delayMs * 2, 30_000);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.spawn();
    }, delay);
    this.restartTimer.unref?.();
  }
}
