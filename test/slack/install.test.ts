import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventCallback } from '../../src/fake-slack/signer.js';
import { SlackInstallationStore } from '../../src/store/installation-store.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import {
  CHANNELS,
  eventually,
  type Harness,
  installOrgWide,
  OTHER_TEAM,
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

describe('org-wide install (Enterprise Grid)', () => {
  const ORG = 'E0ORG0001';
  const orgAuthorization = {
    enterprise_id: ORG,
    team_id: null,
    user_id: 'U0ORGBOT',
    is_bot: true,
    is_enterprise_install: true,
  };

  const orgEvent = (event: object) =>
    eventCallback(h.target, event, TEAM, { enterprise_id: ORG, authorizations: [orgAuthorization] });

  /** TEAM and OTHER_TEAM served by an org-wide install (their own installs removed), both linked. */
  async function orgServingBoth(): Promise<void> {
    await installOrgWide(h, ORG);
    for (const team of [TEAM, OTHER_TEAM]) {
      await h.installations.deleteInstallation({
        teamId: team,
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      // A command from a workspace the org install serves (Slack: is_enterprise_install true, the workspace's
      // team_id, the enterprise_id) records the organisation.
      const help = await h.command('/estoque', 'ajuda', { team, enterprise: ORG });
      expect(help.status).toBe(200);
      await h.link(team);
    }
  }

  it("app_uninstalled removes the link of every workspace the organisation's install served, and its records", async () => {
    await orgServingBoth();
    // Slack names the organisation in the authorization, and a workspace of it as the envelope's team.
    const result = await orgEvent({ type: 'app_uninstalled' });
    expect(result.status).toBe(200);
    await eventually(async () => (await h.redis.redis.exists(h.redis.keys.installation(`E-${ORG}`))) === 0);
    await eventually(async () => (await h.redis.redis.exists(h.redis.keys.enterpriseWorkspaces(ORG))) === 0);
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(0);
    expect(await h.redis.redis.exists(h.redis.keys.link(OTHER_TEAM))).toBe(0);
    expect(await h.redis.redis.exists(h.redis.keys.workspaceEnterprise(TEAM))).toBe(0);
    expect(await h.redis.redis.exists(h.redis.keys.workspaceEnterprise(OTHER_TEAM))).toBe(0);
  });
  it('team_access_revoked removes the named workspaces as an uninstall does; the others keep the org install', async () => {
    await orgServingBoth();
    const result = await orgEvent({ type: 'team_access_revoked', team_ids: [OTHER_TEAM] });
    expect(result.status).toBe(200);
    await eventually(async () => (await h.redis.redis.exists(h.redis.keys.link(OTHER_TEAM))) === 0);
    await eventually(
      async () => (await h.redis.redis.exists(h.redis.keys.workspaceEnterprise(OTHER_TEAM))) === 0,
    );
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(1);
    expect(await h.redis.redis.exists(h.redis.keys.installation(`E-${ORG}`))).toBe(1);
    expect(await h.redis.redis.hkeys(h.redis.keys.enterpriseWorkspaces(ORG))).toEqual([TEAM]);
  });

  it('a workspace the org install serves is found by team id alone, as digests and alerts look it up', async () => {
    await orgServingBoth();
    expect(await h.redis.redis.get(h.redis.keys.workspaceEnterprise(TEAM))).toBe(ORG);
    const found = await store().fetchInstallation({
      teamId: OTHER_TEAM,
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(found.enterprise?.id).toBe(ORG);
  });

  it('tokens_revoked of the org install pauses the alerts of every workspace it served', async () => {
    await orgServingBoth();
    const result = await orgEvent({ type: 'tokens_revoked', tokens: { oauth: [], bot: ['U0ORGBOT'] } });
    expect(result.status).toBe(200);
    await eventually(
      async () => (await h.container.feedListeners.pausedReason(OTHER_TEAM)) === 'tokens_revoked',
    );
    expect(await h.container.feedListeners.pausedReason(TEAM)).toBe('tokens_revoked');
    expect(await h.redis.redis.exists(h.redis.keys.installation(`E-${ORG}`))).toBe(0);
    // Kept for a reinstall, which resumes them.
    expect(await h.redis.redis.exists(h.redis.keys.link(OTHER_TEAM))).toBe(1);
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
