import type { AnswerCallOptions } from '../../domain/workspace.js';
import { systemClock } from '../../lib/clock.js';
import { type Logger, newCorrelationId } from '../../lib/logger.js';
import {
  type Message,
  renderCommandTimeout,
  renderDoneInChannel,
  renderRestartingCommand,
} from '../../render/index.js';
import type { RenderContext } from '../../render/types.js';
import { onScreen, type ShownState, sendResponse, showing } from '../deliver.js';
import type { SlackDeps } from '../deps.js';
import { failureMessage } from '../failures.js';
import { AnswerProgress, DEFAULT_ANSWER_TIMING, firstMessageThenAnswer } from '../first-message.js';
import { receivedAtOf } from '../request-guard.js';
import { ackInWorkspace, type CommandArgs } from './answer-command.js';

/** What a listener command's answer is built from. */
export interface ListenerCommandContext {
  workspaceId: string;
  channelId: string;
  userId: string;
  correlationId: string;
  render: RenderContext;
  /** For the command's interactive upstream reads: its deadline and the observer that shows its place in the queue. */
  calls: AnswerCallOptions;
}

export interface ListenerCommandNames {
  /** The command's kind (logged). */
  kind: string;
  /** The background task's name. */
  task: string;
  /**
   * True for a command whose upstream reads are cut at the answer deadline (a follow). False (the default) for one
   * that is not (`resumo agora` builds and posts a digest at the digest's priority; a subscription waits on Slack
   * and the store): its first message still comes, and its answer replaces it whenever it is done.
   */
  deadline?: boolean;
}

/**
 * The frame of the commands that change who the bot tells (`/estoque resumo …`, `/estoque alertas …`, the follows of
 * `/solicitacao`): acked at once, the answer built in a background task and given ephemerally through
 * response_url (or, when that fails for good, another way: sendResponse); a failure becomes its message (and the
 * first notice of a broken link a DM to the admin who linked). Like every answer (first-message.ts), one that is
 * slow (a follow waiting for a budget slot, a digest being built) shows a first message, "consultando…" or the
 * place in the queue, which the answer then replaces; past the deadline, the timeout notice replaces it.
 */
export async function runListenerCommand(
  deps: SlackDeps,
  args: CommandArgs,
  names: ListenerCommandNames,
  answer: (ctx: ListenerCommandContext, logger: Logger) => Promise<Message | null>,
): Promise<void> {
  const workspaceId = await ackInWorkspace(args);
  if (!workspaceId) return;
  const channelId = args.command.channel_id;
  const userId = args.command.user_id;
  const correlationId = newCorrelationId();
  const logger = deps.logger.child({ correlationId, workspaceId, command: names.kind });
  const recipient = { client: args.client, userId, channelId };
  const command = `${args.command.command} ${args.command.text}`.trim();
  const clock = deps.clock ?? systemClock;
  const arrivedAt = receivedAtOf(args.context) ?? clock.monotonic();
  const configured = deps.answerTiming ?? DEFAULT_ANSWER_TIMING;
  const timing =
    names.deadline === true ? configured : { ...configured, deadlineMs: Number.POSITIVE_INFINITY };
  /** What the person has on screen (a first message) and whether they were told the bot is restarting. */
  const shown: ShownState = { firstMessage: false };
  const send = (message: Message, replacing: boolean) =>
    sendResponse(
      deps,
      args.respond,
      message,
      { response_type: 'ephemeral', replace_original: replacing },
      logger,
      recipient,
    );
  await deps.tasks.run(
    names.task,
    async () => {
      const started = deps.now();
      const progress = new AnswerProgress();
      const calls: AnswerCallOptions = Number.isFinite(timing.deadlineMs)
        ? { deadline: started + timing.deadlineMs, observer: progress }
        : { observer: progress };
      const built = (async (): Promise<Message | null> => {
        const render = { timeZone: deps.config.DIGEST_TZ, now: started };
        let reply: Message | null;
        try {
          reply = await answer({ workspaceId, channelId, userId, correlationId, render, calls }, logger);
        } catch (error) {
          const { count, windowMs } = deps.config.UPSTREAM_RATE_LIMIT;
          reply = failureMessage(error, null, correlationId, render, logger, { limit: count, windowMs });
        }
        // Built; requests that came in meanwhile get their ack before it is sent.
        progress.built();
        await deps.tasks.checkpoint();
        return reply;
      })();
      /** The answer was a post in the channel (null): sent only to replace a first message on screen. */
      let toldInChannel = false;
      await firstMessageThenAnswer({
        clock,
        timing,
        progress,
        arrivedAt,
        logger,
        answer: built.then((reply) => {
          toldInChannel = reply === null;
          return reply ?? renderDoneInChannel();
        }),
        saved: async () => null,
        timedOut: () => renderCommandTimeout(command, correlationId, { upstream: progress.calling }),
        send: async (message, replacing) => {
          if (shown.abandoned) {
            logger.info('answer after the restart notice; not sent');
            return;
          }
          if (toldInChannel && !replacing) return;
          await showing(shown, send(message, replacing));
        },
      });
    },
    {
      // SIGTERM before it finished (or after shutdown began): the person is told, not left in silence.
      onAbandon: async () => {
        shown.abandoned = true;
        await send(renderRestartingCommand(command), await onScreen(shown));
      },
    },
  );
}
