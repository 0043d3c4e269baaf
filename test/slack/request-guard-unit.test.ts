import type { ReceiverEvent } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RejectedRequestError, RequestGuard } from '../../src/slack/request-guard.js';
import type { SeenRequests } from '../../src/store/seen-requests.js';
import { captureLogger } from '../helpers/upstream-stack.js';

/**
 * The guard's timing and store failures, on vitest's fake timers: the deadline fallback and what the store's
 * outage lets through. (Its HTTP behaviour is in request-guard.test.ts.)
 */

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function setup(seen: Partial<SeenRequests> = {}) {
  const { logger, lines } = captureLogger('debug');
  const store = {
    firstSighting: async () => true,
    firstDelivery: async () => true,
    ...seen,
  } as unknown as SeenRequests;
  const guard = new RequestGuard({ seen: store, logger, now: () => Date.now(), ackDeadlineMs: 2_800 });
  const acks: unknown[] = [];
  const event = (
    body: Record<string, unknown>,
    customProperties: Record<string, unknown> = {},
  ): ReceiverEvent => ({
    body,
    customProperties,
    ack: async (response?: unknown) => {
      acks.push(response);
    },
  });
  return { guard, acks, event, lines };
}

describe('RequestGuard', () => {
  it('acks a command whose listener has not acked by the deadline, and ignores the late ack', async () => {
    const { guard, acks, event } = setup();
    let release: () => void = () => undefined;
    const hanging = new Promise<void>((resolve) => {
      release = resolve;
    });
    const run = guard.process(event({ command: '/estoque', text: 'x' }), async (e) => {
      await hanging;
      await e.ack();
    });
    await vi.advanceTimersByTimeAsync(2_799);
    expect(acks).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(acks).toHaveLength(1);
    expect(JSON.stringify(acks[0])).toContain('Não consegui processar');
    release();
    await run;
    expect(acks).toHaveLength(1);
  });

  it('does not ack twice when the listener acked in time', async () => {
    const { guard, acks, event } = setup();
    await guard.process(event({ command: '/estoque', text: 'x' }), async (e) => {
      await e.ack();
    });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(acks).toEqual([undefined]);
  });

  it('refuses a future timestamp and a replay; lets requests through while the store is down, warned once', async () => {
    const nowSec = Math.floor(Date.now() / 1000);
    const signed = (ts: number) => ({ slackSignature: 'v0=abc', slackRequestTimestamp: String(ts) });
    const future = setup();
    await expect(
      future.guard.process(
        future.event({ command: '/estoque' }, signed(nowSec + 301)),
        async () => undefined,
      ),
    ).rejects.toBeInstanceOf(RejectedRequestError);

    const replay = setup({ firstSighting: async () => false });
    await expect(
      replay.guard.process(replay.event({ command: '/estoque' }, signed(nowSec)), async () => undefined),
    ).rejects.toMatchObject({ reason: 'replayed' });

    const down = setup({
      firstSighting: async () => {
        throw new Error('Connection is closed.');
      },
    });
    let processed = 0;
    for (let i = 0; i < 3; i++) {
      await down.guard.process(down.event({ command: '/estoque' }, signed(nowSec)), async (e) => {
        processed += 1;
        await e.ack();
      });
    }
    expect(processed).toBe(3);
    expect(down.lines.filter((l) => l.includes('replay check skipped'))).toHaveLength(1);
  });

  it('gives the replay key a TTL that lasts until the timestamp leaves the window', async () => {
    const ttls: number[] = [];
    const { guard, event } = setup({
      firstSighting: async (_signature: string, ttlMs: number) => {
        ttls.push(ttlMs);
        return true;
      },
    });
    const nowSec = Math.floor(Date.now() / 1000);
    const leftMs = (nowSec + 300) * 1000 - Date.now();
    await guard.process(
      event({ command: '/estoque' }, { slackSignature: 'v0=1', slackRequestTimestamp: String(nowSec) }),
      async (e) => e.ack(),
    );
    expect(ttls).toEqual([leftMs + 1_000]);
  });
});
