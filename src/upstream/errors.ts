import { MAX_TRACE_ID_CHARS, maskSecretsInText } from '../lib/logger.js';
import type { LinkBreak } from '../store/link-store.js';

/**
 * Errors of the upstream client, one small hierarchy in the style of @slack/web-api: a stable `code` to switch
 * on, `cause` for the original error, checked with `instanceof`. Messages are for logs: they name the endpoint
 * label and the status, never a token, a password, a query value or a response body (the cause a ProblemDetails
 * states excepted, masked and truncated: see problemText).
 */

export const UpstreamErrorCode = {
  BadRequest: 'upstream_bad_request',
  Unauthorized: 'upstream_unauthorized',
  Forbidden: 'upstream_forbidden',
  NotFound: 'upstream_not_found',
  RateLimited: 'upstream_rate_limited',
  ServerError: 'upstream_server_error',
  Timeout: 'upstream_timeout',
  Network: 'upstream_network_error',
  Schema: 'upstream_schema_mismatch',
  TooLarge: 'upstream_response_too_large',
  UnexpectedStatus: 'upstream_unexpected_status',
  InvalidArgument: 'upstream_invalid_argument',
  AuthRejected: 'upstream_auth_rejected',
  CredentialsExpired: 'upstream_credentials_expired',
  BudgetExhausted: 'upstream_budget_exhausted',
  BudgetStoreUnavailable: 'upstream_budget_store_unavailable',
} as const;

export type UpstreamErrorCode = (typeof UpstreamErrorCode)[keyof typeof UpstreamErrorCode];

interface UpstreamErrorOptions extends AnswerFacts {
  status?: number;
  endpoint?: string;
  cause?: unknown;
}

/** What an error answer tells of itself besides its status, for logs and support. */
export interface AnswerFacts {
  /** The answer's ProblemDetails `traceId` extension, sanitized and bounded (traceIdOf). */
  traceId?: string | undefined;
}

export abstract class UpstreamError extends Error {
  abstract readonly code: UpstreamErrorCode;
  /** True only for 429, 5xx, timeouts and network failures: the cases worth another attempt. */
  abstract readonly retryable: boolean;
  readonly status?: number;
  /** A label such as `GET /v1/materiais`; never carries query values. */
  readonly endpoint?: string;
  /**
   * The upstream's trace id of the failed answer, when it gave one (the API document: "a correlation or trace id
   * is logged when available"); errFields puts it on the failure's log line.
   */
  readonly traceId?: string;

  constructor(message: string, options: UpstreamErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    if (options.status !== undefined) this.status = options.status;
    if (options.endpoint !== undefined) this.endpoint = options.endpoint;
    if (options.traceId !== undefined) this.traceId = options.traceId;
  }
}

export class UpstreamBadRequestError extends UpstreamError {
  override readonly name = 'UpstreamBadRequestError';
  readonly code = UpstreamErrorCode.BadRequest;
  readonly retryable = false;
  /** The cause as the service states it: ProblemDetails detail, message, first validation error or title. */
  readonly detail: string | null;
  /** The fields a validation `errors` dictionary names (at most MAX_FIELDS, each cut to MAX_FIELD_CHARS). */
  readonly fields: readonly string[];
  /** The ProblemDetails `title`, cleaned as `detail` is; null when absent. */
  readonly title: string | null;

  constructor(
    endpoint: string,
    detail: string | null,
    facts: AnswerFacts = {},
    fields: readonly string[] = [],
    title: string | null = null,
  ) {
    super(`${endpoint} answered 400${detail === null ? '' : `: ${detail}`}`, {
      ...facts,
      status: 400,
      endpoint,
    });
    this.detail = detail;
    this.fields = fields;
    this.title = title;
  }

  /**
   * Whether the service says this parameter is the cause: its validation errors name it (any case, ASP.NET may
   * prefix `$.`), or its stated cause or title holds its name or one of `words` (any case and accents:
   * `MaxPageSizeExceeded` blames PageSize, and so does "tamanho da pagina" when given as a word for it).
   */
  blames(parameter: string, words: readonly string[] = []): boolean {
    const name = fold(parameter);
    if (this.fields.some((field) => fold(field).replace(/^\$\./, '') === name)) return true;
    return this.says([name, ...words]);
  }

  /** Whether its stated cause or title holds one of `words` (any case and accents). */
  says(words: readonly string[]): boolean {
    const said = [this.detail, this.title].map((text) => fold(text ?? ''));
    return words.map(fold).some((word) => word !== '' && said.some((text) => text.includes(word)));
  }
}

/** Lower case without accents and with single spaces, for matching words in a stated cause. */
function fold(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ');
}

export class UpstreamUnauthorizedError extends UpstreamError {
  override readonly name = 'UpstreamUnauthorizedError';
  readonly code = UpstreamErrorCode.Unauthorized;
  readonly retryable = false;

  constructor(endpoint: string, facts: AnswerFacts = {}) {
    super(`${endpoint} answered 401 (token absent, expired or invalid)`, { ...facts, status: 401, endpoint });
  }
}

/**
 * No call was made: a token obtained moments before was refused (401), on this replica or another, and the
 * credential's renewals rest until `until` (TokenManager.refused). Its code is the 401's, and so is what the user
 * reads: renewing again would only get a token refused the same way.
 */
export class TokenRefusedError extends UpstreamUnauthorizedError {
  /** Epoch ms: when a renewal may be tried again. */
  readonly until: number;

  constructor(until: number) {
    super('token renewal');
    this.message = `not asked: a token obtained moments before was refused (401); no renewal until ${new Date(until).toISOString()}`;
    this.until = until;
  }
}

export class UpstreamForbiddenError extends UpstreamError {
  override readonly name = 'UpstreamForbiddenError';
  readonly code = UpstreamErrorCode.Forbidden;
  readonly retryable = false;
  readonly detail: string | null;

  constructor(endpoint: string, detail: string | null = null, facts: AnswerFacts = {}) {
    super(`${endpoint} answered 403${detail === null ? '' : `: ${detail}`}`, {
      ...facts,
      status: 403,
      endpoint,
    });
    this.detail = detail;
  }
}

export class UpstreamNotFoundError extends UpstreamError {
  override readonly name = 'UpstreamNotFoundError';
  readonly code = UpstreamErrorCode.NotFound;
  readonly retryable = false;
  readonly detail: string | null;

  constructor(endpoint: string, detail: string | null = null, facts: AnswerFacts = {}) {
    super(`${endpoint} answered 404${detail === null ? '' : `: ${detail}`}`, {
      ...facts,
      status: 404,
      endpoint,
    });
    this.detail = detail;
  }
}

export class UpstreamRateLimitedError extends UpstreamError {
  override readonly name = 'UpstreamRateLimitedError';
  readonly code = UpstreamErrorCode.RateLimited;
  readonly retryable = true;
  /** From a Retry-After header, when one happens to be present (the contract does not promise it). */
  readonly retryAfterMs?: number;
  /** Until when the client paused the credential after this 429 (epoch ms): when to tell people to try again. */
  readonly pausedUntil?: number;

  constructor(endpoint: string, retryAfterMs?: number, pausedUntil?: number, facts: AnswerFacts = {}) {
    super(
      `${endpoint} answered 429 (rate limited${retryAfterMs === undefined ? '' : `, retry after ${retryAfterMs} ms`})`,
      { ...facts, status: 429, endpoint },
    );
    if (retryAfterMs !== undefined) this.retryAfterMs = retryAfterMs;
    if (pausedUntil !== undefined) this.pausedUntil = pausedUntil;
  }
}

export class UpstreamServerError extends UpstreamError {
  override readonly name = 'UpstreamServerError';
  readonly code = UpstreamErrorCode.ServerError;
  readonly retryable = true;
  /** ErrorCommandResult.hash: the reference to quote to the service's support. */
  readonly hash: string | null;
  readonly type: string | null;
  /** From a Retry-After header (a 503 may carry one). */
  readonly retryAfterMs?: number;

  constructor(
    endpoint: string,
    status: number,
    details: {
      hash?: string | null;
      type?: string | null;
      retryAfterMs?: number | undefined;
    } & AnswerFacts = {},
  ) {
    const hash = details.hash ?? null;
    super(`${endpoint} answered ${status}${hash === null ? '' : ` (hash ${hash})`}`, {
      status,
      endpoint,
      traceId: details.traceId,
    });
    this.hash = hash;
    this.type = details.type ?? null;
    if (details.retryAfterMs !== undefined) this.retryAfterMs = details.retryAfterMs;
  }
}

export class UpstreamTimeoutError extends UpstreamError {
  override readonly name = 'UpstreamTimeoutError';
  readonly code = UpstreamErrorCode.Timeout;
  readonly retryable = true;
  readonly timeoutMs: number;

  constructor(endpoint: string, timeoutMs: number, cause?: unknown) {
    super(`${endpoint} did not answer within ${timeoutMs} ms`, { endpoint, cause });
    this.timeoutMs = timeoutMs;
  }
}

export class UpstreamNetworkError extends UpstreamError {
  override readonly name = 'UpstreamNetworkError';
  readonly code = UpstreamErrorCode.Network;
  readonly retryable = true;
  /** The system or undici error code (ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET…), when there is one. */
  readonly networkCode: string | null;

  constructor(endpoint: string, cause: unknown) {
    const networkCode = errorCode(cause);
    super(`${endpoint} could not be reached${networkCode === null ? '' : ` (${networkCode})`}`, {
      endpoint,
      cause,
    });
    this.networkCode = networkCode;
  }
}

export class UpstreamSchemaError extends UpstreamError {
  override readonly name = 'UpstreamSchemaError';
  readonly code = UpstreamErrorCode.Schema;
  readonly retryable = false;
  /** Paths and messages of the first few mismatches; never the values. */
  readonly summary: string;

  constructor(endpoint: string, summary: string, status?: number) {
    super(`${endpoint}: response does not match the documented shape: ${summary}`, { endpoint, status });
    this.summary = summary;
  }
}

/**
 * The answer's body passed the most bytes the client reads from one answer (UPSTREAM_MAX_RESPONSE_BYTES): the
 * stream was cut there, nothing of it is used or cached. Not retried: the same question gets the same answer.
 */
export class UpstreamResponseTooLargeError extends UpstreamError {
  override readonly name = 'UpstreamResponseTooLargeError';
  readonly code = UpstreamErrorCode.TooLarge;
  readonly retryable = false;
  readonly limitBytes: number;
  /** Bytes read before the stream was cut (or the Content-Length it announced). */
  readonly bytesRead: number;

  constructor(endpoint: string, limitBytes: number, bytesRead: number, status?: number) {
    super(`${endpoint}: answer larger than ${limitBytes} bytes (cut after ${bytesRead})`, {
      endpoint,
      status,
    });
    this.limitBytes = limitBytes;
    this.bytesRead = bytesRead;
  }
}

export class UpstreamUnexpectedStatusError extends UpstreamError {
  override readonly name = 'UpstreamUnexpectedStatusError';
  readonly code = UpstreamErrorCode.UnexpectedStatus;
  readonly retryable = false;

  constructor(endpoint: string, status: number, facts: AnswerFacts = {}) {
    super(`${endpoint} answered an unexpected status ${status}`, { ...facts, status, endpoint });
  }
}

/** A bad argument refused before any call was made (an id out of int32 range, a period over 12 months…). */
export class InvalidArgumentError extends UpstreamError {
  override readonly name = 'InvalidArgumentError';
  readonly code = UpstreamErrorCode.InvalidArgument;
  readonly retryable = false;
  readonly field: string;

  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.field = field;
  }
}

/** The token issuer answered the login with success false (wrong password, active session…). */
export class AuthRejectedError extends UpstreamError {
  override readonly name = 'AuthRejectedError';
  readonly code = UpstreamErrorCode.AuthRejected;
  readonly retryable = false;
  /** The issuer's `message`, JWT-shaped text masked. */
  readonly upstreamMessage: string | null;
  readonly hasActiveSession: boolean;

  constructor(upstreamMessage: string | null, hasActiveSession: boolean, endpoint = 'POST /v1/auth/') {
    const masked = upstreamMessage === null ? null : cleanText(upstreamMessage);
    super(
      `Login refused by the token issuer${masked === null ? '' : `: ${masked}`}${hasActiveSession ? ' (an active session exists)' : ''}`,
      { endpoint },
    );
    this.upstreamMessage = masked;
    this.hasActiveSession = hasActiveSession;
  }

  /**
   * The issuer's message says the login or password is wrong ("Usuário ou senha inválidos."): the password itself
   * was refused, and sending it again would only count against the account (a lockout). The document shows no
   * message, so this reads its words, in Portuguese or English: it must name the password, the credentials, or the
   * login or user as invalid, wrong or unknown, and must not say the refusal is passing ("temporariamente
   * indisponível", "tente novamente mais tarde"). Until 2026-11-27 any "inválid" counted ("Token inválido",
   * "Plataforma inválida…"): a refusal that says nothing of the password made the bot never send it again.
   */
  get wrongCredentials(): boolean {
    return (
      this.upstreamMessage !== null &&
      WRONG_CREDENTIALS.test(this.upstreamMessage) &&
      !PASSING_REFUSAL.test(this.upstreamMessage)
    );
  }
}

/** The password or the credentials named, or the login or user named as invalid, wrong or unknown. */
const WRONG_CREDENTIALS = new RegExp(
  [
    'senha',
    'password',
    'credencia',
    'credential',
    String.raw`\b(usu[aá]rio|login|user(name)?)\b[^.;!?]{0,20}\b(inv[aá]lid|incorret|errad|n[aã]o (encontrad|existe|cadastrad)|invalid|incorrect|wrong|unknown|not found)`,
    String.raw`\b(invalid|incorrect|wrong|unknown)\b[^.;!?]{0,20}\b(user(name)?|login)\b`,
  ].join('|'),
  'i',
);

/** A refusal that says it is passing: the service, not the password, is what failed. */
const PASSING_REFUSAL =
  /tempor[aá]ri|indispon[ií]ve|unavailable|temporar|manuten[cç][aã]o|maintenance|tente (novamente|de novo) (mais tarde|em)|try again later|sobrecarreg|overload/i;

/**
 * The credentials no longer work: neither the refresh token nor a new login can renew them, or the service keeps
 * refusing (401) the tokens renewals hand out. `why` tells which (LinkBreak), from the cause.
 */
export class CredentialsExpiredError extends UpstreamError {
  override readonly name = 'CredentialsExpiredError';
  readonly code = UpstreamErrorCode.CredentialsExpired;
  readonly retryable = false;
  readonly why: LinkBreak;

  constructor(message = 'Upstream credentials expired and could not be renewed', cause?: unknown) {
    super(message, { cause });
    this.why =
      cause instanceof AuthRejectedError
        ? cause.wrongCredentials
          ? 'password_refused'
          : 'login_refused'
        : cause instanceof UpstreamUnauthorizedError
          ? 'tokens_refused'
          : 'login_refused';
  }
}

const MAX_DETAIL_CHARS = 300;

function cleanText(text: string): string {
  const masked = maskSecretsInText(text).replace(/\s+/g, ' ').trim();
  return masked.length > MAX_DETAIL_CHARS ? `${masked.slice(0, MAX_DETAIL_CHARS)}…` : masked;
}

function errorCode(err: unknown): string | null {
  if (typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string') {
    return err.code;
  }
  return null;
}

function stringField(body: unknown, key: string): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const value = (body as Record<string, unknown>)[key];
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** Markup: an HTML page (or a fragment of one) in a text field is never shown as the cause. */
const MARKUP = /<\s*\/?\s*[a-z!][^>]*>/i;

function textField(body: unknown, key: string): string | null {
  const text = stringField(body, key);
  return text === null ? null : usable(text);
}

/**
 * The first message of an `errors` extension: ASP.NET's validation dictionary (`{ Field: ['message', …] }`) as
 * `Field: message` (the message alone under an empty name), or the first text of a plain list.
 */
function firstValidationError(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const errors = (body as Record<string, unknown>).errors;
  if (Array.isArray(errors)) return firstText(errors);
  if (typeof errors !== 'object' || errors === null) return null;
  for (const [field, messages] of Object.entries(errors)) {
    const message = typeof messages === 'string' ? usable(messages) : firstText(messages);
    if (message === null) continue;
    const name = field.trim();
    return name === '' || MARKUP.test(name) ? message : `${name}: ${message}`;
  }
  return null;
}

const MAX_FIELDS = 20;
const MAX_FIELD_CHARS = 64;

/** The field names of a validation `errors` dictionary (none for a list or anything else). */
function validationFields(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const errors = (body as Record<string, unknown>).errors;
  if (typeof errors !== 'object' || errors === null || Array.isArray(errors)) return [];
  return Object.keys(errors)
    .slice(0, MAX_FIELDS)
    .map((field) => field.trim().slice(0, MAX_FIELD_CHARS));
}

function firstText(values: unknown): string | null {
  if (!Array.isArray(values)) return null;
  for (const value of values) {
    const text = typeof value === 'string' ? usable(value) : null;
    if (text !== null) return text;
  }
  return null;
}

function usable(text: string): string | null {
  return text.trim() === '' || MARKUP.test(text) ? null : text;
}

/**
 * The cause as the service states it (the API document: a 400's "message states the cause"; ProblemDetails allows
 * extra properties): `detail`, else a `message`, else the first entry of a validation `errors` dictionary, else
 * the `title` (ASP.NET's generic "One or more validation errors occurred." comes last for that reason). Masked
 * and cut to MAX_DETAIL_CHARS; markup is skipped; any body that is not such an object gives null.
 */
export function problemText(body: unknown): string | null {
  const text =
    textField(body, 'detail') ??
    textField(body, 'message') ??
    firstValidationError(body) ??
    textField(body, 'title');
  return text === null ? null : cleanText(text);
}

/** The ProblemDetails `title` alone, cleaned as problemText's answer; null when absent or unusable. */
export function problemTitle(body: unknown): string | null {
  const text = textField(body, 'title');
  return text === null ? null : cleanText(text);
}

/**
 * The ProblemDetails `traceId` extension (ASP.NET's; the sandbox sends it too), reduced to the characters a trace
 * id is made of (W3C traceparent, ASP.NET activity ids: letters, digits, `-._:|/+=@`) and MAX_TRACE_ID_CHARS, so
 * a log field never carries a line break, a quote, markup or a token. The API document names no response header
 * that carries such an id, so none is read.
 */
export function traceIdOf(body: unknown): string | undefined {
  const raw = stringField(body, 'traceId');
  if (raw === null) return undefined;
  const clean = maskSecretsInText(raw)
    .replace(/<[^>]*>/g, '')
    .replace(/[^\w.:|/+=@-]/g, '')
    .slice(0, MAX_TRACE_ID_CHARS);
  return clean === '' ? undefined : clean;
}

function headerValue(
  headers: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** Retry-After as delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * Maps a non-2xx answer to its error. The body is read leniently: ProblemDetails and ErrorCommandResult fields
 * are picked when present and well typed, and a missing or non-JSON body (the type and category lists answer
 * 401 with none) still gives the right class.
 */
export function errorFromResponse(
  status: number,
  body: unknown,
  headers: Record<string, string | string[] | undefined>,
  endpoint: string,
): UpstreamError {
  const facts: AnswerFacts = { traceId: traceIdOf(body) };
  switch (status) {
    case 400:
      return new UpstreamBadRequestError(
        endpoint,
        problemText(body),
        facts,
        validationFields(body),
        problemTitle(body),
      );
    case 401:
      return new UpstreamUnauthorizedError(endpoint, facts);
    case 403:
      return new UpstreamForbiddenError(endpoint, problemText(body), facts);
    case 404:
      return new UpstreamNotFoundError(endpoint, problemText(body), facts);
    case 429:
      return new UpstreamRateLimitedError(
        endpoint,
        parseRetryAfter(headerValue(headers, 'retry-after')),
        undefined,
        facts,
      );
  }
  if (status >= 500 && status <= 599) {
    const hash = stringField(body, 'hash');
    const type = stringField(body, 'type');
    return new UpstreamServerError(endpoint, status, {
      hash: hash === null ? null : cleanText(hash),
      type: type === null ? null : cleanText(type),
      retryAfterMs: parseRetryAfter(headerValue(headers, 'retry-after')),
      ...facts,
    });
  }
  return new UpstreamUnexpectedStatusError(endpoint, status, facts);
}
