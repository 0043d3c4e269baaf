import { LinkBrokenError } from '../../domain/errors.js';
import { newCorrelationId } from '../../lib/logger.js';
import { renderNoWorkspace } from '../../render/index.js';
import { notifyLinkingAdmin, sendResponse } from '../deliver.js';
import type { SlackDeps } from '../deps.js';
import { failureMessage } from '../failures.js';
import type { EstoqueCommand } from '../parse/commands.js';
import { workspaceIdOf } from '../slack-users.js';
import type { CommandArgs } from './answer-command.js';

type DigestCommand = Extract<EstoqueCommand, { kind: `digest-${string}` }>;

/** `/estoque resumo assinar|cancelar|listar|agora`: acked at once, answered through response_url. */
export async function handleDigestCommand(
  deps: SlackDeps,
  args: CommandArgs,
  command: DigestCommand,
): Promise<void> {
  const workspaceId = workspaceIdOf(args.context);
  if (!workspaceId) {
    await args.ack({ response_type: 'ephemeral', ...renderNoWorkspace() });
    return;
  }
  await args.ack();
  const channelId = args.command.channel_id;
  const correlationId = newCorrelationId();
  const logger = deps.logger.child({ correlationId, workspaceId, command: command.kind });
  await deps.tasks.run(`digest ${command.kind}`, async () => {
    const render = { timeZone: deps.config.DIGEST_TZ, now: deps.now() };
    let reply = null;
    try {
      switch (command.kind) {
        case 'digest-subscribe':
          reply = await deps.digestSubscriptions.subscribe(
            {
              workspaceId,
              channelId,
              userId: args.command.user_id,
              hour: command.hour,
              minute: command.minute,
              stockroomId: command.stockroomId,
              weekdaysOnly: command.weekdaysOnly,
            },
            args.client,
          );
          break;
        case 'digest-cancel':
          reply = await deps.digestSubscriptions.unsubscribe(workspaceId, channelId);
          break;
        case 'digest-list':
          reply = await deps.digestSubscriptions.list(workspaceId, render);
          break;
        case 'digest-now':
          reply = await deps.digestSubscriptions.postNow(workspaceId, channelId);
          break;
      }
    } catch (error) {
      const { count, windowMs } = deps.config.UPSTREAM_RATE_LIMIT;
      reply = failureMessage(error, null, correlationId, render, logger, { limit: count, windowMs });
      if (error instanceof LinkBrokenError && error.firstNotice)
        await notifyLinkingAdmin(deps, args.client, error);
    }
    if (reply)
      await sendResponse(
        deps,
        args.respond,
        reply,
        { response_type: 'ephemeral', replace_original: false },
        logger,
        { client: args.client, userId: args.command.user_id, channelId },
      );
  });
}
