import type { ReceiverEvent } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  RejectedRequestError,
  RequestGuard,
  receivedAtOf,
  STORE_CHECK_MS,
} from '../../src/slack/request-guard.js';
import type { SeenRequests } from '../../src/store/seen-requests.js';
import { ManualClock } from '../helpers/manual-clock.js';
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

  it('a store that hangs (Redis down, ioredis retrying) delays no request past STORE_CHECK_MS', async () => {
    const never = () => new Promise<boolean>(() => undefined);
    const { guard, acks, event, lines } = setup({ firstSighting: never, firstDelivery: never });
    const nowSec = Math.floor(Date.now() / 1000);
    const reached: string[] = [];
    const run = guard.process(
      event(
        { command: '/estoque', text: 'x' },
        { slackSignature: 'v0=abc', slackRequestTimestamp: String(nowSec) },
      ),
      async (e) => {
        reached.push('listener');
        await e.ack();
      },
    );
    await vi.advanceTimersByTimeAsync(STORE_CHECK_MS);
    await run;
    expect(reached).toEqual(['listener']);
    expect(acks).toEqual([undefined]);
    expect(lines.filter((l) => l.includes('replay check skipped: the store does not answer'))).toHaveLength(
      1,
    );
  });

  it("the fallback ack counts from the request's arrival, checks included", async () => {
    const slow = () => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 200));
    const { guard, acks, event } = setup({ firstSighting: slow });
    const nowSec = Math.floor(Date.now() / 1000);
    const run = guard.process(
      event(
        { command: '/estoque', text: 'x' },
        { slackSignature: 'v0=abc', slackRequestTimestamp: String(nowSec) },
      ),
      () => new Promise<void>(() => undefined),
    );
    await vi.advanceTimersByTimeAsync(2_799);
    expect(acks).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(acks).toHaveLength(1);
    void run;
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
  describe('the replay check beside the processing', () => {
    const nowSec = () => Math.floor(Date.now() / 1000);
    const signed = () => ({ slackSignature: 'v0=abc', slackRequestTimestamp: String(nowSec()) });
    /** A store check that answers when the test says so. */
    function pending() {
      let answer: (first: boolean) => void = () => undefined;
      const calls: string[] = [];
      const check = (name: string) => () => {
        calls.push(name);
        return new Promise<boolean>((resolve) => {
          answer = resolve;
        });
      };
      return { calls, check, answer: (first: boolean) => answer(first) };
    }

    it("a command's listener runs while the check is out; only its ack waits for the verdict", async () => {
      const store = pending();
      const { guard, acks, event } = setup({ firstSighting: store.check('sighting') });
      const steps: string[] = [];
      const run = guard.process(event({ command: '/estoque', text: 'x' }, signed()), async (e) => {
        steps.push('listener');
        await e.ack();
        steps.push('after ack');
      });
      await vi.advanceTimersByTimeAsync(0);
      expect(store.calls).toEqual(['sighting']);
      expect(steps).toEqual(['listener']);
      expect(acks).toHaveLength(0);
      store.answer(true);
      await run;
      expect(acks).toEqual([undefined]);
      expect(steps).toEqual(['listener', 'after ack']);
    });

    it('the ack goes as soon as the listener gives it when the verdict came first', async () => {
      const store = pending();
      const { guard, acks, event } = setup({ firstSighting: store.check('sighting') });
      let reachAck: () => void = () => undefined;
      const listenerSlow = new Promise<void>((resolve) => {
        reachAck = resolve;
      });
      const run = guard.process(event({ command: '/estoque', text: 'x' }, signed()), async (e) => {
        await listenerSlow;
        await e.ack();
      });
      await vi.advanceTimersByTimeAsync(0);
      store.answer(true);
      await vi.advanceTimersByTimeAsync(0);
      expect(acks).toHaveLength(0);
      reachAck();
      await run;
      expect(acks).toEqual([undefined]);
    });

    it("a replay whose check answers late: no ack, nothing after the listener's ack, refused", async () => {
      const store = pending();
      const { guard, acks, event, lines } = setup({ firstSighting: store.check('sighting') });
      const steps: string[] = [];
      const run = guard.process(event({ type: 'block_actions', actions: [] }, signed()), async (e) => {
        steps.push('listener');
        await e.ack();
        steps.push('after ack');
      });
      const refused = expect(run).rejects.toMatchObject({ reason: 'replayed' });
      await vi.advanceTimersByTimeAsync(100);
      expect(steps).toEqual(['listener']);
      store.answer(false);
      await refused;
      // Past the deadline too: the fallback sends nothing for a refused request.
      await vi.advanceTimersByTimeAsync(5_000);
      expect(acks).toHaveLength(0);
      expect(steps).toEqual(['listener']);
      expect(lines.filter((l) => l.includes('signed request refused: replayed'))).toHaveLength(1);
      expect(lines.some((l) => l.includes('acked by the fallback'))).toBe(false);
    });

    it('a replay whose listener never acks is refused, not acked by the fallback', async () => {
      const store = pending();
      const { guard, acks, event } = setup({ firstSighting: store.check('sighting') });
      const run = guard.process(event({ command: '/estoque', text: 'x' }, signed()), async () => undefined);
      const refused = expect(run).rejects.toMatchObject({ reason: 'replayed' });
      await vi.advanceTimersByTimeAsync(10);
      store.answer(false);
      await refused;
      await vi.advanceTimersByTimeAsync(5_000);
      expect(acks).toHaveLength(0);
    });

    it('a form submission waits for the verdict before its listener runs (it may act before acking)', async () => {
      const store = pending();
      const { guard, acks, event } = setup({ firstSighting: store.check('sighting') });
      const steps: string[] = [];
      const run = guard.process(event({ type: 'view_submission', view: {} }, signed()), async (e) => {
        steps.push('listener');
        await e.ack();
      });
      await vi.advanceTimersByTimeAsync(50);
      expect(steps).toEqual([]);
      store.answer(true);
      await run;
      expect(steps).toEqual(['listener']);
      expect(acks).toEqual([undefined]);
    });

    it("an event's replay and retry checks go out together, before its processing", async () => {
      const sighting = pending();
      const delivery = pending();
      const { guard, event } = setup({
        firstSighting: sighting.check('sighting'),
        firstDelivery: delivery.check('delivery'),
      });
      const steps: string[] = [];
      const run = guard.process(
        event({ type: 'event_callback', event_id: 'Ev1', event: { type: 'app_mention' } }, signed()),
        async () => {
          steps.push('processed');
        },
      );
      await vi.advanceTimersByTimeAsync(0);
      expect([...sighting.calls, ...delivery.calls]).toEqual(['sighting', 'delivery']);
      expect(steps).toEqual([]);
      sighting.answer(true);
      await vi.advanceTimersByTimeAsync(0);
      expect(steps).toEqual([]);
      delivery.answer(true);
      await run;
      expect(steps).toEqual(['processed']);
    });
  });
});

describe('RequestGuard: when the request arrived', () => {
  it("hands listeners the arrival on the answers' clock, taken before the store checks, beside the receiver's properties", async () => {
    const clock = new ManualClock(5_000);
    const { logger } = captureLogger('debug');
    const seen = {
      // The replay check takes 300 ms of the answers' clock: the arrival is before it.
      firstSighting: async () => {
        clock.advance(300);
        return true;
      },
      firstDelivery: async () => true,
    } as unknown as SeenRequests;
    const guard = new RequestGuard({ seen, logger, now: () => Date.now(), clock });
    const nowSec = Math.floor(Date.now() / 1000);
    const seenByListener: Record<string, unknown>[] = [];
    await guard.process(
      {
        body: { command: '/estoque', text: 'x' },
        customProperties: { slackSignature: 'v0=abc', slackRequestTimestamp: String(nowSec) },
        ack: async () => undefined,
      },
      async (e) => {
        seenByListener.push(e.customProperties ?? {});
        await e.ack();
      },
    );
    expect(seenByListener).toHaveLength(1);
    const context = seenByListener[0] as Record<string, unknown>;
    expect(receivedAtOf(context)).toBe(5_000);
    expect(context.slackSignature).toBe('v0=abc');
  });
});
