import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { registerHomeTab } from './home-tab.js';
import { registerMaterialModal } from './material-modal.js';
import { registerRequestModals } from './request-modal.js';

/** The App Home tab, the shortcuts `buscar_material` and `abrir_solicitacao`, and the modals they open. */
export function registerHome(app: App, deps: SlackDeps): void {
  registerHomeTab(app, deps);
  registerMaterialModal(app, deps);
  registerRequestModals(app, deps);
}
