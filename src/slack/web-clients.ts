import { webApi } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';

/**
 * How the Web API clients of listeners retry. The client's default is 10 retries over about 30 minutes, while the
 * person who clicked waits for nothing; Slack's interactive limits are seconds.
 *
 * Listeners' client (Bolt's, for every workspace): a 5xx or network failure is retried twice, 0.3 then about
 * 0.6 s later, each attempt at most 5 s; a 429 is thrown at once with its Retry-After, for the caller to decide
 * (deliver.ts waits for it, bounded, or falls back).
 */
export const INTERACTIVE_WEB_CLIENT = {
  retryConfig: { retries: 2, factor: 2, minTimeout: 300, maxTimeout: 1_500, randomize: true },
  rejectRateLimitedCalls: true,
  timeout: 5_000,
} as const;

/**
 * Calls tied to a trigger_id (views.open): the trigger dies 3 s after the click, so one quick retry at most, and
 * none that would start after 1.3 s; each attempt at most 1.2 s. The last attempt ends by about 2.5 s.
 */
export const TRIGGER_WEB_CLIENT = {
  retryConfig: { retries: 1, factor: 1, minTimeout: 100, maxTimeout: 100, maxRetryTime: 1_300 },
  rejectRateLimitedCalls: true,
  timeout: 1_200,
} as const;

const triggerClients = new WeakMap<WebClient, WebClient>();

/** The same workspace's client, with the trigger_id policy above (one per listener client, kept with it). */
export function triggerClient(client: WebClient): WebClient {
  let bound = triggerClients.get(client);
  if (!bound) {
    bound = new webApi.WebClient(client.token, { slackApiUrl: client.slackApiUrl, ...TRIGGER_WEB_CLIENT });
    triggerClients.set(client, bound);
  }
  return bound;
}
