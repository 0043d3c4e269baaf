import type { App } from '@slack/bolt';
import { renderUsage } from '../../render/index.js';
import type { SlackDeps } from '../deps.js';
import { parseSolicitacao } from '../parse/commands.js';
import { ackAndAnswer } from './answer-command.js';
import { routeOfSolicitacao } from './routes-of.js';

export function registerSolicitacaoCommand(app: App, deps: SlackDeps): void {
  app.command('/solicitacao', async (args) => {
    const parsed = parseSolicitacao(args.command.text ?? '');
    if (!parsed.ok) {
      await args.ack({ response_type: 'ephemeral', ...renderUsage('solicitacao', parsed.problem) });
      return;
    }
    await ackAndAnswer(deps, args, routeOfSolicitacao(parsed.command));
  });
}
