import type { WebClient } from '@slack/web-api';
import { type Message, renderAdminCheckFailed, renderLinkRefused } from '../render/index.js';

/** The workspace a signed request came from, as Bolt's context gives it. */
export interface RequestWorkspace {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
  /** An org-wide install (Enterprise Grid): the org, not one of its workspaces, is the workspace. */
  isEnterpriseInstall?: boolean | undefined;
}

export type AdminVerdict =
  | { allowed: true; as: 'bot-admin' | 'workspace-admin' | 'org-admin' }
  | {
      allowed: false;
      reason: 'not-admin' | 'external' | 'guest' | 'other-workspace' | 'no-workspace' | 'lookup-failed';
    };

/** The fields of users.info's user that the bot reads (Slack's own names). */
export interface SlackUserInfo {
  id?: string;
  team_id?: string;
  deleted?: boolean;
  is_bot?: boolean;
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  is_restricted?: boolean;
  is_ultra_restricted?: boolean;
  is_stranger?: boolean;
  enterprise_user?: {
    enterprise_id?: string;
    is_admin?: boolean;
    is_owner?: boolean;
    is_primary_owner?: boolean;
    teams?: string[];
  };
  profile?: { email?: string };
}

/** users.info's user (undefined when Slack answers none); throws what the client throws. */
export async function slackUserInfo(client: WebClient, userId: string): Promise<SlackUserInfo | undefined> {
  return (await client.users.info({ user: userId })).user as SlackUserInfo | undefined;
}

/**
 * Who may link and unlink the workspace of the request: its admins and owners (for an org-wide install, the org's
 * admins and owners; for a workspace of an org, the org's admins and owners too), and the ids of BOT_ADMINS, who
 * must still belong to that workspace. Never an external person (Slack Connect: another workspace's user in a
 * shared channel, `is_stranger`), whatever their role at home, nor a guest. Slack's `is_admin` is about the user's
 * own workspace (`team_id`), so it counts only when that is the request's. Never throws: a lookup that fails is
 * a verdict of its own, for the caller to answer.
 */
export async function linkAdminVerdict(
  client: WebClient,
  userId: string,
  botAdmins: readonly string[],
  workspace: RequestWorkspace,
): Promise<AdminVerdict> {
  if (!workspace.teamId && !workspace.enterpriseId) return { allowed: false, reason: 'no-workspace' };
  let user: SlackUserInfo | undefined;
  try {
    user = await slackUserInfo(client, userId);
  } catch {
    return { allowed: false, reason: 'lookup-failed' };
  }
  return adminVerdictOf(user, userId, botAdmins, workspace);
}

/** linkAdminVerdict's judgement of a user users.info has answered (the App Home looks the user up once for all). */
export function adminVerdictOf(
  user: SlackUserInfo | undefined,
  userId: string,
  botAdmins: readonly string[],
  workspace: RequestWorkspace,
): AdminVerdict {
  if (!workspace.teamId && !workspace.enterpriseId) return { allowed: false, reason: 'no-workspace' };
  if (!user || user.id !== userId || user.deleted || user.is_bot)
    return { allowed: false, reason: 'not-admin' };
  if (user.is_stranger) return { allowed: false, reason: 'external' };
  if (user.is_restricted || user.is_ultra_restricted) return { allowed: false, reason: 'guest' };

  const org = user.enterprise_user;
  const sameOrg = workspace.enterpriseId !== undefined && org?.enterprise_id === workspace.enterpriseId;
  const orgAdmin = sameOrg && Boolean(org?.is_admin || org?.is_owner || org?.is_primary_owner);
  if (workspace.isEnterpriseInstall) {
    if (!sameOrg) return { allowed: false, reason: 'external' };
    if (botAdmins.includes(userId)) return { allowed: true, as: 'bot-admin' };
    return orgAdmin ? { allowed: true, as: 'org-admin' } : { allowed: false, reason: 'not-admin' };
  }
  const home = user.team_id !== undefined && user.team_id === workspace.teamId;
  const memberHere =
    home || (sameOrg && workspace.teamId !== undefined && (org?.teams ?? []).includes(workspace.teamId));
  if (!memberHere) return { allowed: false, reason: sameOrg ? 'other-workspace' : 'external' };
  if (botAdmins.includes(userId)) return { allowed: true, as: 'bot-admin' };
  if (orgAdmin) return { allowed: true, as: 'org-admin' };
  if (home && (user.is_admin || user.is_owner || user.is_primary_owner))
    return { allowed: true, as: 'workspace-admin' };
  return { allowed: false, reason: 'not-admin' };
}

export async function emailOf(client: WebClient, userId: string): Promise<string | null> {
  return (await slackUserInfo(client, userId))?.profile?.email ?? null;
}

/** The workspace of a signed payload: the team, or the enterprise for org-wide events without a team. */
export function workspaceIdOf(context: {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
}): string | null {
  return context.teamId ?? context.enterpriseId ?? null;
}

/**
 * A modal's view carrying the workspace it is shown for in its `private_metadata` (a JSON object, merged with what
 * the view keeps there). A view submission of an org-wide install names the enterprise where its workspace should
 * be (bolt-js#1720: Bolt's context.teamId is then the enterprise id), while the command, shortcut or click that
 * opens or updates the modal names the workspace: `submittedWorkspaceId` reads it back.
 */
export function viewForWorkspace<V extends { private_metadata?: string }>(
  view: V,
  workspaceId: string | null,
): V {
  if (workspaceId === null) return view;
  return {
    ...view,
    private_metadata: JSON.stringify({ ...viewMetadata(view.private_metadata), workspaceId }),
  };
}

/**
 * The workspace of a view submission: the one its modal was shown for (viewForWorkspace), when the signed payload
 * agrees with it; else Bolt's context's. `private_metadata` is the bot's own state coming back from outside, never
 * proof of a workspace: the kept id is taken only when it is the signed workspace itself, or, for an org-wide
 * install (whose submission names only the enterprise), the team the signed view was opened in. Taken at its word,
 * a submission from one workspace naming another linked that other one to a login of its choosing, or read its
 * requests and materials (until 2026-11-27).
 */
export function submittedWorkspaceId(
  view: { private_metadata?: string; team_id?: string | null },
  context: { teamId?: string | undefined; enterpriseId?: string | undefined; isEnterpriseInstall?: boolean },
): string | null {
  const signed = workspaceIdOf(context);
  const kept = viewMetadata(view.private_metadata).workspaceId;
  if (typeof kept !== 'string' || kept === signed) return signed;
  const orgInstall = context.isEnterpriseInstall === true && context.enterpriseId !== undefined;
  return orgInstall && typeof view.team_id === 'string' && kept === view.team_id ? kept : signed;
}

/** A view's `private_metadata` as the JSON object the bot keeps there; anything else reads as an empty one. */
export function viewMetadata(raw: string | undefined): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(raw || '{}');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/**
 * The workspace a bare workspace id stands for, when no signed request says more (the feed's Home republish): an
 * `E…` id is an organisation served by an org-wide install, anything else a team; a team an org-wide install serves
 * (`servedBy`, from the installations) is named with that organisation, as its requests name it.
 */
export function workspaceOfId(workspaceId: string, servedBy: string | null = null): RequestWorkspace {
  if (workspaceId.startsWith('E')) return { enterpriseId: workspaceId, isEnterpriseInstall: true };
  return servedBy === null
    ? { teamId: workspaceId }
    : { teamId: workspaceId, enterpriseId: servedBy, isEnterpriseInstall: true };
}

/** What a refused person is told: a lookup that failed is not a refusal, and says to try again. */
export function refusalOf(verdict: AdminVerdict): Message {
  return !verdict.allowed && verdict.reason === 'lookup-failed'
    ? renderAdminCheckFailed()
    : renderLinkRefused();
}
