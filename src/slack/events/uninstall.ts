import type { App } from '@slack/bolt';
import type { SlackInstallationStore } from '../../store/installation-store.js';
import type { SlackDeps } from '../deps.js';

/**
 * `app_uninstalled`: the workspace removed the app, so its link (encrypted credentials), tokens, cache and
 * digest subscriptions and the alerts' listeners (channel feeds, follows) go too, and so does its installation. `tokens_revoked` for bot tokens: the installation
 * is gone; the link, the subscriptions and the alerts' listeners stay (paused) so that a reinstall works without
 * linking again.
 */
export function registerUninstallEvents(
  app: App,
  deps: SlackDeps,
  installations: SlackInstallationStore | null,
): void {
  app.event('app_uninstalled', async ({ context }) => {
    const teamId = context.teamId;
    const enterpriseId = context.enterpriseId;
    const workspaceId = teamId ?? enterpriseId;
    if (workspaceId) {
      await deps.linkService.unlink(workspaceId);
      // The channels can no longer get digests or alerts: subscriptions and follows go with the app.
      await deps.subscriptions.removeWorkspace(workspaceId);
      await deps.feedListeners.removeWorkspace(workspaceId);
      // A reinstall starts the feed over: its first round records, instead of reporting all since as new.
      await deps.feedSnapshots.forget(workspaceId);
    }
    if (installations) {
      await installations
        .deleteInstallation({
          teamId,
          enterpriseId,
          isEnterpriseInstall: context.isEnterpriseInstall ?? false,
        })
        .catch(() => undefined);
    }
    deps.logger.info({ workspaceId }, 'app uninstalled: link and installation removed');
  });

  app.event('tokens_revoked', async ({ event, context }) => {
    if (!event.tokens.bot || event.tokens.bot.length === 0) return;
    if (installations) {
      await installations
        .deleteInstallation({
          teamId: context.teamId,
          enterpriseId: context.enterpriseId,
          isEnterpriseInstall: context.isEnterpriseInstall ?? false,
        })
        .catch(() => undefined);
    }
    const workspaceId = context.teamId ?? context.enterpriseId;
    // Kept but paused: a reinstall (a new installation stored) resumes them.
    if (workspaceId) {
      await deps.subscriptions.pauseWorkspace(workspaceId, 'tokens_revoked');
      await deps.feedListeners.pauseWorkspace(workspaceId, 'tokens_revoked');
    }
    deps.logger.info({ workspaceId }, 'bot tokens revoked: installation removed, digests and alerts paused');
  });
}
