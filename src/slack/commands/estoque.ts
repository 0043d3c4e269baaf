import type { App } from '@slack/bolt';
import { errFields, newCorrelationId } from '../../lib/logger.js';
import {
  renderHelp,
  renderLinkModal,
  renderLinkRefused,
  renderUnlinkConfirm,
  renderUsage,
} from '../../render/index.js';
import { sendResponse } from '../deliver.js';
import type { SlackDeps } from '../deps.js';
import { parseEstoque } from '../parse/commands.js';
import { isLinkAdmin, workspaceIdOf } from '../slack-users.js';
import { triggerClient } from '../web-clients.js';
import { ackAndAnswer, type CommandArgs } from './answer-command.js';
import { handleDigestCommand } from './digest.js';
import { routeOfEstoque } from './routes-of.js';
import { estoqueSuggestion } from './suggestion.js';

export function registerEstoqueCommand(app: App, deps: SlackDeps): void {
  app.command('/estoque', async (args) => {
    const parsed = parseEstoque(args.command.text ?? '');
    if (!parsed.ok) {
      await args.ack({ response_type: 'ephemeral', ...renderUsage('estoque', parsed.problem) });
      return;
    }
    const { command } = parsed;
    switch (command.kind) {
      case 'help':
        await args.ack({ response_type: 'ephemeral', ...renderHelp() });
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
    if (!(await isLinkAdmin(client, command.user_id, deps.config.BOT_ADMINS))) {
      await sendResponse(deps, args.respond, renderLinkRefused(), {
        response_type: 'ephemeral',
        replace_original: false,
      });
      return;
    }
    // Only where to confirm: the channel and this command's response_url; never a secret.
    const metadata = JSON.stringify({ channelId: command.channel_id, responseUrl: command.response_url });
    await triggerClient(client).views.open({
      trigger_id: command.trigger_id,
      view: { ...renderLinkModal(), private_metadata: metadata },
    });
  } catch (error) {
    deps.logger.error({ correlationId, ...errFields(error) }, 'could not open the link modal');
    await sendResponse(
      deps,
      args.respond,
      renderUsage('estoque', 'não foi possível abrir o formulário de vínculo; tente de novo.'),
      {
        response_type: 'ephemeral',
        replace_original: false,
      },
    );
  }
}

async function askUnlink(deps: SlackDeps, args: CommandArgs): Promise<void> {
  await args.ack();
  const workspaceId = workspaceIdOf(args.context);
  const allowed =
    workspaceId !== null &&
    (await isLinkAdmin(args.client, args.command.user_id, deps.config.BOT_ADMINS).catch(() => false));
  const message = allowed ? renderUnlinkConfirm() : renderLinkRefused();
  await sendResponse(deps, args.respond, message, { response_type: 'ephemeral', replace_original: false });
}
