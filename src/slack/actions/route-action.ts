import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { decodeRoute } from '../../domain/routes.js';
import { renderStaleButton } from '../../render/index.js';
import {
  type DeliveryMode,
  deliverRoute,
  respondRestarting,
  type ShownState,
  tellPerson,
} from '../deliver.js';
import type { SlackDeps } from '../deps.js';
import { receivedAtOf } from '../request-guard.js';
import { workspaceIdOf } from '../slack-users.js';

export type ButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

/**
 * A button that carries a route: ack at once, then answer the route for the workspace of the signed payload.
 * On an ephemeral message the answer replaces it; on a channel message (a shared answer) the person who
 * clicked gets their own ephemeral answer and the channel message stays as it was.
 */
export async function answerButton(
  deps: SlackDeps,
  args: ButtonArgs,
  kind: 'navigate' | 'refresh' | 'share' | 'retry',
): Promise<void> {
  await args.ack();
  const route = decodeRoute(args.action.value);
  const workspaceId = workspaceIdOf(args.context);
  if (!route || !workspaceId) {
    deps.logger.warn({ actionId: args.action.action_id }, 'button with an unreadable value');
    await tellPerson(deps, args.respond, renderStaleButton(), {
      client: args.client,
      userId: args.body.user.id,
      channelId: args.body.channel?.id,
    });
    return;
  }
  const onEphemeral = args.body.container?.is_ephemeral === true;
  // On a message everyone sees, the click's response_url would replace that very message: the answer, a first
  // message and a restart notice all go beside it.
  let mode: DeliveryMode = onEphemeral ? 'replace' : 'beside';
  if (kind === 'share') mode = 'share';
  const shown: ShownState = { firstMessage: false };
  await deps.tasks.run(
    `button ${kind}`,
    () =>
      deliverRoute(deps, {
        route,
        workspaceId,
        userId: args.body.user.id,
        client: args.client,
        respond: args.respond,
        mode,
        bypassCache: kind === 'refresh',
        source: 'button',
        shown,
        channelId: args.body.channel?.id,
        receivedAt: receivedAtOf(args.context),
      }),
    { onAbandon: () => respondRestarting(deps, args.respond, route, shown, mode) },
  );
}
