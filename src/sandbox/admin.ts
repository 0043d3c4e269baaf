import type { IncomingMessage } from 'node:http';
import type { AdvanceRequest } from './changes.js';
import { type SandboxControl, SandboxControlError } from './control.js';
import { JSON_TYPE, problem, type Reply, ReplyError, readBody } from './http-util.js';
import { parseInt32 } from './query.js';

/**
 * The sandbox-only control routes, under /_sandbox (outside the documented /v1 and /auth paths): no token,
 * no rate limit, no staged faults, and not in the call log, since they are not calls to the service. They
 * speak to developers and tests, so their messages are in English, unlike the service's pt-BR ones.
 *
 *   POST /_sandbox/advance   body {"login"?, "empresaId"?, "changes"?, "kinds"?}  -> {"changes": [...]}
 *   GET  /_sandbox/changes?since=SEQ&empresaId=ID                                  -> {"changes": [...], "last": SEQ}
 */

export const ADMIN_PREFIX = '/_sandbox';
const BODY_LIMIT = 16_384;

export function isAdminPath(path: string): boolean {
  return path === ADMIN_PREFIX || path.startsWith(`${ADMIN_PREFIX}/`);
}

function json(status: number, body: unknown): Reply {
  return { status, body, contentType: JSON_TYPE };
}

function badRequest(detail: string, instance: string): ReplyError {
  return new ReplyError(problem(400, detail, instance));
}

async function readJson(req: IncomingMessage, instance: string): Promise<unknown> {
  // Refused before reading, so the client gets the answer instead of a closed connection.
  if (Number(req.headers['content-length'] ?? 0) > BODY_LIMIT) {
    throw new ReplyError(problem(413, 'Body too large for a sandbox control.', instance));
  }
  const body = await readBody(req, BODY_LIMIT);
  if (body.length === 0) return {};
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    throw new ReplyError(problem(415, 'Send the body as application/json.', instance));
  }
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw badRequest('The body is not valid JSON.', instance);
  }
}

function intParam(params: URLSearchParams, name: string, instance: string): number | undefined {
  const raw = params.get(name);
  if (raw === null || raw.trim() === '') return undefined;
  const value = parseInt32(raw);
  if (value === null || value < 0) throw badRequest(`${name} must be a non-negative integer.`, instance);
  return value;
}

export async function serveAdmin(
  req: IncomingMessage,
  url: URL,
  path: string,
  control: SandboxControl,
): Promise<Reply> {
  const instance = url.pathname;
  try {
    if (path === `${ADMIN_PREFIX}/advance`) {
      if (req.method !== 'POST') return problem(405, 'Use POST.', instance);
      const body = await readJson(req, instance);
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw badRequest('The body must be a JSON object.', instance);
      }
      return json(200, { changes: control.advance(body as AdvanceRequest) });
    }
    if (path === `${ADMIN_PREFIX}/changes`) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return problem(405, 'Use GET.', instance);
      const since = intParam(url.searchParams, 'since', instance) ?? 0;
      const empresa = intParam(url.searchParams, 'empresaId', instance);
      return json(200, { changes: control.changesSince(since, empresa), last: control.changes.length });
    }
    return problem(404, `No sandbox control at ${url.pathname}.`, instance);
  } catch (error) {
    if (error instanceof SandboxControlError) return problem(error.status, error.message, instance);
    throw error;
  }
}
