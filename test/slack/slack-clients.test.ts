import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_SEED, type FakeSlack, startFakeSlack } from '../../src/fake-slack/index.js';
import { makeLogger } from '../../src/lib/logger.js';
import { createSlackClients } from '../../src/slack/slack-clients.js';

let slack: FakeSlack;
const logger = makeLogger({ level: 'silent' });

beforeEach(async () => {
  slack = await startFakeSlack({ port: 0 });
});
afterEach(async () => {
  await slack.close();
});

describe('SlackClients', () => {
  it('single-workspace mode: the fixed bot token, one client reused', async () => {
    const clients = createSlackClients({ slackApiUrl: slack.apiUrl, logger, botToken: 'xoxb-fixed' });
    const client = await clients.forWorkspace(FAKE_SEED.teamId);
    expect(client).not.toBeNull();
    expect(await clients.forWorkspace(FAKE_SEED.teamId)).toBe(client);
    const answer = await client!.chat.postMessage({ channel: FAKE_SEED.channels.general, text: 'oi' });
    expect(answer.ok).toBe(true);
    expect(slack.calls.at(-1)?.token).toBe('xoxb-fixed');
  });

  it('OAuth mode: the bot token of the workspace installation; none when absent; store failures thrown', async () => {
    const token = slack.tokenFor(FAKE_SEED.teamId);
    const queries: unknown[] = [];
    const clients = createSlackClients({
      slackApiUrl: slack.apiUrl,
      logger,
      installations: {
        async fetchInstallation(query) {
          queries.push(query);
          if (query.teamId === 'T0BROKEN') throw new Error('connect ECONNREFUSED');
          if (query.teamId !== FAKE_SEED.teamId) throw new Error('no installation for this workspace');
          return {
            team: { id: FAKE_SEED.teamId },
            bot: { token, userId: 'U1', scopes: [], id: 'B1' },
          } as never;
        },
      },
    });
    const client = await clients.forWorkspace(FAKE_SEED.teamId);
    expect((await client!.chat.postMessage({ channel: FAKE_SEED.channels.general, text: 'oi' })).ok).toBe(
      true,
    );
    expect(queries[0]).toEqual({
      teamId: FAKE_SEED.teamId,
      isEnterpriseInstall: false,
      enterpriseId: undefined,
    });
    expect(await clients.forWorkspace('T0OTHER')).toBeNull();
    await expect(clients.forWorkspace('T0BROKEN')).rejects.toThrow('ECONNREFUSED');
  });

  it('OAuth mode: a workspace kept under an organisation id (E…) is that organisation-wide install', async () => {
    const token = slack.tokenFor(FAKE_SEED.teamId);
    const queries: unknown[] = [];
    const clients = createSlackClients({
      slackApiUrl: slack.apiUrl,
      logger,
      installations: {
        async fetchInstallation(query) {
          queries.push(query);
          if (!query.isEnterpriseInstall || query.enterpriseId !== 'E0ORG1')
            throw new Error('no installation');
          return {
            enterprise: { id: 'E0ORG1' },
            bot: { token, userId: 'U1', scopes: [], id: 'B1' },
          } as never;
        },
      },
    });
    expect(await clients.forWorkspace('E0ORG1')).not.toBeNull();
    expect(queries).toEqual([{ teamId: undefined, isEnterpriseInstall: true, enterpriseId: 'E0ORG1' }]);
  });

  it('rejects rate-limited calls with their Retry-After and does not retry 5xx', async () => {
    const clients = createSlackClients({ slackApiUrl: slack.apiUrl, logger, botToken: 'xoxb-fixed' });
    const client = (await clients.forWorkspace(FAKE_SEED.teamId))!;
    slack.failNext('chat.postMessage', { status: 429, retryAfterSec: 7 });
    await expect(
      client.chat.postMessage({ channel: FAKE_SEED.channels.general, text: 'oi' }),
    ).rejects.toMatchObject({
      code: 'slack_webapi_rate_limited_error',
      retryAfter: 7,
    });
    slack.failNext('chat.postMessage', { status: 500 });
    await expect(
      client.chat.postMessage({ channel: FAKE_SEED.channels.general, text: 'oi' }),
    ).rejects.toMatchObject({
      code: 'slack_webapi_http_error',
    });
    expect(slack.calls.filter((call) => call.method === 'chat.postMessage')).toHaveLength(2);
  });
});
