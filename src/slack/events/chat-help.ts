import type { App } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { errFields, newCorrelationId } from '../../lib/logger.js';
import { renderChatHelp } from '../../render/index.js';
import type { SlackDeps } from '../deps.js';
import { workspaceIdOf } from '../slack-users.js';
import { singleAttemptClient } from '../web-clients.js';

/** What the two events share that tells who wrote the message. */
interface Written {
  user?: string;
  bot_id?: string;
  subtype?: string;
  edited?: unknown;
}

/**
 * Only a person's new message gets an answer: never the bot's own (its help would answer itself), another bot's
 * (two bots would answer each other for ever), an edit, or any other subtype (deletions, joins, files shared).
 */
function fromAPerson(message: Written, botUserId: string | undefined): boolean {
  return (
    message.subtype === undefined &&
    message.edited === undefined &&
    message.bot_id === undefined &&
    typeof message.user === 'string' &&
    message.user !== '' &&
    message.user !== botUserId
  );
}

/**
 * `@estoque-bot` mentions (`app_mention`, answered in a thread of the message) and messages in the bot's DM
 * (`message.im`, answered in the DM, in the thread when the message was in one) get a short help: the bot reads
 * no conversation, only commands.
 */
export function registerChatHelp(app: App, deps: SlackDeps): void {
  const answer = async (
    client: WebClient,
    where: { channel: string; threadTs: string | undefined; workspaceId: string | null; kind: string },
  ) => {
    const logger = deps.logger.child({
      correlationId: newCorrelationId(),
      workspaceId: where.workspaceId,
      kind: where.kind,
    });
    const help = renderChatHelp();
    try {
      // One attempt: after a 5xx or a timeout the help may be in the thread already.
      await singleAttemptClient(client, deps).chat.postMessage({
        channel: where.channel,
        text: help.text,
        blocks: help.blocks,
        ...(where.threadTs !== undefined && { thread_ts: where.threadTs }),
      });
      logger.info('chat help sent');
    } catch (error) {
      logger.warn(errFields(error), 'chat help not sent');
    }
  };

  app.event('app_mention', async ({ event, context, client }) => {
    if (!fromAPerson(event, context.botUserId)) return;
    await answer(client, {
      channel: event.channel,
      threadTs: event.thread_ts ?? event.ts,
      workspaceId: workspaceIdOf(context),
      kind: 'mention',
    });
  });

  app.event('message', async ({ event, context, client }) => {
    if (event.channel_type !== 'im' || !fromAPerson(event, context.botUserId)) return;
    await answer(client, {
      channel: event.channel,
      threadTs: 'thread_ts' in event ? event.thread_ts : undefined,
      workspaceId: workspaceIdOf(context),
      kind: 'dm',
    });
  });
}
