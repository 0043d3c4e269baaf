import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assessDurability, checkDurability } from '../../src/store/durability.js';
import { startOwnRedis } from '../helpers/bot-process.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'estoque-durability-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('assessDurability', () => {
  const safe = { appendonly: 'yes', save: '', maxmemoryPolicy: 'noeviction' };

  it('AOF or RDB, and noeviction or volatile-*: safe', () => {
    expect(assessDurability(safe)).toEqual([]);
    expect(assessDurability({ ...safe, appendonly: 'no', save: '3600 1 300 100' })).toEqual([]);
    expect(assessDurability({ ...safe, maxmemoryPolicy: 'volatile-lru' })).toEqual([]);
  });

  it('no persistence at all, or an allkeys-* policy: one problem each, saying what to set', () => {
    expect(assessDurability({ ...safe, appendonly: 'no' })).toEqual([
      expect.stringMatching(/^persistence is off .*appendonly yes/),
    ]);
    expect(assessDurability({ appendonly: 'no', save: '', maxmemoryPolicy: 'allkeys-lru' })).toEqual([
      expect.stringMatching(/^persistence is off/),
      expect.stringMatching(/^maxmemory-policy is allkeys-lru: .* noeviction/),
    ]);
  });
});

describe('checkDurability against a real server', () => {
  it('reads what the server says', async () => {
    const own = await startOwnRedis(dir, ['--appendonly', 'yes', '--maxmemory-policy', 'allkeys-lfu']);
    const redis = new Redis(own.url);
    try {
      const report = await checkDurability(redis);
      expect(report).toEqual({
        readable: true,
        facts: { appendonly: 'yes', save: '', maxmemoryPolicy: 'allkeys-lfu' },
        problems: [expect.stringMatching(/^maxmemory-policy is allkeys-lfu/)],
      });
    } finally {
      redis.disconnect();
      await own.stop();
    }
  });

  it('a server that refuses CONFIG (as managed Redis do) is reported unreadable, not unsafe', async () => {
    const own = await startOwnRedis(dir, ['--rename-command', 'CONFIG', '""']);
    const redis = new Redis(own.url);
    try {
      const report = await checkDurability(redis);
      expect(report).toMatchObject({ readable: false, problems: [] });
      expect(report.readable === false && report.reason).toMatch(/unknown command/i);
    } finally {
      redis.disconnect();
      await own.stop();
    }
  });
});
