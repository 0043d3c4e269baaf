import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ErrorCommandResult, ProblemDetails } from './records.js';

/**
 * What a handler answers. A body without a content type is JSON and follows the Accept header
 * (application/json, text/json or text/plain); a string body with a content type is written as is.
 */
export interface Reply {
  status: number;
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

/** Thrown by validation helpers deep in a handler; the server answers with its reply. */
export class ReplyError extends Error {
  override readonly name = 'ReplyError';
  constructor(readonly reply: Reply) {
    super(`sandbox reply ${reply.status}`);
  }
}

export const JSON_TYPE = 'application/json; charset=utf-8';
export const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

const PROBLEM_KINDS: Record<number, { type: string; title: string }> = {
  400: { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1', title: 'Bad Request' },
  401: { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.2', title: 'Unauthorized' },
  403: { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.4', title: 'Forbidden' },
  404: { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.5', title: 'Not Found' },
  405: { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.6', title: 'Method Not Allowed' },
  415: { type: 'https://tools.ietf.org/html/rfc9110#section-15.5.16', title: 'Unsupported Media Type' },
  429: { type: 'https://tools.ietf.org/html/rfc6585#section-4', title: 'Too Many Requests' },
  500: { type: 'https://tools.ietf.org/html/rfc9110#section-15.6.1', title: 'Internal Server Error' },
  502: { type: 'https://tools.ietf.org/html/rfc9110#section-15.6.3', title: 'Bad Gateway' },
  503: { type: 'https://tools.ietf.org/html/rfc9110#section-15.6.4', title: 'Service Unavailable' },
  504: { type: 'https://tools.ietf.org/html/rfc9110#section-15.6.5', title: 'Gateway Timeout' },
};

export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** An ASP.NET-style ProblemDetails reply, with the traceId extension the real service adds. */
export function problem(
  status: number,
  detail: string | null,
  instance: string | null,
  extra: Record<string, unknown> = {},
): Reply {
  const kind = PROBLEM_KINDS[status] ?? { type: null, title: null };
  const body: ProblemDetails = {
    type: kind.type,
    title: kind.title,
    status,
    detail,
    instance,
    ...extra,
    traceId: `00-${randomHex(16)}-${randomHex(8)}-00`,
  };
  return { status, body, contentType: PROBLEM_TYPE };
}

/** 400 from model binding or validation: names the field like ASP.NET's `errors` dictionary. */
export function validationProblem(field: string, message: string, instance: string | null): Reply {
  return problem(400, message, instance, {
    title: 'One or more validation errors occurred.',
    errors: { [field]: [message] },
  });
}

/** The 500 body of the service: ErrorCommandResult, exactly type and hash. */
export function unexpectedError(): Reply {
  const body: ErrorCommandResult = { type: 'Unexpected Error', hash: randomHex(16) };
  return { status: 500, body, contentType: JSON_TYPE };
}

/** Reads the whole request body (the sandbox only takes small forms). */
export function readBody(req: IncomingMessage, limit = 1_000_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new ReplyError(problem(413, 'Corpo da requisição grande demais.', req.url ?? null)));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The content type of a JSON answer given the Accept header: the service also offers text/json and
 * text/plain renditions of the same body. Quality values are honoured; ties keep the header's order.
 */
export function negotiateJson(accept: string | undefined): string {
  if (!accept) return JSON_TYPE;
  const ranges = accept
    .split(',')
    .map((part, index) => {
      const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
      const q = params.find((p) => p.startsWith('q='));
      const quality = q === undefined ? 1 : Number(q.slice(2));
      return { range, quality: Number.isNaN(quality) ? 0 : quality, index };
    })
    .filter((r) => r.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);
  for (const { range } of ranges) {
    if (range === 'application/json' || range === 'application/*' || range === '*/*') return JSON_TYPE;
    if (range === 'text/json') return 'text/json; charset=utf-8';
    if (range === 'text/plain') return 'text/plain; charset=utf-8';
    if (range === 'text/*') return 'text/plain; charset=utf-8';
  }
  return JSON_TYPE;
}

export function writeReply(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string | number> = { ...reply.headers };
  let payload: Buffer | null = null;
  if (reply.body !== undefined) {
    if (typeof reply.body === 'string' && reply.contentType) {
      payload = Buffer.from(reply.body, 'utf8');
      headers['Content-Type'] = reply.contentType;
    } else {
      payload = Buffer.from(JSON.stringify(reply.body), 'utf8');
      headers['Content-Type'] = reply.contentType ?? negotiateJson(req.headers.accept);
    }
  }
  headers['Content-Length'] = payload?.length ?? 0;
  res.writeHead(reply.status, headers);
  res.end(req.method === 'HEAD' ? undefined : (payload ?? undefined));
}

/** Strips accents and case so that `histórico` matches `HISTORICO`. */
export function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** Search words (whitespace separated, folded); empty when there is nothing to search. */
export function searchWords(search: string | undefined): string[] {
  return search === undefined ? [] : fold(search).split(/\s+/).filter(Boolean);
}

/** True when every word occurs in at least one of the fields (logical AND over words). */
export function matchesAllWords(words: string[], fields: (string | number | null | undefined)[]): boolean {
  if (words.length === 0) return true;
  const haystack = fields
    .filter((f) => f !== null && f !== undefined)
    .map((f) => fold(String(f)))
    .join('\u0000');
  return words.every((word) => haystack.includes(word));
}

/**
 * A page of a list, each row carrying its 1-based position in the whole result and the total (`statedTotal` instead
 * when given: a service that states a wrong total, Sandbox.stateTotalRows).
 */
export function paginate<T extends object>(
  rows: T[],
  page: number,
  pageSize: number,
  statedTotal: number = rows.length,
): (T & { rowNumber: number; totalRows: number })[] {
  const start = (page - 1) * pageSize;
  return rows
    .slice(start, start + pageSize)
    .map((row, i) => ({ ...row, rowNumber: start + i + 1, totalRows: statedTotal }));
}
