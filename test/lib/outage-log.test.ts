import { expect, it } from 'vitest';
import { OutageLog } from '../../src/lib/outage-log.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { captureLogger } from '../helpers/upstream-stack.js';

/** An outage in the log as the wait for Redis says it: the first failure, a reminder every 30 s, the end. */
it('says the first failure, then at most one reminder per 30 s however often it fails, then its end once', () => {
  const clock = new ManualClock(0);
  const { logger, lines } = captureLogger('info');
  const outage = new OutageLog({
    logger,
    clock,
    messages: { first: 'down; retrying', reminder: 'still down', ended: 'up again' },
  });
  const said = () =>
    lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .map(({ level, msg, downMs, failures, err }) => ({
        level,
        msg,
        ...(downMs !== undefined && { downMs }),
        ...(failures !== undefined && { failures }),
        ...(err !== undefined && { err: (err as { message?: string }).message }),
      }));

  outage.recovered();
  expect(said()).toEqual([]);
  // An attempt a second, as Socket Mode's client retries at first.
  for (let second = 0; second < 65; second += 1) {
    outage.failed({ err: { message: 'fetch failed' } });
    clock.advance(1_000);
  }
  expect(said()).toEqual([
    { level: 40, msg: 'down; retrying', err: 'fetch failed' },
    { level: 40, msg: 'still down', downMs: 30_000, failures: 31, err: 'fetch failed' },
    { level: 40, msg: 'still down', downMs: 60_000, failures: 61, err: 'fetch failed' },
  ]);
  outage.recovered();
  expect(said()[3]).toEqual({ level: 30, msg: 'up again', downMs: 65_000, failures: 65 });
  // A new outage is said from its start again.
  outage.failed();
  outage.recovered();
  expect(said().slice(4)).toEqual([
    { level: 40, msg: 'down; retrying' },
    { level: 30, msg: 'up again', downMs: 0, failures: 1 },
  ]);
});
