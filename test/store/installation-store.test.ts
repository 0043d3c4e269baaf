import { randomBytes } from 'node:crypto';
import type { Installation } from '@slack/oauth';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/store/crypto.js';
import { SlackInstallationStore } from '../../src/store/installation-store.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';

let redis: TestRedis;
let store: SlackInstallationStore;
beforeEach(async () => {
  redis = await makeTestRedis();
  store = new SlackInstallationStore(
    new RedisKeyValue(redis.redis),
    redis.keys,
    new SecretBox(randomBytes(32)),
  );
});
afterEach(async () => {
  await redis.cleanup();
});

const orgInstall: Installation<'v2', true> = {
  team: undefined,
  enterprise: { id: 'E001', name: 'Grupo Predial' },
  user: { id: 'U1', token: undefined, scopes: undefined },
  bot: { token: 'xoxb-org-token', scopes: ['commands'], id: 'B1', userId: 'U0' },
  isEnterpriseInstall: true,
  tokenType: 'bot',
  authVersion: 'v2',
};

it('answers every team of an enterprise from an org-wide install, and forgets it on delete', async () => {
  await store.storeInstallation(orgInstall);
  const forTeam = await store.fetchInstallation({
    teamId: 'T123',
    enterpriseId: 'E001',
    isEnterpriseInstall: false,
  });
  expect(forTeam.bot?.token).toBe('xoxb-org-token');
  const forOrg = await store.fetchInstallation({
    teamId: undefined,
    enterpriseId: 'E001',
    isEnterpriseInstall: true,
  });
  expect(forOrg.enterprise?.id).toBe('E001');
  expect(await redis.redis.get(redis.keys.installation('E-E001'))).not.toContain('xoxb-org-token');
  await store.deleteInstallation({ teamId: undefined, enterpriseId: 'E001', isEnterpriseInstall: true });
  await expect(
    store.fetchInstallation({ teamId: 'T123', enterpriseId: 'E001', isEnterpriseInstall: false }),
  ).rejects.toThrow();
});

it('answers a workspace of an org-wide install by its team id alone, once a request from it was seen', async () => {
  // Digests and alerts ask by workspace (team) id only; Bolt's requests carry the enterprise too.
  await store.storeInstallation(orgInstall);
  const byTeam = { teamId: 'T123', enterpriseId: undefined, isEnterpriseInstall: false };
  await expect(store.fetchInstallation(byTeam)).rejects.toThrow();
  await store.fetchInstallation({ teamId: 'T123', enterpriseId: 'E001', isEnterpriseInstall: false });
  expect((await store.fetchInstallation(byTeam)).bot?.token).toBe('xoxb-org-token');
  // Another store (a replica) learns it from Redis.
  const other = new SlackInstallationStore(
    new RedisKeyValue(redis.redis),
    redis.keys,
    new SecretBox(randomBytes(32)),
  );
  await expect(
    other.fetchInstallation({ teamId: 'T999', enterpriseId: undefined, isEnterpriseInstall: false }),
  ).rejects.toThrow();
});

it('a new org-wide install resumes the workspaces of the organisation it has served', async () => {
  const resumed: string[] = [];
  const box = new SecretBox(randomBytes(32));
  const withCallback = new SlackInstallationStore(
    new RedisKeyValue(redis.redis),
    redis.keys,
    box,
    async (id) => {
      resumed.push(id);
    },
  );
  await withCallback.storeInstallation(orgInstall);
  await withCallback.fetchInstallation({ teamId: 'T123', enterpriseId: 'E001', isEnterpriseInstall: false });
  await withCallback.fetchInstallation({ teamId: 'T456', enterpriseId: 'E001', isEnterpriseInstall: false });
  resumed.length = 0;
  await withCallback.storeInstallation(orgInstall);
  expect(resumed.sort()).toEqual(['E001', 'T123', 'T456']);
});

it('keeps team installs apart', async () => {
  await store.storeInstallation({
    ...orgInstall,
    enterprise: undefined,
    isEnterpriseInstall: false,
    team: { id: 'TA' },
    bot: { ...orgInstall.bot!, token: 'xoxb-a' },
  } as Installation<'v2', false>);
  await expect(
    store.fetchInstallation({ teamId: 'TB', enterpriseId: undefined, isEnterpriseInstall: false }),
  ).rejects.toThrow();
  expect(
    (await store.fetchInstallation({ teamId: 'TA', enterpriseId: undefined, isEnterpriseInstall: false })).bot
      ?.token,
  ).toBe('xoxb-a');
});

it('shares one read among concurrent lookups of a burst, and reads again afterwards', async () => {
  const kv = new RedisKeyValue(redis.redis);
  const reads: string[] = [];
  const get = kv.get.bind(kv);
  kv.get = (key: string) => {
    reads.push(key);
    return get(key);
  };
  const counted = new SlackInstallationStore(kv, redis.keys, new SecretBox(randomBytes(32)));
  const teamInstall = (token: string) =>
    ({
      ...orgInstall,
      enterprise: undefined,
      isEnterpriseInstall: false,
      team: { id: 'TA' },
      bot: { ...orgInstall.bot!, token },
    }) as Installation<'v2', false>;
  await counted.storeInstallation(teamInstall('xoxb-first'));
  const query = { teamId: 'TA', enterpriseId: undefined, isEnterpriseInstall: false };

  const burst = await Promise.all(Array.from({ length: 50 }, () => counted.fetchInstallation(query)));
  expect(reads).toEqual([redis.keys.installation('T-TA')]);
  expect(burst.every((i) => i.bot?.token === 'xoxb-first')).toBe(true);
  // Each caller has its own object.
  expect(new Set(burst).size).toBe(50);

  // Nothing is kept once the read settled: a new token is seen at once.
  await counted.storeInstallation(teamInstall('xoxb-second'));
  expect((await counted.fetchInstallation(query)).bot?.token).toBe('xoxb-second');
  expect(reads).toHaveLength(2);

  // A write while a read is under way: lookups after the write do not join the older read.
  const before = counted.fetchInstallation(query);
  await counted.storeInstallation(teamInstall('xoxb-third'));
  const after = await counted.fetchInstallation(query);
  expect(after.bot?.token).toBe('xoxb-third');
  await before;

  await counted.deleteInstallation(query);
  await expect(counted.fetchInstallation(query)).rejects.toThrow();
});

it('a record removed by another replica is written again once this process has trusted its own long enough', async () => {
  let now = 1_000_000;
  const box = new SecretBox(randomBytes(32));
  const replicaA = new SlackInstallationStore(
    new RedisKeyValue(redis.redis),
    redis.keys,
    box,
    undefined,
    () => now,
  );
  const replicaB = new SlackInstallationStore(new RedisKeyValue(redis.redis), redis.keys, box);
  await replicaA.storeInstallation(orgInstall);
  const fromOrg = { teamId: 'T123', enterpriseId: 'E001', isEnterpriseInstall: false };
  await replicaA.fetchInstallation(fromOrg);
  expect(await replicaB.workspacesOf({ isEnterpriseInstall: true, enterpriseId: 'E001' })).toEqual(['T123']);
  // The org uninstalls on replica B and installs again.
  await replicaB.forgetServed('E001');
  expect(await redis.redis.exists(redis.keys.workspaceEnterprise('T123'))).toBe(0);
  await replicaB.storeInstallation(orgInstall);
  now += 60_000;
  await replicaA.fetchInstallation(fromOrg);
  expect(await redis.redis.exists(redis.keys.workspaceEnterprise('T123'))).toBe(0);
  now += 10 * 60_000;
  await replicaA.fetchInstallation(fromOrg);
  expect(await redis.redis.get(redis.keys.workspaceEnterprise('T123'))).toBe('E001');
  expect(await replicaB.workspacesOf({ isEnterpriseInstall: true, enterpriseId: 'E001' })).toEqual(['T123']);
});

it('forgetting an organisation leaves a workspace recorded under another one', async () => {
  await store.storeInstallation(orgInstall);
  await store.fetchInstallation({ teamId: 'T123', enterpriseId: 'E001', isEnterpriseInstall: false });
  // The workspace moved to another organisation, whose install served it since.
  await store.storeInstallation({ ...orgInstall, enterprise: { id: 'E002', name: 'Outro Grupo' } });
  await store.fetchInstallation({ teamId: 'T123', enterpriseId: 'E002', isEnterpriseInstall: false });
  await store.forgetServed('E001');
  expect(await redis.redis.get(redis.keys.workspaceEnterprise('T123'))).toBe('E002');
  expect(await redis.redis.exists(redis.keys.enterpriseWorkspaces('E001'))).toBe(0);
});

describe('a store that does not answer in time', () => {
  const teamQuery = { teamId: 'TA', enterpriseId: undefined, isEnterpriseInstall: false };
  const teamInstall = (token: string) =>
    ({
      ...orgInstall,
      enterprise: undefined,
      isEnterpriseInstall: false,
      team: { id: 'TA' },
      bot: { ...orgInstall.bot!, token },
    }) as Installation<'v2', false>;

  /** A store whose reads of installations can be held (never answered until let go) or made to fail. */
  function faultyStore() {
    const kv = new RedisKeyValue(redis.redis);
    const get = kv.get.bind(kv);
    let mode: 'answer' | 'hold' | 'fail' = 'answer';
    const held: Array<() => void> = [];
    kv.get = (key: string) => {
      if (mode === 'answer' || !key.includes('installation')) return get(key);
      if (mode === 'fail') return Promise.reject(new Error('Connection is closed.'));
      return new Promise<string | null>((resolve) => held.push(() => resolve(get(key))));
    };
    const store = new SlackInstallationStore(
      kv,
      redis.keys,
      new SecretBox(randomBytes(32)),
      undefined,
      Date.now,
      20,
    );
    return {
      store,
      set(next: typeof mode) {
        mode = next;
      },
      release() {
        for (const letGo of held.splice(0)) letGo();
      },
    };
  }

  it('answers with the installation this process last read, while the store is held or failing', async () => {
    const { store: faulty, set, release } = faultyStore();
    await faulty.storeInstallation(teamInstall('xoxb-first'));
    expect((await faulty.fetchInstallation(teamQuery)).bot?.token).toBe('xoxb-first');

    set('hold');
    expect((await faulty.fetchInstallation(teamQuery)).bot?.token).toBe('xoxb-first');
    set('fail');
    expect((await faulty.fetchInstallation(teamQuery)).bot?.token).toBe('xoxb-first');
    set('answer');
    release();
  });

  it('lets the store answer whenever it does: a new token written by another replica is seen at once', async () => {
    const { store: faulty } = faultyStore();
    await faulty.storeInstallation(teamInstall('xoxb-first'));
    await faulty.fetchInstallation(teamQuery);
    // Another replica writes a new token; this process reads the store, which answers.
    await store.storeInstallation(teamInstall('xoxb-other-box'));
    await expect(faulty.fetchInstallation(teamQuery)).rejects.toThrow(); // sealed under another key
  });

  it('never answers from memory an install the store said is gone, nor one never read', async () => {
    const { store: faulty, set, release } = faultyStore();
    // Never read: a failing store fails the lookup, as before.
    set('fail');
    await expect(faulty.fetchInstallation(teamQuery)).rejects.toThrow('Connection is closed.');
    set('answer');

    await faulty.storeInstallation(teamInstall('xoxb-first'));
    await faulty.fetchInstallation(teamQuery);
    // Removed by another replica: the next read that reaches the store finds nothing, and forgets it.
    await redis.redis.del(redis.keys.installation('T-TA'));
    await expect(faulty.fetchInstallation(teamQuery)).rejects.toThrow('no installation');
    set('fail');
    await expect(faulty.fetchInstallation(teamQuery)).rejects.toThrow('Connection is closed.');

    // Removed by this process: forgotten at once.
    set('answer');
    await faulty.storeInstallation(teamInstall('xoxb-second'));
    await faulty.deleteInstallation(teamQuery);
    set('fail');
    await expect(faulty.fetchInstallation(teamQuery)).rejects.toThrow('Connection is closed.');
    release();
  });
});
