import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  BlockSuggestion,
  ExternalSelectAction,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { errFields, newCorrelationId } from '../../lib/logger.js';
import {
  materialOption,
  renderAnswerModal,
  renderMaterialGone,
  renderMaterialListUnreadable,
  renderMaterialModal,
  renderMaterialNotShown,
  renderMaterialShared,
  renderShareNotPosted,
} from '../../render/home-modals.js';
import { ActionIds, BlockIds, ShortcutIds, ViewIds } from '../../render/ids.js';
import { type Message, type RenderContext, renderStaleButton } from '../../render/index.js';
import { type Recipient, tellPerson } from '../deliver.js';
import type { SlackDeps } from '../deps.js';
import { failureMessage } from '../failures.js';
import { postToResponseUrl, ResponseUrlOutcomeUnknownError } from '../response-url.js';
import { submittedWorkspaceId, viewForWorkspace, viewMetadata, workspaceIdOf } from '../slack-users.js';
import { type ModalRef, openModal } from '../views/open-modal.js';
import { updateModal } from '../views/update-modal.js';
import { tellModalNotOpened } from './notices.js';

/** Slack shows at most 100 options in a select. */
export const MAX_MATERIAL_OPTIONS = 100;
/** Slack waits about 3 s for options; an answer later than this is useless, so an empty list goes instead. */
const SUGGEST_BUDGET_MS = 2_500;
/** The picker asks from this many typed characters (the modal's min_query_length). */
const MIN_QUERY_CHARS = 2;
const MAX_QUERY_CHARS = 100;

function renderContext(deps: SlackDeps): RenderContext {
  return { timeZone: deps.config.DIGEST_TZ, now: deps.now() };
}

/**
 * Opens `Buscar material` (the trigger lasts 3 s, so before anything else), then warms the material list: when
 * nothing is saved it is read once at interactive priority (at most one read per workspace in flight, none for a
 * while after one failed), and the modal says meanwhile that the list is being read, then that it could not be.
 * Keystrokes never ask upstream.
 */
export async function openMaterialModal(
  deps: SlackDeps,
  client: WebClient,
  triggerId: string,
  workspaceId: string,
  /** Who asked: told when the modal cannot be opened (neither the shortcut nor the Home has a response_url). */
  recipient: Recipient,
): Promise<void> {
  const opening = await openModal(
    deps,
    client,
    triggerId,
    viewForWorkspace(renderMaterialModal(null, renderContext(deps)), workspaceId),
  );
  if (!opening.opened) {
    await tellModalNotOpened(deps, opening.error, 'material modal not opened', recipient);
    return;
  }
  // A modal whose views.open reply was lost is named by its external_id, with no hash known: its first update goes
  // without one (a material picked before it would be overwritten; with nothing saved there is nothing to pick).
  let modal: ModalRef = opening.ref;
  let hash = opening.hash;
  await deps.tasks.run('warm material list', async () => {
    const correlationId = newCorrelationId();
    const logger = deps.logger.child({ correlationId, workspaceId, surface: 'material-picker' });
    /** Shows `view` unless the person moved on (picked a material: a newer hash) or closed the modal. */
    const show = async (view: ModalView): Promise<boolean> => {
      const update = await updateModal(client, modal, viewForWorkspace(view, workspaceId), hash, logger);
      if (update.shown) {
        hash = update.hash;
        modal = update.ref;
      }
      return update.shown;
    };
    const failed = (error: unknown) =>
      renderAnswerModal('Buscar material', pickerFailure(deps, error, correlationId, workspaceId));
    try {
      const ws = await deps.workspaces.resolve(workspaceId, 'interactive', correlationId);
      const warm = await deps.materials.warmList(ws);
      if (warm.state === 'saved') return;
      if (warm.state === 'failed') {
        await show(renderAnswerModal('Buscar material', renderMaterialListUnreadable()));
        return;
      }
      // Read through the cache: an opening on any replica meanwhile shares this read and its outcome.
      const reading = await show(renderMaterialModal(null, renderContext(deps), 'listReading'));
      try {
        await warm.done;
        if (reading) await show(renderMaterialModal(null, renderContext(deps)));
      } catch (error) {
        await show(failed(error));
      }
    } catch (error) {
      // Not linked, a broken link, the store down: the modal says so instead of suggesting nothing.
      await show(failed(error));
    }
  });
}

export function registerMaterialModal(app: App, deps: SlackDeps): void {
  app.shortcut(
    { callback_id: ShortcutIds.searchMaterial, type: 'shortcut' },
    async ({ ack, shortcut, client, context }) => {
      await ack();
      const workspaceId = workspaceIdOf(context);
      if (workspaceId)
        await openMaterialModal(deps, client, shortcut.trigger_id, workspaceId, {
          client,
          userId: shortcut.user.id,
        });
    },
  );

  app.options<'block_suggestion'>(ActionIds.materialPick, async ({ ack, body, context }) => {
    const options = await suggestOptions(deps, workspaceIdOf(context), (body as BlockSuggestion).value);
    await ack({ options });
  });

  app.action<BlockAction<ExternalSelectAction>>(
    ActionIds.materialPick,
    async ({ ack, body, action, client, context, respond }) => {
      await ack();
      const workspaceId = workspaceIdOf(context);
      const materialId = Number(action.selected_option?.value);
      const view = body.view;
      if (!workspaceId || !view) return;
      if (!Number.isSafeInteger(materialId) || materialId <= 0) {
        // An option of an older version, or a forged value: said so (a modal has no response_url: a DM).
        deps.logger.warn({ actionId: action.action_id }, 'material option with an unreadable value');
        const recipient = { client, userId: body.user.id, channelId: body.channel?.id };
        await tellPerson(deps, respond, renderStaleButton(), recipient);
        return;
      }
      await deps.tasks.run('material picked', async () => {
        const correlationId = newCorrelationId();
        const logger = deps.logger.child({ correlationId, workspaceId, surface: 'material-picker' });
        // The hash of the view this choice leaves: a later choice in the same modal changes it, and its answer
        // wins however late this one lands.
        const loading = renderMaterialModal(null, renderContext(deps), 'materialLoading');
        const first = await updateModal(
          client,
          { viewId: view.id },
          viewForWorkspace(loading, workspaceId),
          undefined,
          logger,
        );
        if (!first.shown && first.why === 'closed') return;
        // Not shown for another reason: the answer below still tries, without a hash.
        const hash = first.shown ? first.hash : undefined;
        let shown: ReturnType<typeof renderMaterialModal>;
        try {
          const ws = await deps.workspaces.resolve(workspaceId, 'interactive', correlationId);
          const answer = await deps.materials.byId(ws, materialId);
          shown = renderMaterialModal(
            { match: answer.data, materialId, fetchedAt: answer.freshness.fetchedAt },
            renderContext(deps),
          );
        } catch (error) {
          // The link gone or broken, upstream failing with nothing saved: the modal says so.
          shown = renderAnswerModal(
            'Buscar material',
            pickerFailure(deps, error, correlationId, workspaceId),
          );
        }
        // The workspace rides along: the share's submission may name only an org install's enterprise. Another
        // material chosen meanwhile shows instead of this older one; a closed modal has nobody to tell.
        const shownAt = await updateModal(
          client,
          { viewId: view.id },
          viewForWorkspace(shown, workspaceId),
          hash,
          logger,
        );
        if (!shownAt.shown && shownAt.why === 'failed') {
          // A modal has no response_url: the person is told by DM (tellPerson's fallback).
          await tellPerson(
            deps,
            respond,
            renderMaterialNotShown(),
            {
              client,
              userId: body.user.id,
              channelId: body.channel?.id,
            },
            logger,
          );
        }
      });
    },
  );

  app.view<ViewSubmitAction>(ViewIds.materialModal, (args) => shareMaterial(deps, args));
}

/**
 * Options for what was typed, from the saved list only: none under 2 characters, nor while the list is not saved
 * (the modal says why), at most 100, within Slack's type-ahead time.
 */
async function suggestOptions(deps: SlackDeps, workspaceId: string | null, typed: unknown) {
  const text = typeof typed === 'string' ? typed.trim().slice(0, MAX_QUERY_CHARS) : '';
  if (!workspaceId || [...text].length < MIN_QUERY_CHARS) return [];
  const logger = deps.logger.child({ workspaceId, surface: 'material-picker' });
  const work = (async () => {
    const ws = await deps.workspaces.resolve(workspaceId, 'interactive', newCorrelationId());
    return (await deps.materials.suggest(ws, text, MAX_MATERIAL_OPTIONS)).map(materialOption);
  })();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), SUGGEST_BUDGET_MS);
    timer.unref();
  });
  try {
    const outcome = await Promise.race([work, late]);
    if (outcome === 'late') {
      logger.warn('material options too slow for the type-ahead');
      // A slow store: the next keystroke asks again (it never asks upstream).
      work.catch(() => undefined);
      return [];
    }
    return outcome;
  } catch (error) {
    logger.warn(errFields(error), 'material options unavailable');
    return [];
  } finally {
    clearTimeout(timer);
  }
}

type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/** `Compartilhar`: posts the material in the chosen channel through the response_url Slack gave for it. */
async function shareMaterial(deps: SlackDeps, args: ViewArgs): Promise<void> {
  const { body, view } = args;
  const workspaceId = submittedWorkspaceId(view, args.context);
  const materialId = readMaterialId(view.private_metadata);
  const responseUrl = (body as { response_urls?: { response_url?: unknown }[] }).response_urls?.[0]
    ?.response_url;
  if (typeof responseUrl !== 'string' || !/^https?:\/\//.test(responseUrl)) {
    await args.ack({ response_action: 'errors', errors: { [BlockIds.shareChannel]: 'Escolha um canal.' } });
    return;
  }
  await args.ack();
  if (!workspaceId) return;
  const correlationId = newCorrelationId();
  const logger = deps.logger.child({ correlationId, workspaceId });
  const userId = body.user.id;
  // The modal is closed by now: whatever keeps the material from the channel is told to who shared it.
  const tell = (notice: Message) =>
    tellPerson(
      deps,
      (reply) => postToResponseUrl(responseUrl, typeof reply === 'string' ? { text: reply } : reply),
      notice,
      { client: args.client, userId, channelId: undefined },
      logger,
    );
  if (materialId === null) {
    // A modal of an older version (or a forged one): its material cannot be told.
    logger.warn('material shared from a modal whose private_metadata does not read');
    await deps.tasks.run('share material', () => tell(renderStaleButton()));
    return;
  }
  await deps.tasks.run('share material', async () => {
    let failure: Message | null = null;
    let shared: Message | null = null;
    try {
      const ws = await deps.workspaces.resolve(workspaceId, 'interactive', correlationId);
      const answer = await deps.materials.byId(ws, materialId);
      if (answer.data) shared = renderMaterialShared(answer.data, userId, renderContext(deps));
      else failure = renderMaterialGone(materialId);
    } catch (error) {
      failure = pickerFailure(deps, error, correlationId, workspaceId);
    }
    if (shared) {
      try {
        // Retried as every response_url post, but never posted twice in the channel (response-url.ts).
        await postToResponseUrl(responseUrl, {
          response_type: 'in_channel',
          text: shared.text,
          blocks: shared.blocks,
        });
      } catch (error) {
        logger.warn(errFields(error), 'shared material not posted');
        // It may be in the channel already: nothing more is said then.
        if (!(error instanceof ResponseUrlOutcomeUnknownError)) failure = renderShareNotPosted();
      }
    }
    if (failure) await tell(failure);
  });
}

function pickerFailure(deps: SlackDeps, error: unknown, correlationId: string, workspaceId: string): Message {
  const logger = deps.logger.child({ correlationId, workspaceId, surface: 'material-picker' });
  const { count, windowMs } = deps.config.UPSTREAM_RATE_LIMIT;
  return failureMessage(error, null, correlationId, renderContext(deps), logger, { limit: count, windowMs });
}

function readMaterialId(raw: string | undefined): number | null {
  const value = viewMetadata(raw).materialId;
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null;
}
