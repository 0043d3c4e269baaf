import { type Config, ConfigError, loadConfig } from './config.js';
import { makeLogger } from './lib/logger.js';
import { buildRedisBot } from './redis-bot.js';
import { startSlackApp } from './slack/app.js';

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = makeLogger({ level: config.LOG_LEVEL });
  if (config.localMode) {
    const { startLocalMode } = await import('./local/local-mode.js');
    const local = await startLocalMode(config, logger);
    let stoppingLocal = false;
    const stopLocal = (signal: string) => {
      if (stoppingLocal) return;
      stoppingLocal = true;
      logger.info({ signal }, 'stopping local mode');
      local.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.on('SIGTERM', () => stopLocal('SIGTERM'));
    process.on('SIGINT', () => stopLocal('SIGINT'));
    return;
  }
  const problems: string[] = [];
  if (!config.REDIS_URL)
    problems.push('REDIS_URL: required when Slack is configured (replicas share the store)');
  if (!config.CREDENTIALS_KEY)
    problems.push('CREDENTIALS_KEY: required to store upstream credentials (openssl rand -base64 32)');
  if (problems.length > 0 || !config.REDIS_URL || !config.CREDENTIALS_KEY) {
    process.stderr.write(`${new ConfigError(problems).message}\n`);
    process.exit(2);
  }
  const { redis, container, app } = buildRedisBot(
    { ...config, REDIS_URL: config.REDIS_URL, CREDENTIALS_KEY: config.CREDENTIALS_KEY },
    logger,
  );
  await startSlackApp(app, container.slackDeps, config.PORT);
  container.keeper.start();
  // Every replica ticks; claims in Redis make each digest post once.
  container.scheduler.start();
  container.feed.start();
  logger.info(
    {
      port: config.PORT,
      mode: config.SLACK_APP_TOKEN ? 'socket' : 'http',
      oauth: config.oauth,
      rateLimit: config.UPSTREAM_RATE_LIMIT,
    },
    'estoque-bot started',
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    await app.stop().catch(() => undefined);
    await container.close();
    redis.disconnect();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(
    `estoque-bot failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
