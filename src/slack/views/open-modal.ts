import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../lib/logger.js';
import type { Metrics } from '../../lib/metrics.js';
import { slackErrorCode } from '../deliver.js';
import { slackCallFailure } from '../paced-post.js';
import { TRIGGER_WEB_CLIENT, triggerOpenClient } from '../web-clients.js';

/** How a modal is named in its updates: its id once Slack told it, else the external_id it was opened with. */
export type ModalRef = { viewId: string } | { externalId: string };

export type ModalOpening =
  /**
   * Open. `sure: false`: Slack's reply was lost, and the retry with the same trigger was refused as one whose
   * modal is open already; the modal is then known by its external_id only, and its hash is unknown.
   */
  | { opened: true; ref: ModalRef; hash: string | undefined; sure: boolean }
  | { opened: false; error: unknown };

/** The wait before the one retry, and the latest a retry may start (the trigger dies 3 s after the click). */
const RETRY_DELAY_MS = TRIGGER_WEB_CLIENT.retryConfig.minTimeout;
const RETRY_UNTIL_MS = TRIGGER_WEB_CLIENT.retryConfig.maxRetryTime;

/** Refusals of a retry that say its trigger, or its external_id, was taken: by the first attempt, then. */
const TAKEN_BY_FIRST_ATTEMPT: ReadonlySet<string> = new Set([
  'exchanged_trigger_id',
  'duplicate_external_id',
]);

/**
 * Opens a modal with a trigger_id, under the trigger's bounds (TRIGGER_WEB_CLIENT: one quick retry after a 5xx or
 * a network failure, none past 1.3 s, 1.2 s an attempt). Each opening carries an external_id of its own, so a
 * modal whose views.open reply was lost (a timeout, a connection cut after Slack opened it) can still be updated:
 * the retry with the same trigger is then refused (`exchanged_trigger_id`; `duplicate_external_id` when Slack
 * checks the id first), which after a first attempt that may have reached Slack means the modal is open. Until
 * 2026-11-27 that retry's refusal told the person the modal never opened, while the real one stayed on
 * "Buscando…" for good. Never throws: a modal that did not open comes back with why, for the caller to tell.
 */
export async function openModal(
  deps: { metrics: Pick<Metrics, 'slackApiError'>; logger: Logger },
  client: WebClient,
  triggerId: string,
  view: ModalView,
): Promise<ModalOpening> {
  const externalId = `estoque-${randomUUID()}`;
  const args = { trigger_id: triggerId, view: { ...view, external_id: externalId } };
  const opener = triggerOpenClient(client, deps);
  const started = performance.now();
  const attempt = async (): Promise<ModalOpening> => {
    const opened = await opener.views.open(args);
    const viewId = opened.view?.id;
    return {
      opened: true,
      ref: viewId ? { viewId } : { externalId },
      hash: opened.view?.hash,
      sure: true,
    };
  };
  let first: unknown;
  try {
    return await attempt();
  } catch (error) {
    first = error;
  }
  if (!retryable(first) || performance.now() - started > RETRY_UNTIL_MS)
    return { opened: false, error: first };
  await sleep(RETRY_DELAY_MS);
  try {
    return await attempt();
  } catch (error) {
    const code = slackErrorCode(error);
    const firstMayHaveOpened = code === 'duplicate_external_id' || mayHaveArrived(first);
    if (TAKEN_BY_FIRST_ATTEMPT.has(code) && firstMayHaveOpened) {
      deps.logger.info(
        { retry: code },
        'views.open reply lost; the modal opened by the first attempt is used',
      );
      return { opened: true, ref: { externalId }, hash: undefined, sure: false };
    }
    return { opened: false, error };
  }
}

/** What the WebClient itself retries: a non-200 answer other than 429, or no answer at all. */
function retryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'slack_webapi_http_error' || code === 'slack_webapi_request_error';
}

function mayHaveArrived(error: unknown): boolean {
  const failure = slackCallFailure(error);
  return failure.kind === 'transport' && failure.mayHaveArrived;
}
