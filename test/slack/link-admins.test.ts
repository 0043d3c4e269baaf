import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CHANNELS,
  eventually,
  type Harness,
  OTHER_TEAM,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../helpers/bot-harness.js';

/**
 * Who may link and unlink, over real HTTP (signed requests, the fake Slack's users.info as Slack answers it):
 * the workspace's own admins and owners and BOT_ADMINS members of the workspace; never a person of another
 * workspace who reaches this one through a Slack Connect channel, whatever their role at home or BOT_ADMINS.
 */

const SHARED = 'C00CONNECT';
const STRANGER = 'U09STRANG1';
const GHOST = 'U00GHOST01';
let h: Harness;

beforeEach(async () => {
  // The admin of the other workspace is even listed in BOT_ADMINS: still external here.
  h = await startHarness({ botAdmins: [USERS.otherTeamMember, STRANGER, USERS.outsider] });
  // A Slack Connect channel of this workspace, with a member of the other workspace (an admin there).
  h.slack.addChannel({
    id: SHARED,
    name: 'compartilhado',
    members: new Set([
      USERS.admin,
      USERS.member,
      USERS.otherTeamMember,
      h.slack.teams.get(TEAM)?.botUserId ?? '',
    ]),
    teamId: TEAM,
  });
  h.slack.addTeam({ id: 'T09FAR0001', name: 'Longe' });
  h.slack.addUser({ id: STRANGER, teamId: 'T09FAR0001', isAdmin: true, isOwner: true, isStranger: true });
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

const inShared = (user: string) => ({ team: TEAM, user, channel: SHARED });

describe('a person of another workspace in a shared channel', () => {
  it('cannot open the link modal', async () => {
    for (const user of [USERS.otherTeamMember, STRANGER]) {
      const result = await h.command('/estoque', 'vincular', inShared(user));
      const answer = await h.nextMessage(result.sentAt, { userId: user });
      expect(textOf(answer), user).toMatch(/administradores/i);
    }
    expect(h.slack.views).toHaveLength(0);
  });

  it('cannot ask to unlink, nor confirm an unlink offered to an admin', async () => {
    const refused = await h.command('/estoque', 'desvincular', inShared(USERS.otherTeamMember));
    expect(textOf(await h.nextMessage(refused.sentAt, { userId: USERS.otherTeamMember }))).toMatch(
      /administradores/i,
    );
    const ask = await h.command('/estoque', 'desvincular', inShared(USERS.admin));
    const confirm = await h.nextMessage(ask.sentAt, { userId: USERS.admin });
    const since = Date.now();
    // The button of a confirmation (ephemeral: as if offered to them), clicked by the other workspace's admin; the
    // answer replaces the confirmation.
    await h.click(confirm, { text: 'Desvincular' }, inShared(USERS.otherTeamMember));
    expect(textOf(await h.nextMessage(since))).toMatch(/administradores/i);
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(1);
  });

  it('cannot submit the link form', async () => {
    const result = await h.submitLink(
      { login: 'demo2', password: 'demo2', company: '2' },
      inShared(USERS.otherTeamMember),
    );
    const answer = JSON.parse(result.body) as { response_action?: string; errors?: Record<string, string> };
    expect(answer.response_action).toBe('errors');
    expect(answer.errors?.link_login).toMatch(/administradores/i);
    // Still linked to company 1, as before.
    const status = await h.command('/estoque', 'status', inShared(USERS.member));
    expect(textOf(await h.nextMessage(status.sentAt, { userId: USERS.member }))).toContain(
      `<@${USERS.admin}>`,
    );
  });

  it('can still link its own workspace, where it is an admin', async () => {
    const result = await h.command('/estoque', 'vincular', {
      team: OTHER_TEAM,
      user: USERS.otherTeamMember,
      channel: CHANNELS.otherTeamGeneral,
    });
    expect(result.status).toBe(200);
    const view = await eventually(() => h.slack.views[0]);
    expect(view.userId).toBe(USERS.otherTeamMember);
  });
});

describe('admins of this workspace', () => {
  it('open the modal: an admin, and a BOT_ADMINS member of the workspace', async () => {
    for (const user of [USERS.admin, USERS.outsider]) {
      const before = h.slack.views.length;
      await h.command('/estoque', 'vincular', inShared(user));
      await eventually(() => h.slack.views[before]);
    }
  });
});

describe('the admin check before the link modal opens', () => {
  it("keeps within the trigger's 3 s: a failing lookup is tried twice, then the admin is told to try again", async () => {
    h.slack.failNext('users.info', { status: 500 }, 2);
    const calls = () => h.slack.calls.filter((call) => call.method === 'users.info').length;
    const before = calls();
    const result = await h.command('/estoque', 'vincular', { user: USERS.admin });
    const answer = await h.nextMessage(result.sentAt, { userId: USERS.admin });
    expect(textOf(answer)).toMatch(/Não consegui confirmar no Slack quem você é/);
    // The listener client's retries (three tries, backoff up to 1.5 s) could outlast the trigger before views.open.
    expect(calls() - before).toBe(2);
    expect(h.slack.views).toHaveLength(0);
  });
});

describe('a person Slack cannot look up', () => {
  it('gets an answer when clicking to unlink, and nothing is unlinked', async () => {
    const ask = await h.command('/estoque', 'desvincular', { user: USERS.admin });
    const confirm = await h.nextMessage(ask.sentAt, { userId: USERS.admin });
    const since = Date.now();
    await h.click(confirm, { text: 'Desvincular' }, { user: GHOST });
    const answer = await h.nextMessage(since);
    expect(textOf(answer)).toMatch(/Não consegui confirmar no Slack quem você é/);
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(1);
  });
});
