import type { RespondFn } from '@slack/bolt';
import { errFields } from '../../lib/logger.js';
import { renderModalNotOpened } from '../../render/home-modals.js';
import { type Recipient, tellPerson } from '../deliver.js';
import type { SlackDeps } from '../deps.js';

/**
 * A modal Slack would not open (the trigger expired or was used, a 429, a 5xx): logged, and the person told instead
 * of left with nothing, ephemerally through the response_url when the payload had one (a message shortcut), else in
 * the channel or by DM (a Home button, a global shortcut).
 */
export function tellModalNotOpened(
  deps: Pick<SlackDeps, 'logger' | 'tasks' | 'metrics'>,
  error: unknown,
  logMessage: string,
  recipient: Recipient,
  respond?: RespondFn,
): Promise<void> {
  deps.logger.warn({ ...errFields(error), userId: recipient.userId }, logMessage);
  return deps.tasks.run('modal not opened notice', () =>
    tellPerson(deps, respond, renderModalNotOpened(), recipient),
  );
}
