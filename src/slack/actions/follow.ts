import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { newCorrelationId } from '../../lib/logger.js';
import { ActionPatterns } from '../../render/ids.js';
import { type Message, renderStaleButton } from '../../render/index.js';
import { tellPerson } from '../deliver.js';
import type { SlackDeps } from '../deps.js';
import { failureMessage } from '../failures.js';
import { DEFAULT_ANSWER_TIMING } from '../first-message.js';
import { workspaceIdOf } from '../slack-users.js';
import type { ButtonArgs } from './route-action.js';

/** A button value is outside input: only a plain request number is taken. */
export function requestIdOfButton(value: string | undefined): number | null {
  if (value === undefined || !/^[1-9]\d{0,9}$/.test(value)) return null;
  const id = Number(value);
  return id <= 2_147_483_647 ? id : null;
}

/**
 * `Acompanhar` / `Deixar de acompanhar` on a request answer: the one who clicked follows (or stops following)
 * the request; their answer is a new ephemeral message, the message with the button stays as it was (it may be
 * a channel message others see).
 */
export function registerFollowActions(app: App, deps: SlackDeps): void {
  app.action<BlockAction<ButtonAction>>(ActionPatterns.follow, (args) =>
    onFollowButton(deps, args, 'follow'),
  );
  app.action<BlockAction<ButtonAction>>(ActionPatterns.unfollow, (args) =>
    onFollowButton(deps, args, 'unfollow'),
  );
}

async function onFollowButton(
  deps: SlackDeps,
  args: ButtonArgs,
  action: 'follow' | 'unfollow',
): Promise<void> {
  await args.ack();
  const requestId = requestIdOfButton(args.action.value);
  const workspaceId = workspaceIdOf(args.context);
  // When the response_url fails, the reply still reaches the person: in the channel, else by DM.
  const recipient = { client: args.client, userId: args.body.user.id, channelId: args.body.channel?.id };
  if (requestId === null || workspaceId === null) {
    deps.logger.warn({ actionId: args.action.action_id }, 'follow button with an unreadable value');
    await tellPerson(deps, args.respond, renderStaleButton(), recipient);
    return;
  }
  const userId = args.body.user.id;
  const correlationId = newCorrelationId();
  const logger = deps.logger.child({ correlationId, workspaceId, requestId, action });
  await deps.tasks.run(`button ${action}`, async () => {
    let reply: Message;
    try {
      reply =
        action === 'follow'
          ? await deps.feedSubscriptions.follow(workspaceId, userId, requestId, correlationId, {
              // Cut like any answer's reads: a click never waits past the answer deadline.
              deadline: deps.now() + (deps.answerTiming ?? DEFAULT_ANSWER_TIMING).deadlineMs,
            })
          : await deps.feedSubscriptions.unfollow(workspaceId, userId, requestId);
    } catch (error) {
      const { count, windowMs } = deps.config.UPSTREAM_RATE_LIMIT;
      const render = { timeZone: deps.config.DIGEST_TZ, now: deps.now() };
      reply = failureMessage(error, null, correlationId, render, logger, { limit: count, windowMs });
    }
    await tellPerson(deps, args.respond, reply, recipient, logger);
  });
}
