import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { registerComprasCommand } from './compras.js';
import { registerEstoqueCommand } from './estoque.js';
import { registerSolicitacaoCommand } from './solicitacao.js';

export function registerCommands(app: App, deps: SlackDeps): void {
  registerEstoqueCommand(app, deps);
  registerSolicitacaoCommand(app, deps);
  registerComprasCommand(app, deps);
}
