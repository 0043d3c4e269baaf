import { errFields, type Logger } from '../lib/logger.js';
import { type Message, renderBrokenLinkAdminNotice, renderHealedLinkAdminNotice } from '../render/index.js';
import type { SlackClients } from './slack-clients.js';

/**
 * The DM to the admin who linked, when the link's credentials can no longer be renewed. Sent once per broken
 * link (Workspaces marks it across processes) by whatever met it first: a command, a digest, a feed round or
 * the Home; through the workspace's own client, as the digests post.
 */
export async function tellLinkingAdminBroken(
  clients: SlackClients,
  logger: Logger,
  workspaceId: string,
  linkedBy: string,
  checkedAgain = false,
): Promise<void> {
  await dmLinkingAdmin(
    clients,
    logger,
    workspaceId,
    linkedBy,
    renderBrokenLinkAdminNotice(undefined, checkedAgain),
    'linking admin told the link is broken',
  );
}

/**
 * The DM to the admin who linked, when a check found the broken link's credentials working again and restored it.
 * Sent once per heal, by the process that restored it.
 */
export async function tellLinkingAdminHealed(
  clients: SlackClients,
  logger: Logger,
  workspaceId: string,
  linkedBy: string,
): Promise<void> {
  await dmLinkingAdmin(
    clients,
    logger,
    workspaceId,
    linkedBy,
    renderHealedLinkAdminNotice(),
    'linking admin told the link works again',
  );
}

/** A DM to the admin who linked, through the workspace's own client; a failure is logged, never thrown. */
async function dmLinkingAdmin(
  clients: SlackClients,
  logger: Logger,
  workspaceId: string,
  linkedBy: string,
  notice: Message,
  told: string,
): Promise<void> {
  try {
    const client = await clients.forWorkspace(workspaceId);
    if (!client) {
      logger.warn({ workspaceId }, 'could not DM the linking admin: no Slack installation');
      return;
    }
    await client.chat.postMessage({ channel: linkedBy, text: notice.text, blocks: notice.blocks });
    logger.info({ workspaceId }, told);
  } catch (error) {
    logger.warn({ workspaceId, ...errFields(error) }, 'could not DM the linking admin');
  }
}
