import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Budget, BudgetOptions } from '../../src/upstream/budget.js';
import { BudgetExhaustedError } from '../../src/upstream/budget-errors.js';
import { createRedisBudget, readBudgetStats } from '../../src/upstream/budget-redis.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';
import { realTime, runBudgetContract } from './budget-contract.js';

runBudgetContract('redis', async () => {
  const redis = await makeTestRedis();
  const opened: Budget[] = [];
  let cleaned = false;
  return {
    async open(options) {
      // Two connections, as two replicas would have.
      const budgets: [Budget, Budget] = [
        createRedisBudget(redis.redis, redis.keys, options),
        createRedisBudget(redis.connect(), redis.keys, options),
      ];
      opened.push(...budgets);
      return budgets;
    },
    async cleanup() {
      await Promise.all(opened.splice(0).map((budget) => budget.close()));
      if (cleaned) return;
      cleaned = true;
      await redis.cleanup();
    },
    time: realTime,
  };
});

describe('redis budget', () => {
  const id = 'cred-a';
  let t: TestRedis;
  const opened: Budget[] = [];
  const open = (options: BudgetOptions) => {
    const budget = createRedisBudget(t.connect(), t.keys, options);
    opened.push(budget);
    return budget;
  };

  beforeEach(async () => {
    t = await makeTestRedis();
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((budget) => budget.close()));
    await t.cleanup();
  });

  it('keeps the log in one sorted set that expires with the window', async () => {
    const budget = open({ limit: { count: 5, windowMs: 30_000 }, guardMs: 0 });
    await budget.schedule(id, 'interactive', async () => undefined);
    await budget.schedule(id, 'digest', async () => undefined);

    expect(await t.redis.zcard(t.keys.budgetLog(id))).toBe(2);
    const ttl = await t.redis.pttl(t.keys.budgetLog(id));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);
    const [, firstScore] = await t.redis.zrange(t.keys.budgetLog(id), 0, 0, 'WITHSCORES');
    const [seconds] = await t.redis.time();
    expect(Math.abs(Number(firstScore) - Number(seconds) * 1000)).toBeLessThan(5_000);
  });

  /** Deletes every key under the test's prefix, as a Redis restarted without persistence (or a FLUSH) would. */
  const wipe = async () => {
    const found = await t.redis.keys(`${t.prefix}*`);
    if (found.length > 0) await t.redis.del(...found);
  };

  it('never grants more than COUNT in a window after Redis lost its keys: every replica puts back its own calls first', async () => {
    const options: BudgetOptions = {
      limit: { count: 5, windowMs: 30_000 },
      feedSharePercent: 40,
      lossCheckMs: 50,
      lossSettleMs: 1_000,
    };
    const a = open(options);
    const b = open(options);
    for (let i = 0; i < 2; i += 1) await b.schedule(id, 'feed', async () => i);
    for (let i = 0; i < 3; i += 1) await a.schedule(id, 'interactive', async () => i);
    await expect(b.schedule(id, 'interactive', async () => 'x', { maxWaitMs: 0 })).rejects.toBeInstanceOf(
      BudgetExhaustedError,
    );

    await wipe();

    // Whichever replica asks first, and though each may wait out the settle period, the window is still full.
    const granted: number[] = [];
    const outcomes = await Promise.all(
      [b, a, b, a].map((budget, i) =>
        budget
          .schedule(id, 'interactive', async () => granted.push(i), { maxWaitMs: 5_000 })
          .catch((e: unknown) => e),
      ),
    );
    expect(granted).toEqual([]);
    for (const outcome of outcomes) expect(outcome).toBeInstanceOf(BudgetExhaustedError);
    // Each call of the window once, though both replicas put theirs back and may have done so more than once.
    expect(await a.usage(id)).toMatchObject({ used: 5, remaining: 0, feed: { used: 2 } });
    expect(await t.redis.zcard(t.keys.budgetLog(id))).toBe(5);
  });

  it('a replica that asks first after the loss holds every replica back until the others put back their calls', async () => {
    const options: BudgetOptions = {
      limit: { count: 3, windowMs: 30_000 },
      lossCheckMs: 50,
      lossSettleMs: 1_000,
    };
    const a = open(options);
    const b = open(options);
    for (let i = 0; i < 3; i += 1) await a.schedule(id, 'interactive', async () => i);
    // b has no call of its own in the window, but it has seen the budget's state.
    await expect(b.schedule(id, 'background', async () => 'x', { maxWaitMs: 0 })).rejects.toBeInstanceOf(
      BudgetExhaustedError,
    );

    await wipe();

    const refused = await b
      .schedule(id, 'interactive', async () => 'x', { maxWaitMs: 0 })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BudgetExhaustedError);
    await expect(
      b.schedule(id, 'interactive', async () => 'late', { maxWaitMs: 5_000 }).catch((e: unknown) => e),
    ).resolves.toBeInstanceOf(BudgetExhaustedError);
    expect(await b.usage(id)).toMatchObject({ used: 3, remaining: 0 });
  });

  it('puts back a pause Redis lost, on every replica', async () => {
    const options: BudgetOptions = {
      limit: { count: 3, windowMs: 30_000 },
      lossCheckMs: 50,
      lossSettleMs: 1_000,
    };
    const a = open(options);
    const b = open(options);
    await a.schedule(id, 'interactive', async () => undefined);
    await a.pause(id, 60_000);

    await wipe();

    await vi.waitFor(async () => expect((await b.usage(id)).pausedUntil).not.toBeNull(), { timeout: 5_000 });
    const refused = await b
      .schedule(id, 'interactive', async () => 'x', { maxWaitMs: 0 })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BudgetExhaustedError);
    expect((refused as BudgetExhaustedError).retryAt).toBeGreaterThan(Date.now() + 30_000);
  });

  it('lets a job already waiting run after the log vanished', async () => {
    const budget = open({ limit: { count: 2, windowMs: 1_000 } });
    await budget.schedule(id, 'interactive', async () => 1);
    await budget.schedule(id, 'interactive', async () => 2);
    const waiting = budget.schedule(id, 'interactive', async () => 'ran', { maxWaitMs: 15_000 });

    await t.redis.del(t.keys.budgetLog(id));

    await expect(waiting).resolves.toBe('ran');
    expect(await t.redis.zcard(t.keys.budgetLog(id))).toBe(1);
  });

  it('counts calls, refusals and pauses for the status command', async () => {
    const budget = open({ limit: { count: 2, windowMs: 30_000 } });
    await budget.schedule(id, 'interactive', async () => undefined);
    await budget.schedule(id, 'interactive', async () => undefined);
    await expect(budget.schedule(id, 'background', async () => undefined)).rejects.toBeInstanceOf(
      BudgetExhaustedError,
    );
    await budget.pause(id, 1_000);
    await budget.pause(id, 500);

    expect(await readBudgetStats(t.redis, t.keys, id)).toEqual({ calls: 2, denied: 1, paused: 2 });
    expect(await readBudgetStats(t.redis, t.keys, 'never-used')).toEqual({ calls: 0, denied: 0, paused: 0 });
  });

  it('writes only keys under its prefix', async () => {
    const budget = open({ limit: { count: 2, windowMs: 30_000 } });
    await budget.schedule(id, 'interactive', async () => undefined);
    await budget.pause(id, 5_000);

    const found = (await t.redis.keys(`${t.prefix}*`)).sort();
    expect(found).toEqual(
      [t.keys.budgetLog(id), t.keys.budgetPause(id), t.keys.budgetStats(id), t.keys.budgetEpoch()].sort(),
    );
  });
});
