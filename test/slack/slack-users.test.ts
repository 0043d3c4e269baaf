import type { WebClient } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { linkAdminVerdict, type RequestWorkspace, workspaceOfId } from '../../src/slack/slack-users.js';

/** The admin check on users.info answers shaped as Slack sends them (workspace, Slack Connect, Enterprise Grid). */

const T1 = 'T0000HOME1';
const T2 = 'T0000AWAY2';
const E1 = 'E0000ORG01';
const E2 = 'E0000ORG02';

function clientAnswering(user: Record<string, unknown> | Error): WebClient {
  return {
    users: {
      info: async () => {
        if (user instanceof Error) throw user;
        return { ok: true, user };
      },
    },
  } as unknown as WebClient;
}

const verdict = (
  user: Record<string, unknown> | Error,
  workspace: RequestWorkspace,
  botAdmins: string[] = [],
) => linkAdminVerdict(clientAnswering(user), 'U1', botAdmins, workspace);

const person = (fields: Record<string, unknown> = {}) => ({ id: 'U1', team_id: T1, ...fields });
const team: RequestWorkspace = { teamId: T1 };

describe('linkAdminVerdict', () => {
  it('allows the workspace admins and owners, refuses its members', async () => {
    expect(await verdict(person({ is_admin: true }), team)).toEqual({ allowed: true, as: 'workspace-admin' });
    expect(await verdict(person({ is_owner: true }), team)).toMatchObject({ allowed: true });
    expect(await verdict(person({ is_primary_owner: true }), team)).toMatchObject({ allowed: true });
    expect(await verdict(person(), team)).toEqual({ allowed: false, reason: 'not-admin' });
  });

  it('refuses an admin of another workspace (Slack Connect), even listed in BOT_ADMINS', async () => {
    const away = person({ team_id: T2, is_admin: true, is_owner: true });
    expect(await verdict(away, team)).toEqual({ allowed: false, reason: 'external' });
    expect(await verdict(away, team, ['U1'])).toEqual({ allowed: false, reason: 'external' });
  });

  it('refuses strangers and guests, whatever their flags say', async () => {
    expect(await verdict(person({ is_stranger: true, is_admin: true }), team, ['U1'])).toEqual({
      allowed: false,
      reason: 'external',
    });
    expect(await verdict(person({ is_restricted: true, is_admin: true }), team)).toEqual({
      allowed: false,
      reason: 'guest',
    });
    expect(await verdict(person({ is_ultra_restricted: true }), team, ['U1'])).toMatchObject({
      allowed: false,
    });
  });

  it('allows BOT_ADMINS members of the workspace', async () => {
    expect(await verdict(person(), team, ['U1'])).toEqual({ allowed: true, as: 'bot-admin' });
  });

  it('refuses deleted users, bots, and an answer about someone else', async () => {
    expect(await verdict(person({ deleted: true, is_admin: true }), team)).toMatchObject({ allowed: false });
    expect(await verdict(person({ is_bot: true, is_admin: true }), team)).toMatchObject({ allowed: false });
    expect(await verdict({ id: 'U2', team_id: T1, is_admin: true }, team)).toMatchObject({ allowed: false });
  });

  it('says when Slack could not be asked, and when the request has no workspace', async () => {
    expect(await verdict(new Error('user_not_found'), team)).toEqual({
      allowed: false,
      reason: 'lookup-failed',
    });
    expect(await verdict(person({ is_admin: true }), {})).toEqual({ allowed: false, reason: 'no-workspace' });
  });

  describe('Enterprise Grid', () => {
    const orgUser = (fields: Record<string, unknown>, org: Record<string, unknown> = {}) =>
      person({ team_id: T2, enterprise_user: { enterprise_id: E1, teams: [T2, T1], ...org }, ...fields });

    it('org-wide install: the org admins and owners, not a workspace admin, not another org', async () => {
      const orgInstall: RequestWorkspace = { enterpriseId: E1, isEnterpriseInstall: true };
      expect(await verdict(orgUser({}, { is_admin: true }), orgInstall)).toEqual({
        allowed: true,
        as: 'org-admin',
      });
      expect(await verdict(orgUser({ is_admin: true }), orgInstall)).toEqual({
        allowed: false,
        reason: 'not-admin',
      });
      expect(await verdict(orgUser({}, { enterprise_id: E2, is_owner: true }), orgInstall)).toEqual({
        allowed: false,
        reason: 'external',
      });
    });

    it('a workspace of the org: its own admins, and the org admins who are members of it', async () => {
      const inOrg: RequestWorkspace = { teamId: T1, enterpriseId: E1 };
      expect(await verdict(orgUser({}, { is_admin: true }), inOrg)).toEqual({
        allowed: true,
        as: 'org-admin',
      });
      // An admin of another workspace of the org (is_admin is about T2) is only a member here.
      expect(await verdict(orgUser({ is_admin: true }), inOrg)).toEqual({
        allowed: false,
        reason: 'not-admin',
      });
      // Not a member of T1 at all.
      expect(await verdict(orgUser({ is_admin: true }, { teams: [T2] }), inOrg)).toEqual({
        allowed: false,
        reason: 'other-workspace',
      });
      expect(
        await verdict(person({ is_admin: true, enterprise_user: { enterprise_id: E1 } }), inOrg),
      ).toEqual({
        allowed: true,
        as: 'workspace-admin',
      });
    });
  });
});

describe('workspaceOfId', () => {
  it('an E… id is an organisation of an org-wide install; its admins are the org’s', async () => {
    expect(workspaceOfId(E1)).toEqual({ enterpriseId: E1, isEnterpriseInstall: true });
    expect(workspaceOfId(T1)).toEqual({ teamId: T1 });
    const orgAdmin = person({ enterprise_user: { enterprise_id: E1, is_admin: true, teams: [T1] } });
    expect(await verdict(orgAdmin, workspaceOfId(E1))).toEqual({ allowed: true, as: 'org-admin' });
  });
});
