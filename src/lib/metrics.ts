/**
 * What the bot measures, as the layers see it: a few methods with bounded arguments, no metrics library. The
 * container builds one implementation per bot (lib/prom-metrics.ts, over a registry of its own) and hands it to
 * the decorators and hooks that record; nothing else imports prom-client. Every label value passed here must come
 * from a small fixed set (a route's view, an error code, an endpoint template, a credential's short hash): never
 * a user id, a channel id, an id of a record or free text.
 */

/** What a Slack request was, by its payload: the ack histogram's label. */
export type SlackRequestKind =
  | 'command'
  | 'block_actions'
  | 'view_submission'
  | 'view_closed'
  | 'block_suggestion'
  | 'event'
  | 'other';

/** Where an answer came from: a slash command, or a button on an earlier answer. */
export type AnswerSource = 'command' | 'button';

/** A read through the cache: fresh entry, asked upstream, served stale (upstream could not be asked), failed. */
export type CacheOutcome = 'hit' | 'miss' | 'stale' | 'error';

/** How a wait for a budget slot ended: the call ran, the wait was refused (BudgetExhaustedError), or it failed. */
export type BudgetWaitOutcome = 'granted' | 'exhausted' | 'error';

export interface Metrics {
  /** A Slack request was acked `seconds` after Bolt handed it to the app. */
  slackAck(kind: SlackRequestKind, seconds: number): void;
  /** An answer (a route) was sent: `outcome` is `ok` or the error code of the failure shown. */
  answer(source: AnswerSource, route: string, outcome: string, seconds: number): void;
  /** One HTTP attempt upstream: `endpoint` is the method and path template, `status` the HTTP status or `timeout`/`network`/`error`. */
  upstreamCall(endpoint: string, status: string, seconds: number): void;
  /** A wait for a budget slot ended. */
  budgetWait(priority: string, outcome: BudgetWaitOutcome, seconds: number): void;
  /** A credential was paused after a 429. */
  budgetPause(credential: string): void;
  /** A read through the answer cache, by kind of data (the cached endpoint). */
  cacheRead(kind: string, outcome: CacheOutcome): void;
  /** A digest post ended: `posted`, `retry`, `channel_gone`, `unauthorized`, `stopped`, or `error`. */
  digestPost(outcome: string): void;
  /** A digest could not be built (upstream failed, budget spent). */
  digestBuildFailed(): void;
  /** A Slack Web API call (or a response_url post) failed: `error` is Slack's error code or `http_<status>`. */
  slackApiError(method: string, error: string): void;
}

/** Budget state of one credential, read when metrics are scraped. */
export interface CredentialUsage {
  /** The credential's short hash (never a login). */
  credential: string;
  used: number;
  remaining: number;
  paused: boolean;
}

/** What the scrape reads at that moment: the store's health and the budgets of the credentials in use. */
export interface MetricsSources {
  storeUp(): Promise<boolean>;
  budgetUsage(): Promise<CredentialUsage[]>;
}

/** The text served at GET /metrics. */
export interface MetricsExposition {
  readonly contentType: string;
  render(): Promise<string>;
}

/** Measures nothing: for code built without metrics (a service under test). */
export const NO_METRICS: Metrics = {
  slackAck: () => undefined,
  answer: () => undefined,
  upstreamCall: () => undefined,
  budgetWait: () => undefined,
  budgetPause: () => undefined,
  cacheRead: () => undefined,
  digestPost: () => undefined,
  digestBuildFailed: () => undefined,
  slackApiError: () => undefined,
};

/** Seconds since `startedMs` of performance.now(): durations only, never a time of day. */
export function secondsSince(startedMs: number): number {
  return Math.max(0, (performance.now() - startedMs) / 1000);
}
