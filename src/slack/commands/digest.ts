import type { SlackDeps } from '../deps.js';
import type { EstoqueCommand } from '../parse/commands.js';
import { singleAttemptClient } from '../web-clients.js';
import type { CommandArgs } from './answer-command.js';
import { runListenerCommand } from './listener-command.js';

type DigestCommand = Extract<EstoqueCommand, { kind: `digest-${string}` }>;

/** `/estoque resumo assinar|cancelar|listar|agora`: acked at once, answered through response_url. */
export function handleDigestCommand(
  deps: SlackDeps,
  args: CommandArgs,
  command: DigestCommand,
): Promise<void> {
  // None is cut at an answer's deadline: `resumo agora` builds the digest at its own priority, and the others
  // wait on Slack (the confirmation posted in the channel) and the store alone.
  const names = { kind: command.kind, task: `digest ${command.kind}`, deadline: false };
  return runListenerCommand(deps, args, names, async (ctx) => {
    const { workspaceId, channelId, userId, render } = ctx;
    switch (command.kind) {
      case 'digest-subscribe':
        return deps.digestSubscriptions.subscribe(
          {
            workspaceId,
            channelId,
            channelName: args.command.channel_name,
            userId,
            correlationId: ctx.correlationId,
            hour: command.hour,
            minute: command.minute,
            stockroomId: command.stockroomId,
            weekdaysOnly: command.weekdaysOnly,
          },
          // One attempt: a retried confirmation after a 5xx or a timeout could appear twice in the channel.
          singleAttemptClient(args.client, deps),
          ctx.calls,
        );
      case 'digest-cancel':
        return deps.digestSubscriptions.unsubscribe(workspaceId, channelId);
      case 'digest-list':
        return deps.digestSubscriptions.list(workspaceId, render);
      case 'digest-now':
        return deps.digestSubscriptions.postNow(workspaceId, channelId);
    }
  });
}
