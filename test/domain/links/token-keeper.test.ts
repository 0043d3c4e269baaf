import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { LinkHealer } from '../../../src/domain/links/link-healer.js';
import { TokenKeeper } from '../../../src/domain/links/token-keeper.js';
import { makeLogger } from '../../../src/lib/logger.js';
import { DEMO_FACTS } from '../../../src/sandbox/facts.js';
import { type Harness, startHarness, TEAM } from '../../helpers/bot-harness.js';
import { ManualClock } from '../../helpers/manual-clock.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

it('renews a refresh chain about to die, once per credential, and leaves fresh ones alone', async () => {
  await h.link(TEAM);
  await h.link('T00FAKE02'); // the same login linked twice: one credential
  const keeper = new TokenKeeper(h.container.links, h.container.tokens, makeLogger({ level: 'silent' }));
  const since = h.sandbox.calls.length;
  expect(await keeper.runOnce()).toBe(0);
  // Refresh tokens live 7 days: asking to renew those that die within 8 days renews them now.
  expect(await keeper.runOnce(8 * 24 * 3_600_000)).toBe(1);
  const calls = h.sandbox.calls.slice(since).filter((c) => c.login === DEMO_FACTS.company1.login);
  expect(calls.map((c) => `${c.kind}:${c.status}`)).toEqual(['refresh:200']);
});

it("its loop has the broken links checked at each tick, and its pass enters a broken link the checks' schedule lacks", async () => {
  let now = Date.now();
  const timers = new ManualClock(now);
  await h.link(TEAM);
  const link = await h.container.links.get(TEAM);
  if (!link) throw new Error('not linked');
  // Broken before the reason and the schedule were kept: only the pass over every link finds it.
  await h.container.links.markBroken(TEAM, now, link.linkedAt);
  await h.container.links.unscheduleProbe(TEAM);
  const keeper = new TokenKeeper(h.container.links, h.container.tokens, makeLogger({ level: 'silent' }), {
    healer: new LinkHealer({
      links: h.container.links,
      tokens: h.container.tokens,
      client: h.container.client,
      subscriptions: h.container.subscriptions,
      feedListeners: h.container.feedListeners,
      logger: makeLogger({ level: 'silent' }),
      now: () => now,
    }),
    now: () => now,
    clock: timers,
  });
  const since = h.sandbox.calls.length;
  keeper.start(3_600_000, 60_000);
  try {
    timers.runDue();
    // The first tick's pass enters it at its check, a day after the break (no reason kept: as a refused login).
    await vi.waitFor(async () =>
      expect(await h.container.links.probesDue(now + 86_400_000, 10)).toEqual([TEAM]),
    );
    await vi.waitFor(() => expect(timers.pending).toBe(1));
    expect(await h.container.links.probesDue(now + 86_400_000 - 1, 10)).toEqual([]);
    // A tick a day later checks it: the service takes the login again, and the link is restored.
    now += 86_400_000;
    timers.advance(60_000);
    timers.runDue();
    await vi.waitFor(async () => expect((await h.container.links.get(TEAM))?.brokenAt).toBeNull());
    expect(h.sandbox.calls.slice(since).map((c) => `${c.kind}:${c.status}`)).toEqual([
      'login:200',
      'data:200',
    ]);
  } finally {
    keeper.stop();
  }
});
