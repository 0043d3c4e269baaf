import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeLogger } from '../../src/lib/logger.js';
import { openSandboxRun } from '../../src/local/sandbox-run.js';
import type { AdvanceRequest } from '../../src/sandbox/changes.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';

/** The sandbox's run record (src/local/sandbox-run.ts) on a real Redis: what a restart replays, and its bound. */

const logger = makeLogger({ level: 'silent' });

describe('sandbox run record', () => {
  let redis: TestRedis;
  let kv: RedisKeyValue;
  let time: number;
  const clock = () => time;

  beforeEach(async () => {
    redis = await makeTestRedis();
    kv = new RedisKeyValue(redis.redis);
    time = 1_000_000;
  });
  afterEach(async () => {
    await redis.cleanup();
  });

  const stored = async () =>
    JSON.parse((await kv.get(redis.keys.localSandboxRun())) ?? 'null') as {
      startedAt: number;
      advances: { at: number; request: AdvanceRequest }[];
      overflowed?: true;
    } | null;
  /** Replays the run into a sandbox that only notes what it was asked, with the run's clock at each. */
  const replayed = (run: Awaited<ReturnType<typeof openSandboxRun>>) => {
    const made: { at: number; request: AdvanceRequest }[] = [];
    const count = run.replay({ advance: (request) => made.push({ at: run.now(), request }) });
    return { count, made };
  };

  it('up to its bound, a restart replays every advance in order, each at its time', async () => {
    const first = await openSandboxRun(kv, redis.keys, logger, clock, 3);
    expect(first.fresh).toBe(true);
    const advances = [1, 2, 3].map((n) => ({ at: time + n, request: { empresaId: 1, changes: n } }));
    for (const { at, request } of advances) first.record(request, at);
    await first.saved();

    time += 60_000;
    const second = await openSandboxRun(kv, redis.keys, logger, clock, 3);
    expect(second).toMatchObject({ fresh: false, overflowed: false });
    expect(second.now()).toBe(1_000_000);
    expect(replayed(second)).toEqual({ count: 3, made: advances });
    expect(second.now()).toBe(time);
  });

  it('past its bound the record keeps no advance, and the next start begins a new run', async () => {
    const first = await openSandboxRun(kv, redis.keys, logger, clock, 3);
    for (let n = 1; n <= 50; n += 1) {
      first.record({ empresaId: 1, changes: 1, requestIds: [n] }, time + n);
      await first.saved();
      // Never more than the bound, whenever it is read.
      expect((await stored())?.advances.length).toBeLessThanOrEqual(3);
    }
    // Until 2026-11-27 all 50 were kept, and every start replayed them all.
    expect(await stored()).toMatchObject({ startedAt: 1_000_000, advances: [], overflowed: true });

    time += 60_000;
    const second = await openSandboxRun(kv, redis.keys, logger, clock, 3);
    // A fresh sandbox at this start's time: local mode forgets what the feed saw of the old one (overflowed).
    expect(second).toMatchObject({ fresh: true, overflowed: true });
    expect(replayed(second)).toEqual({ count: 0, made: [] });
    expect(second.now()).toBe(time);
    expect(await stored()).toEqual({ version: 1, startedAt: time, seed: second.seed, advances: [] });
    // The new run records again, and a start after it replays it.
    second.record({ empresaId: 1, changes: 2 }, time + 1);
    await second.saved();
    const third = await openSandboxRun(kv, redis.keys, logger, clock, 3);
    expect(third).toMatchObject({ fresh: false, overflowed: false });
    expect(replayed(third)).toEqual({
      count: 1,
      made: [{ at: time + 1, request: { empresaId: 1, changes: 2 } }],
    });
  });
});
