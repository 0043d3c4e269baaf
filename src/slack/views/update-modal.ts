import type { View } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { errFields, type Logger } from '../../lib/logger.js';
import { slackErrorCode } from '../deliver.js';
import { CONTENT_REFUSED_ERRORS } from '../post-refusals.js';
import type { ModalRef } from './open-modal.js';

export type ModalUpdate =
  /** `ref`: the modal by its id from now on (an update by external_id tells it). */
  | { shown: true; hash: string | undefined; ref: ModalRef }
  /** `moved`: a later update of this modal came meanwhile; `closed`: the person closed it. */
  | { shown: false; why: 'moved' | 'closed' }
  /** Anything else (a 429 after the client's retries, a 5xx, a refusal of the view): `code`, Slack's error code. */
  | { shown: false; why: 'failed'; code: string };

/**
 * Updates a modal the person may have moved on from. Given the `hash` of the view this update follows, a later
 * update made meanwhile wins (Slack answers `hash_conflict`) however late this one lands; a modal closed meanwhile
 * (`not_found`) has nothing to show. Those two are logged as information, any other refusal as a warning, and the
 * caller decides whether to tell the person. The new view's hash comes back, for the update after this one. A modal
 * whose views.open reply was lost is named by its external_id (open-modal.ts); Slack's answer names its id.
 */
export async function updateModal(
  client: WebClient,
  target: ModalRef,
  view: View,
  hash: string | undefined,
  logger: Logger,
): Promise<ModalUpdate> {
  try {
    const where = 'viewId' in target ? { view_id: target.viewId } : { external_id: target.externalId };
    const updated = await client.views.update({ ...where, ...(hash !== undefined && { hash }), view });
    const viewId = updated.view?.id;
    return { shown: true, hash: updated.view?.hash, ref: viewId ? { viewId } : target };
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
    logger.warn({ ...errFields(error), slackError: code }, 'modal not updated');
    return { shown: false, why: 'failed', code };
  }
}

/**
 * A views.update refused for what the view holds (the refusals of a message's content, post-refusals.ts, and
 * `view_too_large`): the same view is refused again however often it is sent, a plainer one may not be.
 */
export function refusedForContent(update: ModalUpdate): boolean {
  return (
    !update.shown &&
    update.why === 'failed' &&
    (CONTENT_REFUSED_ERRORS.has(update.code) || update.code === 'view_too_large')
  );
}
