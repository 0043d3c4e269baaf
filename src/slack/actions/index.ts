import type { App, BlockAction, ButtonAction } from '@slack/bolt';
import { ActionPatterns } from '../../render/ids.js';
import type { SlackDeps } from '../deps.js';
import { registerFollowActions } from './follow.js';
import { answerButton } from './route-action.js';
import { registerUnlinkActions } from './unlink.js';

export function registerActions(app: App, deps: SlackDeps): void {
  app.action<BlockAction<ButtonAction>>(ActionPatterns.navigate, (args) =>
    answerButton(deps, args, 'navigate'),
  );
  app.action<BlockAction<ButtonAction>>(ActionPatterns.refresh, (args) =>
    answerButton(deps, args, 'refresh'),
  );
  app.action<BlockAction<ButtonAction>>(ActionPatterns.share, (args) => answerButton(deps, args, 'share'));
  app.action<BlockAction<ButtonAction>>(ActionPatterns.retry, (args) => answerButton(deps, args, 'retry'));
  registerUnlinkActions(app, deps);
  registerFollowActions(app, deps);
}
