import type { App } from '@slack/bolt';
import { renderUsage } from '../../render/index.js';
import type { SlackDeps } from '../deps.js';
import { parseCompras } from '../parse/commands.js';
import { ackAndAnswer } from './answer-command.js';
import { routeOfCompras } from './routes-of.js';
import { comprasSuggestion } from './suggestion.js';

export function registerComprasCommand(app: App, deps: SlackDeps): void {
  app.command('/compras', async (args) => {
    const parsed = parseCompras(args.command.text ?? '');
    if (!parsed.ok) {
      await args.ack({ response_type: 'ephemeral', ...renderUsage('compras', parsed.problem) });
      return;
    }
    const { command } = parsed;
    const suggestion =
      command.kind === 'purchase-list' && command.suggestion
        ? comprasSuggestion(args.command.text ?? '', command.suggestion)
        : undefined;
    await ackAndAnswer(deps, args, routeOfCompras(command), suggestion);
  });
}
