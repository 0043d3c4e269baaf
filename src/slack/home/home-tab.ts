import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
} from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { SerialCoalescer } from '../../lib/coalescer.js';
import { errFields, newCorrelationId } from '../../lib/logger.js';
import { renderHome } from '../../render/home.js';
import { renderHelpModal } from '../../render/home-modals.js';
import { ActionIds, ActionPatterns } from '../../render/ids.js';
import { requestIdOfButton } from '../actions/follow.js';
import { type Recipient, tellPerson } from '../deliver.js';
import type { HomePublishRequest, SlackDeps } from '../deps.js';
import {
  type AdminVerdict,
  emailOf,
  linkAdminVerdict,
  type RequestWorkspace,
  refusalOf,
  workspaceIdOf,
  workspaceOfId,
} from '../slack-users.js';
import { openModal } from '../views/open-modal.js';
import { openMaterialModal } from './material-modal.js';
import { tellModalNotOpened } from './notices.js';
import { openRequestLookup } from './request-modal.js';

type HomeButtonArgs = SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs;

/** Who clicked a Home button, for what cannot be shown on the Home (no response_url, no channel: a DM). */
function clicker({ client, body }: HomeButtonArgs): Recipient {
  return { client, userId: body.user.id, channelId: body.channel?.id };
}

/** Merges the Home publishes asked while one runs: one rerun, a refresh when any of them asked for one. */
export function createHomePublishes(): SerialCoalescer<HomePublishRequest> {
  return new SerialCoalescer<HomePublishRequest>((queued, next) => ({
    ...next,
    refresh: queued.refresh || next.refresh,
  }));
}

/**
 * Builds one user's Home and publishes it. Opening reads only the store and the cache (never upstream, so never
 * a wait on the budget); `refresh` reads the user's requests from upstream at interactive priority first.
 *
 * One build and publish per workspace and user at a time: what is asked meanwhile (30 openings, a click on
 * `Deixar de acompanhar` while `Atualizar` reads upstream) waits and is merged into one rerun after it, so the
 * Home published last is built after the last change asked for, and Slack gets one publish, not one per event.
 */
export async function publishHome(
  deps: SlackDeps,
  client: WebClient,
  workspaceId: string,
  userId: string,
  options: {
    refresh?: boolean;
    /** The request's workspace as Bolt's context has it (org installs); default what the id stands for. */
    workspace?: RequestWorkspace;
  } = {},
): Promise<void> {
  const request: HomePublishRequest = {
    client,
    workspaceId,
    userId,
    refresh: options.refresh ?? false,
    workspace: options.workspace ?? workspaceOfId(workspaceId),
  };
  const key = `${workspaceId}:${userId}`;
  if (deps.homePublishes.busy(key))
    deps.logger.debug({ workspaceId, refresh: request.refresh }, 'home publish merged into the next one');
  await deps.homePublishes.run(key, request, (merged) => buildAndPublish(deps, merged));
}

/** How long a Home remembers that a person was found to be an admin, for when the check cannot be made. */
const ADMIN_MEMORY_MS = 60 * 60_000;

/** Per process (the deps of one app), when each person was last found to be an admin: key workspace:user. */
const adminSeenAt = new WeakMap<SlackDeps, Map<string, number>>();

/**
 * Whether the Home shows the admin controls. A check that could not be made (users.info 429/5xx) keeps the last
 * verdict of the hour, so an admin keeps them through Slack's hiccup, and nobody else ever gets them (the actions
 * behind them check again anyway); never checked, they stay hidden.
 */
function adminOnHome(deps: SlackDeps, key: string, verdict: AdminVerdict): boolean {
  let seen = adminSeenAt.get(deps);
  if (!seen) {
    seen = new Map();
    adminSeenAt.set(deps, seen);
  }
  const now = deps.now();
  if (verdict.allowed) seen.set(key, now);
  else if (verdict.reason !== 'lookup-failed') seen.delete(key);
  else {
    const at = seen.get(key);
    return at !== undefined && now - at < ADMIN_MEMORY_MS;
  }
  return verdict.allowed;
}

async function buildAndPublish(deps: SlackDeps, request: HomePublishRequest): Promise<void> {
  const { client, workspaceId, userId, refresh } = request;
  const correlationId = newCorrelationId();
  const logger = deps.logger.child({ correlationId, workspaceId, surface: 'home' });
  const started = deps.now();
  try {
    const verdict = await linkAdminVerdict(client, userId, deps.config.BOT_ADMINS, request.workspace);
    const isAdmin = adminOnHome(deps, `${workspaceId}:${userId}`, verdict);
    const view = await deps.home.build(
      workspaceId,
      { id: userId, email: () => emailOf(client, userId), isAdmin },
      { refresh, correlationId },
    );
    await client.views.publish({
      user_id: userId,
      view: renderHome(view, { timeZone: deps.config.DIGEST_TZ, now: deps.now() }),
    });
    logger.info({ ms: deps.now() - started, refresh, mine: view.mine.state }, 'home published');
  } catch (error) {
    logger.error(errFields(error), 'home not published');
  }
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
    const help = renderHelpModal({ timeZone: deps.config.DIGEST_TZ, now: deps.now() });
    const opening = await openModal(deps, args.client, args.body.trigger_id, help);
    if (!opening.opened)
      await tellModalNotOpened(deps, opening.error, 'help modal not opened', clicker(args));
  });
}
