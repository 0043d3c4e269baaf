import type { App } from '@slack/bolt';
import { Redis } from 'ioredis';
import type { Config } from './config.js';
import { buildContainer, type Container, type ContainerOptions } from './container.js';
import type { Logger } from './lib/logger.js';
import { buildSlackApp } from './slack/app.js';
import { SecretBox } from './store/crypto.js';
import { SlackInstallationStore } from './store/installation-store.js';
import { Keys } from './store/keys.js';
import { RedisKeyValue } from './store/kv.js';
import { createRedisBudget } from './upstream/budget-redis.js';

export interface RedisBot {
  redis: Redis;
  keys: Keys;
  kv: RedisKeyValue;
  container: Container;
  app: App;
}

/**
 * One replica of the bot over a shared Redis, as production runs it (main.ts) and as the benchmark's replicas
 * do: the sealed stores, the Redis budget, OAuth installations when configured, the Slack app. Not started.
 */
export function buildRedisBot(
  config: Config & { REDIS_URL: string; CREDENTIALS_KEY: string },
  logger: Logger,
  options: { keyPrefix?: string; features?: ContainerOptions['features'] } = {},
): RedisBot {
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 3 });
  const keys = new Keys(options.keyPrefix);
  const kv = new RedisKeyValue(redis);
  const box = SecretBox.fromBase64(config.CREDENTIALS_KEY, previousKeys(config.CREDENTIALS_KEY_PREVIOUS));
  const budget = createRedisBudget(redis, keys, {
    limit: config.UPSTREAM_RATE_LIMIT,
    logger: logger.child({ component: 'budget' }),
  });
  // A new install resumes the digests and alerts a revoked token paused (the container exists by the time one
  // arrives).
  const installations = config.oauth
    ? new SlackInstallationStore(kv, keys, box, async (workspaceId) => {
        await container.subscriptions.resumeWorkspace(workspaceId, 'tokens_revoked');
        await container.feedListeners.resumeWorkspace(workspaceId, 'tokens_revoked');
      })
    : null;
  const container = buildContainer({
    config,
    upstream: { baseUrl: config.UPSTREAM_BASE_URL ?? '', authUrl: config.UPSTREAM_AUTH_URL ?? '' },
    logger,
    kv,
    keys,
    box,
    budget,
    installations,
    ...(options.features && { features: options.features }),
  });
  const app = buildSlackApp({ config, deps: container.slackDeps, kv, installations });
  return { redis, keys, kv, container, app };
}

function previousKeys(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
}
