import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRedis, redisTarget, waitForRedis } from '../../src/store/redis-connection.js';
import { eventually } from '../helpers/bot-harness.js';
import { hasRedisServer, startOwnRedis } from '../helpers/bot-process.js';
import { TEST_REDIS_URL } from '../helpers/env.js';
import { captureLogger } from '../helpers/upstream-stack.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'estoque-redis-conn-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const messages = (lines: string[]) => lines.map((l) => (JSON.parse(l) as { msg: string }).msg);

it('an outage is one structured error line and one reconnection line, with no password in them', async () => {
  const own = await startOwnRedis(dir, ['--requirepass', 'pw-secret']);
  const { logger, lines } = captureLogger('info');
  const url = `redis://:pw-secret@127.0.0.1:${own.port}`;
  const redis = createRedis(url, logger, { retryStrategy: () => 50 });
  try {
    await redis.ping();
    await own.stop();
    // Many reconnection attempts fail while it is down; one line says so.
    await eventually(() => (messages(lines).includes('redis connection lost; reconnecting') ? true : null));
    const restarted = await startOwnRedis(dir, ['--requirepass', 'pw-secret'], own.port);
    try {
      await eventually(() => (messages(lines).includes('redis reconnected') ? true : null));
      expect(await redis.ping()).toBe('PONG');
      expect(messages(lines)).toEqual(['redis connection lost; reconnecting', 'redis reconnected']);
      const [lost, back] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lost).toMatchObject({ level: 50, component: 'redis', redis: `redis://127.0.0.1:${own.port}` });
      expect(lost?.err).toMatchObject({ message: expect.any(String) });
      expect(back).toMatchObject({ level: 30, errors: expect.any(Number) });
      expect(back?.errors as number).toBeGreaterThanOrEqual(1);
      expect(lines.join('\n')).not.toContain('pw-secret');
    } finally {
      redis.disconnect();
      await restarted.stop();
    }
  } finally {
    redis.disconnect();
  }
});

it('redisTarget keeps host, port and database, never the password', () => {
  expect(redisTarget('redis://user:pw@redis:6380/2')).toBe('redis://redis:6380/2');
  expect(redisTarget('rediss://:pw@cache.example.com')).toBe('rediss://cache.example.com:6379');
});

it('sends the commands of one turn of the event loop in one write (a burst of acks, one system call)', async () => {
  const { logger } = captureLogger('info');
  const redis = createRedis(TEST_REDIS_URL, logger);
  const prefix = `test:${randomBytes(6).toString('hex')}:pipeline:`;
  try {
    await redis.ping();
    const stream = (redis as unknown as { stream: { write: (...args: unknown[]) => boolean } }).stream;
    const write = stream.write.bind(stream);
    let writes = 0;
    stream.write = (...args: unknown[]) => {
      writes += 1;
      return write(...args);
    };
    // What 50 replay checks of a burst do, issued together.
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => redis.set(`${prefix}${i}`, '1', 'PX', 10_000, 'NX')),
    );
    expect(results.every((r) => r === 'OK')).toBe(true);
    expect(writes).toBe(1);
    // Order and answers per command are kept: the second sighting of each is refused.
    const again = await Promise.all(
      Array.from({ length: 50 }, (_, i) => redis.set(`${prefix}${i}`, '1', 'PX', 10_000, 'NX')),
    );
    expect(again.every((r) => r === null)).toBe(true);
  } finally {
    await redis.del(...Array.from({ length: 50 }, (_, i) => `${prefix}${i}`));
    redis.disconnect();
  }
});

const withRedisServer = hasRedisServer();

type Line = { level: number; msg: string; refused?: string };

it.skipIf(!withRedisServer)(
  'credentials Redis refuses (a wrong password, none, a wrong ACL user, an ACL user without rights): said as such at error level with the fix, never the password; the wait goes on until Redis takes them',
  async () => {
    const own = await startOwnRedis(dir, ['--requirepass', 'right-secret']);
    const admin = new Redis(`redis://:right-secret@127.0.0.1:${own.port}`, { maxRetriesPerRequest: 2 });
    await admin.call('ACL', 'SETUSER', 'limited', 'on', '>limited-secret', '~*', '-@all', '+get');
    const at = `127.0.0.1:${own.port}`;
    /** Waits with `url` until the refusal is said; the wait, its lines, and a way to end it. */
    const waitWith = async (url: string) => {
      const { logger, lines } = captureLogger('info');
      const redis = createRedis(url, logger, { retryStrategy: () => 50 });
      const controller = new AbortController();
      const waiting = waitForRedis(redis, logger, { url, retryMs: 20, signal: controller.signal });
      const parsed = () => lines.map((l) => JSON.parse(l) as Line);
      // The wait's first line, whatever it says.
      const said = await eventually(() => parsed().find((l) => l.msg.startsWith('not started:')));
      return { said, parsed, lines, waiting, redis, stop: () => controller.abort() };
    };
    try {
      for (const [url, code, fix, secret] of [
        [`redis://:wrong-secret@${at}`, 'WRONGPASS', /password/, 'wrong-secret'],
        [`redis://${at}`, 'NOAUTH', /has none/, null],
        [`redis://nobody:nobody-secret@${at}`, 'WRONGPASS', /ACL user/, 'nobody-secret'],
        [`redis://limited:limited-secret@${at}`, 'NOPERM', /permission/, 'limited-secret'],
      ] as const) {
        const { said, parsed, lines, waiting, redis, stop } = await waitWith(url);
        try {
          expect(said.msg).toMatch(/^not started: Redis refused the credentials in REDIS_URL/);
          expect(said).toMatchObject({ level: 50, refused: code });
          expect(said.msg).toMatch(fix);
          expect(said.msg).toMatch(/waiting/);
          // Not an outage: nothing says Redis is unreachable.
          expect(parsed().map((l) => l.msg)).not.toContain('redis unreachable; retrying');
          if (secret !== null) expect(lines.join('\n')).not.toContain(secret);
        } finally {
          stop();
          expect(await waiting).toBe(false);
          redis.disconnect();
        }
      }
      // A password rotated on the Redis side: the replica waits, and starts once Redis takes it.
      const { waiting, redis } = await waitWith(`redis://:rotated-secret@${at}`);
      try {
        await admin.config('SET', 'requirepass', 'rotated-secret');
        expect(await waiting).toBe(true);
      } finally {
        redis.disconnect();
      }
    } finally {
      admin.disconnect();
      await own.stop();
    }
  },
  60_000,
);
