import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SlackInstallationStore } from '../../src/store/installation-store.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import {
  CHANNELS,
  eventually,
  type Harness,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../helpers/bot-harness.js';

let h: Harness;
let base: string;

beforeEach(async () => {
  h = await startHarness();
  base = h.target.eventsUrl.replace('/slack/events', '');
});
afterEach(async () => {
  await h.close();
});

const store = () => new SlackInstallationStore(new RedisKeyValue(h.redis.redis), h.redis.keys, h.box);

describe('OAuth install', () => {
  it('sends the admin to Slack with the bot scopes, and stores the installation sealed on the way back', async () => {
    const install = await fetch(`${base}/slack/install`, { redirect: 'manual' });
    expect(install.status).toBe(302);
    const location = new URL(install.headers.get('location') ?? '');
    expect(location.pathname).toBe('/oauth/v2/authorize');
    expect(location.searchParams.get('scope')?.split(',').sort()).toEqual([
      'app_mentions:read',
      'chat:write',
      'commands',
      'im:history',
      'users:read',
      'users:read.email',
    ]);
    const state = location.searchParams.get('state') ?? '';
    const cookie = (install.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const code = h.slack.newOAuthCode({ teamId: 'T00NEWTEAM', teamName: 'Nova Equipe' } as never);
    const back = await fetch(
      `${base}/slack/oauth_redirect?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`,
      {
        headers: { cookie },
        redirect: 'manual',
      },
    );
    expect(back.status).toBeLessThan(400);
    const installation = await store().fetchInstallation({
      teamId: 'T00NEWTEAM',
      isEnterpriseInstall: false,
      enterpriseId: undefined,
    });
    expect(installation.bot?.token).toMatch(/^xoxb-/);
    const raw = (await h.redis.redis.get(h.redis.keys.installation('T-T00NEWTEAM'))) ?? '';
    expect(raw).not.toContain(installation.bot?.token ?? 'xoxb-');
  });
});

describe('uninstall', () => {
  it('app_uninstalled removes the link and the installation', async () => {
    await h.link(TEAM);
    const result = await h.event({ type: 'app_uninstalled', event_ts: `${Date.now() / 1000}` });
    expect(result.status).toBe(200);
    // The event is acked first and handled after: the link goes first, the installation last.
    await eventually(async () => (await h.redis.redis.exists(h.redis.keys.installation(`T-${TEAM}`))) === 0);
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(0);
  });
});

describe('health', () => {
  it('answers 200 when the store answers', async () => {
    const response = await fetch(`${base}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, store: 'up' });
  });
});

it('acks before upstream answers, then answers through response_url', async () => {
  await h.link('T00FAKE02', 'demo2', 'demo2', 2).catch(() => undefined);
  h.sandbox.faults.next({ path: '/v1/almoxarifados', delayMs: 1_500 });
  const callsBefore = h.sandbox.calls.length;
  const result = await h.command('/estoque', 'almoxarifados', {
    team: 'T00FAKE02',
    user: USERS.otherTeamMember,
    channel: CHANNELS.otherTeamGeneral,
  });
  expect(result.status).toBe(200);
  const answered = h.sandbox.calls
    .slice(callsBefore)
    .filter((c) => c.path === '/v1/almoxarifados' && c.status !== 0);
  expect(answered).toEqual([]);
  const answer = await h.nextMessage(result.sentAt, { userId: USERS.otherTeamMember });
  expect(textOf(answer)).toContain('Almoxarifado');
});
