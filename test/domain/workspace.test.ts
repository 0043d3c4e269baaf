import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LinkBrokenError, NotLinkedError } from '../../src/domain/errors.js';
import { Workspaces } from '../../src/domain/workspace.js';
import { SecretBox } from '../../src/store/crypto.js';
import { FeedListenerStore } from '../../src/store/feed-listeners.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { LinkStore } from '../../src/store/link-store.js';
import { CredentialsExpiredError } from '../../src/upstream/errors.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';

/** A broken link pauses the change feed's listeners, as unlinking does (PRODUCT.md, Alerts, lifecycle). */

let redis: TestRedis;
let links: LinkStore;
let feed: FeedListenerStore;

beforeEach(async () => {
  redis = await makeTestRedis();
  const kv = new RedisKeyValue(redis.redis);
  links = new LinkStore(kv, redis.keys, new SecretBox(randomBytes(32)));
  feed = new FeedListenerStore(kv, redis.keys, () => 1_000);
  await links.save({
    workspaceId: 'T1',
    credentialId: 'cred-1',
    login: 'demo',
    password: 'demo',
    empresaId: 1,
    unidadeId: null,
    linkedBy: 'U0ADMIN01',
    linkedAt: 0,
    brokenAt: null,
  });
  await feed.follow('T1', 'U1', 4105, 'Aberta');
});
afterEach(async () => {
  await redis.cleanup();
});

describe('Workspaces and a broken link', () => {
  it('credentials that cannot be renewed break the link and pause the feed; a broken link met later pauses it again', async () => {
    const workspaces = new Workspaces(
      links,
      () => 5_000,
      (ws) => feed.pauseWorkspace(ws, 'unlinked'),
    );
    const ws = await workspaces.resolve('T1', 'background');
    await expect(
      workspaces.run(ws, async () => {
        throw new CredentialsExpiredError();
      }),
    ).rejects.toBeInstanceOf(LinkBrokenError);
    expect(await feed.pausedReason('T1')).toBe('unlinked');

    // Resumed (what a new link does) while the stored link is still broken: the next use pauses it again.
    await feed.resumeWorkspace('T1', 'unlinked');
    await expect(workspaces.resolve('T1', 'background')).rejects.toBeInstanceOf(LinkBrokenError);
    expect(await feed.pausedReason('T1')).toBe('unlinked');
    expect(await feed.listFollows('T1')).toHaveLength(1);
  });

  it('has the admin who linked told once, by whichever call meets the broken link first', async () => {
    const told: [string, string][] = [];
    const replica = () =>
      new Workspaces(
        links,
        () => 5_000,
        async () => undefined,
        (workspaceId, linkedBy) => told.push([workspaceId, linkedBy]),
      );
    const [a, b] = [replica(), replica()];
    const expire = async () => {
      throw new CredentialsExpiredError();
    };
    const [wsA, wsB] = [await a.resolve('T1', 'background'), await b.resolve('T1', 'interactive')];
    await Promise.allSettled([a.run(wsA, expire), b.run(wsB, expire)]);
    await expect(a.resolve('T1', 'interactive')).rejects.toBeInstanceOf(LinkBrokenError);
    expect(told).toEqual([['T1', wsA.link.linkedBy]]);
  });

  it('credentials of a link unlinked, or linked again, while the call was under way mark, pause and tell nothing', async () => {
    const told: string[] = [];
    const workspaces = new Workspaces(
      links,
      () => 5_000,
      (ws) => feed.pauseWorkspace(ws, 'unlinked'),
      (workspaceId) => told.push(workspaceId),
    );
    const expire = async () => {
      throw new CredentialsExpiredError();
    };
    // Linked again (another login) while the call with the old credentials was under way.
    const old = await workspaces.resolve('T1', 'background');
    const relinked = { ...old.link, credentialId: 'cred-2', login: 'outro', linkedAt: 1_000 };
    await links.save(relinked);
    await expect(workspaces.run(old, expire)).rejects.toBeInstanceOf(CredentialsExpiredError);
    expect(await links.get('T1')).toMatchObject({ credentialId: 'cred-2', brokenAt: null });
    expect(await feed.pausedReason('T1')).toBeNull();
    // Unlinked meanwhile: "not linked", and no broken link comes back.
    await links.delete('T1');
    await expect(workspaces.run(old, expire)).rejects.toBeInstanceOf(NotLinkedError);
    expect(await links.get('T1')).toBeNull();
    expect(told).toEqual([]);
  });

  it('a failing pause never hides the broken link', async () => {
    const workspaces = new Workspaces(
      links,
      () => 5_000,
      async () => {
        throw new Error('store down');
      },
    );
    const ws = await workspaces.resolve('T1', 'background');
    await expect(
      workspaces.run(ws, async () => {
        throw new CredentialsExpiredError();
      }),
    ).rejects.toMatchObject({ name: 'LinkBrokenError', firstNotice: true });
  });
});
