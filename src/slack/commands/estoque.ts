import type { App } from '@slack/bolt';
import { errFields, newCorrelationId } from '../../lib/logger.js';
import { renderLinkModalNotOpened } from '../../render/home-modals.js';
import {
  type Message,
  renderHelp,
  renderLinkModal,
  renderUnlinkConfirm,
  renderUsage,
} from '../../render/index.js';
import {
  renderSandboxAdvanced,
  renderSandboxUnavailable,
  type SandboxChangeView,
} from '../../render/sandbox.js';
import { sendResponse, tellPerson } from '../deliver.js';
import { helpOptionsOf, type SlackDeps } from '../deps.js';
import { parseEstoque } from '../parse/commands.js';
import { linkAdminVerdict, refusalOf, viewForWorkspace, workspaceIdOf } from '../slack-users.js';
import { openModal } from '../views/open-modal.js';
import { triggerClient } from '../web-clients.js';
import { ackAndAnswer, type CommandArgs } from './answer-command.js';
import { handleDigestCommand } from './digest.js';
import { handleFeedCommand } from './feed.js';
import { routeOfEstoque } from './routes-of.js';
import { estoqueSuggestion } from './suggestion.js';

export function registerEstoqueCommand(app: App, deps: SlackDeps): void {
  app.command('/estoque', async (args) => {
    const parsed = parseEstoque(args.command.text ?? '');
    if (!parsed.ok) {
      await args.ack({
        response_type: 'ephemeral',
        ...renderUsage('estoque', parsed.problem, helpOptionsOf(deps)),
      });
      return;
    }
    const { command } = parsed;
    switch (command.kind) {
      case 'help':
        await args.ack({
          response_type: 'ephemeral',
          ...renderHelp(undefined, helpOptionsOf(deps)),
        });
        return;
      case 'link':
        await openLinkModal(deps, args);
        return;
      case 'unlink':
        await askUnlink(deps, args);
        return;
      case 'digest-subscribe':
      case 'digest-cancel':
      case 'digest-list':
      case 'digest-now':
        await handleDigestCommand(deps, args, command);
        return;
      case 'feed-subscribe':
      case 'feed-cancel':
      case 'feed-list':
        await handleFeedCommand(deps, args, command);
        return;
      case 'sandbox-advance':
        await advanceSandbox(deps, args, command.changes);
        return;
      default: {
        const route = routeOfEstoque(command);
        const suggestion =
          command.kind === 'material-search' && command.suggestion
            ? estoqueSuggestion(args.command.text ?? '', command.suggestion)
            : undefined;
        if (route) await ackAndAnswer(deps, args, route, suggestion);
      }
    }
  });
}

async function openLinkModal(deps: SlackDeps, args: CommandArgs): Promise<void> {
  await args.ack();
  const { command, client } = args;
  const correlationId = newCorrelationId();
  try {
    // The lookup and views.open share the trigger's 3 s: both on the trigger policy (1.3 s each at most).
    const verdict = await linkAdminVerdict(
      triggerClient(client, deps),
      command.user_id,
      deps.config.BOT_ADMINS,
      args.context,
    );
    if (!verdict.allowed) {
      deps.logger.info({ correlationId, userId: command.user_id, reason: verdict.reason }, 'link refused');
      await sendResponse(deps, args.respond, refusalOf(verdict), {
        response_type: 'ephemeral',
        replace_original: false,
      });
      return;
    }
    // Only where to confirm (the channel and this command's response_url) and which workspace it links; never a
    // secret.
    const metadata = JSON.stringify({ channelId: command.channel_id, responseUrl: command.response_url });
    const view = viewForWorkspace(
      { ...renderLinkModal(), private_metadata: metadata },
      workspaceIdOf(args.context),
    );
    // A reply lost after Slack opened the form is no failure (open-modal.ts): the admin sees the form.
    const opening = await openModal(deps, client, command.trigger_id, view);
    if (!opening.opened) throw opening.error;
  } catch (error) {
    deps.logger.error({ correlationId, ...errFields(error) }, 'could not open the link modal');
    await sendResponse(deps, args.respond, renderLinkModalNotOpened(), {
      response_type: 'ephemeral',
      replace_original: false,
    });
  }
}

/** Local mode: the sandbox moves requests along, so the feed has something to say. */
async function advanceSandbox(deps: SlackDeps, args: CommandArgs, changes: number): Promise<void> {
  const workspaceId = workspaceIdOf(args.context);
  const sandbox = deps.sandbox;
  if (!sandbox || !workspaceId) {
    await args.ack({ response_type: 'ephemeral', ...renderSandboxUnavailable() });
    return;
  }
  await args.ack();
  await deps.tasks.run('sandbox advance', async () => {
    let reply: Message;
    let made: SandboxChangeView[] = [];
    try {
      made = await sandbox.advance(workspaceId, changes);
      reply = renderSandboxAdvanced(made);
    } catch (error) {
      deps.logger.warn({ workspaceId, ...errFields(error) }, 'sandbox advance failed');
      reply = renderUsage(
        'estoque',
        'o sandbox não conseguiu avançar agora; tente de novo.',
        helpOptionsOf(deps),
      );
    }
    await sendResponse(deps, args.respond, reply, { response_type: 'ephemeral', replace_original: false });
    // The alerts and DMs come after the reply that says what changed.
    await sandbox.announce(workspaceId, made);
  });
}

async function askUnlink(deps: SlackDeps, args: CommandArgs): Promise<void> {
  await args.ack();
  const verdict = await linkAdminVerdict(
    args.client,
    args.command.user_id,
    deps.config.BOT_ADMINS,
    args.context,
  );
  if (!verdict.allowed)
    deps.logger.info({ userId: args.command.user_id, reason: verdict.reason }, 'unlink refused');
  const message = verdict.allowed ? renderUnlinkConfirm() : refusalOf(verdict);
  await tellPerson(deps, args.respond, message, {
    client: args.client,
    userId: args.command.user_id,
    channelId: args.command.channel_id,
  });
}
