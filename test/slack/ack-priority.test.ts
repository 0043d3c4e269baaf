import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { makeLogger } from '../../src/lib/logger.js';
import { AckPriority } from '../../src/slack/ack-priority.js';
import { BackgroundTasks } from '../../src/slack/background.js';

/** A server that holds each POST until the test answers it. */
async function holdingServer(): Promise<{ server: Server; url: string; answerAll: () => void }> {
  const held: (() => void)[] = [];
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.end('ok');
      return;
    }
    req.resume();
    held.push(() => res.end('acked'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}/slack/events`,
    answerAll: () => {
      for (const answer of held.splice(0)) answer();
    },
  };
}

async function until(check: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('AckPriority', () => {
  let server: Server | null = null;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = null;
  });

  /** An AckPriority watching a server that holds one POST, received and not yet acked. */
  async function oneAckWaiting(maxWaitMs: number) {
    const held = await holdingServer();
    server = held.server;
    const priority = new AckPriority(maxWaitMs);
    const watched = priority.watch(held.server);
    const request = fetch(held.url, { method: 'POST', body: 'x' });
    await until(() => priority.waiting === 1);
    return { held, priority, watched, request };
  }

  it('holds background work while a Slack request waits for its ack, and lets it go once answered', async () => {
    const { held, priority, request, watched } = await oneAckWaiting(10_000);
    expect(watched).toBe(true);

    let passed = false;
    const waiting = priority.yield().then(() => {
      passed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(passed).toBe(false);

    held.answerAll();
    await waiting;
    expect(passed).toBe(true);
    expect(priority.waiting).toBe(0);
    await (await request).text();
  });

  it('goes on after maxWaitMs when acks keep waiting, so background work is never starved', async () => {
    const { held, priority, request } = await oneAckWaiting(30);
    const started = performance.now();
    await priority.yield();
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    expect(priority.waiting).toBe(1);
    held.answerAll();
    await (await request).text();
  });

  it('counts a request whose client went away as answered', async () => {
    const held = await holdingServer();
    server = held.server;
    const priority = new AckPriority(10_000);
    priority.watch(held.server);
    const controller = new AbortController();
    const request = fetch(held.url, { method: 'POST', body: 'x', signal: controller.signal }).catch(
      () => 'aborted',
    );
    await until(() => priority.waiting === 1);
    controller.abort();
    expect(await request).toBe('aborted');
    await until(() => priority.waiting === 0);
  });

  it('does not count GET requests (health checks), and ignores what is not an HTTP server', async () => {
    const held = await holdingServer();
    server = held.server;
    const priority = new AckPriority(10_000);
    priority.watch(held.server);
    expect(await (await fetch(held.url.replace('/slack/events', '/healthz'))).text()).toBe('ok');
    expect(priority.waiting).toBe(0);
    expect(priority.watch({ socketMode: true })).toBe(false);
    await priority.yield();
  });

  it('lets waiting work go one piece per turn of the event loop, oldest first, so I/O is read in between', async () => {
    const priority = new AckPriority(10_000);
    const order: string[] = [];
    const pieces = ['a', 'b', 'c'].map((name) => priority.yield().then(() => order.push(name)));
    // A turn of the loop that started after the pieces came: like a socket read, it must not wait for all three.
    setImmediate(() => {
      order.push('turn 1');
      setImmediate(() => {
        order.push('turn 2');
        setImmediate(() => order.push('turn 3'));
      });
    });
    await Promise.all(pieces);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual(['a', 'turn 1', 'b', 'turn 2', 'c', 'turn 3']);
    expect(priority.queued).toBe(0);
  });

  it('holds every waiting piece while an ack waits, then lets them go one per turn once it is out', async () => {
    const { held, priority, request } = await oneAckWaiting(10_000);
    const order: string[] = [];
    const pieces = ['a', 'b'].map((name) => priority.yield().then(() => order.push(name)));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(order).toEqual([]);
    expect(priority.queued).toBe(2);
    // Marks every turn of the event loop from now on: the two pieces must not go in the same one.
    let ticking = true;
    const tick = () => {
      if (!ticking) return;
      order.push('turn');
      setImmediate(tick);
    };
    setImmediate(tick);
    held.answerAll();
    await Promise.all(pieces);
    ticking = false;
    const pieceOrder = order.filter((entry) => entry !== 'turn');
    expect(pieceOrder).toEqual(['a', 'b']);
    expect(order.slice(order.indexOf('a'), order.indexOf('b'))).toContain('turn');
    await (await request).text();
  });

  it('BackgroundTasks starts its work only after the waiting ack went out', async () => {
    const { held, priority, request } = await oneAckWaiting(10_000);
    const tasks = new BackgroundTasks(makeLogger({ level: 'silent' }), priority);
    const order: string[] = [];
    const task = tasks.run('answer', async () => {
      order.push('work');
    });
    await new Promise((resolve) => setTimeout(resolve, 30));
    order.push('ack');
    held.answerAll();
    await task;
    expect(order).toEqual(['ack', 'work']);
    await (await request).text();
  });
});
