import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../http.js';
import type { RawInputs } from './view-state.js';

/** HTTP plumbing of the playground routes: JSON in and out, Slack's failure names, security headers. */

/** Slack gives up on a slash command or an interaction whose answer takes longer than this. */
const SLACK_TIMEOUT_MS = 3_000;
const JSON_LIMIT = 100_000;

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export function badRequest(error: string): Answer {
  return { status: 400, body: { ok: false, error } };
}

export function notFound(what: string): Answer {
  return { status: 404, body: { ok: false, error: `${what}_not_found` } };
}

export function unexpected(error: unknown): Answer {
  return {
    status: 502,
    body: { ok: false, error: error instanceof Error ? error.message : 'request_failed' },
  };
}

/** Slack's error for an app that answered badly or too late (`dispatch_failed`, `operation_timeout`). */
export function slackFailure(status: number, ms: number): string | null {
  if (status !== 200) return `http_${status}`;
  if (ms > SLACK_TIMEOUT_MS) return 'operation_timeout';
  return null;
}

export function immediateAnswer(raw: string): Record<string, unknown> | null {
  if (raw.trim() === '') return null;
  const parsed = parseJsonObject(raw);
  if (parsed === null) return { text: raw };
  return typeof parsed.text === 'string' || Array.isArray(parsed.blocks) ? parsed : null;
}

export async function postToResponseUrl(url: string, body: Record<string, unknown>): Promise<void> {
  await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseJsonObject(raw: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(raw);
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

export function stringField(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  return typeof value === 'string' ? value : undefined;
}

export function inputsOf(body: Record<string, unknown>): RawInputs {
  return isRecord(body.inputs) ? (body.inputs as RawInputs) : {};
}

/**
 * JSON bodies only, from this origin only: a page elsewhere cannot send a JSON POST here without a CORS
 * preflight (which is never granted), so another site open in the browser cannot drive the playground.
 */
export async function readJsonRequest(
  req: IncomingMessage,
): Promise<{ body: Record<string, unknown> } | { error: Answer }> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') return { error: { status: 415, body: { ok: false, error: 'json_only' } } };
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${req.headers.host}`) {
    return { error: { status: 403, body: { ok: false, error: 'cross_origin' } } };
  }
  const raw = await readBody(req);
  if (raw.length > JSON_LIMIT) return { error: badRequest('too_large') };
  const parsed = parseJsonObject(raw);
  return parsed === null ? { error: badRequest('invalid_json') } : { body: parsed };
}

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export function send(res: ServerResponse, status: number, body: string, type: string): void {
  res.writeHead(status, {
    'content-type': `${type}; charset=utf-8`,
    'content-length': Buffer.byteLength(body),
    ...SECURITY_HEADERS,
  });
  res.end(body);
}

export function sendAsset(res: ServerResponse, body: string, type: string): true {
  send(res, 200, body, type);
  return true;
}
