import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/store/crypto.js';
import { CredentialsKeyCheck, CredentialsKeyMismatchError } from '../../src/store/key-check.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { LinkStore, type WorkspaceLink } from '../../src/store/link-store.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';

let redis: TestRedis;
beforeEach(async () => {
  redis = await makeTestRedis();
});
afterEach(async () => {
  await redis.cleanup();
});

const link: WorkspaceLink = {
  workspaceId: 'T1',
  credentialId: 'c1',
  login: 'integracao@exemplo.com.br',
  password: 'S3nh@-Forte',
  empresaId: 1,
  unidadeId: null,
  linkedBy: 'U1',
  linkedAt: 1,
  brokenAt: null,
};

/** What a replica with these keys finds at start-up. */
function verifyWith(box: SecretBox) {
  const kv = new RedisKeyValue(redis.redis);
  const links = new LinkStore(kv, redis.keys, box);
  return new CredentialsKeyCheck(kv, redis.keys, box).verify(
    () => links.workspaceIds(),
    (id) => links.get(id),
  );
}

async function mismatchOf(box: SecretBox): Promise<CredentialsKeyMismatchError> {
  const error = await verifyWith(box).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(CredentialsKeyMismatchError);
  return error as CredentialsKeyMismatchError;
}

describe('the credentials key check', () => {
  it('an empty store passes; the first link writes the check; a replica with another key is refused', async () => {
    const key = randomBytes(32);
    expect(await verifyWith(new SecretBox(key))).toEqual({ state: 'empty' });
    await new LinkStore(new RedisKeyValue(redis.redis), redis.keys, new SecretBox(key)).save(link);
    expect(await redis.redis.get(redis.keys.credentialsKeyCheck())).toMatch(/^v1\./);
    expect(await verifyWith(new SecretBox(key))).toEqual({ state: 'ok', resealed: false });

    const error = await mismatchOf(new SecretBox(randomBytes(32)));
    expect(error.message).toContain('CREDENTIALS_KEY ');
    expect(error.message).toContain('CREDENTIALS_KEY_PREVIOUS');
    expect(error.message).toContain(`sealed with key id ${new SecretBox(key).currentKeyId}`);
    expect(error.message).toMatch(/Fix: set CREDENTIALS_KEY to the key/);
    expect(error.message).not.toContain(key.toString('base64'));
  });

  it('a rotation (new key, old one in CREDENTIALS_KEY_PREVIOUS) passes and re-seals the check with the new key', async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    await new LinkStore(new RedisKeyValue(redis.redis), redis.keys, new SecretBox(oldKey)).save(link);
    expect(await verifyWith(new SecretBox(newKey, [oldKey]))).toEqual({ state: 'ok', resealed: true });
    expect(await verifyWith(new SecretBox(newKey))).toEqual({ state: 'ok', resealed: false });
    await mismatchOf(new SecretBox(oldKey));
  });

  it('a store from before the check: links that open write it; links that do not open refuse the replica', async () => {
    const key = randomBytes(32);
    await new LinkStore(new RedisKeyValue(redis.redis), redis.keys, new SecretBox(key)).save(link);
    await redis.redis.del(redis.keys.credentialsKeyCheck());

    const error = await mismatchOf(new SecretBox(randomBytes(32)));
    expect(error.sealedWithKeyId).toBe(new SecretBox(key).currentKeyId);
    expect(await redis.redis.exists(redis.keys.credentialsKeyCheck())).toBe(0);

    expect(await verifyWith(new SecretBox(key))).toEqual({ state: 'written' });
    expect(await verifyWith(new SecretBox(key))).toEqual({ state: 'ok', resealed: false });
  });
});
