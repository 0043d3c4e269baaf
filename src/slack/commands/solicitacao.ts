import type { App } from '@slack/bolt';
import { renderUsage } from '../../render/index.js';
import type { SlackDeps } from '../deps.js';
import { parseSolicitacao } from '../parse/commands.js';
import { ackAndAnswer } from './answer-command.js';
import { handleFeedCommand, isFeedCommand } from './feed.js';
import { routeOfSolicitacao } from './routes-of.js';
import { solicitacaoSuggestion } from './suggestion.js';

export function registerSolicitacaoCommand(app: App, deps: SlackDeps): void {
  app.command('/solicitacao', async (args) => {
    const parsed = parseSolicitacao(args.command.text ?? '');
    if (!parsed.ok) {
      await args.ack({ response_type: 'ephemeral', ...renderUsage('solicitacao', parsed.problem) });
      return;
    }
    const { command } = parsed;
    if (isFeedCommand(command)) {
      await handleFeedCommand(deps, args, command);
      return;
    }
    const route = routeOfSolicitacao(command);
    if (!route) return;
    const suggestion =
      command.kind === 'request-list' && command.suggestion
        ? solicitacaoSuggestion(args.command.text ?? '', command.suggestion)
        : undefined;
    await ackAndAnswer(deps, args, route, suggestion);
  });
}
