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
    log.error(
      { ...errFields(error) },
      everReady ? 'redis connection lost; reconnecting' : 'redis unreachable; retrying',
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
 * Waits until Redis answers PING, saying once what it waits for and then again every `remindMs`; never gives up
 * (the orchestrator decides how long a replica may take to become healthy). Resolves false when `signal` aborts.
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
      if (lastSaid === null || now - lastSaid >= remindMs) {
        logger.warn(
          {
            redis: redisTarget(options.url),
            waitedMs: Math.round(now - started),
            retryMs,
            ...errFields(error),
          },
          lastSaid === null
            ? 'not started: waiting for Redis (REDIS_URL); /healthz answers 503 meanwhile'
            : 'still waiting for Redis (REDIS_URL)',
        );
        lastSaid = now;
      }
    }
    await new Promise<void>((resolve) => clock.setTimeout(resolve, retryMs));
  }
}
