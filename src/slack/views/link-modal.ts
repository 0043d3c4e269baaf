import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
  RespondFn,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { LinkInput, LinkOutcome } from '../../domain/links/link-service.js';
import { newCorrelationId } from '../../lib/logger.js';
import { ActionIds, BlockIds, InputActionIds, ViewIds } from '../../render/ids.js';
import {
  linkFieldErrors,
  type Message,
  type RenderContext,
  renderLinked,
  renderLinkModal,
  renderLinkUnavailable,
} from '../../render/index.js';
import { tellPerson } from '../deliver.js';
import type { SlackDeps } from '../deps.js';
import { publishHome } from '../home/home-publish.js';
import { tellModalNotOpened } from '../home/notices.js';
import { isSlackResponseUrl, postToResponseUrl } from '../response-url.js';
import {
  type AdminVerdict,
  linkAdminVerdict,
  refusalOf,
  submittedWorkspaceId,
  viewForWorkspace,
  viewMetadata,
  workspaceIdOf,
} from '../slack-users.js';
import { triggerClient } from '../web-clients.js';
import { openModal } from './open-modal.js';

/**
 * Slack closes a view_submission after 3 s; past this (counted from the submission's arrival, the admin check
 * included) the outcome is posted instead of shown in the modal. Below the request guard's fallback ack (2.8 s).
 */
const MODAL_ANSWER_BUDGET_MS = 2_300;

type ViewArgs = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;
type StateValues = ViewSubmitAction['view']['state']['values'];

interface Metadata {
  channelId?: string;
  responseUrl?: string;
  /** Opened from the App Home: the Home is published again once linked. */
  home?: boolean;
}

export function registerLinkModal(app: App, deps: SlackDeps): void {
  app.view<ViewSubmitAction>(ViewIds.linkModal, (args) => submitLink(deps, args));

  // `Tentar de novo` after a link attempt that could not finish while the modal was open.
  app.action<BlockAction<ButtonAction>>(
    ActionIds.openLinkModal,
    async ({ ack, body, client, context, respond }) => {
      await ack();
      // The lookup and views.open share the trigger's 3 s: both on the trigger policy (1.3 s each at most).
      const verdict = await linkAdminVerdict(
        triggerClient(client, deps),
        body.user.id,
        deps.config.BOT_ADMINS,
        context,
      );
      // Clicked on the Home there is no response_url: the answer goes by DM (or in the channel) instead.
      const recipient = { client, userId: body.user.id, channelId: body.channel?.id };
      if (!verdict.allowed) {
        deps.logger.info({ userId: body.user.id, reason: verdict.reason }, 'link refused');
        await tellPerson(deps, respond, refusalOf(verdict), recipient);
        return;
      }
      const metadata = JSON.stringify(
        body.view?.type === 'home'
          ? { home: true }
          : { channelId: body.channel?.id, responseUrl: body.response_url },
      );
      const view = viewForWorkspace(
        { ...renderLinkModal(), private_metadata: metadata },
        workspaceIdOf(context),
      );
      const opening = await openModal(deps, client, body.trigger_id, view);
      // Told as every other modal that did not open (until 2026-11-27 a Home click got a DM with /estoque's usage).
      if (!opening.opened)
        await tellModalNotOpened(deps, opening.error, 'link modal not opened', recipient, respond);
    },
  );
}

async function submitLink(deps: SlackDeps, args: ViewArgs): Promise<void> {
  const arrived = deps.now();
  const { body, view, client } = args;
  const correlationId = newCorrelationId();
  const logger = deps.logger.child({ correlationId });
  const metadata = readMetadata(view.private_metadata, deps.config.SLACK_API_URL);
  // The workspace the modal was opened for: an org-wide install's submission may name only the enterprise, which
  // would link the organisation's id.
  const workspaceId = submittedWorkspaceId(view, args.context);
  const input = readInput(view.state?.values);
  if ('errors' in input) {
    await args.ack({ response_action: 'errors', errors: input.errors });
    return;
  }
  const userId = body.user.id;
  // The form must be answered within Slack's 3 s, the check included: asked with the short trigger policy, and
  // not waited for past the budget (a check that cannot answer in time is a check that failed: nothing is done,
  // and the form says so; left to the request guard's fallback, the form said "não consegui ler o formulário"
  // while the link went on behind it).
  const checkLeft = Math.max(0, MODAL_ANSWER_BUDGET_MS - (deps.now() - arrived));
  const verdict = await Promise.race([
    linkAdminVerdict(triggerClient(client, deps), userId, deps.config.BOT_ADMINS, args.context),
    sleep(checkLeft).then((): AdminVerdict => ({ allowed: false, reason: 'lookup-failed' })),
  ]);
  if (!verdict.allowed || workspaceId === null) {
    if (!verdict.allowed) logger.info({ userId, reason: verdict.reason }, 'link refused');
    await args.ack({ response_action: 'errors', errors: { [BlockIds.linkLogin]: refusalOf(verdict).text } });
    return;
  }
  const attempt = deps.linkService.link(workspaceId, input, userId, correlationId);
  const left = Math.max(0, MODAL_ANSWER_BUDGET_MS - (deps.now() - arrived));
  const outcome = await Promise.race([attempt, sleep(left).then(() => 'slow' as const)]);
  if (outcome === 'slow') {
    // Close the modal now and post the outcome when it comes.
    await args.ack({ response_action: 'clear' });
    await deps.tasks.run('link (slow)', async () => {
      const late = await attempt;
      await postOutcome(deps, metadata, late, input, logger, { client, userId });
      if (metadata.home) await publishHome(deps, client, workspaceId, userId, { workspace: args.context });
    });
    return;
  }
  const errors = fieldErrors(deps, outcome);
  if (errors) {
    await args.ack({ response_action: 'errors', errors });
    return;
  }
  await args.ack({ response_action: 'clear' });
  await postOutcome(deps, metadata, outcome, input, logger, { client, userId });
  if (metadata.home) await publishHome(deps, client, workspaceId, userId, { workspace: args.context });
}

function renderContext(deps: SlackDeps): RenderContext {
  return { timeZone: deps.config.DIGEST_TZ, now: deps.now() };
}

function fieldErrors(deps: SlackDeps, outcome: LinkOutcome): Record<string, string> | null {
  if (outcome.ok) return null;
  if (outcome.field === null) {
    return {
      [BlockIds.linkLogin]: renderLinkUnavailable(
        outcome.reason,
        outcome.retryAt ?? null,
        false,
        null,
        renderContext(deps),
      ).text,
    };
  }
  return linkFieldErrors(outcome.field, outcome.message);
}

async function postOutcome(
  deps: SlackDeps,
  metadata: Metadata,
  outcome: LinkOutcome,
  input: LinkInput,
  logger: SlackDeps['logger'],
  { client, userId }: { client: WebClient; userId: string },
): Promise<void> {
  let message: Message;
  if (outcome.ok) {
    message = renderLinked({
      login: input.login,
      empresaId: input.empresaId,
      unidadeId: input.unidadeId,
      stockroomCount: outcome.stockroomCount,
    });
  } else if (outcome.field === null) {
    message = renderLinkUnavailable(outcome.reason, outcome.retryAt ?? null, true, null, renderContext(deps));
  } else {
    message = renderLinkUnavailable('refused', null, true, outcome.message, renderContext(deps));
  }
  const responseUrl = metadata.responseUrl;
  // From the Home, the Home published again shows a link made; a failure it cannot show goes by DM (below).
  if (!responseUrl && metadata.home && outcome.ok) return;
  // Retried like every response_url post; failing that (or with none), an ephemeral message or a DM.
  const respond: RespondFn = async (args) => {
    if (!responseUrl) throw new Error('no response_url to confirm through');
    return postToResponseUrl(responseUrl, typeof args === 'string' ? { text: args } : args);
  };
  await tellPerson(deps, respond, message, { client, userId, channelId: metadata.channelId }, logger);
}

function readInput(raw: StateValues | null | undefined): LinkInput | { errors: Record<string, string> } {
  // A submission may arrive without its values (`state.values: null`): every field is then missing.
  const values: StateValues = raw !== null && typeof raw === 'object' ? raw : {};
  const text = (block: string, action: string) => {
    const value = values[block]?.[action]?.value;
    return typeof value === 'string' ? value.trim() : '';
  };
  const errors: Record<string, string> = {};
  const login = text(BlockIds.linkLogin, InputActionIds.login);
  const password = values[BlockIds.linkPassword]?.[InputActionIds.password]?.value ?? '';
  const company = text(BlockIds.linkCompany, InputActionIds.company);
  const unit = text(BlockIds.linkUnit, InputActionIds.unit);
  if (login === '' || login.length > 200) errors[BlockIds.linkLogin] = 'Informe o login.';
  if (password === '' || password.length > 200) errors[BlockIds.linkPassword] = 'Informe a senha.';
  const empresaId = positiveInt(company);
  if (empresaId === null) errors[BlockIds.linkCompany] = 'Informe o número da empresa (um inteiro positivo).';
  const unidadeId = unit === '' ? null : positiveInt(unit);
  if (unit !== '' && unidadeId === null)
    errors[BlockIds.linkUnit] = 'A unidade deve ser um inteiro positivo, ou fique vazia.';
  if (Object.keys(errors).length > 0 || empresaId === null) return { errors };
  const endActiveSession = (
    values[BlockIds.linkEndSession]?.[InputActionIds.endSession]?.selected_options ?? []
  ).some((option) => option.value === 'end');
  return { login, password, empresaId, unidadeId, endActiveSession };
}

function positiveInt(text: string): number | null {
  if (!/^\d{1,10}$/.test(text)) return null;
  const value = Number(text);
  return value >= 1 && value <= 2_147_483_647 ? value : null;
}

/** What the modal kept; a response_url only on Slack's host (isSlackResponseUrl). */
function readMetadata(raw: string | undefined, slackApiUrl: string): Metadata {
  const parsed = viewMetadata(raw);
  const responseUrl =
    typeof parsed.responseUrl === 'string' && isSlackResponseUrl(parsed.responseUrl, slackApiUrl)
      ? parsed.responseUrl
      : undefined;
  const channelId = typeof parsed.channelId === 'string' ? parsed.channelId : undefined;
  return {
    ...(responseUrl && { responseUrl }),
    ...(channelId && { channelId }),
    ...(parsed.home === true && { home: true }),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
