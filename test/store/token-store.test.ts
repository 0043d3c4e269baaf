import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SecretBox } from '../../src/store/crypto.js';
import { type KeyValue, RedisKeyValue } from '../../src/store/kv.js';
import { type TokenPair, TokenStore } from '../../src/store/token-store.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';

let redis: TestRedis;
beforeEach(async () => {
  redis = await makeTestRedis();
});
afterEach(async () => {
  await redis.cleanup();
});

const pair = (token: string): TokenPair => ({
  token,
  refreshToken: `r-${token}`,
  jti: `j-${token}`,
  expiresAt: Date.now() + 7_200_000,
  refreshExpiresAt: Date.now() + 86_400_000,
  obtainedAt: Date.now(),
});

it('a pair obtained across a forget (an unlink) is not kept, whether the forget comes before its write or during it', async () => {
  const box = new SecretBox(randomBytes(32));
  const kv = new RedisKeyValue(redis.redis);
  const other = new TokenStore(kv, redis.keys, box);
  let forgetDuringWrite = false;
  // The unlink of another replica lands between the check of the mark and the write of the pair.
  const racing: KeyValue = Object.create(kv, {
    set: {
      value: async (key: string, value: string, options?: { ttlMs?: number; onlyIfAbsent?: boolean }) => {
        if (forgetDuringWrite && key === redis.keys.tokens('c1')) {
          forgetDuringWrite = false;
          await other.clear('c1');
        }
        return kv.set(key, value, options);
      },
    },
  });
  const store = new TokenStore(racing, redis.keys, box);

  const before = await store.forgottenMark('c1');
  await other.clear('c1');
  expect(await store.saveUnlessForgotten('c1', pair('a'), before)).toBe(false);
  expect(await store.load('c1')).toBeNull();

  const mark = await store.forgottenMark('c1');
  forgetDuringWrite = true;
  expect(await store.saveUnlessForgotten('c1', pair('b'), mark)).toBe(false);
  expect(await store.load('c1')).toBeNull();

  // No forget since the mark was read: kept.
  const now = await store.forgottenMark('c1');
  expect(await store.saveUnlessForgotten('c1', pair('c'), now)).toBe(true);
  expect((await store.load('c1'))?.token).toBe('c');
});
