import type { App } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { buildSlackApp } from '../../src/slack/app.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { eventually, type Harness, startHarness } from '../helpers/bot-harness.js';
import { freePort } from '../helpers/bot-process.js';

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
