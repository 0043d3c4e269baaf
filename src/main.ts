import { type Config, ConfigError, type Environment, loadConfig, readEnvironment } from './config.js';
import { makeLogger } from './lib/logger.js';
import { buildRedisBot } from './redis-bot.js';
import { startSlackApp } from './slack/app.js';
import { ABANDON_NOTICE_MS } from './slack/background.js';

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
    logger.info(
      { signal, graceMs: config.SHUTDOWN_GRACE },
      'stopping: no new requests, answers in flight may finish',
    );
    // Never past the grace and the restart notices, whatever hangs: the orchestrator's SIGKILL would come next.
    setTimeout(() => process.exit(1), config.SHUTDOWN_GRACE + ABANDON_NOTICE_MS + 2_000).unref();
    // Closing the server stops new requests at once; its promise waits for open connections, so not awaited here.
    const serverStopped = app.stop().catch(() => undefined);
    await container.close({ graceMs: config.SHUTDOWN_GRACE });
    await Promise.race([serverStopped, new Promise((r) => setTimeout(r, 1_000).unref())]);
    await redis.quit().catch(() => redis.disconnect());
    logger.info('stopped');
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
