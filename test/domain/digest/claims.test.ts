import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DigestClaims, parseClaim } from '../../../src/domain/digest/claims.js';
import { RedisKeyValue } from '../../../src/store/kv.js';
import { makeTestRedis, type TestRedis } from '../../helpers/redis.js';

let redis: TestRedis;

beforeEach(async () => {
  redis = await makeTestRedis();
});
afterEach(async () => {
  await redis.cleanup();
});

const claimsOn = (owner: string, leaseMs?: number) =>
  new DigestClaims(new RedisKeyValue(redis.connect()), redis.keys, owner, leaseMs ? { leaseMs } : {});

describe('DigestClaims', () => {
  it('of many processes claiming one day at once, exactly one gets it', async () => {
    const processes = Array.from({ length: 8 }, (_, i) => claimsOn(`p${i}`));
    const results = await Promise.all(processes.map((claims) => claims.acquire('T1', 'C1', '2026-11-23')));
    expect(results.filter((result) => result.acquired)).toHaveLength(1);
    const refused = results.find((result) => !result.acquired);
    expect(refused).toMatchObject({ acquired: false, current: { state: 'posting' } });
  });

  it('released, the day can be claimed again; posted, never again', async () => {
    const a = claimsOn('a');
    const b = claimsOn('b');
    const first = await a.acquire('T1', 'C1', '2026-11-23');
    if (!first.acquired) throw new Error('expected the claim');
    await first.claim.release();
    const second = await b.acquire('T1', 'C1', '2026-11-23');
    if (!second.acquired) throw new Error('expected the claim');
    await second.claim.markPosted(5_000, 4_000);
    expect(await a.read('T1', 'C1', '2026-11-23')).toEqual({
      state: 'posted',
      postedAt: 5_000,
      coveredUntil: 4_000,
    });
    expect(await a.acquire('T1', 'C1', '2026-11-23')).toMatchObject({
      acquired: false,
      current: { state: 'posted' },
    });
    expect(await second.claim.renew()).toBe(false);
    // Another day is another claim.
    expect((await a.acquire('T1', 'C1', '2026-11-24')).acquired).toBe(true);
    const ttl = await redis.redis.pttl(redis.keys.digestClaim('T1', 'C1', '2026-11-23'));
    expect(ttl).toBeGreaterThan(2.9 * 86_400_000);
  });

  it('a renewed lease outlives its first term; an expired one taken by another cannot be renewed or released', async () => {
    const a = claimsOn('a', 60_000);
    const b = claimsOn('b', 60_000);
    const held = await a.acquire('T1', 'C1', '2026-11-23');
    if (!held.acquired) throw new Error('expected the claim');
    // The lease runs on the Redis clock: the test shortens what is left of it rather than waiting.
    const key = redis.keys.digestClaim('T1', 'C1', '2026-11-23');
    for (let i = 0; i < 3; i += 1) {
      await redis.redis.pexpire(key, 5_000);
      expect(await held.claim.renew()).toBe(true);
      expect(await redis.redis.pttl(key)).toBeGreaterThan(50_000);
    }
    expect((await b.acquire('T1', 'C1', '2026-11-23')).acquired).toBe(false);

    await redis.redis.pexpire(key, 1);
    await vi.waitFor(async () => expect(await redis.redis.exists(key)).toBe(0));
    const taken = await b.acquire('T1', 'C1', '2026-11-23');
    expect(taken.acquired).toBe(true);
    expect(await held.claim.renew()).toBe(false);
    await held.claim.release();
    expect(await a.read('T1', 'C1', '2026-11-23')).toMatchObject({ state: 'posting', owner: 'b' });
  });

  it('reads states', () => {
    expect(parseClaim(null)).toBeNull();
    expect(parseClaim('posting:p1:abc')).toEqual({ state: 'posting', owner: 'p1' });
    expect(parseClaim('posted:10:9')).toEqual({ state: 'posted', postedAt: 10, coveredUntil: 9 });
  });
});
