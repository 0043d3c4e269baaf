import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeLogger } from '../../src/lib/logger.js';
import type { Budget, BudgetOptions, Priority } from '../../src/upstream/budget.js';
import { BudgetClosedError, BudgetExhaustedError } from '../../src/upstream/budget-errors.js';
import { RaisedPriority } from '../../src/upstream/budget-raise.js';

/**
 * The time a contract run passes in. The memory budget runs on vitest's fake timers (an injected clock): time
 * moves only when the test moves it, so every instant is exact. The Redis budget measures its window on the Redis
 * clock, which no test can move: its run waits for real.
 */
export interface ContractTime {
  /** Epoch ms, as the budget's errors and reports give instants. */
  now(): number;
  /** Lets `ms` pass. */
  sleep(ms: number): Promise<void>;
  /** Lets time pass until `work` settles, and returns its outcome. */
  settle<T>(work: Promise<T>): Promise<T>;
  /** Fake timers: instants are exact, and a call starts at the instant its slot is granted. */
  exact: boolean;
}

/** What a contract run needs from one implementation. */
export interface BudgetPeers {
  /** Two budgets sharing one state, as two replicas would (the memory variant hands the same budget twice). */
  open(options: BudgetOptions): Promise<[Budget, Budget]>;
  /** Closes every budget opened and frees what the peers hold; may be called twice. */
  cleanup(): Promise<void>;
  time: ContractTime;
}

/** Real time, for a budget whose clock a test cannot move. */
export const realTime: ContractTime = {
  now: () => Date.now(),
  sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  settle: (work) => work,
  exact: false,
};

/**
 * How far an instant the budget reports may fall before the true one, from rounding alone. Against Redis a wait
 * is measured in whole milliseconds of the Redis clock and added to this host's clock when the reply arrives,
 * which loses at most a few milliseconds. Load cannot widen it: a late reply only moves the reported instant
 * later, and every upper bound below is taken after the reply.
 */
const roundingMs = (time: ContractTime) => (time.exact ? 0 : 5);

/**
 * The margin after the window (BudgetOptions.guardMs) in the tests that look at when calls start. In real time a
 * call starts a moment after its slot was granted, and that moment varies (the reply, the event loop): the guard
 * is what keeps COUNT + 1 calls more than a window apart as upstream sees them, so these tests give it the room a
 * loaded machine needs. On fake timers a call starts at its grant: no margin is needed, and none is given.
 */
const startGuardMs = (time: ContractTime) => (time.exact ? 0 : 300);

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
    let time: ContractTime;
    let id: string;

    beforeEach(async () => {
      peers = await makePeers();
      time = peers.time;
      id = `cred-${randomBytes(4).toString('hex')}`;
    });
    afterEach(async () => {
      await peers.cleanup();
    });

    it('never lets more than COUNT calls start in any window, however aligned, and runs every job', async () => {
      const [a, b] = await peers.open({ limit: { count: 10, windowMs: 1_000 }, guardMs: startGuardMs(time) });
      const priorities: Priority[] = ['interactive', 'interactive', 'digest', 'background'];
      const starts: number[] = [];
      const run = (i: number, priority: Priority) =>
        (i % 2 === 0 ? a : b).schedule(
          id,
          priority,
          async () => {
            starts.push(time.now());
            return i;
          },
          { maxWaitMs: 60_000 },
        );

      // A trickle that leaves the first window half used, then a burst near its end: a fixed window (a
      // reservoir refilled every second) lets the burst's second half through at the boundary; a sliding one cannot.
      const jobs: Promise<number>[] = [];
      for (let i = 0; i < 5; i += 1) {
        jobs.push(run(i, 'interactive'));
        await time.sleep(200);
      }
      for (let i = 5; i < 20; i += 1) jobs.push(run(i, priorities[i % priorities.length] ?? 'interactive'));
      const results = await time.settle(Promise.all(jobs));

      expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
      expect(starts).toHaveLength(20);
      expect(maxInAnyWindow(starts, 1_000)).toBeLessThanOrEqual(10);
      // The budget is used to the full. Only where a call starts at its grant can that be told apart from a late
      // start (in real time a slow event loop spreads the starts, and the guard adds its margin).
      if (time.exact) expect(maxInAnyWindow(starts, 1_000)).toBe(10);
    }, 30_000);

    it('frees a slot only once the oldest call has left the window', async () => {
      const [a, b] = await peers.open({ limit: { count: 3, windowMs: 1_000 }, guardMs: startGuardMs(time) });
      const first = await a.schedule(id, 'interactive', async () => time.now());
      await fill(a, id, 2);

      // Another peer, with nothing queued, asks again and again at arbitrary instants.
      let startedAt: number | null = null;
      let refusals = 0;
      while (startedAt === null) {
        try {
          startedAt = await b.schedule(id, 'interactive', async () => time.now(), { maxWaitMs: 0 });
        } catch (error) {
          expect(error).toBeInstanceOf(BudgetExhaustedError);
          refusals += 1;
          await time.sleep(20 + Math.random() * 20);
        }
      }

      expect(refusals).toBeGreaterThan(0);
      expect(startedAt).toBeGreaterThanOrEqual(first + 1_000);
    });

    it('runs a queued interactive job before digest and background jobs queued earlier', async () => {
      const [a] = await peers.open({
        limit: { count: 2, windowMs: 300 },
        reserve: { digest: 0, background: 0 },
      });
      await fill(a, id, 2);
      const order: string[] = [];

      const jobs = [
        recorded(a, id, 'digest', 'digest', order, 30_000),
        recorded(a, id, 'background', 'background', order, 30_000),
        recorded(a, id, 'interactive', 'interactive', order, 30_000),
      ];
      await time.settle(Promise.all(jobs));

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

    it('moves a waiting digest call raised to interactive ahead of the digests queued before it, into the slots kept for interactive calls', async () => {
      // Defaults on 10 calls: digest may use 9 slots.
      const [a] = await peers.open({ limit: { count: 10, windowMs: 30_000 } });
      await fill(a, id, 9);
      const started: string[] = [];
      const earlier = recorded(a, id, 'digest', 'earlier', started, 60_000).catch((error: unknown) => error);
      const priority = new RaisedPriority('digest');
      const raised = a.schedule(
        id,
        priority.priority,
        async () => {
          started.push('raised');
          return 'raised';
        },
        { maxWaitMs: 60_000, raisable: priority },
      );
      await time.sleep(50);
      expect(started).toEqual([]);

      priority.raise('interactive');
      await vi.waitFor(() => expect(started).toEqual(['raised']));
      await expect(raised).resolves.toBe('raised');
      await peers.cleanup(); // the earlier digest still waits for the window: rejected on close
      expect(await earlier).toBeInstanceOf(BudgetClosedError);
    });

    it('rejects a job that cannot get a slot within maxWaitMs, with the time a slot frees', async () => {
      const [a, b] = await peers.open({ limit: { count: 2, windowMs: 20_000 } });
      const before = time.now();
      await fill(a, id, 2);
      const ran = vi.fn(async () => 'ran');

      const error = await time.settle(
        b.schedule(id, 'interactive', ran, { maxWaitMs: 300 }).catch((e: unknown) => e),
      );

      expect(error).toBeInstanceOf(BudgetExhaustedError);
      const exhausted = error as BudgetExhaustedError;
      expect(exhausted.priority).toBe('interactive');
      // The first call leaves the window 20 s plus the guard (400 ms: 2% of the window) after it started.
      expect(exhausted.retryAt).toBeGreaterThanOrEqual(before + 20_400 - roundingMs(time));
      expect(exhausted.retryAt).toBeLessThanOrEqual(time.now() + 20_400 + roundingMs(time));
      expect(ran).not.toHaveBeenCalled();
    });

    it('runs a background job only when a slot is free right now', async () => {
      const [a, b] = await peers.open({ limit: { count: 10, windowMs: 30_000 } });
      await expect(b.schedule(id, 'background', async () => 'now')).resolves.toBe('now');
      const before = time.now();
      await fill(a, id, 6); // 7 calls: the background capacity

      const error = await b.schedule(id, 'background', async () => 'late').catch((e: unknown) => e);

      expect(error).toBeInstanceOf(BudgetExhaustedError);
      expect((error as BudgetExhaustedError).priority).toBe('background');
      expect((error as BudgetExhaustedError).retryAt).toBeGreaterThan(before + 25_000);
      await expect(b.schedule(id, 'digest', async () => 'digest')).resolves.toBe('digest');
    });

    it('pauses every peer until the pause ends', async () => {
      const [a, b] = await peers.open({ limit: { count: 10, windowMs: 2_000 } });
      const before = time.now();
      await a.pause(id, 600);

      const usage = await b.usage(id);
      expect(usage.pausedUntil).not.toBeNull();
      expect(usage.pausedUntil ?? 0).toBeGreaterThanOrEqual(before + 600 - roundingMs(time));
      const refused = await b.schedule(id, 'background', async () => 'x').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(BudgetExhaustedError);
      expect((refused as BudgetExhaustedError).retryAt).toBeGreaterThanOrEqual(
        before + 600 - roundingMs(time),
      );

      const startedAt = await time.settle(
        b.schedule(id, 'interactive', async () => time.now(), { maxWaitMs: 10_000 }),
      );
      expect(startedAt).toBeGreaterThanOrEqual(before + 600 - roundingMs(time));
      expect((await a.usage(id)).pausedUntil).toBeNull();
    });

    it('extends a pause but never shortens it', async () => {
      const [a, b] = await peers.open({ limit: { count: 10, windowMs: 2_000 } });
      await a.pause(id, 10_000);
      await b.pause(id, 100);
      expect((await a.usage(id)).pausedUntil ?? 0).toBeGreaterThan(time.now() + 9_000);

      const other = `${id}-2`;
      await a.pause(other, 100);
      await b.pause(other, 10_000);
      expect((await b.usage(other)).pausedUntil ?? 0).toBeGreaterThan(time.now() + 9_000);
    });

    it('pauses every peer after a 429 even with Retry-After 0, for a backoff that grows with the 429s in a row on any peer', async () => {
      // A 15 s window: the backoff starts at 250 ms and doubles with each 429 in a row, up to a quarter of the window.
      const [a, b] = await peers.open({ limit: { count: 10, windowMs: 15_000 } });
      const before = time.now();
      expect(await a.pauseAfter429(id, 0)).toBe(250);
      expect((await b.usage(id)).pausedUntil ?? 0).toBeGreaterThanOrEqual(before + 250 - roundingMs(time));
      const refused = await b.schedule(id, 'background', async () => 'x').catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(BudgetExhaustedError);
      // Another 429 while the pause is in force answers a call made before it: the same burst, the streak unchanged.
      // A pause held in force by a longer Retry-After first, so that a slow machine cannot let it end in between.
      expect(await a.pauseAfter429(id, 2_000)).toBe(2_000);
      expect(await b.pauseAfter429(id, 0)).toBeGreaterThan(0);

      // Past the pause, a call is granted; a 429 after it is the second in a row, whichever peer meets it.
      await time.settle(b.schedule(id, 'interactive', async () => undefined, { maxWaitMs: 10_000 }));
      expect(await b.pauseAfter429(id, undefined)).toBe(500);
      await time.settle(a.schedule(id, 'interactive', async () => undefined, { maxWaitMs: 10_000 }));
      expect(await a.pauseAfter429(id, 0)).toBe(1_000);
      // A Retry-After longer than the backoff is honoured.
      expect(await a.pauseAfter429(id, 5_000)).toBe(5_000);

      // Each credential has its own streak.
      expect(await b.pauseAfter429(`${id}-2`, 0)).toBe(250);
    });

    it('pauses for at most the window after a 429 whose Retry-After asks for far longer, and logs the value received', async () => {
      const lines: string[] = [];
      const logger = makeLogger({
        level: 'warn',
        destination: { write: (line: string) => lines.push(line) },
      });
      const [a, b] = await peers.open({ limit: { count: 10, windowMs: 15_000 }, logger });
      const before = time.now();
      // A year in seconds (Retry-After: 31536000): the pause is the window, on every peer.
      expect(await a.pauseAfter429(id, 31_536_000_000)).toBe(15_000);
      const pausedUntil = (await b.usage(id)).pausedUntil ?? 0;
      expect(pausedUntil).toBeGreaterThanOrEqual(before + 15_000 - roundingMs(time));
      expect(pausedUntil).toBeLessThanOrEqual(time.now() + 15_000);
      // Another one during the pause does not lengthen it past the window either.
      expect(await b.pauseAfter429(id, 31_536_000_000)).toBeLessThanOrEqual(15_000);
      const warned = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(warned).toContainEqual(
        expect.objectContaining({ retryAfterMs: 31_536_000_000, pauseCapMs: 15_000, credentialId: id }),
      );
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
        feed: { used: 0, cap: 1, saturated: false, shareCap: 1 },
      });

      const before = time.now();
      await fill(a, id, 3);
      expect(await b.usage(id)).toMatchObject({ used: 3, remaining: 2, nextSlotAt: null });

      await fill(a, id, 2);
      const full = await b.usage(id);
      expect(full).toMatchObject({ used: 5, remaining: 0, pausedUntil: null });
      // The first call leaves 30 s plus the guard (600 ms: 2% of the window) after it started.
      expect(full.nextSlotAt ?? 0).toBeGreaterThanOrEqual(before + 30_600 - roundingMs(time));
      expect(full.nextSlotAt ?? 0).toBeLessThanOrEqual(time.now() + 30_600 + roundingMs(time));
    });

    it('never lets the feed hold more than its share of any window, and counts its calls', async () => {
      // 20 calls, share 25 %: at most 5 feed calls in any window, whichever peer makes them.
      const [a, b] = await peers.open({ limit: { count: 20, windowMs: 30_000 }, feedSharePercent: 25 });
      const started: string[] = [];
      for (let i = 0; i < 5; i += 1) await recorded(i % 2 === 0 ? a : b, id, 'feed', `feed-${i}`, started, 0);
      const refused = await recorded(b, id, 'feed', 'feed-late', started, 0).catch((e: unknown) => e);

      expect(refused).toBeInstanceOf(BudgetExhaustedError);
      expect((refused as BudgetExhaustedError).priority).toBe('feed');
      // The share's first call leaves the window 30 s plus the guard (600 ms) after it started.
      expect((refused as BudgetExhaustedError).retryAt).toBeGreaterThan(time.now() + 25_000);
      // The rest of the window is still there for everyone else.
      await expect(recorded(a, id, 'background', 'background', started, 0)).resolves.toBe('background');
      await expect(recorded(a, id, 'digest', 'digest', started, 0)).resolves.toBe('digest');
      expect(started.filter((label) => label.startsWith('feed'))).toHaveLength(5);
      expect(await a.usage(id)).toMatchObject({ used: 7, feed: { used: 5, cap: 5 } });
    });

    it('leaves the last 20 % of the window to interactive users and digests, and ranks the feed above background', async () => {
      // 10 calls, share 100 %: only the capacity holds the feed back (8 of 10).
      const [a, b] = await peers.open({
        limit: { count: 10, windowMs: 30_000 },
        feedSharePercent: 100,
      });
      const started: string[] = [];
      for (let i = 0; i < 8; i += 1) await recorded(a, id, 'feed', `feed-${i}`, started, 0);
      await expect(recorded(b, id, 'feed', 'feed-9', started, 0)).rejects.toBeInstanceOf(
        BudgetExhaustedError,
      );
      await expect(recorded(b, id, 'digest', 'digest', started, 0)).resolves.toBe('digest');
      await expect(recorded(b, id, 'interactive', 'interactive', started, 0)).resolves.toBe('interactive');
    });

    it('leaves the slot an interactive call of any peer waits for to it: feed and background wait, digests do not', async () => {
      // 4 calls, share 100 %: interactive may use 4, digest 3, feed 3, background 2. The guard is 100 ms of 5 s,
      // so a refused interactive call keeps feed and background off until its slot frees plus 200 ms.
      const [a, b] = await peers.open({ limit: { count: 4, windowMs: 5_000 }, feedSharePercent: 100 });
      await fill(a, id, 4);
      const refusal = async (budget: Budget, priority: Priority) => {
        const error = await budget
          .schedule(id, priority, async () => 'ran', { maxWaitMs: 0 })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(BudgetExhaustedError);
        return (error as BudgetExhaustedError).retryAt;
      };
      // Before any interactive call waits, the feed and the digest are told the same instant: the window's.
      const feedBefore = await refusal(b, 'feed');
      const digestBefore = await refusal(b, 'digest');
      expect(Math.abs(feedBefore - digestBefore)).toBeLessThanOrEqual(2 * roundingMs(time));

      const interactiveAt = await refusal(b, 'interactive');
      // Now the feed and background calls of the other peer wait past the interactive call's slot; digests do not.
      expect(await refusal(a, 'feed')).toBeGreaterThanOrEqual(interactiveAt + 200 - roundingMs(time));
      expect(await refusal(a, 'background')).toBeGreaterThanOrEqual(interactiveAt + 200 - roundingMs(time));

      // In real time a reply that comes late reports a later instant: the exact checks run on fake timers only.
      if (!time.exact) return;
      expect(await refusal(a, 'digest')).toBe(digestBefore);
      // The slots free: the feed still leaves them to the interactive call, a digest does not wait; once the margin
      // is over, the feed gets one.
      await time.sleep(interactiveAt - time.now() + 50);
      expect(await refusal(a, 'feed')).toBeGreaterThanOrEqual(interactiveAt + 200);
      await expect(recorded(b, id, 'interactive', 'interactive', [], 0)).resolves.toBe('interactive');
      await expect(recorded(a, id, 'digest', 'digest', [], 0)).resolves.toBe('digest');
      await time.sleep(200);
      await expect(recorded(a, id, 'feed', 'feed', [], 0)).resolves.toBe('feed');
    });

    it('keeps the feed to its saturated share for a window after an interactive call was refused, on any peer', async () => {
      // 20 calls of 2 s, share 25 % (5 calls), saturated 5 % (1 call).
      const [a, b] = await peers.open({
        limit: { count: 20, windowMs: 2_000 },
        feedSharePercent: 25,
        feedSaturatedSharePercent: 5,
      });
      await fill(a, id, 19);
      // Taken after the 19 calls: all of them have left the window a span after it, however long they took.
      const t0 = time.now();
      await time.sleep(1_000);
      await fill(a, id, 1);
      // The window is full: an interactive call of the other peer is refused, and the credential is saturated.
      const refused = await b
        .schedule(id, 'interactive', async () => 'ran', { maxWaitMs: 0 })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(BudgetExhaustedError);
      const refusedAt = time.now();
      expect((await a.usage(id)).feed).toEqual({ used: 0, cap: 1, saturated: true, shareCap: 5 });

      // The first 19 calls leave (and the refused call's slot with its margin passes): 19 slots are free, but the
      // feed, saturated, takes one and is refused a second.
      await time.sleep(t0 + 2_400 - time.now());
      await expect(recorded(a, id, 'feed', 'feed-1', [], 0)).resolves.toBe('feed-1');
      const second = await b.schedule(id, 'feed', async () => 'x', { maxWaitMs: 0 }).catch((e: unknown) => e);
      expect(second).toBeInstanceOf(BudgetExhaustedError);
      expect((second as BudgetExhaustedError).priority).toBe('feed');
      // Interactive calls are not held to anything of the sort.
      await expect(recorded(b, id, 'interactive', 'now', [], 0)).resolves.toBe('now');

      // A window after the refusal with none since, the feed has its whole share again.
      await time.sleep(refusedAt + 2_300 - time.now());
      expect((await b.usage(id)).feed).toEqual({ used: 1, cap: 5, saturated: false, shareCap: 5 });
      await expect(recorded(b, id, 'feed', 'feed-2', [], 0)).resolves.toBe('feed-2');
      await expect(recorded(a, id, 'feed', 'feed-3', [], 0)).resolves.toBe('feed-3');
    });

    it('grants the feed nothing when its share is 0', async () => {
      const [a] = await peers.open({ limit: { count: 10, windowMs: 30_000 }, feedSharePercent: 0 });
      const error = await a.schedule(id, 'feed', async () => 'x', { maxWaitMs: 0 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BudgetExhaustedError);
      expect((await a.usage(id)).feed).toEqual({ used: 0, cap: 0, saturated: false, shareCap: 0 });
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
