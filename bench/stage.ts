import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { FAKE_SEED, type FakeSlack, startFakeSlack } from '../src/fake-slack/index.js';
import { DEMO_FACTS } from '../src/sandbox/facts.js';
import { type Sandbox, startSandbox } from '../src/sandbox/server.js';
import { BOT_SCOPES } from '../src/slack/app.js';
import { SecretBox } from '../src/store/crypto.js';
import { SlackInstallationStore } from '../src/store/installation-store.js';
import { Keys } from '../src/store/keys.js';
import { RedisKeyValue } from '../src/store/kv.js';
import { LinkStore } from '../src/store/link-store.js';
import { credentialIdOf } from '../src/upstream/credential.js';
import { type BenchProcessEnv, benchEnvVars, benchRedisUrl } from './bench-env.js';

export const REDIS_URL = benchRedisUrl();
export const SIGNING_SECRET = 'bench-signing-secret';
/** The workspace of the load phases; its installation and link are written before the bots start. */
export const BENCH_TEAM = FAKE_SEED.teamId;
/** The time zone the bot renders dates in (DIGEST_TZ); the answer classifier reads dates back in it. */
export const BENCH_TZ = 'America/Sao_Paulo';

export interface RateLimit {
  count: number;
  windowMs: number;
}

/** What one configuration runs against: its own sandbox, fake Slack and Redis key prefix. */
export interface Stage {
  sandbox: Sandbox;
  slack: FakeSlack;
  redis: Redis;
  keys: Keys;
  kv: RedisKeyValue;
  box: SecretBox;
  prefix: string;
  credentialId: string;
  /** Environment of a bot process of this stage (the bot's variables and the bench's). */
  botEnv(options?: {
    naive?: boolean;
    prefetch?: boolean;
    ttlScale?: number;
    logLevel?: string;
    /** The change feed's round lease, ms (compressed like the window); default the bot's. */
    feedLeaseMs?: number;
  }): Record<string, string>;
  /** Installs the app in a workspace of the fake Slack (OAuth installation in the store). */
  install(teamId: string): Promise<void>;
  /** Links a workspace to a sandbox login, as `/estoque vincular` leaves it. */
  link(teamId: string, account?: { login: string; password: string; empresa: number }): Promise<void>;
  close(): Promise<void>;
}

export async function openStage(
  name: string,
  options: { rateLimit: RateLimit; enforceChannelRate?: boolean; extraCompanies?: number },
): Promise<Stage> {
  const sandbox = await startSandbox({
    port: 0,
    rateLimit: options.rateLimit,
    extraCompanies: options.extraCompanies ?? 0,
  });
  const slack = await startFakeSlack({ port: 0, enforceChannelRate: options.enforceChannelRate ?? true });
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  await redis.ping();
  const prefix = `bench:${randomBytes(4).toString('hex')}:${name}:`;
  const keys = new Keys(prefix);
  const kv = new RedisKeyValue(redis);
  const credentialsKey = randomBytes(32).toString('base64');
  const box = SecretBox.fromBase64(credentialsKey);
  const installations = new SlackInstallationStore(kv, keys, box);
  const links = new LinkStore(kv, keys, box);
  const { rateLimit } = options;

  const stage: Stage = {
    sandbox,
    slack,
    redis,
    keys,
    kv,
    box,
    prefix,
    credentialId: credentialIdOf(sandbox.authUrl, DEMO_FACTS.company1.login),
    botEnv(env = {}) {
      const process: BenchProcessEnv = {
        keyPrefix: prefix,
        naive: env.naive ?? false,
        prefetch: env.prefetch ?? false,
        ttlScale: env.ttlScale ?? 1,
        feedLeaseMs: env.feedLeaseMs ?? null,
      };
      return {
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_CLIENT_ID: 'bench-client-id',
        SLACK_CLIENT_SECRET: 'bench-client-secret',
        SLACK_STATE_SECRET: 'bench-state-secret',
        SLACK_API_URL: slack.apiUrl,
        UPSTREAM_BASE_URL: sandbox.baseUrl,
        UPSTREAM_AUTH_URL: sandbox.authUrl,
        UPSTREAM_RATE_LIMIT: `${rateLimit.count}/${rateLimit.windowMs}ms`,
        CREDENTIALS_KEY: credentialsKey,
        REDIS_URL,
        DIGEST_TZ: BENCH_TZ,
        PORT: '0',
        LOG_LEVEL: env.logLevel ?? 'info',
        NODE_ENV: 'production',
        ...benchEnvVars(process),
      };
    },
    async install(teamId) {
      const team = slack.teams.get(teamId);
      if (!team) throw new Error(`no team ${teamId} in the fake Slack`);
      await installations.storeInstallation({
        team: { id: teamId, name: team.name },
        enterprise: undefined,
        user: { id: FAKE_SEED.users.admin, token: undefined, scopes: undefined },
        bot: { token: slack.tokenFor(teamId), scopes: BOT_SCOPES, id: team.botId, userId: team.botUserId },
        tokenType: 'bot',
        isEnterpriseInstall: false,
        appId: 'A00FAKEAPP',
        authVersion: 'v2',
      });
    },
    async link(teamId, account = DEMO_FACTS.company1) {
      await links.save({
        workspaceId: teamId,
        credentialId: credentialIdOf(sandbox.authUrl, account.login),
        login: account.login,
        password: account.password,
        empresaId: account.empresa,
        unidadeId: null,
        linkedBy: FAKE_SEED.users.admin,
        linkedAt: Date.now(),
        brokenAt: null,
      });
    },
    async close() {
      await deletePrefix(redis, prefix);
      redis.disconnect();
      await slack.close();
      await sandbox.close();
    },
  };
  return stage;
}

export async function deletePrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (found.length > 0) await redis.del(...found);
  } while (cursor !== '0');
}
