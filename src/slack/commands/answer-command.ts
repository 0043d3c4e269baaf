import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from '@slack/bolt';
import type { Route } from '../../domain/routes.js';
import { renderNoWorkspace, type SuggestionView } from '../../render/index.js';
import { deliverRoute, respondRestarting, type ShownState } from '../deliver.js';
import type { SlackDeps } from '../deps.js';
import { receivedAtOf } from '../request-guard.js';
import { workspaceIdOf } from '../slack-users.js';
import { respondWithSuggestion } from './suggestion.js';

export type CommandArgs = SlackCommandMiddlewareArgs & AllMiddlewareArgs;

/** Acks the command: empty when it comes from a workspace (whose id it returns), with the reason why not otherwise. */
export async function ackInWorkspace(args: CommandArgs): Promise<string | null> {
  const workspaceId = workspaceIdOf(args.context);
  if (!workspaceId) {
    await args.ack({ response_type: 'ephemeral', ...renderNoWorkspace() });
    return null;
  }
  await args.ack();
  return workspaceId;
}

/**
 * Acks at once, then answers the route in the background through response_url; with a suggestion ("você quis
 * dizer"), on top of that answer.
 */
export async function ackAndAnswer(
  deps: SlackDeps,
  args: CommandArgs,
  route: Route,
  suggestion?: SuggestionView,
): Promise<void> {
  const workspaceId = await ackInWorkspace(args);
  if (!workspaceId) return;
  const shown: ShownState = { firstMessage: false };
  await deps.tasks.run(
    `command ${args.command.command}`,
    () =>
      deliverRoute(deps, {
        route,
        workspaceId,
        userId: args.command.user_id,
        client: args.client,
        respond: suggestion ? respondWithSuggestion(args.respond, suggestion) : args.respond,
        mode: 'new',
        shown,
        channelId: args.command.channel_id,
        receivedAt: receivedAtOf(args.context),
      }),
    { onAbandon: () => respondRestarting(deps, args.respond, route, shown) },
  );
}
