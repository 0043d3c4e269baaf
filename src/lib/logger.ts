import { randomUUID } from 'node:crypto';
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';

export type { Logger } from 'pino';

/**
 * Secrets that must never reach a log line, wherever they sit in a logged object. pino's redaction works on
 * paths, so the common shapes are listed one and two levels deep; `sanitizeForLog` is the belt for the rest.
 */
const SECRET_KEYS = [
  'password',
  'Password',
  'senha',
  'token',
  'Token',
  'accessToken',
  'refreshToken',
  'RefreshToken',
  'jti',
  'authorization',
  'Authorization',
  'botToken',
  'appToken',
  'clientSecret',
  'signingSecret',
  'stateSecret',
  'credentialsKey',
  'cookie',
];

const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `*.*.${k}`),
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
];

export function makeLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  const opts: LoggerOptions = {
    level: options.level ?? 'info',
    base: { app: 'estoque-bot' },
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.destination ? pino(opts, options.destination) : pino(opts);
}

/**
 * The process's stdout, written synchronously. pino's default writes asynchronously and flushes synchronously at
 * exit: a write still under way then lands after the lines flushed, so a stop's last lines (`stopped`, a fatal
 * error) came out of order, or after the exit code was seen. One write per line is cheap at this bot's volume.
 */
export function stdoutDestination(): DestinationStream {
  return pino.destination({ dest: 1, sync: true });
}

export function newCorrelationId(): string {
  return randomUUID();
}

const JWT_LIKE = /\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}\b/g;
/** Slack tokens: bot, user, app, refresh, config (xoxb-, xoxp-, xapp-, xoxe-…). */
const SLACK_TOKEN_LIKE = /\bx(?:ox[a-z]|app)-[\w.-]{4,}/gi;
/**
 * A secret's value after its name, in JSON (`"client_secret":"…"`) or a form (`client_secret=…`): what a library's
 * debug line prints of a request or an answer as text, where pino's key redaction cannot reach.
 */
const SECRET_NAMES =
  'client_secret|code|password|senha|secret|signing_secret|state_secret|token|access_token|refresh_token|RefreshToken|jti';
/** The quote around a name: none, `"`, or `\"` (JSON written inside a JSON string). */
const QUOTE = String.raw`(\\?"|)`;
/** A value: a JSON string (escapes kept inside), a string of JSON inside JSON (`\"…\"`), or a bare word. */
const VALUE = String.raw`("(?:[^"\\]|\\.)*"|\\"(?:(?!\\")[\s\S])*\\"|[^\s&,;"}\\]+)`;
const KEYED_SECRET = new RegExp(String.raw`${QUOTE}\b(${SECRET_NAMES})\1(\s*[:=]\s*)${VALUE}`, 'gi');
/**
 * A secret-named field whose value is an object, such as a modal's input (`"password":{"type":"plain_text_input",
 * "value":"…"}` in @slack/socket-mode's debug line of every frame): the whole object goes (inputs are flat).
 */
const KEYED_SECRET_OBJECT = new RegExp(String.raw`${QUOTE}\b(${SECRET_NAMES})\1(\s*:\s*)\{[^{}]*\}`, 'gi');

/** Masks anything shaped like a JWT or a Slack token in free text (error messages that echo a token, for instance). */
export function maskSecretsInText(text: string): string {
  return text.replace(JWT_LIKE, '[redacted-jwt]').replace(SLACK_TOKEN_LIKE, '[redacted-token]');
}

/**
 * maskSecretsInText, plus the values of secret-named fields written as text (a library's debug lines: the OAuth
 * exchange's request body holds client_secret and the one-time code).
 */
export function maskSecretsInLine(text: string): string {
  return maskSecretsInText(text)
    .replace(
      KEYED_SECRET_OBJECT,
      (_, quote: string, name: string, sep: string) =>
        `${quote}${name}${quote}${sep}${quote}[redacted]${quote}`,
    )
    .replace(
      KEYED_SECRET,
      (_, quote: string, name: string, sep: string, value: string) =>
        `${quote}${name}${quote}${sep}${value.startsWith('\\"') ? '\\"[redacted]\\"' : value.startsWith('"') ? '"[redacted]"' : '[redacted]'}`,
    );
}

/** Keys whose values never reach a log line, in any case: SECRET_KEYS and the names masked in text. */
const SECRET_KEY_NAMES: ReadonlySet<string> = new Set(
  [...SECRET_KEYS, ...SECRET_NAMES.split('|').filter((name) => name !== 'code')].map((name) =>
    name.toLowerCase(),
  ),
);
/** Deeper than this, a logged object is cut: a log line is not a dump. */
const MAX_LOG_DEPTH = 12;

/**
 * A copy of `value` fit for a log line, however deep pino's path redaction cannot reach: the value of every
 * secret-named key redacted, text masked as maskSecretsInLine does, nesting past MAX_LOG_DEPTH cut (so a cycle
 * ends too). For objects a library hands its logger (Bolt's request bodies and frames).
 */
export function sanitizeForLog(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskSecretsInLine(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_LOG_DEPTH) return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => sanitizeForLog(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = SECRET_KEY_NAMES.has(key.toLowerCase()) ? '[redacted]' : sanitizeForLog(item, depth + 1);
  }
  return copy;
}

/** A trace id longer than this is cut: it is a reference to look up, not data. */
export const MAX_TRACE_ID_CHARS = 128;

/**
 * What a log line says of a failure, spread into its fields: `{ err: { name, message, code, traceId } }` (code
 * and traceId when the error has them: traceId is the upstream's id of a failed answer, for its support), JWT-like
 * text masked. Never a stack, never the error object itself (a cause or a request may hang off it).
 */
export function errFields(error: unknown): {
  err: { name: string; message: string; code?: string; traceId?: string };
} {
  if (error instanceof Error) {
    const { code, traceId } = error as { code?: unknown; traceId?: unknown };
    return {
      err: {
        name: error.name,
        message: maskSecretsInText(error.message),
        ...(typeof code === 'string' && { code }),
        ...(typeof traceId === 'string' && {
          traceId: maskSecretsInText(traceId).slice(0, MAX_TRACE_ID_CHARS),
        }),
      },
    };
  }
  return { err: { name: typeof error, message: maskSecretsInText(String(error)) } };
}
