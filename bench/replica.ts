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
  // loadConfig gives a replica everything it needs (REDIS_URL, CREDENTIALS_KEY...) or throws naming what is missing.
  if (config.mode !== 'replica') throw new Error('the bench replica needs the Slack and upstream variables');
  const logger = makeLogger({ level: config.LOG_LEVEL });
  const feedLease = bench.feedLeaseMs ? { feedLeaseMs: bench.feedLeaseMs } : {};
  const { redis, container, app } = buildRedisBot(config, logger, {
    keyPrefix: bench.keyPrefix,
    features: bench.naive
      ? { cache: false, coalesce: false, ...feedLease }
      : { ttlScale: bench.ttlScale, prefetch: bench.prefetch, ...feedLease },
  });
  const prefetch = container.prefetcher;
  const server = (await startSlackApp(app, container.slackDeps, config.PORT)) as Server;
  const timings = timeRequests(server);
  container.keeper.start();
  container.scheduler.start();
  // As main.ts does: the feed runs on every replica and costs nothing where no workspace has a listener.
  container.feed.start();
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
