import type { App, Context } from '@slack/bolt';
import type { SlackInstallationStore } from '../../store/installation-store.js';
import type { SlackDeps } from '../deps.js';

/**
 * `app_uninstalled`: the workspace removed the app, so its link (encrypted credentials), tokens, cache and
 * digest subscriptions and the alerts' listeners (channel feeds, follows) go too, and so does its installation. `tokens_revoked` for bot tokens: the installation
 * is gone; the link, the subscriptions and the alerts' listeners stay (paused) so that a reinstall works without
 * linking again. For an org-wide install (Enterprise Grid) each applies to every workspace of the organisation
 * the install has served; `team_access_revoked` removes the install from some of them.
 */
export function registerUninstallEvents(
  app: App,
  deps: SlackDeps,
  installations: SlackInstallationStore | null,
): void {
  /** The workspaces an event about the installation concerns: every one an org-wide install has served. */
  const workspacesOf = async (context: Context): Promise<string[]> => {
    const query = {
      teamId: context.teamId,
      enterpriseId: context.enterpriseId,
      isEnterpriseInstall: context.isEnterpriseInstall ?? false,
    };
    if (installations) return installations.workspacesOf(query);
    const own = context.teamId ?? context.enterpriseId;
    return own ? [own] : [];
  };

  /** The app left the workspace: the link, digests, alerts and what the feed kept of it go. */
  const removeWorkspace = async (workspaceId: string): Promise<void> => {
    await deps.linkService.unlink(workspaceId);
    // The channels can no longer get digests or alerts: subscriptions and follows go with the app.
    await deps.subscriptions.removeWorkspace(workspaceId);
    await deps.feedListeners.removeWorkspace(workspaceId);
    // A reinstall starts the feed over: its first round records, instead of reporting all since as new.
    await deps.feedSnapshots.forget(workspaceId);
  };

  app.event('app_uninstalled', async ({ context }) => {
    const workspaces = await workspacesOf(context);
    for (const workspaceId of workspaces) await removeWorkspace(workspaceId);
    if (installations) {
      const query = {
        teamId: context.teamId,
        enterpriseId: context.enterpriseId,
        isEnterpriseInstall: context.isEnterpriseInstall ?? false,
      };
      await installations.deleteInstallation(query).catch(() => undefined);
      if (query.isEnterpriseInstall && query.enterpriseId) {
        await installations.forgetServed(query.enterpriseId).catch(() => undefined);
      }
    }
    deps.logger.info(
      { workspaceIds: workspaces, enterpriseId: context.enterpriseId },
      'app uninstalled: links and installation removed',
    );
  });

  // An org-wide install removed from some workspaces of the organisation (it stays in the others): for each of
  // them, what app_uninstalled does for a workspace.
  app.event('team_access_revoked', async ({ event, context }) => {
    const teamIds = teamIdsOf(event);
    for (const workspaceId of teamIds) await removeWorkspace(workspaceId);
    const enterpriseId = context.enterpriseId;
    if (installations && enterpriseId) {
      await installations.forgetServed(enterpriseId, teamIds).catch(() => undefined);
    }
    deps.logger.info({ workspaceIds: teamIds, enterpriseId }, 'team access revoked: links removed');
  });

  app.event('tokens_revoked', async ({ event, context }) => {
    if (!event.tokens.bot || event.tokens.bot.length === 0) return;
    // Read before the installation goes: an org-wide one names the workspaces it served.
    const workspaces = await workspacesOf(context);
    if (installations) {
      await installations
        .deleteInstallation({
          teamId: context.teamId,
          enterpriseId: context.enterpriseId,
          isEnterpriseInstall: context.isEnterpriseInstall ?? false,
        })
        .catch(() => undefined);
    }
    // Kept but paused: a reinstall (a new installation stored) resumes them.
    for (const workspaceId of workspaces) {
      await deps.subscriptions.pauseWorkspace(workspaceId, 'tokens_revoked');
      await deps.feedListeners.pauseWorkspace(workspaceId, 'tokens_revoked');
    }
    deps.logger.info(
      { workspaceIds: workspaces, enterpriseId: context.enterpriseId },
      'bot tokens revoked: installation removed, digests and alerts paused',
    );
  });
}

/** `team_access_revoked`'s team ids; anything else in the payload is ignored. */
function teamIdsOf(event: unknown): string[] {
  const ids = (event as { team_ids?: unknown }).team_ids;
  if (!Array.isArray(ids)) return [];
  return ids.filter((id): id is string => typeof id === 'string' && /^[A-Z0-9]{1,32}$/.test(id));
}
