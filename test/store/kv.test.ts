import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EmbeddedKeyValue } from '../../src/store/embedded-kv.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { makeTestRedis } from '../helpers/redis.js';
import { runKeyValueContract } from './kv-contract.js';

runKeyValueContract('Redis', async () => {
  const redis = await makeTestRedis();
  let done = false;
  return {
    kv: new RedisKeyValue(redis.redis),
    prefix: redis.prefix,
    async cleanup() {
      if (done) return;
      done = true;
      await redis.cleanup();
    },
  };
});

runKeyValueContract('embedded', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'estoque-kv-'));
  const kv = await EmbeddedKeyValue.open({ file: join(dir, 'store.json'), flushDelayMs: 5 });
  let done = false;
  return {
    kv,
    prefix: 'test:',
    async cleanup() {
      if (done) return;
      done = true;
      await kv.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe('embedded store persistence', () => {
  let dir: string;
  let file: string;
  const opened: EmbeddedKeyValue[] = [];
  const open = async (options: { now?: () => number; flushDelayMs?: number } = {}) => {
    const kv = await EmbeddedKeyValue.open({ file, ...options });
    opened.push(kv);
    return kv;
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'estoque-kv-persist-'));
    file = join(dir, 'nested', 'store.json');
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((kv) => kv.close()));
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps strings, hashes, sorted sets and live TTLs across close and reopen; expired keys are gone', async () => {
    let clock = 1_000_000;
    const now = () => clock;
    const first = await open({ now, flushDelayMs: 60_000 });
    await first.set('link:T1', '{"sealed":"v1.abc"}');
    await first.hset('digest:T1:subs', 'C1', '{"time":"08:00"}');
    await first.hincrby('cache-stats:T1', 'hits', 3);
    await first.zadd('feed:schedule', 'T1', 1_500_000);
    await first.set('cache:T1:a', 'short', { ttlMs: 1_000 });
    await first.set('tokens:x', 'long', { ttlMs: 60_000 });
    await first.set('gone', 'soon');
    await first.del('gone');
    // The flush delay is a minute: only close() can have written the file.
    await first.close();

    clock += 5_000;
    const second = await open({ now });
    expect(await second.get('link:T1')).toBe('{"sealed":"v1.abc"}');
    expect(await second.hgetall('digest:T1:subs')).toEqual({ C1: '{"time":"08:00"}' });
    expect(await second.hget('cache-stats:T1', 'hits')).toBe('3');
    expect(await second.zrangeByScore('feed:schedule', Number.POSITIVE_INFINITY)).toEqual([
      { member: 'T1', score: 1_500_000 },
    ]);
    expect(await second.get('cache:T1:a')).toBeNull();
    expect(await second.get('gone')).toBeNull();
    expect(await second.get('tokens:x')).toBe('long');
    clock += 60_000;
    expect(await second.get('tokens:x')).toBeNull();
  });

  it('writes changes on its own after the debounce, atomically, readable only by its owner', async () => {
    const kv = await open({ flushDelayMs: 20 });
    for (let i = 0; i < 50; i += 1) await kv.set(`k${i}`, String(i));
    // Written after the debounce, on its own: no call of the test makes it happen.
    await vi.waitFor(
      async () => {
        const saved = JSON.parse(await readFile(file, 'utf8')) as { entries: [string, unknown][] };
        expect(saved.entries).toHaveLength(50);
      },
      { timeout: 10_000, interval: 20 },
    );
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // No temp file left behind by the rename.
    expect(await readdir(join(dir, 'nested'))).toEqual(['store.json']);
  });

  it('sets an unreadable file aside and starts empty instead of failing', async () => {
    const kv = await open();
    await kv.set('a', '1');
    await kv.close();
    opened.length = 0;
    await writeFile(file, '{"version":1,"entr');
    const reopened = await open();
    expect(await reopened.get('a')).toBeNull();
    const names = await readdir(join(dir, 'nested'));
    expect(names.some((name) => name.startsWith('store.json.unreadable-'))).toBe(true);
  });

  it('answers ping until closed', async () => {
    const kv = await open();
    expect(await kv.ping()).toBe(true);
    await kv.close();
    expect(await kv.ping()).toBe(false);
  });
});
