import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { timeRequests } from '../../bench/ipc.js';

describe('in-process request timings (bench)', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  it('times POSTs to /slack/events only, keeping the newest within its capacity, in order', async () => {
    server = createServer((_req, res) => res.end('ok'));
    const timings = timeRequests(server, 3);
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const post = async () => (await fetch(`${base}/slack/events`, { method: 'POST' })).text();
    await post();
    await post();
    const afterTheOldest = performance.timeOrigin + performance.now();
    for (let i = 0; i < 3; i += 1) await post();
    await (await fetch(`${base}/slack/events`)).text();
    await (await fetch(`${base}/healthz`, { method: 'POST' })).text();

    const { acks } = timings();

    expect(acks).toHaveLength(3);
    for (const ack of acks) {
      expect(ack.at).toBeGreaterThanOrEqual(afterTheOldest);
      expect(ack.ms).toBeGreaterThanOrEqual(0);
    }
    const times = acks.map((a) => a.at);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });
});
