import type { WebClient } from '@slack/web-api';

/** Workspace admins and owners, and the ids of BOT_ADMINS, may link and unlink credentials. */
export async function isLinkAdmin(
  client: WebClient,
  userId: string,
  botAdmins: readonly string[],
): Promise<boolean> {
  if (botAdmins.includes(userId)) return true;
  const info = await client.users.info({ user: userId });
  const user = info.user;
  return Boolean(user && (user.is_admin || user.is_owner || user.is_primary_owner));
}

export async function emailOf(client: WebClient, userId: string): Promise<string | null> {
  const info = await client.users.info({ user: userId });
  return info.user?.profile?.email ?? null;
}

/** The workspace of a signed payload: the team, or the enterprise for org-wide events without a team. */
export function workspaceIdOf(context: {
  teamId?: string | undefined;
  enterpriseId?: string | undefined;
}): string | null {
  return context.teamId ?? context.enterpriseId ?? null;
}
