import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedKeyValue } from '../../src/store/embedded-kv.js';
import { Keys } from '../../src/store/keys.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { SeenRequests, SHARE_CLICK_WINDOW_MS, type ShareClick } from '../../src/store/seen-requests.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';

const CLICK: ShareClick = {
  workspaceId: 'T1',
  channelId: 'C1',
  messageTs: '1700000000.000100',
  actionId: 'share:req',
  value: 'r:1',
  userId: 'U1',
};

/** A share click claimed once, whichever store holds the claims (Redis; the embedded store of local mode). */
describe('SeenRequests.firstShareClick', () => {
  let redis: TestRedis | undefined;
  let dir: string | undefined;
  let embedded: EmbeddedKeyValue | undefined;
  afterEach(async () => {
    await redis?.cleanup();
    await embedded?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    redis = undefined;
    embedded = undefined;
    dir = undefined;
  });

  const expectOneClaimPerClick = async (seen: SeenRequests) => {
    expect(await seen.firstShareClick(CLICK)).toBe(true);
    expect(await seen.firstShareClick(CLICK)).toBe(false);
    // Another person, another message, another workspace: clicks of their own.
    expect(await seen.firstShareClick({ ...CLICK, userId: 'U2' })).toBe(true);
    expect(await seen.firstShareClick({ ...CLICK, messageTs: '1700000000.000200' })).toBe(true);
    expect(await seen.firstShareClick({ ...CLICK, workspaceId: 'T2' })).toBe(true);
  };

  it('in Redis: the same click again is refused; the claim has a TTL of the window, under the prefix', async () => {
    redis = await makeTestRedis();
    await expectOneClaimPerClick(new SeenRequests(new RedisKeyValue(redis.redis), redis.keys));
    const keys = await redis.redis.keys(`${redis.prefix}seen:share:T1:*`);
    expect(keys).toHaveLength(3);
    const ttl = await redis.redis.pttl(keys[0] as string);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(SHARE_CLICK_WINDOW_MS);
  });

  it('in the embedded store (local mode): the same, and the click is taken again once the window passed', async () => {
    let clock = 1_000_000;
    dir = await mkdtemp(join(tmpdir(), 'estoque-seen-'));
    embedded = await EmbeddedKeyValue.open({ file: join(dir, 'store.json'), now: () => clock });
    const seen = new SeenRequests(embedded, new Keys('test:'));
    await expectOneClaimPerClick(seen);
    clock += SHARE_CLICK_WINDOW_MS + 1;
    expect(await seen.firstShareClick(CLICK)).toBe(true);
  });
});
