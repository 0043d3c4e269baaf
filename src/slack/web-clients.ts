import { webApi } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import { webApiLogger } from './slack-logger.js';
import { meteredFetch } from './slack-metrics.js';

/**
 * How the Web API clients of listeners retry. The client's default is 10 retries over about 30 minutes, while the
 * person who clicked waits for nothing; Slack's interactive limits are seconds.
 *
 * Listeners' client (Bolt's, for every workspace): a 5xx or network failure is retried twice, 0.3 then about
 * 0.6 s later, each attempt at most 5 s; a 429 is thrown at once with its Retry-After, for the caller to decide
 * (deliver.ts waits for it, bounded, or falls back). For what a repeat does no harm to: reads, views, ephemeral
 * messages; a message posted in a channel or a DM goes through singleAttemptClient instead.
 */
export const INTERACTIVE_WEB_CLIENT = {
  retryConfig: { retries: 2, factor: 2, minTimeout: 300, maxTimeout: 1_500, randomize: true },
  rejectRateLimitedCalls: true,
  timeout: 5_000,
} as const;

/**
 * Calls tied to a trigger_id (the admin lookup before the link modal opens; views.open keeps the same bounds by
 * hand, views/open-modal.ts): the trigger dies 3 s after the click, so one quick retry at most, and none that would
 * start after 1.3 s; each attempt at most 1.2 s. The last attempt ends by about 2.5 s.
 */
export const TRIGGER_WEB_CLIENT = {
  retryConfig: { retries: 1, factor: 1, minTimeout: 100, maxTimeout: 100, maxRetryTime: 1_300 },
  rejectRateLimitedCalls: true,
  timeout: 1_200,
} as const;

/**
 * views.open itself, one attempt of TRIGGER_WEB_CLIENT's size: views/open-modal.ts makes its one retry by hand, so
 * that it knows when a retry refused as `exchanged_trigger_id` follows a first attempt Slack may have carried out
 * (the modal is then open, its reply lost).
 */
export const TRIGGER_OPEN_WEB_CLIENT = {
  retryConfig: { retries: 0 },
  rejectRateLimitedCalls: true,
  timeout: TRIGGER_WEB_CLIENT.timeout,
} as const;

/**
 * A post that must not be made twice, every chat.postMessage a listener makes (a shared answer, a subscription's
 * confirmation in the channel, the chat help, an answer's DM): one attempt. A 5xx or a connection cut may come
 * after Slack posted the message, and a retry would post it again (chat.postMessage has no idempotency key); the
 * caller decides what such a failure means (slackCallFailure's `mayHaveArrived`: in doubt, never posted again).
 */
export const SINGLE_ATTEMPT_WEB_CLIENT = {
  retryConfig: { retries: 0 },
  rejectRateLimitedCalls: true,
  timeout: 5_000,
} as const;

/**
 * The bot's `auth.test` in a single-workspace install (bot-identity.ts), which an Events API event waits for while
 * the bot's ids are not known: one attempt, 2 s at most, so that the event is answered within Slack's 3 s either way
 * (a command or a click never waits for it).
 */
export const IDENTITY_WEB_CLIENT = {
  retryConfig: { retries: 0 },
  rejectRateLimitedCalls: true,
  timeout: 2_000,
} as const;

/** What a listener's client under another policy is built with: its Slack errors counted, its own lines logged. */
export interface PolicyClientDeps {
  metrics: Pick<Metrics, 'slackApiError'>;
  logger: Logger;
}

type ClientPolicy =
  | typeof TRIGGER_WEB_CLIENT
  | typeof TRIGGER_OPEN_WEB_CLIENT
  | typeof SINGLE_ATTEMPT_WEB_CLIENT;
const boundClients = new Map<ClientPolicy, WeakMap<WebClient, WebClient>>();

/**
 * The same workspace's client under another policy (one per listener client and policy, kept with it); its Slack
 * errors are counted like the listener client's, and its own lines (`http request failed`…) go to the JSON log, as
 * the listener client's do (until 2026-11-27 it had no logger: they were plain text on stderr).
 */
function withPolicy(client: WebClient, deps: PolicyClientDeps, policy: ClientPolicy): WebClient {
  let clients = boundClients.get(policy);
  if (!clients) {
    clients = new WeakMap();
    boundClients.set(policy, clients);
  }
  let bound = clients.get(client);
  if (!bound) {
    bound = new webApi.WebClient(client.token, {
      slackApiUrl: client.slackApiUrl,
      ...policy,
      fetch: meteredFetch(deps.metrics, client.slackApiUrl),
      logger: webApiLogger(deps.logger),
    });
    clients.set(client, bound);
  }
  return bound;
}

/** The workspace's client with the trigger_id policy (TRIGGER_WEB_CLIENT). */
export function triggerClient(client: WebClient, deps: PolicyClientDeps): WebClient {
  return withPolicy(client, deps, TRIGGER_WEB_CLIENT);
}

/** The workspace's client for views.open's attempts (TRIGGER_OPEN_WEB_CLIENT: one each, retried by the caller). */
export function triggerOpenClient(client: WebClient, deps: PolicyClientDeps): WebClient {
  return withPolicy(client, deps, TRIGGER_OPEN_WEB_CLIENT);
}

/** The workspace's client that makes one attempt (SINGLE_ATTEMPT_WEB_CLIENT). */
export function singleAttemptClient(client: WebClient, deps: PolicyClientDeps): WebClient {
  return withPolicy(client, deps, SINGLE_ATTEMPT_WEB_CLIENT);
}
