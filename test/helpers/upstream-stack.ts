import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { type Logger, makeLogger } from '../../src/lib/logger.js';
import { SecretBox } from '../../src/store/crypto.js';
import type { Keys } from '../../src/store/keys.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { TokenStore } from '../../src/store/token-store.js';
import { TokenManager } from '../../src/upstream/auth.js';
import type { Budget } from '../../src/upstream/budget.js';
import { createRedisBudget } from '../../src/upstream/budget-redis.js';
import { UpstreamClient } from '../../src/upstream/client.js';
import { credentialIdOf, type UpstreamCredential } from '../../src/upstream/credential.js';
import { createDispatcher } from '../../src/upstream/http.js';
import { FAST_RETRY_POLICY } from '../../src/upstream/retry.js';

/** Every log line written, to assert that no secret reaches the logs. */
export function captureLogger(level = 'debug'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: makeLogger({ level, destination }), lines };
}

export interface StackOptions {
  redis: Redis;
  keys: Keys;
  baseUrl: string;
  authUrl: string;
  limit?: { count: number; windowMs: number };
  /** The budget's margin after the window (BudgetOptions.guardMs). */
  guardMs?: number;
  now?: () => number;
  logger?: Logger;
  timeoutMs?: number;
  box?: SecretBox;
  refreshAheadMs?: number;
  /** How long the token renewal lock lives without its holder renewing it. */
  lockTtlMs?: number;
  maxResponseBytes?: number;
  maxRows?: number;
  /** The budget the token manager and the client use, made of the Redis budget (a test holds calls with it). */
  wrapBudget?: (budget: Budget) => Budget;
}

export interface Stack {
  budget: Budget;
  tokens: TokenManager;
  client: UpstreamClient;
  box: SecretBox;
  close(): Promise<void>;
}

/** The upstream client as one process of the bot builds it: real Redis, real HTTP, fast retries. */
export function makeStack(options: StackOptions): Stack {
  const logger = options.logger ?? makeLogger({ level: 'silent' });
  const box = options.box ?? new SecretBox(randomBytes(32));
  const dispatcher = createDispatcher();
  const redisBudget = createRedisBudget(options.redis, options.keys, {
    limit: options.limit ?? { count: 1_000, windowMs: 60_000 },
    logger,
    ...(options.guardMs !== undefined && { guardMs: options.guardMs }),
  });
  const budget = options.wrapBudget ? options.wrapBudget(redisBudget) : redisBudget;
  const tokens = new TokenManager({
    authUrl: options.authUrl,
    dispatcher,
    budget,
    store: new TokenStore(new RedisKeyValue(options.redis), options.keys, box, options.now),
    logger,
    retryPolicy: FAST_RETRY_POLICY,
    ...(options.now && { now: options.now }),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(options.refreshAheadMs !== undefined && { refreshAheadMs: options.refreshAheadMs }),
    ...(options.lockTtlMs !== undefined && { lockTtlMs: options.lockTtlMs }),
  });
  const client = new UpstreamClient({
    baseUrl: options.baseUrl,
    tokens,
    budget,
    dispatcher,
    logger,
    retryPolicy: FAST_RETRY_POLICY,
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(options.maxResponseBytes !== undefined && { maxResponseBytes: options.maxResponseBytes }),
    ...(options.maxRows !== undefined && { maxRows: options.maxRows }),
  });
  return {
    budget,
    tokens,
    client,
    box,
    async close() {
      await budget.close();
      await dispatcher.close();
    },
  };
}

export function credentialFor(
  authUrl: string,
  login: string,
  password: string,
  empresaId: number | null = null,
): UpstreamCredential {
  return { id: credentialIdOf(authUrl, login), login, password, empresaId, unidadeId: null };
}
