import { setTimeout as delay } from 'node:timers/promises';
import { neverSent } from '../lib/net-errors.js';

/**
 * Posts to a response_url, retried. Bolt's `respond()` makes one POST and throws a RespondError that keeps only the
 * status; the retry has to sit under it to see a 429's Retry-After. So Bolt is given this fetch
 * (`clientOptions.fetch`): calls to the Web API pass through untouched (the Web client has its own retries,
 * web-clients.ts); anything else Bolt fetches is a response_url post, and is retried on 429, 5xx and network
 * failures, honouring Retry-After up to a bound. Past the bound the last answer is returned, `respond()` throws,
 * and deliver.ts falls back to chat.postEphemeral, then a DM. A new message for the whole channel (a shared
 * answer) is not sent again after a failure that may have come after Slack had it (ResponseUrlOutcomeUnknownError).
 */

export interface ResponseUrlRetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  /** Backoff without Retry-After: base × 2^(attempt-1), full jitter, at most maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the fallback answers sooner. */
  maxRetryAfterMs: number;
  /** Each attempt, at most. */
  timeoutMs: number;
}

/**
 * Three attempts within about 10 s at worst: a person waiting for an answer would rather have it by another way
 * (an ephemeral message, a DM) than wait longer for the response_url.
 */
export const RESPONSE_URL_RETRY: ResponseUrlRetryPolicy = {
  attempts: 3,
  baseDelayMs: 300,
  maxDelayMs: 2_000,
  maxRetryAfterMs: 5_000,
  timeoutMs: 5_000,
};

export interface RetryingFetchOptions {
  /** The Web API base URL (SLACK_API_URL): requests under it are not retried here. */
  webApiUrl: string;
  policy?: ResponseUrlRetryPolicy;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<unknown>;
  random?: () => number;
}

export function retryingFetch(options: RetryingFetchOptions): typeof fetch {
  const base = options.fetch ?? globalThis.fetch;
  const retried = withRetries(options);
  const webApi = options.webApiUrl.replace(/\/+$/, '');
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    // Only a body that can be sent again is retried (Bolt's respond sends a JSON string).
    if (url.startsWith(webApi) || (init?.body !== undefined && typeof init.body !== 'string'))
      return base(input, init);
    return retried(input, init);
  };
}

/** Hosts Slack gives response_urls on (commercial and GovSlack). */
const RESPONSE_URL_HOSTS: ReadonlySet<string> = new Set(['hooks.slack.com', 'hooks.slack-gov.com']);

/**
 * Whether a response_url kept by the bot (in a modal's private_metadata, which comes back from outside) is one Slack
 * gives: on Slack's hooks host, or on the host of SLACK_API_URL (a Slack-compatible service, a test's fake). Any
 * other URL is not posted to: the post may carry what the person typed (a link's login).
 */
export function isSlackResponseUrl(url: string, slackApiUrl: string): boolean {
  try {
    const { protocol, hostname } = new URL(url);
    if (protocol !== 'https:' && protocol !== 'http:') return false;
    return RESPONSE_URL_HOSTS.has(hostname) || hostname === new URL(slackApiUrl).hostname;
  } catch {
    return false;
  }
}

/** POSTs a message to a response_url with the same retries; throws when it is not accepted in the end. */
export async function postToResponseUrl(
  url: string,
  payload: object,
  options: Omit<RetryingFetchOptions, 'webApiUrl'> = {},
): Promise<Response> {
  const response = await withRetries(options)(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  if (!response.ok) throw new Error(`response_url answered ${response.status}`);
  return response;
}

function withRetries(options: Omit<RetryingFetchOptions, 'webApiUrl'>): typeof fetch {
  const policy = options.policy ?? RESPONSE_URL_RETRY;
  const base = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? ((ms: number) => delay(ms));
  const random = options.random ?? Math.random;
  return async (input, init) => {
    const once = postsNewChannelMessage(init?.body);
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= policy.attempts;
      let wait: number | null;
      try {
        const response = await base(input, {
          ...init,
          signal: init?.signal ?? AbortSignal.timeout(policy.timeoutMs),
        });
        if (last || !(response.status === 429 || response.status >= 500)) return response;
        // A 5xx may come after the post was shown (Slack's fatal_error, a gateway's 502/504): a new message for
        // the whole channel is not sent again.
        if (once && response.status >= 500) {
          await response.body?.cancel().catch(() => undefined);
          throw new ResponseUrlOutcomeUnknownError(new Error(`response_url answered ${response.status}`));
        }
        wait = waitBefore(response, attempt, policy, random);
        // A Retry-After past the bound: this answer is final.
        if (wait === null) return response;
        await response.body?.cancel().catch(() => undefined);
      } catch (error) {
        if (error instanceof ResponseUrlOutcomeUnknownError) throw error;
        // A message for the whole channel may already be there: posting it again could show it twice.
        if (once && !neverSent(error)) throw new ResponseUrlOutcomeUnknownError(error);
        if (last) throw error;
        wait = backoff(attempt, policy, random);
      }
      await sleep(wait);
    }
  };
}

/**
 * A post to a response_url that failed on the way (a timeout, a connection cut) may have reached Slack before
 * its reply was lost. An ephemeral message or one that replaces the original is posted again (shown twice to
 * one person at worst, or replaced twice); a new message for the whole channel is not.
 */
export class ResponseUrlOutcomeUnknownError extends Error {
  constructor(cause: unknown) {
    super('response_url post may have reached Slack; its reply was lost', { cause });
    this.name = 'ResponseUrlOutcomeUnknownError';
  }
}

/** `response_type: in_channel` that neither replaces nor deletes the original: a new message everyone sees. */
function postsNewChannelMessage(body: unknown): boolean {
  // Most posts are ephemeral answers: no parse of their (large) body on the answers' path.
  if (typeof body !== 'string' || !body.includes('in_channel')) return false;
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    return (
      parsed.response_type === 'in_channel' &&
      parsed.replace_original !== true &&
      parsed.replace_original !== 'true' &&
      parsed.delete_original !== true &&
      parsed.delete_original !== 'true'
    );
  } catch {
    return false;
  }
}

function waitBefore(
  response: Response,
  attempt: number,
  policy: ResponseUrlRetryPolicy,
  random: () => number,
): number | null {
  const retryAfter = retryAfterMs(response.headers.get('retry-after'));
  if (retryAfter === null) return backoff(attempt, policy, random);
  return retryAfter > policy.maxRetryAfterMs ? null : retryAfter;
}

function backoff(attempt: number, policy: ResponseUrlRetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

/** Retry-After in seconds (Slack's form) or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const trimmed = header.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
