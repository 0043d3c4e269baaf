import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiArgs } from './types.js';

/** What a handler answers; the server writes it. */
export interface Reply {
  status: number;
  /** An object is written as JSON; a string as text/plain (Slack's response_url answers `ok`). */
  body: unknown;
  headers?: Record<string, string>;
}

const BODY_LIMIT = 2_000_000;

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export type ParsedBody =
  | { kind: 'json'; args: ApiArgs }
  | { kind: 'form'; args: ApiArgs }
  | { kind: 'error'; error: string };

/**
 * Parses a Web API body as Slack does: JSON (token only in the Authorization header) or a form (values
 * are strings; structured arguments such as `blocks` and `view` arrive JSON-encoded). An empty body is an
 * empty form, so a GET with a query string works too.
 */
export function parseApiBody(
  contentType: string | undefined,
  raw: string,
  query: URLSearchParams,
): ParsedBody {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const fromQuery = Object.fromEntries(query);
  if (type === 'application/json') {
    try {
      const parsed: unknown = raw.length === 0 ? {} : JSON.parse(raw);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        return { kind: 'error', error: 'invalid_json' };
      }
      return { kind: 'json', args: { ...fromQuery, ...(parsed as ApiArgs) } };
    } catch {
      return { kind: 'error', error: 'invalid_json' };
    }
  }
  if (type === 'application/x-www-form-urlencoded' || raw.length === 0) {
    return { kind: 'form', args: { ...fromQuery, ...Object.fromEntries(new URLSearchParams(raw)) } };
  }
  if (type === '') return { kind: 'error', error: 'missing_post_type' };
  return { kind: 'error', error: 'invalid_post_type' };
}

export function bearerToken(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

/** `Authorization: Basic base64(client_id:client_secret)`, the other way oauth.v2.access takes credentials. */
export function basicCredentials(req: IncomingMessage): { id: string; secret: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (match?.[1] === undefined) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

export function writeReply(res: ServerResponse, reply: Reply): void {
  const isText = typeof reply.body === 'string';
  const payload = isText ? (reply.body as string) : JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    'content-type': isText ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    ...reply.headers,
  });
  res.end(payload);
}

/** Reads a string argument (form or JSON); numbers and booleans are taken as their text. */
export function argString(args: ApiArgs, name: string): string | undefined {
  const value = args[name];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

export function argBool(args: ApiArgs, name: string): boolean {
  const value = args[name];
  return value === true || value === 'true' || value === '1' || value === 1;
}

/** A structured argument: taken as is from JSON, decoded when it arrives as a JSON string. */
export function argJson(args: ApiArgs, name: string): { ok: true; value: unknown } | { ok: false } {
  const value = args[name];
  if (typeof value !== 'string') return { ok: true, value };
  if (value.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(value) };
  } catch {
    return { ok: false };
  }
}
