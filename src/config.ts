import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { z } from 'zod';
import { parseDuration, parseRateLimit, type RateLimitSpec } from './lib/rate-limit-spec.js';

/**
 * The one place that reads process.env. Every variable of the product's table, validated together so that
 * start-up names every bad variable at once.
 */

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

const url = (what: string) =>
  optionalText.refine((value) => value === undefined || URL.canParse(value), {
    message: `must be a valid ${what} URL`,
  });

/**
 * An address the bot fetches: http: or https: only. URL.canParse alone takes `estoque.example.com:443` (its scheme
 * read as `estoque.example.com:`), `ftp://…` and `mailto:…`, which only failed at the first call. It is a base the
 * bot appends paths to by joining strings (`${base}${path}?${query}`), so a query or fragment in it, even an empty
 * `?` or `#`, would end up before the path (`https://slack.com/api?x=1/chat.postMessage`) or swallow it (`#f`):
 * until 2026-11-27 such a value passed and every later call went astray. A user name or password in it is refused
 * too: the address is written to logs, and neither Slack nor upstream takes credentials that way.
 */
const httpUrl = (what: string, example: string) =>
  optionalText.superRefine((value, ctx) => {
    const problem = value === undefined ? null : httpUrlProblem(value, what, example);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

function httpUrlProblem(value: string, what: string, example: string): string | null {
  const parsed = URL.canParse(value) ? new URL(value) : null;
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    return `must be an http:// or https:// ${what} URL, scheme included (for example ${example})`;
  if (value.includes('?') || value.includes('#'))
    return `must have no query (?…) or fragment (#…): paths are appended to it (for example ${example})`;
  if (parsed.username !== '' || parsed.password !== '')
    return 'must not hold a user name or password (user:password@): the URL is written to logs';
  return null;
}

/**
 * A Redis URL as ioredis reads it: redis:// or rediss://, a host (ioredis takes `redis://` or `redis://:pw@/0`
 * without one as localhost: until 2026-11-27 that passed and a replica quietly used its own machine's Redis), and
 * after it at most a database number (ioredis reads `/abc` as no database, 0). A password
 * (`redis://:password@host:6379/0`, `redis://user:password@host`) and query options (`?family=6`) are ioredis's and
 * stay. A unix socket path (`/run/redis.sock`), which ioredis also takes, is not accepted here.
 */
function redisUrlProblem(value: string): string | null {
  if (!/^rediss?:\/\//.test(value)) return 'must start with redis:// or rediss://';
  const { hostname, pathname } = new URL(value);
  if (hostname === '')
    return 'must name a host (for example redis://redis:6379 or redis://:password@redis:6379/0)';
  if (!/^(\/\d*)?$/.test(pathname))
    return `must have at most a database number after the host (redis://redis:6379/0), not ${pathname}`;
  return null;
}

const rateLimit = (fallback: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx): RateLimitSpec => {
      const parsed = parseRateLimit(value === undefined || value === '' ? fallback : value);
      if (typeof parsed === 'string') {
        ctx.addIssue({ code: 'custom', message: parsed });
        return z.NEVER;
      }
      return parsed;
    });

/** A blank value (`DIGEST_TZ=` in a .env file) is unset, as for every other variable: its default. */
const blankAsUnset = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? undefined : value), schema);

/**
 * A whole number in digits only, within [min, max]; blank is unset. Number() (z.coerce) read `1e3`, `0x10`, `0b1`
 * and `1_0`... as 1000, 16, 1: a typo became another value instead of an error.
 */
const wholeNumber = (fallback: number, min: number, max: number, message: string) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx): number => {
      if (value === undefined || value === '') return fallback;
      const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
      if (!(number >= min && number <= max)) {
        ctx.addIssue({ code: 'custom', message: `${message}, got "${value}"` });
        return z.NEVER;
      }
      return number;
    });

/** A whole percent from 0 to 100. */
const percent = (fallback: number) => wholeNumber(fallback, 0, 100, 'must be a whole percent from 0 to 100');

/** A TCP port; 0 picks a free one. */
const port = (fallback: number) =>
  wholeNumber(fallback, 0, 65_535, 'must be a port number from 0 to 65535 (0 picks a free one)');

/** A duration such as `25s`, `1500ms` or `2m`, within [minMs, maxMs]. */
const duration = (fallback: string, minMs: number, maxMs: number) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx): number => {
      const text = value === undefined || value === '' ? fallback : value;
      const ms = parseDuration(text);
      if (ms === null) {
        ctx.addIssue({ code: 'custom', message: `expected a duration such as 25s or 1500ms, got "${text}"` });
        return z.NEVER;
      }
      if (ms < minMs || ms > maxMs) {
        ctx.addIssue({ code: 'custom', message: `must be between ${minMs}ms and ${maxMs}ms, got "${text}"` });
        return z.NEVER;
      }
      return ms;
    });

/** A byte count such as `4MiB`, `512KiB` or `1000000`. */
const byteSize = (fallback: string, minBytes: number) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value, ctx): number => {
      const text = value === undefined || value === '' ? fallback : value;
      const match = /^(\d+(?:\.\d+)?)\s*(B|KB|KiB|MB|MiB|GB|GiB)?$/i.exec(text);
      const unit = BYTE_UNITS[(match?.[2] ?? 'b').toLowerCase()];
      const bytes = match && unit !== undefined ? Math.floor(Number(match[1]) * unit) : Number.NaN;
      if (!Number.isSafeInteger(bytes) || bytes < minBytes) {
        ctx.addIssue({
          code: 'custom',
          message: `expected a size of at least ${minBytes} bytes such as 4MiB or 512KiB, got "${text}"`,
        });
        return z.NEVER;
      }
      return bytes;
    });

const BYTE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1_000,
  kib: 1_024,
  mb: 1_000_000,
  mib: 1_048_576,
  gb: 1_000_000_000,
  gib: 1_073_741_824,
};

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/**
 * base64 (or base64url) of exactly 32 bytes, and nothing else. Buffer.from skips what is not base64 (a space, a `!`),
 * so a key with a stray character still gave 32 bytes and was taken.
 */
function isKey(value: string): boolean {
  const digits = value.replace(/=$/, '');
  if (!/^[A-Za-z0-9+/]{43}$/.test(digits) && !/^[A-Za-z0-9_-]{43}$/.test(digits)) return false;
  const bytes = Buffer.from(digits, 'base64');
  // The 43rd digit carries 2 bits that must be 0: another one would decode to the same key, written differently.
  return (
    bytes.length === 32 &&
    (bytes.toString('base64').startsWith(digits) || bytes.toString('base64url') === digits)
  );
}

const credentialsKey = optionalText.refine((value) => value === undefined || isKey(value), {
  message:
    'must be base64 of exactly 32 bytes and nothing else (no spaces or other characters; generate one with: ' +
    'openssl rand -base64 32)',
});

const previousKeys = optionalText
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== ''),
  )
  .refine((keys) => keys.every(isKey), {
    message:
      'every key must be base64 of exactly 32 bytes, comma-separated (keys accepted for reading during a rotation)',
  })
  .transform((keys) => (keys.length === 0 ? undefined : keys.join(',')));

/** A Slack user id: U… (or W… in Enterprise Grid), upper-case letters and digits. */
const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;

const envSchema = z.object({
  SLACK_SIGNING_SECRET: optionalText,
  SLACK_BOT_TOKEN: optionalText.refine((v) => v === undefined || v.startsWith('xoxb-'), {
    message: 'must be a bot token starting with xoxb-',
  }),
  SLACK_CLIENT_ID: optionalText,
  SLACK_CLIENT_SECRET: optionalText,
  SLACK_STATE_SECRET: optionalText,
  SLACK_APP_TOKEN: optionalText.refine((v) => v === undefined || v.startsWith('xapp-'), {
    message: 'must be an app-level token starting with xapp-',
  }),
  SLACK_API_URL: httpUrl('Slack Web API', 'https://slack.com/api/').transform((v) => {
    const base = v ?? 'https://slack.com/api/';
    return base.endsWith('/') ? base : `${base}/`;
  }),
  PORT: port(3000),
  REDIS_URL: url('Redis').superRefine((value, ctx) => {
    const problem = value === undefined || !URL.canParse(value) ? null : redisUrlProblem(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  }),
  UPSTREAM_BASE_URL: httpUrl('upstream service', 'https://estoque.example.com'),
  UPSTREAM_AUTH_URL: httpUrl('token issuer', 'https://auth.example.com'),
  UPSTREAM_RATE_LIMIT: rateLimit('250/1h'),
  CREDENTIALS_KEY: credentialsKey,
  /** Keys accepted for reading, never sealing, while CREDENTIALS_KEY is rotated (two steps): comma-separated base64. */
  CREDENTIALS_KEY_PREVIOUS: previousKeys,
  /** Every Redis key starts with it: staging and production can share one Redis under two prefixes. */
  REDIS_KEY_PREFIX: blankAsUnset(z.string().trim().default('estoque:')).refine(
    (v) => /^[A-Za-z0-9_.:-]{1,64}$/.test(v),
    {
      message: 'must be 1 to 64 letters, digits or _ . : - (for example estoque: or estoque-staging:)',
    },
  ),
  /** How long SIGTERM waits for answers in flight before telling their users to try again. */
  SHUTDOWN_GRACE: duration('25s', 1_000, 600_000),
  BOT_ADMINS: optionalText
    .transform((v) =>
      (v ?? '')
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    )
    .superRefine((ids, ctx) => {
      // An e-mail or a @name is accepted by nothing later: the person it meant could not link, and nobody said why.
      const bad = ids.filter((id) => !SLACK_USER_ID.test(id));
      if (bad.length > 0)
        ctx.addIssue({
          code: 'custom',
          message:
            "must be Slack user ids (U… or W…: the person's profile, ⋮ > Copy member ID), comma-separated; not " +
            bad.map((id) => `"${id}"`).join(', '),
        });
    }),
  DIGEST_TZ: blankAsUnset(z.string().trim().default('America/Sao_Paulo')).refine(isTimeZone, {
    message: 'must be an IANA time zone such as America/Sao_Paulo',
  }),
  /** Shortest time between two detection rounds of a workspace (ms). */
  FEED_INTERVAL: duration('2m', 1_000, 86_400_000),
  /** Most of each budget window (percent) the change feed may use; 0 turns the feed off. */
  FEED_BUDGET_SHARE: percent(20),
  /**
   * Most of each budget window (percent) the change feed may use while commands of the same credential were refused
   * a slot within the last window (the budget is saturated); at most FEED_BUDGET_SHARE. 0 stops the feed then.
   */
  FEED_BUDGET_SHARE_SATURATED: percent(5),
  LOG_LEVEL: blankAsUnset(
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
  SANDBOX_PORT: port(4010),
  SANDBOX_RATE_LIMIT: rateLimit('250/1h'),
  DATA_DIR: blankAsUnset(z.string().trim().default('data')),
  /** When set, GET /metrics asks for `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: optionalText.refine((v) => v === undefined || /^[\x21-\x7e]{16,}$/.test(v), {
    message:
      'must be at least 16 printable characters without spaces (generate one with: openssl rand -hex 32)',
  }),
  // The upstream client and interactive answers (README, "The upstream client").
  UPSTREAM_MAX_RESPONSE_BYTES: byteSize('4MiB', 64 * 1024),
  /** One upstream attempt, headers and body. */
  UPSTREAM_TIMEOUT: duration('10s', 100, 120_000),
  /** From the command to its final answer (data, or the timeout with `Tentar de novo`). */
  ANSWER_DEADLINE: duration('25s', 1_000, 600_000),
  /** From the command's arrival, its call out at upstream and no answer yet: "consultando…", replaced in place. */
  ANSWER_PENDING_NOTICE: duration('3s', 0, 600_000),
  /**
   * From the command's arrival, no answer yet and its call not out at upstream (waiting for a budget slot, or for
   * a read it joined): saved data, its place in the queue or "consultando…" meanwhile (README, configuration).
   */
  ANSWER_BUDGET_NOTICE: duration('700ms', 0, 600_000),
});

export type Env = z.infer<typeof envSchema>;

/**
 * Local mode: neither Slack nor the upstream is configured; the bot runs against the sandbox and the playground
 * page, on the embedded store (or on Redis when REDIS_URL is set).
 */
export interface LocalConfig extends Env {
  mode: 'local';
  localMode: true;
  oauth: false;
  slack: { kind: 'local' };
}

/**
 * A replica of a real deployment: everything it needs is present and valid, so no later code checks it again.
 */
export interface ReplicaConfig extends Env {
  mode: 'replica';
  localMode: false;
  oauth: boolean;
  slack: { kind: 'socket'; appToken: string } | { kind: 'http' };
  REDIS_URL: string;
  CREDENTIALS_KEY: string;
  UPSTREAM_BASE_URL: string;
  UPSTREAM_AUTH_URL: string;
}

export type Config = LocalConfig | ReplicaConfig;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

function problemsOf(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`);
}

/** Validates the environment; throws one ConfigError naming every bad variable and why, in one round. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  const problems = parsed.success ? [] : problemsOf(parsed.error);
  // The rules across variables run even when a variable is malformed, so that one message names them all.
  const raw = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };
  const has = (name: string) => raw(name) !== undefined;
  // Any Slack credential means a deployment: one left half-configured (SLACK_CLIENT_SECRET alone) is refused,
  // naming what is missing, instead of a local-mode demo bot starting on what may be production's Redis.
  const slackConfigured = [
    'SLACK_SIGNING_SECRET',
    'SLACK_BOT_TOKEN',
    'SLACK_CLIENT_ID',
    'SLACK_CLIENT_SECRET',
    'SLACK_STATE_SECRET',
    'SLACK_APP_TOKEN',
  ].some(has);
  const upstreamConfigured = has('UPSTREAM_BASE_URL') || has('UPSTREAM_AUTH_URL');
  const localMode = !slackConfigured && !upstreamConfigured;
  const oauthNames = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;
  const oauth = oauthNames.some(has);

  if (!localMode) {
    const need = (name: string, why: string) => {
      if (!has(name)) problems.push(`${name}: ${why}`);
    };
    need('UPSTREAM_BASE_URL', 'required unless local mode (the service {base_url})');
    need('UPSTREAM_AUTH_URL', 'required unless local mode (the token issuer {auth_url})');
    if (!has('SLACK_APP_TOKEN'))
      need('SLACK_SIGNING_SECRET', 'required in HTTP mode (set it, or SLACK_APP_TOKEN for Socket Mode)');
    if (oauth) {
      for (const name of oauthNames)
        need(name, 'required when any of SLACK_CLIENT_ID/SECRET/STATE_SECRET is set (OAuth)');
      // Requests would be answered with each installation's token and digests and alerts posted with this one, in
      // every workspace.
      if (has('SLACK_BOT_TOKEN'))
        problems.push(
          'SLACK_BOT_TOKEN: not used with OAuth (SLACK_CLIENT_ID/SECRET/STATE_SECRET set: each workspace has the ' +
            'token of its installation): unset SLACK_BOT_TOKEN, or unset the SLACK_CLIENT_* variables for a ' +
            'single-workspace install',
        );
    } else {
      need(
        'SLACK_BOT_TOKEN',
        'required for a single-workspace install (or set the SLACK_CLIENT_* variables for OAuth)',
      );
    }
    need('REDIS_URL', 'required when Slack is configured (replicas share the store)');
    need('CREDENTIALS_KEY', 'required to store upstream credentials (openssl rand -base64 32)');
  }
  if (problems.length > 0 || !parsed.success) throw new ConfigError(problems);
  const cfg = parsed.data;
  if (localMode) return { ...cfg, mode: 'local', localMode: true, oauth: false, slack: { kind: 'local' } };
  // Present and valid: the checks above and the schema ran over the same variables.
  const present = (value: string | undefined): string => value ?? '';
  return {
    ...cfg,
    mode: 'replica',
    localMode: false,
    oauth,
    slack: cfg.SLACK_APP_TOKEN ? { kind: 'socket', appToken: cfg.SLACK_APP_TOKEN } : { kind: 'http' },
    REDIS_URL: present(cfg.REDIS_URL),
    CREDENTIALS_KEY: present(cfg.CREDENTIALS_KEY),
    UPSTREAM_BASE_URL: present(cfg.UPSTREAM_BASE_URL),
    UPSTREAM_AUTH_URL: present(cfg.UPSTREAM_AUTH_URL),
  };
}

/** Where the environment came from: the process's own variables, and a `.env` file when one was read. */
export interface Environment {
  env: NodeJS.ProcessEnv;
  /** Absolute path of the `.env` file read, or null when there was none. */
  dotEnvFile: string | null;
  /** Names the file set (those the real environment did not already set). */
  fromFile: string[];
}

/**
 * The process environment, with `.env` (in `cwd`) filling in what it does not set: a real environment variable
 * always wins over the file, as with `node --env-file` and docker's `--env-file`. A missing file is not an error.
 */
export function readEnvironment(
  options: { cwd?: string; env?: NodeJS.ProcessEnv; file?: string } = {},
): Environment {
  const env = options.env ?? process.env;
  const file = resolve(options.cwd ?? process.cwd(), options.file ?? '.env');
  if (!existsSync(file)) return { env, dotEnvFile: null, fromFile: [] };
  let parsedFile: Record<string, string>;
  try {
    parsedFile = parseEnv(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch (error) {
    throw new ConfigError([
      `.env: could not be read (${error instanceof Error ? error.message : String(error)}): fix or remove ${file}`,
    ]);
  }
  const merged: NodeJS.ProcessEnv = { ...env };
  const fromFile: string[] = [];
  for (const [name, value] of Object.entries(parsedFile)) {
    if (env[name] !== undefined) continue;
    merged[name] = value;
    fromFile.push(name);
  }
  return { env: merged, dotEnvFile: file, fromFile };
}

const sandboxSchema = envSchema.pick({ SANDBOX_PORT: true, SANDBOX_RATE_LIMIT: true });

export interface SandboxConfig {
  port: number;
  rateLimit: RateLimitSpec;
}

/**
 * `npm run sandbox` alone: only SANDBOX_PORT and SANDBOX_RATE_LIMIT, with the rules loadConfig gives them. The
 * rest of the environment is the bot's and may be invalid for it: the sandbox does not care.
 */
export function loadSandboxConfig(env: NodeJS.ProcessEnv = process.env): SandboxConfig {
  const parsed = sandboxSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(problemsOf(parsed.error));
  return { port: parsed.data.SANDBOX_PORT, rateLimit: parsed.data.SANDBOX_RATE_LIMIT };
}
