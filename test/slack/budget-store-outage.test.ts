import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import type { Budget } from '../../src/upstream/budget.js';
import { resolveBudgetPolicy } from '../../src/upstream/budget-policy.js';
import { budgetOverWindow, type WindowStore } from '../../src/upstream/budget-queue.js';
import { eventually, type Harness, startHarness, TEAM, textOf, USERS } from '../helpers/bot-harness.js';

/**
 * The budget's shared store (Redis in production) stops answering while a call waits for its slot: the user is
 * told the bot failed for a moment, not that the upstream's query limit was reached (the budget is free).
 */

const C1 = DEMO_FACTS.company1;
let h: Harness | undefined;
/** The questions the hanging store holds: failed at the end of a test, so that the budget can close. */
const hanging: ((error: Error) => void)[] = [];

afterEach(async () => {
  for (const fail of hanging.splice(0)) fail(new Error('test over'));
  await h?.close();
  h = undefined;
});

/** A window store that grants every slot, or, while `down`, never answers (a store that hangs). */
function storeThatMayHang(): {
  budget: (logger: Parameters<typeof budgetOverWindow>[1]['logger']) => Budget;
  state: { down: boolean };
} {
  const state = { down: false };
  const store: WindowStore = {
    acquire: () =>
      state.down
        ? new Promise((_resolve, reject) => hanging.push(reject))
        : Promise.resolve({ granted: true }),
    pause: async () => {},
    pauseAfter429: async () => ({ pausedMs: 0, streak: 1 }),
    usage: async () => ({ used: 0, pausedMs: 0, waitMs: 0, feedUsed: 0, saturated: false }),
  };
  const policy = resolveBudgetPolicy({
    limit: { count: 250, windowMs: 3_600_000 },
    maxWaitMs: { interactive: 300, digest: 300, feed: 300 },
  });
  return { budget: (logger) => budgetOverWindow(policy, logger ? { logger } : {}, store), state };
}

const LIMIT = /Limite de consultas/;
const BOT_FAILED =
  /Falha temporária do bot: o armazenamento interno não respondeu.*Tente de novo em instantes/;

describe('the budget store does not answer during the wait for a slot', () => {
  it('a command is told the bot failed for a moment, not that the query limit was reached', async () => {
    const { budget, state } = storeThatMayHang();
    // A short answer deadline: the command's wait for its slot ends with it.
    h = await startHarness({
      budget: (_redis, logger) => budget(logger),
      answerTiming: { deadline: '2s' },
    });
    await h.link(TEAM);
    state.down = true;
    const result = await h.command('/compras', 'pendentes', { user: USERS.member });
    const harness = h;
    const answer = await eventually(() =>
      harness.slack.messages.find(
        (m) => m.at >= result.sentAt && !m.replaced && (BOT_FAILED.test(textOf(m)) || LIMIT.test(textOf(m))),
      ),
    );
    const text = textOf(answer);
    expect(text).toMatch(BOT_FAILED);
    expect(text).not.toMatch(LIMIT);
  });

  it('linking says nothing was linked because the bot failed for a moment, not the query limit', async () => {
    const { budget, state } = storeThatMayHang();
    h = await startHarness({ budget: (_redis, logger) => budget(logger) });
    state.down = true;
    const since = Date.now();
    const result = await h.submitLink(
      { login: C1.login, password: C1.password, company: '1' },
      { user: USERS.admin },
    );
    const shown =
      result.body.includes('Falha') || result.body.includes('Limite')
        ? result.body
        : textOf(await h.nextMessage(since, { userId: USERS.admin }));
    expect(shown).toMatch(/Falha temporária do bot/);
    expect(shown).not.toMatch(LIMIT);
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(0);
  });
});
