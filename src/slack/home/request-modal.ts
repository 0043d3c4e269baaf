import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
  MessageShortcut,
  RespondFn,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { findRequestNumbersInParts } from '../../domain/requests/request-refs.js';
import { decodeRoute, type Route } from '../../domain/routes.js';
import { errFields, newCorrelationId } from '../../lib/logger.js';
import {
  lookupNumberError,
  offersRetry,
  renderAnswerModal,
  renderLoadingModal,
  renderNoRequestFoundModal,
  renderRequestChoiceModal,
  renderRequestFallbackModal,
  renderRequestLookupModal,
  renderRequestNotShown,
} from '../../render/home-modals.js';
import { ActionPatterns, BlockIds, InputActionIds, ShortcutIds, ViewIds } from '../../render/ids.js';
import { type Message, renderStaleButton } from '../../render/index.js';
import { type Recipient, tellPerson } from '../deliver.js';
import type { SlackDeps } from '../deps.js';
import { failureMessage } from '../failures.js';
import { parseRequestNumber } from '../parse/commands.js';
import { visibleMessageParts } from '../parse/message-text.js';
import { submittedWorkspaceId, viewForWorkspace, workspaceIdOf } from '../slack-users.js';
import { type ModalRef, openModal } from '../views/open-modal.js';
import { refusedForContent, updateModal } from '../views/update-modal.js';
import { tellModalNotOpened } from './notices.js';

const MAX_INT32 = 2_147_483_647;

function title(id: number): string {
  return `Solicitação ${id}`;
}

/** `Consultar solicitação`: the modal that asks the number. */
export async function openRequestLookup(
  deps: SlackDeps,
  client: WebClient,
  triggerId: string,
  workspaceId: string | null,
  /** Who clicked: told when the modal cannot be opened (a Home click has no response_url: by DM). */
  recipient: Recipient,
): Promise<void> {
  const opening = await openModal(
    deps,
    client,
    triggerId,
    viewForWorkspace(renderRequestLookupModal(), workspaceId),
  );
  if (!opening.opened)
    await tellModalNotOpened(deps, opening.error, 'request lookup modal not opened', recipient);
}

/** The request answered as `/solicitacao <id>` would, shown in the modal `modal` (a failure too). */
async function showRequest(
  deps: SlackDeps,
  client: WebClient,
  /** `hash`: the view's as this click left it; a later click changes it, and this answer then gives way. */
  where: {
    modal: ModalRef;
    hash?: string | undefined;
    workspaceId: string;
    userId: string;
    /** Where a modal Slack will not update is told (a message shortcut's response_url, else the channel or a DM). */
    channelId?: string | undefined;
    respond?: RespondFn | undefined;
  },
  id: number,
  /** The page of its items (`Anterior`/`Próxima` in the modal). */
  page = 1,
): Promise<void> {
  const correlationId = newCorrelationId();
  const logger = deps.logger.child({
    correlationId,
    workspaceId: where.workspaceId,
    surface: 'request-modal',
  });
  const route: Route = { view: 'request', id, page };
  const render = { timeZone: deps.config.DIGEST_TZ, now: deps.now() };
  let message: Message;
  let ok = true;
  try {
    message = await deps.answers.answer(route, {
      workspaceId: where.workspaceId,
      userId: where.userId,
      correlationId,
      render,
    });
  } catch (error) {
    ok = false;
    const { count, windowMs } = deps.config.UPSTREAM_RATE_LIMIT;
    message = failureMessage(error, route, correlationId, render, logger, { limit: count, windowMs });
  }
  // A failure names the request only when it offered to try again (a timeout, the budget), not a 404. Another choice
  // clicked in this modal meanwhile shows instead of this older answer; a closed modal has nothing to show it in.
  const view = renderAnswerModal(title(id), message, ok || offersRetry(message) ? id : undefined, page);
  const modalLogger = logger.child({ requestId: id });
  let update = await updateModal(client, where.modal, view, where.hash, modalLogger);
  // Refused for what it holds: a plain view in its place, which Slack takes where it refused the answer.
  if (refusedForContent(update))
    update = await updateModal(
      client,
      where.modal,
      renderRequestFallbackModal(title(id), id),
      where.hash,
      modalLogger,
    );
  if (!update.shown && update.why === 'failed') {
    // The modal still says "Buscando…" (until 2026-11-27 it stayed so, nobody told): the person is told beside it,
    // ephemerally through a message shortcut's response_url, else by DM (a modal and the Home have no response_url).
    const recipient = { client, userId: where.userId, channelId: where.channelId };
    await tellPerson(deps, where.respond, renderRequestNotShown(id), recipient, modalLogger);
  }
}

/** Opens a modal saying it is loading (within the trigger's 3 s), then shows the request in it. */
async function openAndShow(
  deps: SlackDeps,
  client: WebClient,
  triggerId: string,
  who: {
    workspaceId: string;
    userId: string;
    channelId?: string | undefined;
    respond?: RespondFn | undefined;
  },
  id: number,
): Promise<void> {
  const opening = await openModal(
    deps,
    client,
    triggerId,
    renderLoadingModal(title(id), `Buscando a solicitação ${id}…`),
  );
  if (!opening.opened) {
    const recipient = { client, userId: who.userId, channelId: who.channelId };
    await tellModalNotOpened(deps, opening.error, 'request modal not opened', recipient, who.respond);
    return;
  }
  // A modal whose reply was lost has no hash known: its answer updates it without one.
  const target = { ...who, modal: opening.ref, hash: opening.hash };
  await deps.tasks.run('request modal', () => showRequest(deps, client, target, id));
}

export function registerRequestModals(app: App, deps: SlackDeps): void {
  app.shortcut<MessageShortcut>(
    { callback_id: ShortcutIds.openRequest, type: 'message_action' },
    async ({ ack, shortcut, client, context, respond }) => {
      await ack();
      const workspaceId = workspaceIdOf(context);
      if (!workspaceId) return;
      // The payload has a response_url: a modal that cannot be opened is told there, ephemerally.
      const who = { workspaceId, userId: shortcut.user.id, channelId: shortcut.channel.id, respond };
      // The blocks too: a bot's message (a digest, an alert) has its numbers there, its text only sums up. Each
      // block read on its own: a digest's rows of new requests are offered beside a low-stock line's labelled one.
      const ids = findRequestNumbersInParts(visibleMessageParts(shortcut.message));
      const [only] = ids;
      if (ids.length === 1 && only !== undefined) {
        await openAndShow(deps, client, shortcut.trigger_id, who, only);
        return;
      }
      const view = ids.length === 0 ? renderNoRequestFoundModal() : renderRequestChoiceModal(ids);
      const opening = await openModal(deps, client, shortcut.trigger_id, view);
      if (!opening.opened) {
        const recipient = { client, userId: who.userId, channelId: who.channelId };
        await tellModalNotOpened(deps, opening.error, 'request modal not opened', recipient, respond);
      }
    },
  );

  // A request's button: in a modal (the choice of several numbers) it replaces the modal; on the Home it opens one.
  app.action<BlockAction<ButtonAction>>(
    ActionPatterns.requestOpen,
    async ({ ack, body, action, client, context, respond }) => {
      await ack();
      const workspaceId = workspaceIdOf(context);
      const id = buttonRequestNumber(action.value ?? '');
      if (!workspaceId) return;
      if (id === null) {
        // A button of an older version, or a forged value: said so (a modal and the Home have no response_url: a DM).
        deps.logger.warn({ actionId: action.action_id }, 'request button with an unreadable value');
        const recipient = { client, userId: body.user.id, channelId: body.channel?.id };
        await tellPerson(deps, respond, renderStaleButton(), recipient);
        return;
      }
      const who = { workspaceId, userId: body.user.id };
      if (body.view?.type === 'modal') {
        const viewId = body.view.id;
        const hash = await claimModal(deps, client, viewId, id);
        const where = { ...who, modal: { viewId }, hash, channelId: body.channel?.id, respond };
        await deps.tasks.run('request modal', () => showRequest(deps, client, where, id));
        return;
      }
      // On the Home there is no response_url nor channel: a modal that cannot be opened is told by DM.
      await openAndShow(deps, client, body.trigger_id, { ...who, channelId: body.channel?.id, respond }, id);
    },
  );

  // `Anterior`/`Próxima` of a request shown in a modal: the modal turns to that page (a modal has no response_url).
  app.action<BlockAction<ButtonAction>>(
    ActionPatterns.requestPage,
    async ({ ack, body, action, client, context, respond }) => {
      await ack();
      const workspaceId = workspaceIdOf(context);
      if (!workspaceId) return;
      const route = decodeRoute(action.value);
      if (route?.view !== 'request' || body.view?.type !== 'modal') {
        deps.logger.warn({ actionId: action.action_id }, 'request page button with an unreadable value');
        const recipient = { client, userId: body.user.id, channelId: body.channel?.id };
        await tellPerson(deps, respond, renderStaleButton(), recipient);
        return;
      }
      const viewId = body.view.id;
      const hash = await claimModal(deps, client, viewId, route.id);
      const where = {
        workspaceId,
        userId: body.user.id,
        modal: { viewId },
        hash,
        channelId: body.channel?.id,
        respond,
      };
      await deps.tasks.run('request modal page', () =>
        showRequest(deps, client, where, route.id, route.page),
      );
    },
  );

  app.view<ViewSubmitAction>(ViewIds.requestLookup, (args) => submitLookup(deps, args));
}

/**
 * A click in the request modal shows it loading at once; the hash that update leaves is what the click's answer
 * updates with, so a later click in the same modal changes it, and wins (undefined when the update failed).
 */
function claimModal(
  deps: SlackDeps,
  client: WebClient,
  viewId: string,
  id: number,
): Promise<string | undefined> {
  return client.views
    .update({ view_id: viewId, view: renderLoadingModal(title(id), `Buscando a solicitação ${id}…`) })
    .then(
      (updated) => updated.view?.hash,
      (error: unknown) => {
        deps.logger.warn(errFields(error), 'request modal not updated');
        return undefined;
      },
    );
}

type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

async function submitLookup(deps: SlackDeps, args: ViewArgs): Promise<void> {
  const { body, view, client } = args;
  // A submission may come without its form state: nothing typed, asked for again (not a throw the request guard
  // answers with an empty body, which closed the modal without a word).
  const typed = view.state?.values?.[BlockIds.requestNumber]?.[InputActionIds.requestNumber]?.value;
  // Read as `/solicitacao <número>` reads its number: `SM 1312`, `１３１２`, `1.312` and a trailing zero-width space too.
  const id = parseRequestNumber(typeof typed === 'string' ? typed : '');
  const workspaceId = submittedWorkspaceId(view, args.context);
  if (id === null || !workspaceId) {
    await args.ack({ response_action: 'errors', errors: { [BlockIds.requestNumber]: lookupNumberError() } });
    return;
  }
  // The modal turns into the request: loading now (a view_submission is answered within 3 s), the answer after.
  await args.ack({
    response_action: 'update',
    view: renderLoadingModal(title(id), `Buscando a solicitação ${id}…`),
  });
  const where = { modal: { viewId: view.id }, workspaceId, userId: body.user.id };
  await deps.tasks.run('request lookup', () => showRequest(deps, client, where, id));
}

/** A request button's value as the bot writes it: digits (a leading `#` allowed), a positive int32. */
function buttonRequestNumber(text: string): number | null {
  const match = /^\s*#?\s*(\d{1,10})\s*$/.exec(text);
  if (!match?.[1]) return null;
  const id = Number(match[1]);
  return id >= 1 && id <= MAX_INT32 ? id : null;
}
