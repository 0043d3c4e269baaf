import type { Redis } from 'ioredis';
import type { Config } from '../src/config.js';
import { buildContainer } from '../src/container.js';
import type { DigestScheduler } from '../src/domain/digest/scheduler.js';
import { makeLogger } from '../src/lib/logger.js';
import { SlackInstallationStore } from '../src/store/installation-store.js';
import { RedisKeyValue } from '../src/store/kv.js';
import { createRedisBudget } from '../src/upstream/budget-redis.js';
import type { Stage } from './stage.js';

export interface DigestReplica {
  scheduler: DigestScheduler;
  close(): Promise<void>;
}

/**
 * One replica of the bot as main.ts builds it (its own Redis connection, budget queue, upstream client and
 * digest scheduler, OAuth installations from the store), on a clock the bench sets. Only the scheduler is used.
 */
export function buildDigestReplica(options: {
  stage: Stage;
  redis: Redis;
  config: Pick<
    Config,
    'UPSTREAM_RATE_LIMIT' | 'BOT_ADMINS' | 'DIGEST_TZ' | 'SLACK_API_URL' | 'SLACK_BOT_TOKEN'
  >;
  now: () => number;
  name: string;
}): DigestReplica {
  const { stage, redis, config } = options;
  const logger = makeLogger({ level: 'warn' }).child({ replica: options.name });
  const kv = new RedisKeyValue(redis);
  const { keys, box } = stage;
  const container = buildContainer({
    config,
    installations: new SlackInstallationStore(kv, keys, box),
    upstream: { baseUrl: stage.sandbox.baseUrl, authUrl: stage.sandbox.authUrl },
    logger,
    kv,
    keys,
    box,
    budget: createRedisBudget(redis, keys, { limit: config.UPSTREAM_RATE_LIMIT, logger }),
    now: options.now,
  });
  return {
    scheduler: container.scheduler,
    close: () => container.close(),
  };
}
