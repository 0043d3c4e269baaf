import { type Logger, newCorrelationId } from '../../lib/logger.js';
import { type Message, renderRestartingCommand } from '../../render/index.js';
import type { RenderContext } from '../../render/types.js';
import { sendResponse } from '../deliver.js';
import type { SlackDeps } from '../deps.js';
import { failureMessage } from '../failures.js';
import { ackInWorkspace, type CommandArgs } from './answer-command.js';

/** What a listener command's answer is built from. */
export interface ListenerCommandContext {
  workspaceId: string;
  channelId: string;
  userId: string;
  correlationId: string;
  render: RenderContext;
}

/**
 * The frame of the commands that change who the bot tells (`/estoque resumo …`, `/estoque alertas …`, the follows of
 * `/solicitacao`): acked at once, the answer built in a background task and given ephemerally through
 * response_url (or, when that fails for good, another way: sendResponse); a failure becomes its message (and the
 * first notice of a broken link a DM to the admin who linked).
 */
export async function runListenerCommand(
  deps: SlackDeps,
  args: CommandArgs,
  /** The command's kind (logged) and the background task's name. */
  names: { kind: string; task: string },
  answer: (ctx: ListenerCommandContext, logger: Logger) => Promise<Message | null>,
): Promise<void> {
  const workspaceId = await ackInWorkspace(args);
  if (!workspaceId) return;
  const channelId = args.command.channel_id;
  const userId = args.command.user_id;
  const correlationId = newCorrelationId();
  const logger = deps.logger.child({ correlationId, workspaceId, command: names.kind });
  const recipient = { client: args.client, userId, channelId };
  const options = { response_type: 'ephemeral', replace_original: false } as const;
  /** Set once the person was told the bot is restarting: the reply is not sent after that notice. */
  let abandoned = false;
  await deps.tasks.run(
    names.task,
    async () => {
      const render = { timeZone: deps.config.DIGEST_TZ, now: deps.now() };
      let reply: Message | null;
      try {
        reply = await answer({ workspaceId, channelId, userId, correlationId, render }, logger);
      } catch (error) {
        const { count, windowMs } = deps.config.UPSTREAM_RATE_LIMIT;
        reply = failureMessage(error, null, correlationId, render, logger, { limit: count, windowMs });
      }
      if (reply && !abandoned) await sendResponse(deps, args.respond, reply, options, logger, recipient);
    },
    {
      // SIGTERM before it finished (or after shutdown began): the person is told, not left in silence.
      onAbandon: async () => {
        abandoned = true;
        const command = `${args.command.command} ${args.command.text}`.trim();
        await sendResponse(deps, args.respond, renderRestartingCommand(command), options, logger, recipient);
      },
    },
  );
}
