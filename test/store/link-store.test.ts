import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SecretBox } from '../../src/store/crypto.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { LinkStore, LinkUnreadableError, type WorkspaceLink } from '../../src/store/link-store.js';
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

it('rotates CREDENTIALS_KEY: old values still open, are sealed again with the new key; a lost key is an error, never "unlinked"', async () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const kv = new RedisKeyValue(redis.redis);
  await new LinkStore(kv, redis.keys, new SecretBox(oldKey)).save(link);
  const raw = () => redis.redis.get(redis.keys.link('T1')) as Promise<string>;
  expect(await raw()).not.toContain(link.password);
  expect(await raw()).not.toContain(link.login);

  const rotated = new LinkStore(kv, redis.keys, new SecretBox(newKey, [oldKey]));
  expect(await rotated.get('T1')).toEqual(link);
  // Re-sealed: now the new key alone opens it.
  expect(await new LinkStore(kv, redis.keys, new SecretBox(newKey)).get('T1')).toEqual(link);
  // With neither key the link exists but cannot be opened: an error (the user must not read "não vinculado").
  await expect(
    new LinkStore(kv, redis.keys, new SecretBox(randomBytes(32))).get('T1'),
  ).rejects.toBeInstanceOf(LinkUnreadableError);
});

it('a value copied to another workspace does not open there', async () => {
  const box = new SecretBox(randomBytes(32));
  const kv = new RedisKeyValue(redis.redis);
  const store = new LinkStore(kv, redis.keys, box);
  await store.save(link);
  await redis.redis.set(redis.keys.link('T2'), (await redis.redis.get(redis.keys.link('T1'))) ?? '');
  await expect(store.get('T2')).rejects.toBeInstanceOf(LinkUnreadableError);
});

it('marks a link broken once across callers', async () => {
  const store = new LinkStore(new RedisKeyValue(redis.redis), redis.keys, new SecretBox(randomBytes(32)));
  await store.save(link);
  const results = await Promise.all([store.markBroken('T1', 5), store.markBroken('T1', 6)]);
  expect(results.sort()).toEqual(['again', 'first']);
  expect((await store.get('T1'))?.brokenAt).not.toBeNull();
});

it('marks nothing of a link that is gone, or that is another one since (its linkedAt), and has nobody told', async () => {
  const store = new LinkStore(new RedisKeyValue(redis.redis), redis.keys, new SecretBox(randomBytes(32)));
  await store.save(link);
  // Linked again since the call that failed began: the new link stays as it is.
  await store.save({ ...link, credentialId: 'other', linkedAt: 2 });
  expect(await store.markBroken('T1', 5, link.linkedAt)).toBe('replaced');
  expect(await store.get('T1')).toMatchObject({ credentialId: 'other', brokenAt: null });
  // Unlinked: nothing comes back, no notice is claimed.
  await store.delete('T1');
  expect(await store.markBroken('T1', 6, 2)).toBe('unlinked');
  expect(await store.get('T1')).toBeNull();
  expect(await redis.redis.exists(redis.keys.brokenLinkNotice('T1'))).toBe(0);
  // The link's own generation is marked.
  await store.save({ ...link, linkedAt: 3 });
  expect(await store.markBroken('T1', 7, 3)).toBe('first');
  expect((await store.get('T1'))?.brokenAt).toBe(7);
});

it('remembers linked workspaces: a link that vanishes without an unlink is reported, once forgotten', async () => {
  const store = new LinkStore(new RedisKeyValue(redis.redis), redis.keys, new SecretBox(randomBytes(32)));
  await store.save(link);
  await store.save({ ...link, workspaceId: 'T2', linkedBy: 'U2' });
  await store.save({ ...link, workspaceId: 'T3' });
  expect(await store.vanished()).toEqual([]);
  // Unlinked: not vanished. Lost (Redis dropped the key): vanished, with who linked it.
  await store.delete('T3');
  await redis.redis.del(redis.keys.link('T2'));
  expect(await store.vanished()).toEqual([{ workspaceId: 'T2', linkedBy: 'U2', linkedAt: 1 }]);
  await store.forgetVanished('T2');
  expect(await store.vanished()).toEqual([]);
});

/** Every key under the test's prefix deleted: what a restart of a Redis without persistence leaves (or FLUSHALL). */
async function emptyRedis(): Promise<void> {
  const found = await redis.redis.keys(`${redis.prefix}*`);
  if (found.length > 0) await redis.redis.del(...found);
}

it('Redis lost everything (the list of linked workspaces too): the links this process saw are reported, what another process unlinked is not', async () => {
  const kv = new RedisKeyValue(redis.redis);
  const box = new SecretBox(randomBytes(32));
  const store = new LinkStore(kv, redis.keys, box);
  const other = new LinkStore(kv, redis.keys, box);
  await store.save(link);
  await other.save({ ...link, workspaceId: 'T2', linkedBy: 'U2' });
  await other.save({ ...link, workspaceId: 'T3', linkedBy: 'U3' });
  // This process learns the links others made at its checks, and at the next one that another process unlinked one.
  expect(await store.vanished()).toEqual([]);
  await other.delete('T3');
  expect(await store.lost('T3')).toBe(false);
  expect(await store.vanished()).toEqual([]);

  await emptyRedis();
  expect(await store.lost('T1')).toBe(true);
  expect(await store.lost('T9')).toBe(false);
  const gone = await store.vanished();
  expect(gone.map(({ workspaceId, linkedBy }) => ({ workspaceId, linkedBy }))).toEqual([
    { workspaceId: 'T1', linkedBy: 'U1' },
    { workspaceId: 'T2', linkedBy: 'U2' },
  ]);
  expect(gone.every((g) => typeof g.lostGeneration === 'string')).toBe(true);
  // Reported until forgotten (once told); a link made again meanwhile is not vanished.
  await store.forgetVanished('T1');
  await other.save({ ...link, workspaceId: 'T2', linkedBy: 'U2' });
  expect(await store.vanished()).toEqual([]);
  expect(await store.lost('T1')).toBe(false);
});

it('lost: a workspace the list still names, its link gone, was linked; one never linked was not', async () => {
  const store = new LinkStore(new RedisKeyValue(redis.redis), redis.keys, new SecretBox(randomBytes(32)));
  await store.save(link);
  // Another process's view: it saw nothing, the list says.
  const fresh = new LinkStore(new RedisKeyValue(redis.redis), redis.keys, new SecretBox(randomBytes(32)));
  await redis.redis.del(redis.keys.link('T1'));
  expect(await fresh.lost('T1')).toBe(true);
  expect(await fresh.lost('T2')).toBe(false);
  expect(await fresh.claimVanishedNotice('T1', 1)).toBe(true);
  expect(await store.claimVanishedNotice('T1', 2)).toBe(false);
  await store.forgetVanished('T1');
  // Told: still "lost" for a day, whoever asks.
  expect(await fresh.lost('T1')).toBe(true);
});

it('a broken link keeps its sealed login and password and why it broke, and enters the checks schedule', async () => {
  const store = new LinkStore(new RedisKeyValue(redis.redis), redis.keys, new SecretBox(randomBytes(32)));
  await store.save(link);
  expect(await store.probesDue(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
  expect(await store.markBroken('T1', 5, link.linkedAt, 'tokens_refused')).toBe('first');
  const raw = (await redis.redis.get(redis.keys.link('T1'))) ?? '';
  expect(raw).not.toContain(link.password);
  expect(await store.get('T1')).toEqual({ ...link, brokenAt: 5, brokenWhy: 'tokens_refused' });
  expect(await store.probesDue(5, 10)).toEqual(['T1']);
  expect(await store.probesDue(4, 10)).toEqual([]);
});

it('restores a broken link as it was, once across callers; an unlink or a new link made meanwhile wins', async () => {
  const store = new LinkStore(new RedisKeyValue(redis.redis), redis.keys, new SecretBox(randomBytes(32)));
  await store.save(link);
  await store.markBroken('T1', 5, link.linkedAt, 'tokens_refused');
  expect(await store.recordProbe('T1', link.linkedAt, 5, { count: 1, nextAt: 600 })).toBe(true);
  expect((await store.get('T1'))?.probes).toEqual({ count: 1, nextAt: 600 });
  expect(await store.probesDue(599, 10)).toEqual([]);
  expect(await store.probesDue(600, 10)).toEqual(['T1']);

  const results = await Promise.all([
    store.restore('T1', link.linkedAt, 5),
    store.restore('T1', link.linkedAt, 5),
  ]);
  expect(results.sort()).toEqual(['not-broken', 'restored']);
  // Same login, linker and linkedAt: nothing of the break is left, nor its notice or its place in the schedule.
  expect(await store.get('T1')).toEqual(link);
  expect(await redis.redis.exists(redis.keys.brokenLinkNotice('T1'))).toBe(0);
  expect(await store.probesDue(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
  // Broken again later: told again.
  expect(await store.markBroken('T1', 9, link.linkedAt, 'tokens_refused')).toBe('first');

  // Linked again (a new linkedAt) while a check ran: the check records nothing and restores nothing.
  await store.save({ ...link, credentialId: 'other', linkedAt: 2 });
  expect(await store.recordProbe('T1', link.linkedAt, 9, { count: 1, nextAt: 700 })).toBe(false);
  expect(await store.restore('T1', link.linkedAt, 9)).toBe('replaced');
  expect(await store.get('T1')).toEqual({ ...link, credentialId: 'other', linkedAt: 2 });
  // Unlinked: nothing comes back.
  await store.markBroken('T1', 11, 2, 'tokens_refused');
  await store.delete('T1');
  expect(await store.restore('T1', 2, 11)).toBe('unlinked');
  expect(await store.recordProbe('T1', 2, 11, { count: 1, nextAt: 700 })).toBe(false);
  expect(await store.get('T1')).toBeNull();
  expect(await store.probesDue(Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
});

it('a break that lands between a restore and the removal of the old notice is still told', async () => {
  const kv = new RedisKeyValue(redis.redis);
  const store = new LinkStore(kv, redis.keys, new SecretBox(randomBytes(32)));
  await store.save(link);
  await store.markBroken('T1', 5, link.linkedAt, 'tokens_refused');
  // The notice of the break at 5 is still there when the link breaks again at 9 (restored in between).
  const raw = (await redis.redis.get(redis.keys.link('T1'))) ?? '';
  await redis.redis.set(redis.keys.link('T1'), raw.replace('"brokenAt":5', '"brokenAt":null'));
  expect(await store.markBroken('T1', 9, link.linkedAt, 'tokens_refused')).toBe('first');
  expect(await store.markBroken('T1', 10, link.linkedAt, 'tokens_refused')).toBe('again');
});
