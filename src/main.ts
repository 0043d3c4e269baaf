import { type Config, ConfigError, type Environment, loadConfig, readEnvironment } from './config.js';
import { makeLogger } from './lib/logger.js';
import { buildRedisBot } from './redis-bot.js';
import { startSlackApp } from './slack/app.js';

async function main(): Promise<void> {
  let config: Config;
  let environment: Environment;
  try {
    environment = readEnvironment();
    config = loadConfig(environment.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = makeLogger({ level: config.LOG_LEVEL });
  if (environment.dotEnvFile) {
    logger.info(
      { file: environment.dotEnvFile, variables: environment.fromFile },
      'configuração lida de .env',
    );
  }
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
  const { redis, container, app } = buildRedisBot(config, logger);
  await startSlackApp(app, container.slackDeps, config.PORT);
  container.keeper.start();
  // Every replica ticks; claims in Redis make each digest post once.
  container.scheduler.start();
  logger.info(
    {
      port: config.PORT,
      mode: config.slack.kind,
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
