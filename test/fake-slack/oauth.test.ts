import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_APP, FAKE_SEED } from '../../src/fake-slack/seed.js';
import { type FakeSlack, startFakeSlack } from '../../src/fake-slack/server.js';
import { clientFor, slackError, WebClient } from './helpers.js';

const CLIENT = { client_id: '1111.2222', client_secret: 'shh-secret' };

describe('fake Slack OAuth v2', () => {
  let fake: FakeSlack;

  beforeAll(async () => {
    fake = await startFakeSlack({
      oauth: { clientId: CLIENT.client_id, clientSecret: CLIENT.client_secret },
    });
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  /** oauth.v2.access as Bolt's InstallProvider calls it: a WebClient without a token. */
  const access = (code: string, client = CLIENT) =>
    new WebClient(undefined, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } }).oauth.v2.access({
      ...client,
      code,
    });

  it('exchanges a code for a realistic v2 payload whose bot token then works', async () => {
    const result = await access(
      fake.newOAuthCode({ teamId: 'T0NEWTEAM', teamName: 'Hospital Central', userId: 'U0INSTALL' }),
    );
    expect(result).toMatchObject({
      ok: true,
      token_type: 'bot',
      scope: expect.stringContaining('commands'),
      app_id: FAKE_APP.appId,
      team: { id: 'T0NEWTEAM', name: 'Hospital Central' },
      enterprise: null,
      authed_user: { id: 'U0INSTALL' },
      is_enterprise_install: false,
    });
    expect(result.access_token).toMatch(/^xoxb-\d+-\d+-[a-z0-9]+$/);
    const auth = await clientFor(fake, result.access_token ?? '').auth.test();
    expect(auth).toMatchObject({
      team_id: 'T0NEWTEAM',
      user_id: result.bot_user_id,
      is_enterprise_install: false,
    });
    expect(auth.bot_id).toMatch(/^B/);
  });

  it('refuses a used code, an unknown one and wrong client credentials', async () => {
    const code = fake.newOAuthCode();
    await access(code);
    expect(await slackError(access(code))).toBe('invalid_code');
    expect(await slackError(access('123.456.nope'))).toBe('invalid_code');
    expect(await slackError(access(fake.newOAuthCode(), { ...CLIENT, client_secret: 'wrong' }))).toBe(
      'bad_client_secret',
    );
    expect(await slackError(access(fake.newOAuthCode(), { ...CLIENT, client_id: '9.9' }))).toBe(
      'invalid_client_id',
    );
  });

  it('hands out an org-wide install when asked', async () => {
    fake.setOAuthInstall({
      enterpriseId: 'E0ORG0001',
      enterpriseName: 'Rede Aurora',
      isEnterpriseInstall: true,
    });
    const result = await access(fake.newOAuthCode());
    expect(result).toMatchObject({
      team: null,
      enterprise: { id: 'E0ORG0001', name: 'Rede Aurora' },
      is_enterprise_install: true,
    });
    const auth = await clientFor(fake, result.access_token ?? '').auth.test();
    expect(auth).toMatchObject({ enterprise_id: 'E0ORG0001', is_enterprise_install: true });
  });

  it('approves at the authorize page and redirects back with a code and the state', async () => {
    const authorize = new URL(fake.authorizeUrl);
    authorize.search = new URLSearchParams({
      client_id: CLIENT.client_id,
      scope: 'commands,chat:write',
      redirect_uri: 'http://127.0.0.1:3000/slack/oauth_redirect',
      state: 'st4te',
    }).toString();
    const response = await fetch(authorize, { redirect: 'manual' });
    expect(response.status).toBe(302);
    const back = new URL(response.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe('http://127.0.0.1:3000/slack/oauth_redirect');
    expect(back.searchParams.get('state')).toBe('st4te');
    const result = await access(back.searchParams.get('code') ?? '');
    expect(result).toMatchObject({ scope: 'commands,chat:write', team: { id: FAKE_SEED.teamId } });
  });

  it('revokes the workspace tokens on apps.uninstall', async () => {
    const { access_token: token = '' } = await access(fake.newOAuthCode());
    const client = clientFor(fake, token);
    await client.apps.uninstall(CLIENT);
    expect(await slackError(client.auth.test())).toBe('token_revoked');
  });
});
