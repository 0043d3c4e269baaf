/**
 * One replica of the bot as main.ts builds it (HTTP receiver, OAuth installations in Redis, the shared Redis
 * budget), started by the orchestrator with the bot's own environment variables plus bench/bench-env.ts's.
 * It listens on a free port and tells the orchestrator which one over the IPC channel.
 */
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { loadConfig } from '../src/config.js';
import { buildContainer } from '../src/container.js';
import { makeLogger } from '../src/lib/logger.js';
import { buildSlackApp } from '../src/slack/app.js';
import { SecretBox } from '../src/store/crypto.js';
import { SlackInstallationStore } from '../src/store/installation-store.js';
import { Keys } from '../src/store/keys.js';
import { RedisKeyValue } from '../src/store/kv.js';
import { createRedisBudget } from '../src/upstream/budget.js';
import { readBenchEnv } from './bench-env.js';
import { announceFailure, announceReady, serveParent } from './ipc.js';
import { wirePrefetch } from './wire-prefetch.js';

async function main(): Promise<void> {
  const bench = readBenchEnv();
  const config = loadConfig();
  if (!config.REDIS_URL || !config.CREDENTIALS_KEY)
    throw new Error('REDIS_URL and CREDENTIALS_KEY are required');
  const logger = makeLogger({ level: config.LOG_LEVEL });
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 3 });
  const keys = new Keys(bench.keyPrefix);
  const kv = new RedisKeyValue(redis);
  const box = SecretBox.fromBase64(config.CREDENTIALS_KEY);
  const budget = createRedisBudget(redis, keys, {
    limit: config.UPSTREAM_RATE_LIMIT,
    logger: logger.child({ component: 'budget' }),
  });
  // As main.ts: a new install resumes the digests a revoked token paused.
  const installations = config.oauth
    ? new SlackInstallationStore(kv, keys, box, (workspaceId) =>
        container.subscriptions.resumeWorkspace(workspaceId, 'tokens_revoked'),
      )
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
    ...(bench.naive && { features: { cache: false, coalesce: false } }),
  });
  const prefetch = bench.prefetch ? wirePrefetch(container, { kv, keys, logger }) : null;
  const app = buildSlackApp({ config, deps: container.slackDeps, kv, installations });
  const server = (await app.start(config.PORT)) as unknown as { address(): AddressInfo };
  container.keeper.start();
  container.scheduler.start();
  prefetch?.start();

  serveParent(async () => {
    prefetch?.stop();
    await app.stop().catch(() => undefined);
    const counters = { ...container.client.counters };
    await container.close();
    redis.disconnect();
    return { type: 'stopped', counters, prefetch: prefetch?.counters() ?? null };
  });
  announceReady(server.address().port);
}

main().catch(announceFailure);
