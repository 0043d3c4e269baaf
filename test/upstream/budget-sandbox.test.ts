import { afterEach, beforeEach, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';
import { credentialFor, makeStack } from '../helpers/upstream-stack.js';

const LIMIT = { count: 5, windowMs: 1_000 };
/**
 * The budget decides on the Redis clock; the sandbox counts a call when it arrives, a moment later, and that
 * moment varies with the load of the machine. The guard keeps a call and the COUNT-th after it more than a window
 * apart as the sandbox sees them, however late each one leaves within half a second (in production the guard is
 * 2% of the window).
 */
const GUARD_MS = 500;
const C1 = DEMO_FACTS.company1;

let sandbox: Sandbox;
let redis: TestRedis;

beforeEach(async () => {
  // The sandbox enforces the same budget and answers 429 past it: a 429 here means the bot overspent.
  sandbox = await startSandbox({ port: 0, rateLimit: LIMIT });
  redis = await makeTestRedis();
});
afterEach(async () => {
  await sandbox.close();
  await redis.cleanup();
});

it('two processes share one budget: no window of 1 s ever holds more than 5 calls, and upstream never says 429', async () => {
  const a = makeStack({
    redis: redis.redis,
    keys: redis.keys,
    baseUrl: sandbox.baseUrl,
    authUrl: sandbox.authUrl,
    limit: LIMIT,
    guardMs: GUARD_MS,
  });
  const b = makeStack({
    redis: redis.connect(),
    keys: redis.keys,
    baseUrl: sandbox.baseUrl,
    authUrl: sandbox.authUrl,
    limit: LIMIT,
    guardMs: GUARD_MS,
    box: a.box,
  });
  const credential = credentialFor(sandbox.authUrl, C1.login, C1.password, C1.empresa);
  const ids = Array.from({ length: 14 }, (_, i) => C1.requestIds.first + i);
  try {
    // Digest priority waits up to minutes for a slot, so every call eventually runs.
    const results = await Promise.all(
      ids.map((id, i) =>
        (i % 2 === 0 ? a : b).client.listRequestItems({ credential, priority: 'digest' }, id),
      ),
    );
    expect(results).toHaveLength(ids.length);
  } finally {
    await a.close();
    await b.close();
  }
  const calls = sandbox.calls.filter((c) => c.login === C1.login);
  expect(calls.filter((c) => c.status === 429)).toEqual([]);
  // The login counts too: 14 data calls + 1 login.
  expect(calls).toHaveLength(ids.length + 1);
  const times = calls.map((c) => c.at).sort((x, y) => x - y);
  let busiest = 0;
  for (const start of times) {
    busiest = Math.max(busiest, times.filter((t) => t >= start && t < start + LIMIT.windowMs).length);
  }
  expect(busiest).toBeLessThanOrEqual(LIMIT.count);
  expect(busiest).toBeGreaterThanOrEqual(LIMIT.count - 2); // the budget is used, not wasted
}, 30_000);
