import { type AddressInfo, createServer } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { singleWorkspaceAuthorize } from '../../src/slack/app.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { TEAM } from '../helpers/bot-harness.js';

/**
 * What an operator meets when Slack or Redis cannot be reached: the process keeps running and says so in time
 * (the replica started with Slack unreachable: test/redis-bot.test.ts).
 */

describe('the single-workspace authorization (SLACK_BOT_TOKEN)', () => {
  it('asks auth.test once when a request first needs it, keeps a success, and asks again after a failure', async () => {
    const asked: string[] = [];
    let fail = true;
    const client = {
      auth: {
        test: async ({ token }: { token: string }) => {
          asked.push(token);
          if (fail) throw new Error('slack unreachable');
          return { ok: true, bot_id: 'B1', user_id: 'U1' };
        },
      },
    } as unknown as Parameters<typeof singleWorkspaceAuthorize>[0];
    const authorize = singleWorkspaceAuthorize(client, 'xoxb-1');
    expect(asked).toEqual([]);
    const source = { teamId: TEAM, isEnterpriseInstall: false } as Parameters<typeof authorize>[0];
    // An event needs the ids (to tell the bot's own messages apart): it fails while they cannot be read.
    await expect(authorize(source, { event: { type: 'message' } } as never)).rejects.toThrow(
      'slack unreachable',
    );
    // A command or a click goes on without them.
    expect(await authorize(source, { command: '/estoque' } as never)).toEqual({
      isEnterpriseInstall: false,
      botToken: 'xoxb-1',
    });
    fail = false;
    const [a, b] = await Promise.all([authorize(source), authorize(source)]);
    expect(a).toEqual({ isEnterpriseInstall: false, botToken: 'xoxb-1', botId: 'B1', botUserId: 'U1' });
    expect(b).toEqual(a);
    await authorize(source);
    expect(asked).toEqual(['xoxb-1', 'xoxb-1', 'xoxb-1']);
  });
});

describe('Redis gone while the replica runs', () => {
  it('the store probe says down in time instead of waiting for ioredis to give up', async () => {
    // A Redis behind a network that lost it: connections are taken and never answered.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const redis = new Redis({
      port: (silent.address() as AddressInfo).port,
      host: '127.0.0.1',
      maxRetriesPerRequest: 3,
      retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
      lazyConnect: false,
    });
    redis.on('error', () => undefined);
    try {
      // Within the test's 5 s: ioredis alone would hold the PING through its three retries and back-offs.
      expect(await new RedisKeyValue(redis).ping()).toBe(false);
    } finally {
      redis.disconnect();
      silent.close();
    }
  });
});
