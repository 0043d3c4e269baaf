import type { App } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildSlackApp } from '../../src/slack/app.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { eventually, type Harness, startHarness } from '../helpers/bot-harness.js';
import { freePort } from '../helpers/bot-process.js';
import { consoleAndStderr } from '../helpers/console-spy.js';
import { ManualClock } from '../helpers/manual-clock.js';

/**
 * Socket Mode opens its websocket with apps.connections.open: through SLACK_API_URL, as every other Web API call
 * (GovSlack, a test server), never slack.com behind its back.
 */
describe('Socket Mode', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const installs = {
    'a single-workspace install': { SLACK_BOT_TOKEN: 'xoxb-1-test' },
    'an OAuth install': {
      SLACK_CLIENT_ID: 'client-id',
      SLACK_CLIENT_SECRET: 'client-secret',
      SLACK_STATE_SECRET: 'state-secret',
    },
  };

  for (const [install, env] of Object.entries(installs)) {
    it(`${install} asks SLACK_API_URL for its websocket (apps.connections.open)`, async () => {
      const appToken = `xapp-1-${install.length}`;
      const config = loadConfig({
        ...env,
        SLACK_APP_TOKEN: appToken,
        SLACK_API_URL: h.slack.apiUrl,
        UPSTREAM_BASE_URL: h.sandbox.baseUrl,
        UPSTREAM_AUTH_URL: h.sandbox.authUrl,
        CREDENTIALS_KEY: Buffer.alloc(32, 3).toString('base64'),
        REDIS_URL: 'redis://127.0.0.1:6379',
        PORT: String(await freePort()),
        LOG_LEVEL: 'silent',
      });
      const app: App = buildSlackApp({
        config,
        deps: h.container.slackDeps,
        kv: new RedisKeyValue(h.redis.redis),
        installations: null,
      });
      // The fake Slack has no websocket to give: a refusal ends start() instead of a retry loop.
      h.slack.failNext('apps.connections.open', { error: 'invalid_auth' }, 1);
      const started = app.start().catch((error: unknown) => error);
      try {
        const call = await eventually(
          () => h.slack.calls.find((c) => c.method === 'apps.connections.open' && c.token === appToken),
          5_000,
        );
        expect(call.error).toBe('invalid_auth');
        expect(await started).toMatchObject({ data: { error: 'invalid_auth' } });
      } finally {
        await app.stop().catch(() => undefined);
      }
    });
  }
});

/**
 * Socket Mode with Slack unreachable: its client retries apps.connections.open about a hundred times, with growing
 * pauses, and its Web API client said each failed attempt (`http request failed`, a warn every 1-3 s at first,
 * until 2026-11-27). Now one warn line for the outage, then a reminder at most every 30 s, as the wait for Redis
 * does. (The fake Slack has no websocket: the line said when the connection opens after an outage is tested on
 * its own, test/lib/outage-log.test.ts.)
 */
describe('Socket Mode while Slack cannot be reached', () => {
  let h: Harness;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    h = await startHarness({ clock });
  });
  afterAll(async () => {
    await h.close();
  });

  it('says the first failed apps.connections.open, then a reminder at most every 30 s, not one line per attempt', async () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1-test',
      SLACK_APP_TOKEN: 'xapp-1-unreachable',
      SLACK_API_URL: h.slack.apiUrl,
      UPSTREAM_BASE_URL: h.sandbox.baseUrl,
      UPSTREAM_AUTH_URL: h.sandbox.authUrl,
      CREDENTIALS_KEY: Buffer.alloc(32, 3).toString('base64'),
      REDIS_URL: 'redis://127.0.0.1:6379',
      PORT: String(await freePort()),
      LOG_LEVEL: 'silent',
    });
    const app: App = buildSlackApp({
      config,
      deps: h.container.slackDeps,
      kv: new RedisKeyValue(h.redis.redis),
      installations: null,
    });
    // Each attempt reaches Slack and its connection is cut before the answer: `fetch failed`, retried.
    h.slack.failNext('apps.connections.open', { dropReply: true }, 1_000);
    const opens = () => h.slack.calls.filter((c) => c.method === 'apps.connections.open').length;
    const said = () =>
      h.logs
        .map(
          (l) =>
            JSON.parse(l) as {
              level: number;
              msg: string;
              component?: string;
              failures?: number;
              err?: unknown;
            },
        )
        .filter((l) => l.level >= 40 && /Socket Mode|http request failed/.test(l.msg));
    const outside = consoleAndStderr();
    void app.start().catch(() => undefined);
    try {
      await eventually(() => opens() >= 3);
      expect(said()).toEqual([
        expect.objectContaining({
          level: 40,
          msg: 'cannot reach Slack to open the Socket Mode connection (apps.connections.open, SLACK_API_URL); retrying',
          component: 'socket-mode',
          err: expect.objectContaining({ message: 'fetch failed' }),
        }),
      ]);
      // 30 s later (the clock of the app), the next failed attempt reminds once.
      const before = opens();
      clock.advance(30_000);
      await eventually(() => opens() > before);
      await eventually(() => said().length === 2);
      expect(said()[1]).toMatchObject({
        level: 40,
        msg: 'still cannot reach Slack to open the Socket Mode connection (apps.connections.open, SLACK_API_URL)',
        failures: expect.any(Number),
      });
      // Every failed attempt since the first is counted (the third may fail only after the clock moved).
      expect(said()[1]?.failures).toBeGreaterThanOrEqual(3);
    } finally {
      outside.restore();
      await app.stop().catch(() => undefined);
    }
    expect(outside.written).toEqual([]);
  });
});
