import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '@slack/bolt';
import { DomainError } from '../domain/errors.js';
import { type Metrics, type MetricsExposition, type SlackRequestKind, secondsSince } from '../lib/metrics.js';
import { UpstreamError } from '../upstream/errors.js';

/**
 * The Slack side of the metrics: acks timed as Bolt hands each request to the app (HTTP, Socket Mode and local
 * mode alike), Slack Web API and response_url failures counted from the fetch Bolt and the digest clients use,
 * and GET /metrics itself.
 */

/** The outcome label of an answer: `ok`, or the stable code of the failure the user was shown. */
export function answerOutcome(error: unknown): string {
  if (error === undefined) return 'ok';
  return error instanceof UpstreamError || error instanceof DomainError ? error.code : 'unexpected';
}

function kindOf(body: unknown): SlackRequestKind {
  if (typeof body !== 'object' || body === null) return 'other';
  const b = body as { command?: unknown; event?: unknown; type?: unknown };
  if (b.event !== undefined) return 'event';
  if (b.command !== undefined) return 'command';
  switch (b.type) {
    case 'block_actions':
    case 'view_submission':
    case 'view_closed':
    case 'block_suggestion':
      return b.type;
    default:
      return 'other';
  }
}

/**
 * Times every ack from the moment the receiver hands the verified request to the app. Wraps the app's
 * processEvent, the one door every receiver uses, so the three ways of running are measured alike.
 */
export function timeAcks(app: App, metrics: Pick<Metrics, 'slackAck'>): void {
  const processEvent = app.processEvent.bind(app);
  app.processEvent = (event) => {
    const started = performance.now();
    const kind = kindOf(event.body);
    const { ack } = event;
    let acked = false;
    return processEvent({
      ...event,
      ack: async (response) => {
        try {
          return await ack(response);
        } finally {
          if (!acked) metrics.slackAck(kind, secondsSince(started));
          acked = true;
        }
      },
    });
  };
}

type Fetch = typeof globalThis.fetch;

/** The Web API method of a call (`chat.postMessage`), `response_url` for a response URL, else `other`. */
function methodOf(url: string, slackApiUrl: string): string {
  if (!url.startsWith(slackApiUrl)) return 'response_url';
  const method = url.slice(slackApiUrl.length).split(/[?#/]/)[0] ?? '';
  return /^[a-z]+(\.[A-Za-z]+)+$/.test(method) ? method : 'other';
}

function urlOf(input: Parameters<Fetch>[0]): string {
  if (typeof input === 'string') return input;
  if (input instanceof URL) return input.toString();
  return input.url;
}

/**
 * A fetch for Bolt's clients, its respond() and the digest's Web API clients that counts failed Slack calls by
 * method and error: an HTTP error status, a Web API answer `{ ok: false, error }`, a request that never got an
 * answer. The response itself is handed back untouched (a clone is read).
 */
export function meteredFetch(
  metrics: Pick<Metrics, 'slackApiError'>,
  slackApiUrl: string,
  base: Fetch = globalThis.fetch,
): Fetch {
  return async (input, init) => {
    const method = methodOf(urlOf(input), slackApiUrl);
    let response: Response;
    try {
      response = await base(input, init);
    } catch (error) {
      metrics.slackApiError(method, 'request_error');
      throw error;
    }
    if (!response.ok) {
      metrics.slackApiError(method, `http_${response.status}`);
    } else if (method !== 'response_url' && response.headers.get('content-type')?.includes('json')) {
      const body: unknown = await response
        .clone()
        .json()
        .catch(() => null);
      if (typeof body === 'object' && body !== null && (body as { ok?: unknown }).ok === false) {
        const code = (body as { error?: unknown }).error;
        metrics.slackApiError(method, typeof code === 'string' ? code : 'unknown_error');
      }
    }
    return response;
  };
}

/**
 * GET /metrics in Prometheus' text format. With a token configured, only `Authorization: Bearer <token>` is
 * served (compared in constant time); without one the endpoint is open, and the port must stay private.
 */
export function metricsHandler(exposition: MetricsExposition, token: string | undefined) {
  const expected = token === undefined ? null : digest(token);
  return (req: IncomingMessage, res: ServerResponse) => {
    if (expected !== null && !authorized(req.headers.authorization, expected)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' });
      res.end('unauthorized\n');
      return;
    }
    exposition.render().then(
      (text) => {
        res.writeHead(200, { 'content-type': exposition.contentType });
        res.end(text);
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('metrics unavailable\n');
      },
    );
  };
}

/** Hashes first, so that the comparison takes the same time whatever the length of what was sent. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function authorized(header: string | undefined, expected: Buffer): boolean {
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? '');
  const sent = digest(match?.[1] ?? '');
  // Always compare, even without a token, so a missing header costs the same as a wrong one.
  return timingSafeEqual(sent, expected) && match !== null;
}
