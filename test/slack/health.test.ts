import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildSlackApp, healthHandler } from '../../src/slack/app.js';
import type { KeyValue } from '../../src/store/kv.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { eventually, type Harness, startHarness } from '../helpers/bot-harness.js';
import { freePort } from '../helpers/bot-process.js';

async function serve(handler: ReturnType<typeof healthHandler>): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`, server };
}

async function get(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

const up = { ping: async () => true } as unknown as KeyValue;
const down = { ping: async () => false } as unknown as KeyValue;

describe('/healthz', () => {
  it('200 while the store answers and the transport is up; 503 naming what is down otherwise', async () => {
    const cases = [
      { kv: up, socket: true, status: 200, body: { ok: true, store: 'up' } },
      { kv: down, socket: true, status: 503, body: { ok: false, store: 'down' } },
      { kv: up, socket: false, status: 503, body: { ok: false, store: 'up', socket: 'disconnected' } },
    ];
    for (const c of cases) {
      const { url, server } = await serve(healthHandler(c.kv, () => c.socket));
      try {
        expect(await get(url)).toEqual({ status: c.status, body: c.body });
      } finally {
        server.close();
      }
    }
  });

  describe('in Socket Mode', () => {
    let h: Harness;
    let app: App;
    let port: number;
    beforeAll(async () => {
      h = await startHarness();
      port = await freePort();
      const config = loadConfig({
        SLACK_APP_TOKEN: 'xapp-1-test',
        SLACK_BOT_TOKEN: h.slack.tokenFor('T00FAKE01'),
        SLACK_API_URL: h.slack.apiUrl,
        UPSTREAM_BASE_URL: h.sandbox.baseUrl,
        UPSTREAM_AUTH_URL: h.sandbox.authUrl,
        CREDENTIALS_KEY: Buffer.alloc(32, 3).toString('base64'),
        REDIS_URL: 'redis://127.0.0.1:6379',
        PORT: String(port),
        LOG_LEVEL: 'silent',
      });
      app = buildSlackApp({
        config,
        deps: h.container.slackDeps,
        kv: new RedisKeyValue(h.redis.redis),
        installations: null,
      });
      // The fake Slack has no Socket Mode: the websocket never connects.
      h.slack.failNext('apps.connections.open', { error: 'invalid_auth' }, 100);
      // Its start() keeps trying to connect: not awaited; the HTTP server of /healthz listens at once.
      void app.start().catch(() => undefined);
      await eventually(
        async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null)) ?? null,
      );
    });
    afterAll(async () => {
      await app.stop().catch(() => undefined);
      await h.close();
    });

    it('503 while the socket is not connected, although the store answers', async () => {
      expect(await get(`http://127.0.0.1:${port}/healthz`)).toEqual({
        status: 503,
        body: { ok: false, store: 'up', socket: 'disconnected' },
      });
    });

    it('/livez: 200 all the same (the process runs)', async () => {
      expect(await get(`http://127.0.0.1:${port}/livez`)).toEqual({ status: 200, body: { ok: true } });
    });
  });
});

describe('/livez (liveness) beside /healthz (readiness)', () => {
  let h: Harness;
  let app: App;
  let port: number;
  beforeAll(async () => {
    h = await startHarness();
    port = await freePort();
    const config = loadConfig({
      SLACK_SIGNING_SECRET: 'secret',
      SLACK_BOT_TOKEN: h.slack.tokenFor('T00FAKE01'),
      SLACK_API_URL: h.slack.apiUrl,
      UPSTREAM_BASE_URL: h.sandbox.baseUrl,
      UPSTREAM_AUTH_URL: h.sandbox.authUrl,
      CREDENTIALS_KEY: Buffer.alloc(32, 3).toString('base64'),
      REDIS_URL: 'redis://127.0.0.1:6379',
      PORT: String(port),
      LOG_LEVEL: 'silent',
    });
    // HTTP mode with a store that does not answer: Redis away.
    app = buildSlackApp({ config, deps: h.container.slackDeps, kv: down, installations: null });
    await app.start(port);
  });
  afterAll(async () => {
    await app.stop().catch(() => undefined);
    await h.close();
  });

  it('while Redis is away: /healthz 503 (take it out of rotation), /livez 200 (do not restart it)', async () => {
    expect(await get(`http://127.0.0.1:${port}/healthz`)).toEqual({
      status: 503,
      body: { ok: false, store: 'down' },
    });
    expect(await get(`http://127.0.0.1:${port}/livez`)).toEqual({ status: 200, body: { ok: true } });
  });
});
