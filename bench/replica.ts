/**
 * One replica of the bot as main.ts builds it (HTTP receiver, OAuth installations in Redis, the shared Redis
 * budget), started by the orchestrator with the bot's own environment variables plus bench/bench-env.ts's.
 * It listens on a free port and tells the orchestrator which one over the IPC channel.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { makeLogger } from '../src/lib/logger.js';
import { buildRedisBot } from '../src/redis-bot.js';
import { startSlackApp } from '../src/slack/app.js';
import { readBenchEnv } from './bench-env.js';
import { announceFailure, announceReady, serveParent, timeRequests } from './ipc.js';

async function main(): Promise<void> {
  const bench = readBenchEnv();
  const config = loadConfig();
  if (!config.REDIS_URL || !config.CREDENTIALS_KEY)
    throw new Error('REDIS_URL and CREDENTIALS_KEY are required');
  const logger = makeLogger({ level: config.LOG_LEVEL });
  const { redis, container, app } = buildRedisBot(
    { ...config, REDIS_URL: config.REDIS_URL, CREDENTIALS_KEY: config.CREDENTIALS_KEY },
    logger,
    {
      keyPrefix: bench.keyPrefix,
      features: bench.naive
        ? { cache: false, coalesce: false }
        : { ttlScale: bench.ttlScale, prefetch: bench.prefetch },
    },
  );
  const prefetch = container.prefetcher;
  const server = (await startSlackApp(app, container.slackDeps, config.PORT)) as Server;
  const timings = timeRequests(server);
  container.keeper.start();
  container.scheduler.start();
  prefetch?.start();

  serveParent(async () => {
    prefetch?.stop();
    await app.stop().catch(() => undefined);
    const counters = { ...container.client.counters };
    await container.close();
    redis.disconnect();
    return {
      type: 'stopped',
      counters,
      prefetch: prefetch ? { ...prefetch.counters } : null,
      timings: timings(),
    };
  });
  announceReady((server.address() as AddressInfo).port);
}

main().catch(announceFailure);
