import { EventEmitter } from 'node:events';
import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Route } from '../../src/domain/routes.js';
import {
  AnswerChannelClient,
  type FromAnswerThread,
  serveAnswers,
  type ToAnswerThread,
} from '../../src/slack/answer-channel.js';
import type { AnswerEngine, Answered } from '../../src/slack/answer-engine.js';
import { type AnswerWorker, ThreadedAnswerEngine } from '../../src/slack/answer-thread.js';
import type { AnswerRequest } from '../../src/slack/answers.js';
import { captureLogger } from '../helpers/upstream-stack.js';

const ROUTE: Route = { view: 'request', id: 7, page: 1 };

function request(extra: Partial<AnswerRequest> = {}): AnswerRequest {
  return {
    workspaceId: 'T1',
    userId: 'U1',
    correlationId: 'c-1',
    render: { timeZone: 'America/Sao_Paulo', now: 1_000 },
    ...extra,
  };
}

function answered(text: string): Answered {
  return { message: { text, blocks: [] }, failed: false, outcome: 'ok', brokenLink: null };
}

/** An engine whose answers the test hands out, one per call, and that records what it was asked. */
function scriptedEngine() {
  const asked: { route: Route; request: AnswerRequest }[] = [];
  const waiting: ((value: Answered) => void)[] = [];
  const engine: AnswerEngine = {
    answer: (route, req) => {
      asked.push({ route, request: req });
      return new Promise((resolve) => waiting.push(resolve));
    },
    saved: async () => ({ text: 'guardado', blocks: [] }),
  };
  // The latest answer asked for: an earlier one may have gone with a thread that died.
  return { engine, asked, release: (value: Answered) => waiting.pop()?.(value) };
}

const opened: MessageChannel[] = [];
afterEach(() => {
  for (const channel of opened.splice(0)) {
    channel.port1.close();
    channel.port2.close();
  }
});

function channel() {
  const ch = new MessageChannel();
  opened.push(ch);
  return ch;
}

describe('the answer channel', () => {
  it('carries the route and the request, the calls events back in order, and the answer', async () => {
    const { port1, port2 } = channel();
    const server = scriptedEngine();
    serveAnswers(port2 as never, { engine: server.engine, metrics: async () => [], close: async () => {} });
    const client = new AnswerChannelClient(port1 as never);
    const events: string[] = [];
    const pending = client.answer(
      ROUTE,
      request({
        calls: {
          deadline: 26_000,
          observer: { queued: (p) => events.push(`queued ${p}`), started: () => events.push('started') },
        },
      }),
    );
    await vi.waitFor(() => expect(server.asked).toHaveLength(1));
    const seen = server.asked[0]?.request;
    expect(server.asked[0]?.route).toEqual(ROUTE);
    expect(seen).toMatchObject({
      workspaceId: 'T1',
      userId: 'U1',
      correlationId: 'c-1',
      calls: { deadline: 26_000 },
    });
    expect(seen?.userEmail).toBeUndefined();
    seen?.calls?.observer?.queued?.(3);
    seen?.calls?.observer?.queued?.(1);
    seen?.calls?.observer?.started?.();
    server.release(answered('pronto'));
    expect(await pending).toEqual(answered('pronto'));
    expect(events).toEqual(['queued 3', 'queued 1', 'started']);
  });

  it('asks this side for the user e-mail only when the answer needs it', async () => {
    const { port1, port2 } = channel();
    const server = scriptedEngine();
    serveAnswers(port2 as never, { engine: server.engine, metrics: async () => [], close: async () => {} });
    const client = new AnswerChannelClient(port1 as never);
    const userEmail = vi.fn(async () => 'maria@exemplo.com.br');
    const pending = client.answer(
      { view: 'requests', mine: true, filters: {}, page: 1 } as Route,
      request({ userEmail }),
    );
    await vi.waitFor(() => expect(server.asked).toHaveLength(1));
    expect(userEmail).not.toHaveBeenCalled();
    expect(await server.asked[0]?.request.userEmail?.()).toBe('maria@exemplo.com.br');
    expect(userEmail).toHaveBeenCalledTimes(1);
    server.release(answered('suas'));
    await pending;
  });

  it('once the other side is gone, what waits and what comes later fail', async () => {
    const { port1, port2 } = channel();
    const server = scriptedEngine();
    serveAnswers(port2 as never, { engine: server.engine, metrics: async () => [], close: async () => {} });
    const client = new AnswerChannelClient(port1 as never);
    const pending = client.answer(ROUTE, request());
    await vi.waitFor(() => expect(server.asked).toHaveLength(1));
    client.fail(new Error('gone'));
    await expect(pending).rejects.toThrow('gone');
    await expect(client.saved(ROUTE, request())).rejects.toThrow('gone');
    expect(await client.metrics()).toEqual([]);
  });
});

/** A worker thread played by a MessageChannel: serveAnswers runs on the other port, as the thread's entry does. */
class FakeWorker extends EventEmitter implements AnswerWorker {
  readonly ch = channel();
  readonly posted: ToAnswerThread[] = [];
  terminated = false;

  constructor(engine: AnswerEngine, ready = true) {
    super();
    this.ch.port1.on('message', (message: FromAnswerThread) => {
      if (message.t === 'ready' && !ready) return;
      this.emit('message', message);
    });
    serveAnswers(this.ch.port2 as never, {
      engine,
      metrics: async () => [{ name: 'x' }],
      close: async () => {},
    });
  }

  postMessage(message: ToAnswerThread): void {
    this.posted.push(message);
    this.ch.port1.postMessage(message);
  }

  /** The thread dies (an uncaught error, out of memory). */
  die(code = 1): void {
    this.emit('exit', code);
  }

  async terminate(): Promise<number> {
    this.terminated = true;
    this.emit('exit', 1);
    return 1;
  }
}

describe('the answer thread', () => {
  function setUp(options: { ready?: boolean } = {}) {
    const local = scriptedEngine();
    const remote = scriptedEngine();
    const workers: FakeWorker[] = [];
    const { logger, lines } = captureLogger('info');
    const engine = new ThreadedAnswerEngine({
      spawn: () => {
        const worker = new FakeWorker(remote.engine, options.ready ?? true);
        workers.push(worker);
        return worker;
      },
      local: local.engine,
      logger,
      restartDelayMs: 10,
      readyTimeoutMs: 60_000,
    });
    return { engine, local, remote, workers, lines };
  }

  it('answers here until the thread says it is ready, then there', async () => {
    const { engine, local, remote } = setUp();
    const before = engine.answer(ROUTE, request());
    expect(local.asked).toHaveLength(1);
    local.release(answered('aqui'));
    expect((await before).message.text).toBe('aqui');
    await engine.start();
    expect(engine.threaded).toBe(true);
    const after = engine.answer(ROUTE, request());
    await vi.waitFor(() => expect(remote.asked).toHaveLength(1));
    remote.release(answered('lá'));
    expect((await after).message.text).toBe('lá');
    expect(local.asked).toHaveLength(1);
    await engine.close();
  });

  it('a thread that dies mid-answer: the answer is built here, a new thread starts and answers again', async () => {
    const { engine, local, remote, workers, lines } = setUp();
    await engine.start();
    const pending = engine.answer(ROUTE, request());
    await vi.waitFor(() => expect(remote.asked).toHaveLength(1));
    workers[0]?.die();
    await vi.waitFor(() => expect(local.asked).toHaveLength(1));
    expect(local.asked[0]?.request.correlationId).toBe('c-1');
    local.release(answered('refeito aqui'));
    expect((await pending).message.text).toBe('refeito aqui');
    expect(lines.join('')).toContain('answer thread exited');
    await vi.waitFor(() => expect(engine.threaded).toBe(true));
    expect(workers).toHaveLength(2);
    const next = engine.answer(ROUTE, request());
    await vi.waitFor(() => expect(remote.asked).toHaveLength(2));
    remote.release(answered('de novo lá'));
    expect((await next).message.text).toBe('de novo lá');
    await engine.close();
  });

  it('close asks the thread to close and stops it; an answer still on it is not built again here', async () => {
    const { engine, local, remote, workers } = setUp();
    await engine.start();
    void engine.answer(ROUTE, request());
    await vi.waitFor(() => expect(remote.asked).toHaveLength(1));
    await engine.close();
    expect(workers[0]?.posted.at(-1)).toEqual({ t: 'close' });
    expect(workers[0]?.terminated).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(local.asked).toHaveLength(0);
    expect(workers).toHaveLength(1);
  });

  it('the scrape reads the thread counts while it runs, none before', async () => {
    const { engine } = setUp();
    expect(await engine.metrics()).toEqual([]);
    await engine.start();
    expect(await engine.metrics()).toEqual([{ name: 'x' }]);
    await engine.close();
  });
});
