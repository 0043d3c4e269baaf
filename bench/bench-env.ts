/**
 * The benchmark's own variables, read in this one place (the bot's variables go through src/config.ts as
 * in production; Biome's noProcessEnv allows these two files only). The orchestrator sets them on every bot
 * process it spawns.
 */
export interface BenchProcessEnv {
  /** Redis key prefix of this configuration: every replica of it uses the same one. */
  keyPrefix: string;
  /** The naive bot: no cache, no coalescing of identical calls. */
  naive: boolean;
  /** Refresh hot cache entries before they go stale, at background priority (src/domain/prefetch.ts). */
  prefetch: boolean;
  /** Multiplies the cache TTLs (1: as built). */
  ttlScale: number;
  /** The change feed's round lease, ms, compressed like the window; null: as built (3 minutes). */
  feedLeaseMs?: number | null;
}

export const BENCH_VARS = {
  keyPrefix: 'BENCH_KEY_PREFIX',
  naive: 'BENCH_NAIVE',
  prefetch: 'BENCH_PREFETCH',
  ttlScale: 'BENCH_TTL_SCALE',
  feedLeaseMs: 'BENCH_FEED_LEASE_MS',
} as const;

export function readBenchEnv(env: NodeJS.ProcessEnv = process.env): BenchProcessEnv {
  const keyPrefix = env[BENCH_VARS.keyPrefix];
  if (!keyPrefix) throw new Error(`${BENCH_VARS.keyPrefix} is required (the orchestrator sets it)`);
  return {
    keyPrefix,
    naive: env[BENCH_VARS.naive] === '1',
    prefetch: env[BENCH_VARS.prefetch] === '1',
    ttlScale: Number(env[BENCH_VARS.ttlScale] ?? '1'),
    feedLeaseMs: env[BENCH_VARS.feedLeaseMs] ? Number(env[BENCH_VARS.feedLeaseMs]) : null,
  };
}

export function benchEnvVars(options: BenchProcessEnv): Record<string, string> {
  return {
    [BENCH_VARS.keyPrefix]: options.keyPrefix,
    [BENCH_VARS.naive]: options.naive ? '1' : '0',
    [BENCH_VARS.prefetch]: options.prefetch ? '1' : '0',
    [BENCH_VARS.ttlScale]: String(options.ttlScale),
    ...(options.feedLeaseMs && { [BENCH_VARS.feedLeaseMs]: String(options.feedLeaseMs) }),
  };
}

/** The Redis the orchestrator stages its data in, and hands to the bots it starts. */
export function benchRedisUrl(env: NodeJS.ProcessEnv = process.env): string {
  return env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

/** What a spawned process keeps of the orchestrator's environment: the rest is set explicitly. */
export function inheritedEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return { PATH: env.PATH ?? '', HOME: env.HOME ?? '' };
}

/** Node flags to start every bot process with, bare Bolt included (`BENCH_NODE_FLAGS`, space-separated). */
export function benchNodeFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  return env.BENCH_NODE_FLAGS?.split(/\s+/).filter(Boolean) ?? [];
}
