import { Redis } from 'ioredis';
import { type Config, ConfigError, loadConfig } from './config.js';
import { buildContainer } from './container.js';
import { makeLogger } from './lib/logger.js';
import { buildSlackApp } from './slack/app.js';
import { SecretBox } from './store/crypto.js';
import { SlackInstallationStore } from './store/installation-store.js';
import { Keys } from './store/keys.js';
import { RedisKeyValue } from './store/kv.js';
import { createRedisBudget } from './upstream/budget.js';

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
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 3 });
  const keys = new Keys();
  const kv = new RedisKeyValue(redis);
  const box = SecretBox.fromBase64(config.CREDENTIALS_KEY, previousKeys(config.CREDENTIALS_KEY_PREVIOUS));
  const budget = createRedisBudget(redis, keys, {
    limit: config.UPSTREAM_RATE_LIMIT,
    logger: logger.child({ component: 'budget' }),
  });
  // A new install resumes the digests a revoked token paused (the container exists by the time one arrives).
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
  });
  const app = buildSlackApp({ config, deps: container.slackDeps, kv, installations });
  await app.start(config.PORT);
  container.keeper.start();
  // Every replica ticks; claims in Redis make each digest post once.
  container.scheduler.start();
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

function previousKeys(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
}

main().catch((error: unknown) => {
  process.stderr.write(
    `estoque-bot failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
