import type { View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { errFields, type Logger } from '../../lib/logger.js';
import { slackErrorCode } from '../deliver.js';

export type ModalUpdate =
  | { shown: true; hash: string | undefined }
  /** `moved`: a later update of this modal came meanwhile; `closed`: the person closed it; `failed`: anything else. */
  | { shown: false; why: 'moved' | 'closed' | 'failed' };

/**
 * Updates a modal the person may have moved on from. Given the `hash` of the view this update follows, a later
 * update made meanwhile wins (Slack answers `hash_conflict`) however late this one lands; a modal closed meanwhile
 * (`not_found`) has nothing to show. Those two are logged as information, any other refusal as a warning, and the
 * caller decides whether to tell the person. The new view's hash comes back, for the update after this one.
 */
export async function updateModal(
  client: WebClient,
  viewId: string,
  view: View,
  hash: string | undefined,
  logger: Logger,
): Promise<ModalUpdate> {
  try {
    const updated = await client.views.update({ view_id: viewId, ...(hash !== undefined && { hash }), view });
    return { shown: true, hash: updated.view?.hash };
  } catch (error) {
    const code = slackErrorCode(error);
    if (code === 'hash_conflict') {
      logger.info('modal moved on to a later update; this one not shown');
      return { shown: false, why: 'moved' };
    }
    if (code === 'not_found') {
      logger.info('modal closed before this update; nothing shown');
      return { shown: false, why: 'closed' };
    }
    logger.warn(errFields(error), 'modal not updated');
    return { shown: false, why: 'failed' };
  }
}
