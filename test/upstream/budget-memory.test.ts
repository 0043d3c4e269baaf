import type { Budget } from '../../src/upstream/budget.js';
import { createMemoryBudget } from '../../src/upstream/budget-memory.js';
import { runBudgetContract } from './budget-contract.js';

runBudgetContract('memory', async () => {
  const opened: Budget[] = [];
  return {
    async open(options) {
      const budget = createMemoryBudget(options);
      opened.push(budget);
      // One process: both "peers" are the same budget.
      return [budget, budget];
    },
    async cleanup() {
      await Promise.all(opened.splice(0).map((budget) => budget.close()));
    },
  };
});
