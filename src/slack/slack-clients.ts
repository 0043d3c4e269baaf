import { webApi } from '@slack/bolt';
import type { InstallationStore } from '@slack/oauth';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../lib/logger.js';
import { webApiLogger } from './slack-logger.js';

/** A Web API client per workspace, for work that starts without a Slack request (the digest scheduler). */
export interface SlackClients {
  /** null when the workspace has no installation (uninstalled, tokens revoked); throws when the store fails. */
  forWorkspace(workspaceId: string): Promise<WebClient | null>;
}

export interface SlackClientsOptions {
  slackApiUrl: string;
  logger: Logger;
  /** Single-workspace mode (`SLACK_BOT_TOKEN`): this token for every workspace. */
  botToken?: string;
  /** OAuth mode: Bolt's installation store (`SlackInstallationStore`). */
  installations?: Pick<InstallationStore, 'fetchInstallation'>;
  /** Per Web API call; a hung call must end well within a digest claim's lease. Default 30 s. */
  timeoutMs?: number;
  /** The fetch the clients use (the metered one counts Slack's errors by method). */
  fetch?: typeof globalThis.fetch;
}

/**
 * Clients built for the scheduler's own error handling, explicitly: `rejectRateLimitedCalls` makes a 429 throw
 * `slack_webapi_rate_limited_error` with its Retry-After (the poster waits and retries, at most once per
 * claim renewal), and `retries: 0` makes a 5xx or network failure throw at once (the claim is released and a
 * later tick retries) instead of the built-in retries holding a claim for up to 30 minutes.
 */
export function createSlackClients(options: SlackClientsOptions): SlackClients {
  const clients = new Map<string, WebClient>();
  const logger = webApiLogger(options.logger);
  const clientFor = (token: string): WebClient => {
    let client = clients.get(token);
    if (!client) {
      client = new webApi.WebClient(token, {
        slackApiUrl: options.slackApiUrl,
        rejectRateLimitedCalls: true,
        retryConfig: { retries: 0 },
        timeout: options.timeoutMs ?? 30_000,
        logger,
        ...(options.fetch && { fetch: options.fetch }),
      });
      clients.set(token, client);
    }
    return client;
  };

  return {
    async forWorkspace(workspaceId) {
      if (options.botToken) return clientFor(options.botToken);
      if (!options.installations) return null;
      try {
        // A workspace kept under its organisation's id (an org-wide install whose request named no team) is
        // that organisation's install; any other id is a team's (or a team an org-wide install serves).
        const installation = await options.installations.fetchInstallation(
          workspaceId.startsWith('E')
            ? { teamId: undefined, isEnterpriseInstall: true, enterpriseId: workspaceId }
            : { teamId: workspaceId, isEnterpriseInstall: false, enterpriseId: undefined },
        );
        const token = installation.bot?.token;
        return token ? clientFor(token) : null;
      } catch (error) {
        // The store throws this for an absent installation; anything else (Redis down) is not an answer.
        if (!(error instanceof Error && /no installation/i.test(error.message))) throw error;
        options.logger.warn({ workspaceId }, 'no Slack installation for the workspace');
        return null;
      }
    },
  };
}
