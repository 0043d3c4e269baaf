import { afterEach, beforeEach, vi } from 'vitest';
import type { Budget } from '../../src/upstream/budget.js';
import { createMemoryBudget } from '../../src/upstream/budget-memory.js';
import { fakeClock, settle } from '../helpers/fake-time.js';
import { type ContractTime, runBudgetContract } from './budget-contract.js';

/** The memory budget runs on fake timers: no test waits, and every instant it reports is exact. */
const fakeTime: ContractTime = {
  now: () => Date.now(),
  sleep: async (ms) => {
    await vi.advanceTimersByTimeAsync(ms);
  },
  settle,
  exact: true,
};

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 23, 12) });
});
afterEach(() => {
  vi.useRealTimers();
});

runBudgetContract('memory', async () => {
  const opened: Budget[] = [];
  return {
    async open(options) {
      const budget = createMemoryBudget({ ...options, clock: fakeClock });
      opened.push(budget);
      // One process: both "peers" are the same budget.
      return [budget, budget];
    },
    async cleanup() {
      await Promise.all(opened.splice(0).map((budget) => budget.close()));
    },
    time: fakeTime,
  };
});
