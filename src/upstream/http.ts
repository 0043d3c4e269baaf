import { Agent, type Dispatcher, request } from 'undici';
import {
  UpstreamNetworkError,
  UpstreamResponseTooLargeError,
  UpstreamSchemaError,
  UpstreamTimeoutError,
} from './errors.js';

export interface HttpCall {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: FormData | URLSearchParams;
  timeoutMs: number;
  /** The most body bytes read; past it the stream is cut and UpstreamResponseTooLargeError thrown. */
  maxBytes?: number;
  /** A label such as `GET /v1/materiais` for errors and logs; never carries query values. */
  endpoint: string;
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or undefined when the body is empty (or, on a non-2xx answer, not JSON). */
  body: unknown;
}

export const ACCEPT = 'application/json, text/json;q=0.9, text/plain;q=0.8';

/** The production dispatcher: a keep-alive Agent. Built by the caller (no module singleton); close it on shutdown. */
export function createDispatcher(): Dispatcher {
  return new Agent({ keepAliveTimeout: 10_000, connect: { timeout: 10_000 } });
}

/** Errors that mean the call itself was malformed (a bad URL, an unmatched MockAgent route): not retried. */
const PROGRAMMING_ERROR_CODES = new Set([
  'ERR_INVALID_URL',
  'ERR_INVALID_ARG_TYPE',
  'UND_ERR_INVALID_ARG',
  'UND_ERR_NOT_SUPPORTED',
  'UND_ERR_MOCK_NOT_MATCHED',
]);

const TIMEOUT_ERROR_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

function codeOf(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string')
    return err.code;
  return undefined;
}

/**
 * undici's request() cannot send every body: a FormData built by another copy of undici (Node bundles its own,
 * apart from the npm package) is not recognised, and URLSearchParams is not supported at all. So both are
 * serialized here. The global Response encodes a global FormData as multipart with unquoted values; a FormData
 * of another realm is first copied into a global one, entry by entry (the login form holds only strings).
 */
async function encodeBody(body: FormData | URLSearchParams): Promise<{ bytes: Buffer; contentType: string }> {
  if (body instanceof URLSearchParams) {
    return {
      bytes: Buffer.from(body.toString(), 'utf8'),
      contentType: 'application/x-www-form-urlencoded;charset=UTF-8',
    };
  }
  const encoded = new Response(body instanceof FormData ? body : copyForm(body));
  const contentType = encoded.headers.get('content-type');
  if (contentType === null || !contentType.startsWith('multipart/form-data')) {
    throw new TypeError('body could not be encoded as multipart/form-data');
  }
  return { bytes: Buffer.from(await encoded.arrayBuffer()), contentType };
}

function copyForm(foreign: Iterable<[string, unknown]>): FormData {
  const form = new FormData();
  for (const [name, value] of foreign) {
    if (typeof value !== 'string') throw new TypeError('only text fields can be sent from this FormData');
    form.append(name, value);
  }
  return form;
}

function mediaType(headers: Record<string, string | string[] | undefined>): string | undefined {
  const raw = headers['content-type'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value?.split(';')[0]?.trim().toLowerCase() || undefined;
}

function isJsonLike(type: string): boolean {
  return (
    type === 'application/json' || type === 'text/json' || type === 'text/plain' || type.endsWith('+json')
  );
}

function interpretBody(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  raw: string,
  endpoint: string,
): unknown {
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  if (text.trim() === '') return undefined;
  const type = mediaType(headers);
  const ok = status >= 200 && status <= 299;
  // A missing content type is tolerated: the body is tried as JSON.
  if (type !== undefined && !isJsonLike(type)) {
    if (ok) throw new UpstreamSchemaError(endpoint, `expected a JSON body, got content type ${type}`, status);
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    if (ok) throw new UpstreamSchemaError(endpoint, 'body is not valid JSON', status);
    return undefined;
  }
}

/**
 * Reads the body as text, chunk by chunk, counting bytes: an answer that announces (Content-Length) or reaches
 * more than `call.maxBytes` is refused as soon as that is known, so memory holds at most the cap plus one chunk.
 */
async function readCapped(response: Dispatcher.ResponseData, call: HttpCall): Promise<string> {
  const max = call.maxBytes;
  if (max === undefined) return response.body.text();
  const declared = Number(headerText(response.headers['content-length']));
  if (Number.isFinite(declared) && declared > max) {
    throw new UpstreamResponseTooLargeError(call.endpoint, max, declared, response.statusCode);
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of response.body) {
    const buffer = chunk as Buffer;
    bytes += buffer.length;
    if (bytes > max) throw new UpstreamResponseTooLargeError(call.endpoint, max, bytes, response.statusCode);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, bytes).toString('utf8');
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * One attempt of an HTTP call. Never throws on a non-2xx status (errorFromResponse maps it); throws
 * UpstreamTimeoutError when headers and body together take longer than timeoutMs, UpstreamNetworkError when the
 * connection fails, UpstreamSchemaError when a 2xx body is not JSON, UpstreamResponseTooLargeError when the body
 * passes `maxBytes`.
 */
export async function sendOnce(dispatcher: Dispatcher, call: HttpCall): Promise<HttpResult> {
  const headers: Record<string, string> = { accept: ACCEPT };
  for (const [name, value] of Object.entries(call.headers ?? {})) headers[name.toLowerCase()] = value;
  let body: Buffer | undefined;
  if (call.body !== undefined) {
    const encoded = await encodeBody(call.body);
    body = encoded.bytes;
    headers['content-type'] = encoded.contentType;
  }

  // The signal stops undici's work, but a request still queued in a busy pool only notices it once dispatched:
  // the race with a timer is what bounds the attempt.
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new UpstreamTimeoutError(call.endpoint, call.timeoutMs));
    }, call.timeoutMs);
  });
  const exchange = (async () => {
    const response = await request(call.url, {
      dispatcher,
      method: call.method,
      headers,
      body,
      signal: controller.signal,
    });
    try {
      const raw = await readCapped(response, call);
      return { status: response.statusCode, headers: response.headers, raw };
    } finally {
      // The body was read to its end, or cut (cap, failure part-way): destroy it so the socket is released.
      if (!response.body.destroyed && !response.body.readableEnded) response.body.destroy();
    }
  })();
  // Whichever loses the race must not surface as an unhandled rejection.
  exchange.catch(() => {});

  let status: number;
  let responseHeaders: Record<string, string | string[] | undefined>;
  let raw: string;
  try {
    ({ status, headers: responseHeaders, raw } = await Promise.race([exchange, expired]));
  } catch (err) {
    if (err instanceof UpstreamTimeoutError || err instanceof UpstreamResponseTooLargeError) throw err;
    if (controller.signal.aborted) throw new UpstreamTimeoutError(call.endpoint, call.timeoutMs, err);
    const code = codeOf(err);
    if (code !== undefined && TIMEOUT_ERROR_CODES.has(code)) {
      throw new UpstreamTimeoutError(call.endpoint, call.timeoutMs, err);
    }
    if (code !== undefined && PROGRAMMING_ERROR_CODES.has(code)) throw err;
    throw new UpstreamNetworkError(call.endpoint, err);
  } finally {
    clearTimeout(timer);
  }
  return {
    status,
    headers: responseHeaders,
    body: interpretBody(status, responseHeaders, raw, call.endpoint),
  };
}
