/**
 * The floor for ack latency: a Bolt app with the bot's receiver and authorization (HTTP receiver at
 * /slack/events, the same signing secret, OAuth installations read from the same Redis store) whose listeners
 * call `ack()` and nothing else. Started by the orchestrator like bench/replica.ts.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import { Redis } from 'ioredis';
import { loadConfig } from '../src/config.js';
import { makeLogger } from '../src/lib/logger.js';
import { BOT_SCOPES } from '../src/slack/app.js';
import { SecretBox } from '../src/store/crypto.js';
import { SlackInstallationStore } from '../src/store/installation-store.js';
import { Keys } from '../src/store/keys.js';
import { RedisKeyValue } from '../src/store/kv.js';
import { readBenchEnv } from './bench-env.js';
import { announceFailure, announceReady, serveParent, timeRequests } from './ipc.js';

async function main(): Promise<void> {
  const bench = readBenchEnv();
  const config = loadConfig();
  if (!config.REDIS_URL || !config.CREDENTIALS_KEY)
    throw new Error('REDIS_URL and CREDENTIALS_KEY are required');
  const logger = makeLogger({ level: config.LOG_LEVEL }).child({ component: 'bolt' });
  const redis = new Redis(config.REDIS_URL, { maxRetriesPerRequest: 3 });
  const installations = new SlackInstallationStore(
    new RedisKeyValue(redis),
    new Keys(bench.keyPrefix),
    SecretBox.fromBase64(config.CREDENTIALS_KEY),
  );
  const app = new App({
    logger: boltLogger(logger),
    clientOptions: { slackApiUrl: config.SLACK_API_URL },
    clientId: config.SLACK_CLIENT_ID,
    clientSecret: config.SLACK_CLIENT_SECRET,
    stateSecret: config.SLACK_STATE_SECRET,
    scopes: BOT_SCOPES,
    installationStore: installations,
    installerOptions: { directInstall: true, installPath: '/slack/install', port: config.PORT },
    signingSecret: config.SLACK_SIGNING_SECRET ?? '',
    endpoints: '/slack/events',
    processBeforeResponse: false,
  });
  app.command(/.*/, async ({ ack }) => {
    await ack();
  });
  app.action(/.*/, async ({ ack }) => {
    await ack();
  });
  const server = (await app.start(config.PORT)) as unknown as Server;
  const timings = timeRequests(server);
  serveParent(async () => {
    await app.stop().catch(() => undefined);
    redis.disconnect();
    return { type: 'stopped', counters: null, prefetch: null, timings: timings() };
  });
  announceReady((server.address() as AddressInfo).port);
}

/** Bolt's logger over pino, as the bot's (src/slack/app.ts) so both pay the same per-request logging. */
function boltLogger(logger: ReturnType<typeof makeLogger>): BoltLogger {
  let level: LogLevel = LogLevel.INFO;
  return {
    debug: (...msg: unknown[]) => logger.debug(msg.map(String).join(' ')),
    info: (...msg: unknown[]) => logger.info(msg.map(String).join(' ')),
    warn: (...msg: unknown[]) => logger.warn(msg.map(String).join(' ')),
    error: (...msg: unknown[]) => logger.error(msg.map(String).join(' ')),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

main().catch(announceFailure);
