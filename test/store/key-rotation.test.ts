import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/store/crypto.js';
import { CredentialsKeyCheck, CredentialsKeyMismatchError } from '../../src/store/key-check.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { LinkStore, LinkUnreadableError, type WorkspaceLink } from '../../src/store/link-store.js';
import { type TokenPair, TokenStore } from '../../src/store/token-store.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';

/**
 * Rotating CREDENTIALS_KEY while replicas run (README, "Linking each workspace to the upstream"): during a rolling
 * restart two generations of replicas share one Redis, each with its own keys.
 */

let redis: TestRedis;
beforeEach(async () => {
  redis = await makeTestRedis();
});
afterEach(async () => {
  await redis.cleanup();
});

const linkOf = (workspaceId: string): WorkspaceLink => ({
  workspaceId,
  credentialId: `c-${workspaceId}`,
  login: `integracao-${workspaceId}@exemplo.com.br`,
  password: `S3nh@-${workspaceId}`,
  empresaId: 1,
  unidadeId: null,
  linkedBy: 'U1',
  linkedAt: 1,
  brokenAt: null,
});

const NOW = Date.now();
const pairOf = (name: string): TokenPair => ({
  token: `token-${name}`,
  refreshToken: `refresh-${name}`,
  jti: `jti-${name}`,
  expiresAt: NOW + 3_600_000,
  refreshExpiresAt: NOW + 86_400_000,
  obtainedAt: NOW,
});

/** One replica's stores and start-up check, with its keys (CREDENTIALS_KEY first, then CREDENTIALS_KEY_PREVIOUS). */
function replica(current: Buffer, previous: Buffer[] = []) {
  const box = new SecretBox(current, previous);
  const kv = new RedisKeyValue(redis.connect());
  const links = new LinkStore(kv, redis.keys, box);
  const tokens = new TokenStore(kv, redis.keys, box);
  const check = new CredentialsKeyCheck(kv, redis.keys, box);
  return {
    links,
    tokens,
    startUp: () =>
      check.verify(
        () => links.workspaceIds(),
        (id) => links.get(id),
      ),
  };
}

type Replica = ReturnType<typeof replica>;

/** Each writes a link and a token pair; each reads its own and the other's; both start. */
async function expectBothWays(a: Replica, b: Replica, tag: string): Promise<void> {
  for (const [writer, name] of [
    [a, `${tag}-a`],
    [b, `${tag}-b`],
  ] as const) {
    await writer.links.save(linkOf(name));
    await writer.tokens.save(`c-${name}`, pairOf(name));
  }
  // Twice: a read re-seals a link with the reader's key, and the other generation must still open it.
  for (let round = 0; round < 2; round += 1) {
    for (const reader of [a, b, a]) {
      for (const name of [`${tag}-a`, `${tag}-b`]) {
        expect(await reader.links.get(name)).toEqual(linkOf(name));
        expect(await reader.tokens.load(`c-${name}`)).toEqual(pairOf(name));
      }
      await expect(reader.startUp()).resolves.toMatchObject({ state: 'ok' });
    }
  }
}

describe('rotating CREDENTIALS_KEY in two steps while replicas run', () => {
  it('both generations of each rolling restart read what the other writes, and each step can be rolled back', async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const before = replica(oldKey);
    await before.links.save(linkOf('T0'));
    await before.tokens.save('c-T0', pairOf('T0'));

    // Step 1: CREDENTIALS_KEY=<old>, CREDENTIALS_KEY_PREVIOUS=<new>, beside replicas still on <old> alone.
    const step1 = replica(oldKey, [newKey]);
    await expectBothWays(before, step1, 'step1');

    // Step 2: CREDENTIALS_KEY=<new>, CREDENTIALS_KEY_PREVIOUS=<old>, beside replicas of step 1.
    const step2 = replica(newKey, [oldKey]);
    await expectBothWays(step1, step2, 'step2');
    // A replica of step 1 that starts again (a rollback of step 2) opens the key check step 2 re-sealed.
    await step2.startUp();
    await expect(replica(oldKey, [newKey]).startUp()).resolves.toMatchObject({ state: 'ok' });

    // Done: every replica on step 2; the link written before the rotation is read and re-sealed with <new>.
    expect(await step2.links.get('T0')).toEqual(linkOf('T0'));
    await step2.startUp();
    const newOnly = replica(newKey);
    expect(await newOnly.links.get('T0')).toEqual(linkOf('T0'));
    await expect(newOnly.startUp()).resolves.toEqual({ state: 'ok', resealed: false });
  });

  it('in one step, a replica still on the old key cannot read what a new one writes, nor start again', async () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const before = replica(oldKey);
    await before.links.save(linkOf('T0'));
    const after = replica(newKey, [oldKey]);
    await after.startUp();
    await after.links.save(linkOf('T1'));
    await after.tokens.save('c-T1', pairOf('T1'));
    await expect(before.links.get('T1')).rejects.toBeInstanceOf(LinkUnreadableError);
    expect(await before.tokens.load('c-T1')).toBeNull();
    await expect(before.startUp()).rejects.toBeInstanceOf(CredentialsKeyMismatchError);
  });
});

describe('a link sealed again with the current key as it is read', () => {
  it('never undoes an unlink or a new link made between the read and the write', async () => {
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    await replica(oldKey).links.save(linkOf('T1'));
    await replica(oldKey).links.save(linkOf('T2'));
    const box = new SecretBox(newKey, [oldKey]);
    const kv = new RedisKeyValue(redis.connect());
    // Another replica acts on the link right after this one read it: T1 is unlinked, T2 linked again.
    const racing = Object.create(kv) as RedisKeyValue;
    racing.get = async (key: string) => {
      const value = await kv.get(key);
      if (key === redis.keys.link('T1')) await kv.del(key);
      if (key === redis.keys.link('T2'))
        await replica(newKey).links.save({ ...linkOf('T2'), login: 'novo@x.com' });
      return value;
    };
    const links = new LinkStore(racing, redis.keys, box);
    // Each read answers what it read...
    expect((await links.get('T1'))?.login).toBe(linkOf('T1').login);
    expect((await links.get('T2'))?.login).toBe(linkOf('T2').login);
    // ...and leaves the store as the other replica left it.
    expect(await kv.get(redis.keys.link('T1'))).toBeNull();
    expect((await new LinkStore(kv, redis.keys, box).get('T2'))?.login).toBe('novo@x.com');
  });
});
