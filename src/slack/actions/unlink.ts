import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { ActionIds } from '../../render/ids.js';
import { renderUnlinkCancelled, renderUnlinked } from '../../render/index.js';
import { sendResponse } from '../deliver.js';
import type { SlackDeps } from '../deps.js';
import { linkAdminVerdict, refusalOf, workspaceIdOf } from '../slack-users.js';

export function registerUnlinkActions(app: App, deps: SlackDeps): void {
  app.action<BlockAction<ButtonAction>>(
    ActionIds.unlinkConfirm,
    async ({ ack, body, client, context, respond }) => {
      await ack();
      const workspaceId = workspaceIdOf(context);
      const recipient = { client, userId: body.user.id, channelId: body.channel?.id };
      await deps.tasks.run('unlink', async () => {
        // Checked again on the click: the confirmation message could be old, or reached by someone else.
        const verdict = await linkAdminVerdict(client, body.user.id, deps.config.BOT_ADMINS, context);
        if (!verdict.allowed || workspaceId === null) {
          if (!verdict.allowed)
            deps.logger.info({ userId: body.user.id, reason: verdict.reason }, 'unlink refused');
          await sendResponse(
            deps,
            respond,
            refusalOf(verdict),
            { response_type: 'ephemeral', replace_original: true },
            deps.logger,
            recipient,
          );
          return;
        }
        await deps.linkService.unlink(workspaceId);
        await sendResponse(
          deps,
          respond,
          renderUnlinked(body.user.id),
          { response_type: 'ephemeral', replace_original: true },
          deps.logger,
          recipient,
        );
      });
    },
  );

  app.action<BlockAction<ButtonAction>>(ActionIds.unlinkCancel, async ({ ack, respond }) => {
    await ack();
    await sendResponse(deps, respond, renderUnlinkCancelled(), {
      response_type: 'ephemeral',
      replace_original: true,
    });
  });
}
