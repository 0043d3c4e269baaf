import type { SlackDeps } from '../deps.js';
import type { EstoqueCommand, SolicitacaoCommand } from '../parse/commands.js';
import { emailOf } from '../slack-users.js';
import { singleAttemptClient } from '../web-clients.js';
import type { CommandArgs } from './answer-command.js';
import { runListenerCommand } from './listener-command.js';

export type FeedCommand =
  | Extract<EstoqueCommand, { kind: `feed-${string}` }>
  | Extract<
      SolicitacaoCommand,
      {
        kind: 'request-follow' | 'request-unfollow' | 'request-own-follow' | 'request-own-unfollow';
      }
    >;

export function isFeedCommand(command: EstoqueCommand | SolicitacaoCommand): command is FeedCommand {
  return (
    command.kind.startsWith('feed-') ||
    command.kind === 'request-follow' ||
    command.kind === 'request-unfollow' ||
    command.kind === 'request-own-follow' ||
    command.kind === 'request-own-unfollow'
  );
}

/**
 * `/estoque alertas assinar|cancelar|listar` and `/solicitacao <id> acompanhar|parar`, `minhas acompanhar|parar`:
 * acked at once, answered through response_url (ephemeral). `acompanhando` is an answer (a route, it pages).
 */
export function handleFeedCommand(deps: SlackDeps, args: CommandArgs, command: FeedCommand): Promise<void> {
  const feed = deps.feedSubscriptions;
  // Only the follows read upstream (the request's status, the user's match): they are cut at an answer's
  // deadline; the others wait on Slack and the store alone, and answer whenever they are done.
  const readsUpstream = command.kind === 'request-follow' || command.kind === 'request-own-follow';
  const names = { kind: command.kind, task: `feed ${command.kind}`, deadline: readsUpstream };
  return runListenerCommand(
    deps,
    args,
    names,
    async ({ workspaceId, channelId, userId, correlationId, render, calls }) => {
      switch (command.kind) {
        case 'feed-subscribe':
          return feed.subscribe(
            {
              workspaceId,
              channelId,
              channelName: args.command.channel_name,
              userId,
              correlationId,
              stockroomId: command.stockroomId,
              kinds: command.kinds,
            },
            // One attempt: a retried confirmation after a 5xx or a timeout could appear twice in the channel.
            singleAttemptClient(args.client, deps),
            calls,
          );
        case 'feed-cancel':
          return feed.unsubscribe(workspaceId, channelId);
        case 'feed-list':
          return feed.list(workspaceId, render);
        case 'request-follow':
          return feed.follow(workspaceId, userId, command.id, correlationId, calls);
        case 'request-unfollow':
          return feed.unfollow(workspaceId, userId, command.id);
        case 'request-own-follow':
          return feed.followOwn(
            workspaceId,
            { id: userId, email: () => emailOf(args.client, userId) },
            correlationId,
            calls,
          );
        case 'request-own-unfollow':
          return feed.unfollowOwn(workspaceId, userId);
      }
    },
  );
}
