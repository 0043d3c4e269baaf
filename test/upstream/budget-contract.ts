import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Budget, BudgetOptions, Priority } from '../../src/upstream/budget.js';
import { BudgetClosedError, BudgetExhaustedError } from '../../src/upstream/budget-errors.js';

/** What a contract run needs from one implementation. */
export interface BudgetPeers {
  /** Two budgets sharing one state, as two replicas would (the memory variant hands the same budget twice). */
  open(options: BudgetOptions): Promise<[Budget, Budget]>;
  /** Closes every budget opened and frees what the peers hold; may be called twice. */
  cleanup(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The largest number of calls that started in any window [t, t + windowMs), whatever its alignment. */
export function maxInAnyWindow(starts: number[], windowMs: number): number {
  const sorted = [...starts].sort((a, b) => a - b);
  let max = 0;
  for (const [i, t] of sorted.entries()) {
    let n = 0;
    for (let j = i; j < sorted.length && (sorted[j] ?? Number.POSITIVE_INFINITY) < t + windowMs; j += 1)
      n += 1;
    max = Math.max(max, n);
  }
  return max;
}

/** Schedules a call that records when it started and then resolves with `label`. */
function recorded(
  budget: Budget,
  id: string,
  priority: Priority,
  label: string,
  log: string[],
  maxWaitMs?: number,
) {
  return budget.schedule(
    id,
    priority,
    async () => {
      log.push(label);
      return label;
    },
    maxWaitMs === undefined ? {} : { maxWaitMs },
  );
}

async function fill(budget: Budget, id: string, calls: number): Promise<void> {
  for (let i = 0; i < calls; i += 1) await budget.schedule(id, 'interactive', async () => undefined);
}

export function runBudgetContract(name: string, makePeers: () => Promise<BudgetPeers>): void {
  describe(`${name} budget (contract)`, () => {
    let peers: BudgetPeers;
    let id: string;

    beforeEach(async () => {
      peers = await makePeers();
      id = `cred-${randomBytes(4).toString('hex')}`;
    });
    afterEach(async () => {
      await peers.cleanup();
    });

    it('never lets more than COUNT calls start in any window, however aligned, and runs every job', async () => {
      const [a, b] = await peers.open({ limit: { count: 10, windowMs: 1_000 } });
      const priorities: Priority[] = ['interactive', 'interactive', 'digest', 'background'];
      const starts: number[] = [];
      const run = (i: number, priority: Priority) =>
        (i % 2 === 0 ? a : b).schedule(
          id,
          priority,
          async () => {
            starts.push(Date.now());
            return i;
          },
          { maxWaitMs: 60_000 },
        );

      // A trickle that leaves the first window half used, then a burst near its end: a fixed window (a
      // reservoir refilled every second) lets the burst's second half through at the boundary; a sliding one cannot.
      const jobs: Promise<number>[] = [];
      for (let i = 0; i < 5; i += 1) {
        jobs.push(run(i, 'interactive'));
        await sleep(200);
      }
      for (let i = 5; i < 40; i += 1) jobs.push(run(i, priorities[i % priorities.length] ?? 'interactive'));
      const results = await Promise.all(jobs);

      expect(results).toEqual(Array.from({ length: 40 }, (_, i) => i));
      expect(starts).toHaveLength(40);
      expect(maxInAnyWindow(starts, 1_000)).toBe(10);
    }, 30_000);

    it('frees a slot only once the oldest call has left the window', async () => {
      const [a, b] = await peers.open({ limit: { count: 3, windowMs: 1_500 } });
      const first = await a.schedule(id, 'interactive', async () => Date.now());
      await fill(a, id, 2);

      // Another peer, with nothing queued, asks again and again at arbitrary instants.
      let startedAt: number | null = null;
      let refusals = 0;
      while (startedAt === null) {
        try {
          startedAt = await b.schedule(id, 'interactive', async () => Date.now(), { maxWaitMs: 0 });
        } catch (error) {
          expect(error).toBeInstanceOf(BudgetExhaustedError);
          refusals += 1;
          await sleep(20 + Math.random() * 20);
        }
      }

      expect(refusals).toBeGreaterThan(0);
      expect(startedAt).toBeGreaterThanOrEqual(first + 1_500);
    });

    it('runs a queued interactive job before digest and background jobs queued earlier', async () => {
      const [a] = await peers.open({
        limit: { count: 2, windowMs: 1_000 },
        reserve: { digest: 0, background: 0 },
      });
      await fill(a, id, 2);
      const order: string[] = [];

      const jobs = [
        recorded(a, id, 'digest', 'digest', order, 30_000),
        recorded(a, id, 'background', 'background', order, 30_000),
        recorded(a, id, 'interactive', 'interactive', order, 30_000),
      ];
      await Promise.all(jobs);

      expect(order).toEqual(['interactive', 'digest', 'background']);
    });

    it('keeps the last slots of the window for interactive calls, from any peer', async () => {
      // Defaults on 10 calls: digest may use 9 slots, background 7.
      const [a, b] = await peers.open({ limit: { count: 10, windowMs: 30_000 } });
      const started: string[] = [];
      const digests = Array.from({ length: 12 }, (_, i) =>
        recorded(b, id, 'digest', `digest-${i}`, started, 60_000),
      );
      const settled = digests.map((job) => job.catch((error: unknown) => error));
      await vi.waitFor(() => expect(started).toHaveLength(9));

      await expect(recorded(a, id, 'interactive', 'interactive', started)).resolves.toBe('interactive');
      await expect(recorded(b, id, 'background', 'background', started)).rejects.toBeInstanceOf(
        BudgetExhaustedError,
      );

      expect(started.filter((label) => label.startsWith('digest'))).toHaveLength(9);
      expect(started).toContain('interactive');
      expect((await a.usage(id)).remaining).toBe(0);
      await peers.cleanup(); // closes the budgets: the three digest jobs still waiting are rejected
      const outcomes = await Promise.all(settled);
      expect(outcomes.filter((outcome) => outcome instanceof BudgetClosedError)).toHaveLength(3);
      expect(started).toHaveLength(10);
    });

    it('rejects a job that cannot get a slot within maxWaitMs, with the time a slot frees', async () => {
      const [a, b] = await peers.open({ limit: { count: 2, windowMs: 20_000 } });
      const before = Date.now();
      await fill(a, id, 2);
      const ran = vi.fn(async () => 'ran');

      const error = await b.schedule(id, 'interactive', ran, { maxWaitMs: 300 }).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(BudgetExhaustedError);
      const exhausted = error as BudgetExhaustedError;
      expect(exhausted.priority).toBe('interactive');
      // The first call leaves the window 20 s (plus the guard of at most 400 ms) after it started.
      expect(exhausted.retryAt).toBeGreaterThanOrEqual(before + 20_000 - 5);
      expect(exhausted.retryAt).toBeLessThanOrEqual(Date.now() + 20_400 + 5);
      expect(ran).not.toHaveBeenCalled();
    });

    it('runs a background job only when a slot is free right now', async () => {
      const [a, b] = await peers.open({ limit: { count: 10, windowMs: 30_000 } });
      await expect(b.schedule(id, 'background', async () => 'now')).resolves.toBe('now');
      const before = Date.now();
      await fill(a, id, 6); // 7 calls: the background capacity

      const error = await b.schedule(id, 'background', async () => 'late').catch((e: unknown) => e);

      expect(error).toBeInstanceOf(BudgetExhaustedError);
      expect((error as BudgetExhaustedError).priority).toBe('background');
      expect((error as BudgetExhaustedError).retryAt).toBeGreaterThan(before + 25_000);
      await expect(b.schedule(id, 'digest', async () => 'digest')).resolves.toBe('digest');
    });

    it('pauses every peer until the pause ends', async () => {
      const [a, b] = await peers.open({ limit: { count: 10, windowMs: 2_000 } });
      const before = Date.now();
      await a.pause(id, 1_200);

      const usage = await b.usage(id);
      expect(usage.pausedUntil).not.toBeNull();
      expect(usage.pausedUntil ?? 0).toBeGreaterThanOrEqual(before + 1_200 - 5);
      const refused = await b.schedule(id, 'background', async () => 'x').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(BudgetExhaustedError);
      expect((refused as BudgetExhaustedError).retryAt).toBeGreaterThanOrEqual(before + 1_200 - 5);

      const startedAt = await b.schedule(id, 'interactive', async () => Date.now(), { maxWaitMs: 10_000 });
      expect(startedAt).toBeGreaterThanOrEqual(before + 1_200 - 5);
      expect((await a.usage(id)).pausedUntil).toBeNull();
    });

    it('extends a pause but never shortens it', async () => {
      const [a, b] = await peers.open({ limit: { count: 10, windowMs: 2_000 } });
      await a.pause(id, 10_000);
      await b.pause(id, 100);
      expect((await a.usage(id)).pausedUntil ?? 0).toBeGreaterThan(Date.now() + 9_000);

      const other = `${id}-2`;
      await a.pause(other, 100);
      await b.pause(other, 10_000);
      expect((await b.usage(other)).pausedUntil ?? 0).toBeGreaterThan(Date.now() + 9_000);
    });

    it('reports used and remaining budget and when the next slot frees', async () => {
      const [a, b] = await peers.open({ limit: { count: 5, windowMs: 30_000 } });
      expect(await b.usage(id)).toEqual({
        limit: 5,
        windowMs: 30_000,
        used: 0,
        remaining: 5,
        pausedUntil: null,
        nextSlotAt: null,
      });

      const before = Date.now();
      await fill(a, id, 3);
      expect(await b.usage(id)).toMatchObject({ used: 3, remaining: 2, nextSlotAt: null });

      await fill(a, id, 2);
      const full = await b.usage(id);
      expect(full).toMatchObject({ used: 5, remaining: 0, pausedUntil: null });
      expect(full.nextSlotAt ?? 0).toBeGreaterThanOrEqual(before + 30_000 - 5);
      expect(full.nextSlotAt ?? 0).toBeLessThanOrEqual(Date.now() + 30_600 + 5);
    });

    it('counts a call that fails', async () => {
      const [a] = await peers.open({ limit: { count: 3, windowMs: 30_000 } });
      await expect(
        a.schedule(id, 'interactive', async () => {
          throw new Error('upstream said no');
        }),
      ).rejects.toThrow('upstream said no');
      expect((await a.usage(id)).used).toBe(1);
    });
  });
}
