import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import { renderHelpModal } from '../../render/home-modals.js';
import { ActionIds, ActionPatterns } from '../../render/ids.js';
import { requestIdOfButton } from '../actions/follow.js';
import { type Recipient, tellPerson } from '../deliver.js';
import { helpOptionsOf, type SlackDeps } from '../deps.js';
import { linkAdminVerdict, refusalOf, workspaceIdOf } from '../slack-users.js';
import { openModal } from '../views/open-modal.js';
import { publishHome } from './home-publish.js';
import { openMaterialModal } from './material-modal.js';
import { tellModalNotOpened } from './notices.js';
import { openRequestLookup } from './request-modal.js';

type HomeButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

/** Who clicked a Home button, for what cannot be shown on the Home (no response_url, no channel: a DM). */
function clicker({ client, body }: HomeButtonArgs): Recipient {
  return { client, userId: body.user.id, channelId: body.channel?.id };
}

export function registerHomeTab(app: App, deps: SlackDeps): void {
  app.event('app_home_opened', async ({ event, client, context }) => {
    // The Messages tab opens with the same event: only the Home tab is built.
    if (event.tab !== 'home') return;
    const workspaceId = workspaceIdOf(context);
    if (!workspaceId || typeof event.user !== 'string') return;
    await publishHome(deps, client, workspaceId, event.user, { workspace: context });
  });

  const onHome =
    (name: string, work: (args: HomeButtonArgs, workspaceId: string) => Promise<void>) =>
    async (args: HomeButtonArgs) => {
      await args.ack();
      const workspaceId = workspaceIdOf(args.context);
      if (!workspaceId) return;
      await deps.tasks.run(name, () => work(args, workspaceId));
    };

  app.action<BlockAction<ButtonAction>>(
    ActionIds.homeRefresh,
    onHome('home refresh', ({ client, body, context }, workspaceId) =>
      publishHome(deps, client, workspaceId, body.user.id, { refresh: true, workspace: context }),
    ),
  );
  app.action<BlockAction<ButtonAction>>(
    ActionIds.homeUnlink,
    onHome('home unlink', async ({ client, body, context, respond }, workspaceId) => {
      const userId = body.user.id;
      const verdict = await linkAdminVerdict(client, userId, deps.config.BOT_ADMINS, context);
      if (verdict.allowed) {
        await deps.linkService.unlink(workspaceId);
      } else {
        deps.logger.warn({ workspaceId, reason: verdict.reason }, 'home: unlink refused');
        // A Home click has no response_url: tellPerson's fallback tells the person why, by DM.
        await tellPerson(deps, respond, refusalOf(verdict), { client, userId });
      }
      await publishHome(deps, client, workspaceId, userId, { workspace: context });
    }),
  );
  app.action<BlockAction<ButtonAction>>(
    ActionPatterns.homeUnfollow,
    onHome('home unfollow', async ({ client, body, action, context }, workspaceId) => {
      const requestId = requestIdOfButton(action.value);
      if (requestId !== null) await deps.feedSubscriptions.unfollow(workspaceId, body.user.id, requestId);
      await publishHome(deps, client, workspaceId, body.user.id, { workspace: context });
    }),
  );
  // The trigger lasts 3 s: these open their modal before anything else.
  app.action<BlockAction<ButtonAction>>(ActionIds.homeSearch, async (args) => {
    await args.ack();
    const workspaceId = workspaceIdOf(args.context);
    if (workspaceId)
      await openMaterialModal(deps, args.client, args.body.trigger_id, workspaceId, clicker(args));
  });
  app.action<BlockAction<ButtonAction>>(ActionIds.homeLookup, async (args) => {
    await args.ack();
    await openRequestLookup(
      deps,
      args.client,
      args.body.trigger_id,
      workspaceIdOf(args.context),
      clicker(args),
    );
  });
  app.action<BlockAction<ButtonAction>>(ActionIds.homeHelp, async (args) => {
    await args.ack();
    const help = renderHelpModal({ timeZone: deps.config.DIGEST_TZ, now: deps.now() }, helpOptionsOf(deps));
    const opening = await openModal(deps, args.client, args.body.trigger_id, help);
    if (!opening.opened)
      await tellModalNotOpened(deps, opening.error, 'help modal not opened', clicker(args));
  });
}
