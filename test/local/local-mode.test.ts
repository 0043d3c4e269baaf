import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { FAKE_SEED } from '../../src/fake-slack/index.js';
import { makeLogger } from '../../src/lib/logger.js';
import { type LocalMode, startLocalMode } from '../../src/local/local-mode.js';
import { isPortFree } from '../../src/local/ports.js';
import { EmbeddedKeyValue } from '../../src/store/embedded-kv.js';
import { hasRedisServer, startOwnRedis } from '../helpers/bot-process.js';
import { TEST_REDIS_URL } from '../helpers/env.js';
import { openPlaygroundEvents, playgroundCommand, textOfPlaygroundMessage } from './sse.js';

const logger = makeLogger({ level: 'silent' });

async function occupyPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, server };
}

describe('local mode', () => {
  let dataDir: string;
  const running: LocalMode[] = [];
  const servers: Server[] = [];

  const start = async (
    env: Record<string, string> = {},
    overrides: Parameters<typeof startLocalMode>[2] = {},
  ) => {
    let printed = '';
    const local = await startLocalMode(loadConfig({ DATA_DIR: dataDir, ...env }), logger, {
      port: 0,
      sandboxPort: 0,
      print: (text) => {
        printed += text;
      },
      ...overrides,
    });
    running.push(local);
    return { local, printed };
  };

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'estoque-local-'));
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((local) => local.close()));
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a second local mode on the same DATA_DIR is refused while the first runs', async () => {
    const first = await start();
    await expect(start()).rejects.toThrow(`DATA_DIR ${dataDir} is in use by another estoque-bot`);
    await first.local.close();
    const again = await start();
    expect(again.printed).toContain('linked');
  });

  it('starts everything, prints where, links the demo login, and keeps it all across a restart', async () => {
    const first = await start();
    expect(first.local.url).toMatch(/^http:\/\/localhost:\d+\/$/);
    expect(first.printed).toContain(`Open ${first.local.url}`);
    expect(first.printed).toMatch(/sandbox upstream\s+http:\/\/127\.0\.0\.1:\d+/);
    expect(first.printed).toMatch(/bot \(Bolt, HTTP\)\s+http:\/\/127\.0\.0\.1:\d+\/slack\/events/);
    expect(first.printed).toContain(`embedded, saved in ${join(dataDir, 'store.json')}`);
    expect(first.printed).toContain(`generated and kept in ${join(dataDir, 'credentials.key')}`);
    expect(first.printed).toContain('linked now to the sandbox login demo, company 1');
    const health = await fetch(`${first.local.url}healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true, store: 'up' });
    expect((await fetch(first.local.url)).headers.get('content-type')).toMatch(/^text\/html/);
    await first.local.close();
    await first.local.close();

    const keyFile = join(dataDir, 'credentials.key');
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect(Buffer.from((await readFile(keyFile, 'utf8')).trim(), 'base64')).toHaveLength(32);
    const storeFile = join(dataDir, 'store.json');
    expect((await stat(storeFile)).mode & 0o777).toBe(0o600);
    const stored = await readFile(storeFile, 'utf8');
    expect(stored).toContain(`estoque:link:${FAKE_SEED.teamId}`);
    // Sealed: neither the login's password nor a token is in the file as such.
    expect(stored).not.toMatch(/"password"|"refreshToken"/);

    const second = await start();
    expect(second.printed).toContain('kept in');
    expect(second.printed).toContain('linked to the sandbox login demo, company 1');
    expect(second.printed).not.toContain('linked now');
  });

  it('links the demo login at the first start only: after Desvincular a restart leaves it unlinked', async () => {
    const first = await start();
    expect(first.printed).toContain('linked now to the sandbox login demo, company 1');
    const page = await openPlaygroundEvents(first.local.url);
    try {
      expect(await playgroundCommand(first.local.url, '/estoque', 'desvincular')).toEqual({ ok: true });
      const ask = await page.message((m) => m.ephemeral && m.text.includes('Desvincular'));
      const clicked = await fetch(new URL('playground/action', first.local.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ actionId: 'unlink:confirm', channel: ask.channel, ts: ask.ts }),
      });
      expect(clicked.status).toBe(200);
      await page.message((m) => textOfPlaygroundMessage(m).includes('Estoque desvinculado'));
    } finally {
      page.close();
    }
    await first.local.close();

    const second = await start();
    expect(second.printed).not.toContain('linked now');
    expect(second.printed).toContain(
      'NOT linked (unlinked from the page); link it from the page with /estoque vincular',
    );
    await second.local.close();
    const stored = await readFile(join(dataDir, 'store.json'), 'utf8');
    expect(stored).not.toContain(`estoque:link:${FAKE_SEED.teamId}"`);
  });

  it('reports a broken link at start and keeps it, instead of replacing it with the demo login', async () => {
    const first = await start();
    await first.local.close();
    // The link breaks (its tokens refused, say) while local mode is stopped.
    const kv = await EmbeddedKeyValue.open({ file: join(dataDir, 'store.json') });
    const key = `estoque:link:${FAKE_SEED.teamId}`;
    const raw = await kv.get(key);
    expect(raw).not.toBeNull();
    const brokenAt = Date.parse('2026-11-27T10:00:00Z');
    await kv.set(key, JSON.stringify({ ...JSON.parse(raw ?? '{}'), brokenAt, brokenWhy: 'tokens_refused' }));
    await kv.close();

    const second = await start();
    expect(second.printed).not.toContain('linked now');
    expect(second.printed).toContain('link to the sandbox login demo, company 1 is BROKEN');
    await second.local.close();
    const kvAfter = await EmbeddedKeyValue.open({ file: join(dataDir, 'store.json') });
    expect(JSON.parse((await kvAfter.get(key)) ?? '{}')).toMatchObject({ brokenAt });
    await kvAfter.close();
  });

  it('serves GET /metrics on the bot port, the embedded store reported up', async () => {
    const { printed } = await start();
    const bot = /bot \(Bolt, HTTP\)\s+(http:\/\/127\.0\.0\.1:\d+)\/slack\/events/.exec(printed)?.[1];
    expect(bot).toBeDefined();
    const response = await fetch(`${bot}/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('estoque_redis_up 1');
    // Linking the demo login at start spent budget: its credential shows by its short hash, never its login.
    expect(text).toMatch(/^estoque_budget_used\{credential="[0-9a-f]{16}"\} [1-9]/m);
    expect(text).not.toMatch(/\bdemo\b/);
  });

  it('uses CREDENTIALS_KEY when it is set, and writes no key file', async () => {
    const { printed } = await start({ CREDENTIALS_KEY: randomBytes(32).toString('base64') });
    expect(printed).toContain('CREDENTIALS_KEY from the environment');
    await expect(stat(join(dataDir, 'credentials.key'))).rejects.toThrow(/ENOENT/);
  });

  it('moves the sandbox to a free port when SANDBOX_PORT is taken, and says so', async () => {
    const taken = await occupyPort();
    servers.push(taken.server);
    const { printed } = await start({}, { sandboxPort: taken.port });
    expect(printed).toContain(`port ${taken.port} was taken, a free one is used instead`);
    expect(printed).toContain('linked now');
  });

  it('stops with a clear error when PORT is taken, leaving nothing running', async () => {
    const taken = await occupyPort();
    servers.push(taken.server);
    const sandbox = await occupyPort();
    await new Promise((resolve) => sandbox.server.close(resolve));
    await expect(start({}, { port: taken.port, sandboxPort: sandbox.port })).rejects.toThrow(
      `PORT ${taken.port} is in use`,
    );
    expect(await isPortFree(sandbox.port, '127.0.0.1')).toBe(true);
  });

  it.skipIf(!hasRedisServer())(
    'a password Redis refuses: start-up fails saying so, with the reply, never the password',
    async () => {
      const own = await startOwnRedis(dataDir, ['--requirepass', 'right-secret']);
      try {
        const failed = await start({ REDIS_URL: `redis://:wrong-secret@127.0.0.1:${own.port}` }).catch(
          (error: unknown) => error as Error,
        );
        expect(failed).toBeInstanceOf(Error);
        const message = (failed as Error).message;
        expect(message).toMatch(/^Redis refused the credentials in REDIS_URL \(WRONGPASS /);
        expect(message).toMatch(/unset REDIS_URL to use the embedded store/);
        expect(message).not.toContain('wrong-secret');
      } finally {
        await own.stop();
      }
    },
  );

  it('uses Redis for the store and the budget when REDIS_URL is set', async () => {
    // A database of its own: local mode writes under the production prefix, which no other test uses.
    const url = new URL(TEST_REDIS_URL);
    url.pathname = '/7';
    const redis = new Redis(url.toString(), { maxRetriesPerRequest: 2 });
    try {
      const { printed, local } = await start({ REDIS_URL: url.toString() });
      expect(printed).toContain(`Redis at ${url.toString()}`);
      expect(printed).toContain('shared through Redis');
      // Under a prefix of its own: the same Redis may be a deployment's (compose's, before .env is filled in),
      // whose replicas must not find the demo link or a credentials-key check sealed with local mode's key.
      expect(await redis.exists(`estoque:local:link:${FAKE_SEED.teamId}`)).toBe(1);
      expect((await redis.keys('estoque:local:budget:*')).length).toBeGreaterThan(0);
      expect((await redis.keys('estoque:*')).every((key) => key.startsWith('estoque:local:'))).toBe(true);
      expect(printed).toContain('estoque:local:');
      await local.close();
      await expect(stat(join(dataDir, 'store.json'))).rejects.toThrow(/ENOENT/);
    } finally {
      const keys = await redis.keys('estoque:*');
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  });
});
