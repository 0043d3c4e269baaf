import type { Route } from '../domain/routes.js';
import type { Message, RenderContext } from '../render/index.js';
import type { CallObserver } from '../upstream/call-observer.js';
import type { AnswerEngine, Answered } from './answer-engine.js';
import type { AnswerRequest } from './answers.js';

/**
 * The messages between the thread that acks Slack's requests and the answer thread (answer-thread.ts): plain
 * data only (structured clone). A request's functions cross as flags: the observer's events come back as
 * messages, and the answer thread asks for the user's e-mail when the answer needs it (`/solicitacao minhas`).
 */
export interface WireRequest {
  workspaceId: string;
  userId: string;
  correlationId: string;
  render: RenderContext;
  bypassCache: boolean;
  /** The answer's deadline (epoch ms). */
  deadline?: number;
  /** Send `queued` and `started` for this answer's calls. */
  observe: boolean;
  /** The user's e-mail may be asked for. */
  email: boolean;
}

export type ToAnswerThread =
  | { t: 'answer'; id: number; route: Route; request: WireRequest }
  | { t: 'saved'; id: number; route: Route; request: WireRequest }
  | { t: 'email'; id: number; email: string | null }
  | { t: 'metrics'; id: number }
  | { t: 'close' };

export type FromAnswerThread =
  | { t: 'ready' }
  | { t: 'queued'; id: number; position: number }
  | { t: 'started'; id: number }
  | { t: 'email?'; id: number }
  | { t: 'answered'; id: number; answered: Answered }
  | { t: 'saved'; id: number; message: Message | null }
  | { t: 'metrics'; id: number; metrics: unknown[] }
  | { t: 'closed' };

/** One end of the channel: a worker's parentPort, a Worker, or a MessagePort. */
export interface ChannelEnd<In, Out> {
  postMessage(message: Out): void;
  on(event: 'message', listener: (message: In) => void): unknown;
}

export function toWire(request: AnswerRequest): WireRequest {
  return {
    workspaceId: request.workspaceId,
    userId: request.userId,
    correlationId: request.correlationId,
    render: request.render,
    bypassCache: request.bypassCache ?? false,
    ...(request.calls?.deadline !== undefined && { deadline: request.calls.deadline }),
    observe: request.calls?.observer !== undefined,
    email: request.userEmail !== undefined,
  };
}

export interface AnswerServer {
  engine: AnswerEngine;
  /** This thread's counters and histograms (prom-client JSON), merged into the scrape by the other side. */
  metrics(): Promise<unknown[]>;
  /** Closes this thread's connections; `closed` is sent once it is done. */
  close(): Promise<void>;
}

/** The answer thread's side: answers every request that comes in with `server.engine`. */
export function serveAnswers(port: ChannelEnd<ToAnswerThread, FromAnswerThread>, server: AnswerServer): void {
  const emails = new Map<number, (email: string | null) => void>();
  const requestOf = (id: number, wire: WireRequest): AnswerRequest => {
    const observer: CallObserver = {
      queued: (position) => port.postMessage({ t: 'queued', id, position }),
      started: () => port.postMessage({ t: 'started', id }),
    };
    return {
      workspaceId: wire.workspaceId,
      userId: wire.userId,
      correlationId: wire.correlationId,
      render: wire.render,
      bypassCache: wire.bypassCache,
      ...(wire.email && {
        userEmail: () =>
          new Promise<string | null>((resolve) => {
            emails.set(id, resolve);
            port.postMessage({ t: 'email?', id });
          }),
      }),
      calls: {
        ...(wire.deadline !== undefined && { deadline: wire.deadline }),
        ...(wire.observe && { observer }),
      },
    };
  };
  port.on('message', (message) => {
    switch (message.t) {
      case 'answer':
        void server.engine.answer(message.route, requestOf(message.id, message.request)).then((answered) => {
          emails.delete(message.id);
          port.postMessage({ t: 'answered', id: message.id, answered });
        });
        return;
      case 'saved':
        void server.engine.saved(message.route, requestOf(message.id, message.request)).then((saved) => {
          port.postMessage({ t: 'saved', id: message.id, message: saved });
        });
        return;
      case 'email': {
        const resolve = emails.get(message.id);
        emails.delete(message.id);
        resolve?.(message.email);
        return;
      }
      case 'metrics':
        void server.metrics().then(
          (metrics) => port.postMessage({ t: 'metrics', id: message.id, metrics }),
          () => port.postMessage({ t: 'metrics', id: message.id, metrics: [] }),
        );
        return;
      case 'close':
        void server.close().finally(() => port.postMessage({ t: 'closed' }));
        return;
    }
  });
  port.postMessage({ t: 'ready' });
}

interface Pending {
  resolve: (value: never) => void;
  reject: (error: Error) => void;
  request: AnswerRequest;
}

/** The acking thread's side: an AnswerEngine whose answers are built on the other end of the channel. */
export class AnswerChannelClient implements AnswerEngine {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private failure: Error | null = null;

  constructor(private readonly port: ChannelEnd<FromAnswerThread, ToAnswerThread>) {
    port.on('message', (message) => this.receive(message));
  }

  answer(route: Route, request: AnswerRequest): Promise<Answered> {
    return this.ask<Answered>(request, (id) => ({ t: 'answer', id, route, request: toWire(request) }));
  }

  saved(route: Route, request: AnswerRequest): Promise<Message | null> {
    return this.ask<Message | null>(request, (id) => ({ t: 'saved', id, route, request: toWire(request) }));
  }

  /** The other side's counters and histograms; none when it cannot tell. */
  metrics(): Promise<unknown[]> {
    return this.ask<unknown[]>(null, (id) => ({ t: 'metrics', id })).catch(() => []);
  }

  /** The other side is gone: every answer still waiting for it fails with `error` (and so does every later one). */
  fail(error: Error): void {
    this.failure ??= error;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const entry of pending) entry.reject(error);
  }

  get waiting(): number {
    return this.pending.size;
  }

  private ask<T>(request: AnswerRequest | null, make: (id: number) => ToAnswerThread): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, {
        resolve: resolve as (value: never) => void,
        reject,
        request: request ?? NO_REQUEST,
      });
      this.port.postMessage(make(id));
    });
  }

  private receive(message: FromAnswerThread): void {
    switch (message.t) {
      case 'queued':
        this.pending.get(message.id)?.request.calls?.observer?.queued?.(message.position);
        return;
      case 'started':
        this.pending.get(message.id)?.request.calls?.observer?.started?.();
        return;
      case 'email?': {
        const userEmail = this.pending.get(message.id)?.request.userEmail;
        const reply = (email: string | null) => this.port.postMessage({ t: 'email', id: message.id, email });
        if (!userEmail) reply(null);
        else userEmail().then(reply, () => reply(null));
        return;
      }
      case 'answered':
        this.settle(message.id, message.answered);
        return;
      case 'saved':
        this.settle(message.id, message.message);
        return;
      case 'metrics':
        this.settle(message.id, message.metrics);
        return;
      default:
        return;
    }
  }

  private settle(id: number, value: unknown): void {
    const entry = this.pending.get(id);
    this.pending.delete(id);
    entry?.resolve(value as never);
  }
}

const NO_REQUEST: AnswerRequest = {
  workspaceId: '',
  userId: '',
  correlationId: '',
  render: { timeZone: 'UTC', now: 0 },
};
