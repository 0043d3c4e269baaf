import { afterEach, beforeEach, expect, it } from 'vitest';
import { TokenKeeper } from '../../../src/domain/links/token-keeper.js';
import { makeLogger } from '../../../src/lib/logger.js';
import { DEMO_FACTS } from '../../../src/sandbox/facts.js';
import { type Harness, startHarness, TEAM } from '../../helpers/bot-harness.js';

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
