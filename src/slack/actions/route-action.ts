import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { decodeRoute, isShareable } from '../../domain/routes.js';
import { orAfter } from '../../lib/deadline.js';
import { errFields } from '../../lib/logger.js';
import { renderStaleButton } from '../../render/index.js';
import type { ShareClick } from '../../store/seen-requests.js';
import {
  type DeliveryMode,
  deliverRoute,
  respondRestarting,
  type ShownState,
  tellPerson,
} from '../deliver.js';
import type { SlackDeps } from '../deps.js';
import { receivedAtOf, STORE_CHECK_MS } from '../request-guard.js';
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
  // No answer offers to share a route that is not shareable (one person's follows): such a click was not made on one.
  if (!route || !workspaceId || (kind === 'share' && !isShareable(route))) {
    deps.logger.warn({ actionId: args.action.action_id }, 'button with an unreadable value');
    await tellPerson(deps, args.respond, renderStaleButton(), {
      client: args.client,
      userId: args.body.user.id,
      channelId: args.body.channel?.id,
    });
    return;
  }
  const shareClick = kind === 'share' ? shareClickOf(args, workspaceId) : null;
  if (shareClick !== null && !(await firstShareClick(deps, shareClick))) {
    deps.logger.info(
      { workspaceId, actionId: args.action.action_id },
      'share clicked again: nothing more shared',
    );
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
    async () => {
      const posted = await deliverRoute(deps, {
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
      });
      // A share its person was told failed may be clicked again at once.
      if (!posted && shareClick !== null) {
        await deps.seenRequests.forgetShareClick(shareClick).catch((error: unknown) => {
          deps.logger.warn({ workspaceId, ...errFields(error) }, 'share click not released');
        });
      }
    },
    { onAbandon: () => respondRestarting(deps, args.respond, route, shown, mode) },
  );
}

function shareClickOf(args: ButtonArgs, workspaceId: string): ShareClick {
  const container = args.body.container as { message_ts?: unknown; channel_id?: unknown } | undefined;
  return {
    workspaceId,
    channelId: args.body.channel?.id ?? String(container?.channel_id ?? ''),
    messageTs: String(container?.message_ts ?? args.body.message?.ts ?? ''),
    actionId: args.action.action_id,
    value: args.action.value ?? '',
    userId: args.body.user.id,
  };
}

/**
 * "Compartilhar no canal" posts for everyone: a double click (two block_actions) would post the answer twice. The
 * first click claims it for SHARE_CLICK_WINDOW_MS across replicas; the same person's click on the same button of
 * the same message within it is acked and dropped. A store that does not answer within STORE_CHECK_MS lets the
 * click through, as the replay check does: one share too many rather than none. A share that
 * failed (its person told why) is released, so the click can be made again at once.
 */
function firstShareClick(deps: SlackDeps, click: ShareClick): Promise<boolean> {
  const claim = deps.seenRequests.firstShareClick(click).catch(() => true);
  return orAfter(claim, STORE_CHECK_MS, () => true);
}
