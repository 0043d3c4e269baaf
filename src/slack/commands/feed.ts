import { LinkBrokenError } from '../../domain/errors.js';
import { newCorrelationId } from '../../lib/logger.js';
import { type Message, renderNoWorkspace } from '../../render/index.js';
import { notifyLinkingAdmin, sendResponse } from '../deliver.js';
import type { SlackDeps } from '../deps.js';
import { failureMessage } from '../failures.js';
import type { EstoqueCommand, SolicitacaoCommand } from '../parse/commands.js';
import { emailOf, workspaceIdOf } from '../slack-users.js';
import type { CommandArgs } from './answer-command.js';

export type FeedCommand =
  | Extract<EstoqueCommand, { kind: `feed-${string}` }>
  | Extract<
      SolicitacaoCommand,
      {
        kind:
          | 'request-follow'
          | 'request-unfollow'
          | 'request-following'
          | 'request-own-follow'
          | 'request-own-unfollow';
      }
    >;

export function isFeedCommand(command: EstoqueCommand | SolicitacaoCommand): command is FeedCommand {
  return (
    command.kind.startsWith('feed-') ||
    command.kind === 'request-follow' ||
    command.kind === 'request-unfollow' ||
    command.kind === 'request-following' ||
    command.kind === 'request-own-follow' ||
    command.kind === 'request-own-unfollow'
  );
}

/**
 * `/estoque alertas assinar|cancelar|listar` and `/solicitacao <id> acompanhar|parar`, `acompanhando`,
 * `minhas acompanhar|parar`: acked at once, answered through response_url (ephemeral).
 */
export async function handleFeedCommand(
  deps: SlackDeps,
  args: CommandArgs,
  command: FeedCommand,
): Promise<void> {
  const workspaceId = workspaceIdOf(args.context);
  if (!workspaceId) {
    await args.ack({ response_type: 'ephemeral', ...renderNoWorkspace() });
    return;
  }
  await args.ack();
  const channelId = args.command.channel_id;
  const userId = args.command.user_id;
  const correlationId = newCorrelationId();
  const logger = deps.logger.child({ correlationId, workspaceId, command: command.kind });
  const feed = deps.feedSubscriptions;
  await deps.tasks.run(`feed ${command.kind}`, async () => {
    const render = { timeZone: deps.config.DIGEST_TZ, now: deps.now() };
    let reply: Message | null = null;
    try {
      switch (command.kind) {
        case 'feed-subscribe':
          reply = await feed.subscribe(
            { workspaceId, channelId, userId, stockroomId: command.stockroomId, kinds: command.kinds },
            args.client,
          );
          break;
        case 'feed-cancel':
          reply = await feed.unsubscribe(workspaceId, channelId);
          break;
        case 'feed-list':
          reply = await feed.list(workspaceId, render);
          break;
        case 'request-follow':
          reply = await feed.follow(workspaceId, userId, command.id, correlationId);
          break;
        case 'request-unfollow':
          reply = await feed.unfollow(workspaceId, userId, command.id);
          break;
        case 'request-following':
          reply = await feed.following(workspaceId, userId, render);
          break;
        case 'request-own-follow':
          reply = await feed.followOwn(
            workspaceId,
            { id: userId, email: () => emailOf(args.client, userId) },
            correlationId,
          );
          break;
        case 'request-own-unfollow':
          reply = await feed.unfollowOwn(workspaceId, userId);
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
      );
  });
}
