import type { App } from '@slack/bolt';
import { renderUsage } from '../../render/index.js';
import type { SlackDeps } from '../deps.js';
import { parseCompras } from '../parse/commands.js';
import { ackAndAnswer } from './answer-command.js';
import { routeOfCompras } from './routes-of.js';

export function registerComprasCommand(app: App, deps: SlackDeps): void {
  app.command('/compras', async (args) => {
    const parsed = parseCompras(args.command.text ?? '');
    if (!parsed.ok) {
      await args.ack({ response_type: 'ephemeral', ...renderUsage('compras', parsed.problem) });
      return;
    }
    await ackAndAnswer(deps, args, routeOfCompras(parsed.command));
  });
}
