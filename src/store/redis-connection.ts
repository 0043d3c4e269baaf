import { Redis, type RedisOptions } from 'ioredis';
import { type Clock, systemClock } from '../lib/clock.js';
import { errFields, type Logger } from '../lib/logger.js';

/** Where a Redis URL points, for log lines: host, port and database, never the password. */
export function redisTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.hostname}:${parsed.port || '6379'}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return '(unparsable REDIS_URL)';
  }
}

/** Redis refused the credentials in REDIS_URL: a configuration problem, not an outage. */
export interface RedisCredentialsRefusal {
  /**
   * `WRONGPASS`: a password (or ACL user) Redis does not accept, or a disabled user; `NOAUTH`: Redis asks for a
   * password and REDIS_URL has none; `NOPERM`: the ACL user may not run a command the bot needs.
   */
  code: 'WRONGPASS' | 'NOAUTH' | 'NOPERM';
  /** Redis's reply (it never holds the password). */
  reply: string;
}

const REFUSAL_FIXES: Record<RedisCredentialsRefusal['code'], string> = {
  WRONGPASS:
    'Redis does not accept the password (or the ACL user, redis://user:password@host:port) in REDIS_URL, or the ' +
    'user is disabled: put the right ones in REDIS_URL, or fix them on the Redis side',
  NOAUTH:
    'Redis asks for a password and REDIS_URL has none: put it in REDIS_URL (redis://:password@host:port, or ' +
    'redis://user:password@host:port with an ACL user)',
  NOPERM:
    'the ACL user in REDIS_URL lacks a permission the bot needs: give it the commands and keys the bot uses ' +
    '(ACL SETUSER <user> ~<REDIS_KEY_PREFIX>* +@all)',
};

/** The refusal an error from ioredis is (Redis's WRONGPASS, NOAUTH or NOPERM reply), or null. */
export function credentialsRefusal(error: unknown): RedisCredentialsRefusal | null {
  const reply = error instanceof Error ? error.message : '';
  const code = /^(WRONGPASS|NOAUTH|NOPERM)\b/.exec(reply)?.[1] as RedisCredentialsRefusal['code'] | undefined;
  return code ? { code, reply: reply.slice(0, 200) } : null;
}

/** `Redis refused the credentials in REDIS_URL (<reply>): <the fix>`, never the password. */
export function describeRefusal(refusal: RedisCredentialsRefusal): string {
  return `Redis refused the credentials in REDIS_URL (${refusal.reply}): ${REFUSAL_FIXES[refusal.code]}`;
}

/**
 * An ioredis client whose errors are structured log lines, one per outage (not one stack per reconnection
 * attempt on stderr, ioredis's default without an `error` listener), and whose recovery is logged with how
 * long it lasted and how many errors it swallowed.
 */
export function createRedis(
  url: string,
  logger: Logger,
  options: RedisOptions & { clock?: Clock } = {},
): Redis {
  const { clock = systemClock, ...redisOptions } = options;
  const log = logger.child({ component: 'redis', redis: redisTarget(url) });
  const redis = new Redis(url, {
    maxRetriesPerRequest: 3,
    // Reconnect forever, backing off to 5 s: an outage ends when Redis is back, not when we give up.
    retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
    // Commands issued in one turn of the event loop leave in one write: a burst of Slack requests makes one
    // replay check and one installation read each before its ack, and every answer a handful more; one write
    // (one system call) per command was an eighth of a cold process's CPU in a burst of 200 (bench/README.md).
    enableAutoPipelining: true,
    ...redisOptions,
  });
  let downSince: number | null = null;
  let errors = 0;
  let everReady = false;
  redis.on('error', (error: unknown) => {
    errors += 1;
    if (downSince !== null) return;
    downSince = clock.monotonic();
    // Redis answers, and refuses REDIS_URL's credentials: not "unreachable".
    const refusal = credentialsRefusal(error);
    log.error(
      { ...errFields(error), ...(refusal && { refused: refusal.code }) },
      refusal
        ? `${describeRefusal(refusal)}; retrying`
        : everReady
          ? 'redis connection lost; reconnecting'
          : 'redis unreachable; retrying',
    );
  });
  redis.on('ready', () => {
    if (downSince !== null) {
      log.info({ downMs: Math.round(clock.monotonic() - downSince), errors }, 'redis reconnected');
    } else if (!everReady) {
      log.debug('redis connected');
    }
    everReady = true;
    downSince = null;
    errors = 0;
  });
  return redis;
}

/**
 * Waits until Redis answers PING, saying once what it waits for and then again every `remindMs` (at once when that
 * changes); never gives up (the orchestrator decides how long a replica may take to become healthy). Credentials
 * Redis refuses are said as such, at error level with the fix, and waited on too: a password changed on the Redis
 * side is taken as soon as it matches REDIS_URL's. Resolves false when `signal` aborts.
 */
export async function waitForRedis(
  redis: Redis,
  logger: Logger,
  options: { url: string; clock?: Clock; retryMs?: number; remindMs?: number; signal?: AbortSignal } = {
    url: '',
  },
): Promise<boolean> {
  const clock = options.clock ?? systemClock;
  const retryMs = options.retryMs ?? 2_000;
  const remindMs = options.remindMs ?? 30_000;
  const started = clock.monotonic();
  let lastSaid: number | null = null;
  let lastKind = '';
  // A refusal at connection (AUTH) reaches the client's `error` event; the PING may fail otherwise ("Connection is
  // closed", the retries' limit).
  let connectionError: unknown = null;
  const onError = (error: unknown) => {
    connectionError = error;
  };
  redis.on('error', onError);
  try {
    for (;;) {
      if (options.signal?.aborted) return false;
      try {
        if ((await redis.ping()) === 'PONG') {
          if (lastSaid !== null)
            logger.info({ waitedMs: Math.round(clock.monotonic() - started) }, 'redis answered; starting');
          return true;
        }
      } catch (error) {
        const now = clock.monotonic();
        const refusal = credentialsRefusal(error) ?? credentialsRefusal(connectionError);
        const kind = refusal?.code ?? 'unreachable';
        if (lastSaid === null || kind !== lastKind || now - lastSaid >= remindMs) {
          const fields = {
            redis: redisTarget(options.url),
            waitedMs: Math.round(now - started),
            retryMs,
            ...errFields(error),
          };
          if (refusal)
            logger.error(
              { ...fields, refused: refusal.code },
              `${lastSaid === null ? 'not started' : 'still not started'}: ${describeRefusal(refusal)}; ` +
                'waiting for Redis to take them; /healthz answers 503 meanwhile',
            );
          else
            logger.warn(
              fields,
              lastSaid === null
                ? 'not started: waiting for Redis (REDIS_URL); /healthz answers 503 meanwhile'
                : 'still waiting for Redis (REDIS_URL)',
            );
          lastSaid = now;
          lastKind = kind;
        }
      }
      connectionError = null;
      await new Promise<void>((resolve) => clock.setTimeout(resolve, retryMs));
    }
  } finally {
    redis.off('error', onError);
  }
}
