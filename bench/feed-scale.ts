import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { startSandbox } from '../src/sandbox/server.js';
import { SecretBox } from '../src/store/crypto.js';
import { Keys } from '../src/store/keys.js';
import { RedisKeyValue } from '../src/store/kv.js';
import { inheritedEnv } from './bench-env.js';
import type { FeedScaleChildMessage, FeedScaleReplicaOptions } from './feed-scale-replica.js';
import { FIRST_GENERATED_COMPANY, linkFeedWorkspaces } from './feed-setup.js';
import { MB, type Percentiles, percentiles, readProcMemory } from './measure.js';
import { deletePrefix, type RateLimit, REDIS_URL } from './stage.js';

/**
 * The feed's scale line: N workspaces with a channel feed each (each linked to its own generated sandbox
 * company), feed engines in R processes against one Redis, no interactive load. Measures whether rounds start
 * when planned (lateness = start - plan, and the share within one tick of the plan), the Redis commands per
 * round (counted by each replica on its own connection, and the shared server's `total_commands_processed`
 * over the run, which includes everyone else's traffic), and each replica's peak RSS (VmHWM).
 *
 *   npx tsx bench/feed-scale.ts [--workspaces=1000] [--replicas=3] [--duration=180] [--compression=3] [--json]
 */

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));

export interface FeedScaleOptions {
  workspaces: number;
  replicas: number;
  durationMs: number;
  intervalMs: number;
  limit: RateLimit;
  sharePercent: number;
  leaseMs: number;
  logDir: string;
}

export interface FeedScaleResult {
  workspaces: number;
  replicas: number;
  durationMs: number;
  intervalMs: number;
  limit: RateLimit;
  sharePercent: number;
  /** The tolerance of "on time": one tick, as the engine only looks for due rounds every tick. */
  toleranceMs: number;
  rounds: number;
  /** Share of the rounds (0..1) that started within the tolerance of their plan. */
  onTime: number | null;
  latenessMs: Percentiles;
  /** Commands the replicas sent, over the rounds they ran and per second. */
  redisCommands: number;
  commandsPerRound: number | null;
  commandsPerSecond: number;
  /** The shared server's total_commands_processed difference over the run (others' commands included). */
  serverCommands: number;
  serverCommandsPerRound: number | null;
  peakRssMb: number[];
  ticks: number;
  reasons: Record<string, number>;
  errors: number;
}

interface Child {
  process: ChildProcess;
  done: Promise<Extract<FeedScaleChildMessage, { type: 'done' }> | null>;
  hwm: number;
}

function spawnReplica(options: FeedScaleReplicaOptions, logFile: string): Promise<Child> {
  mkdirSync(dirname(logFile), { recursive: true });
  const log = openSync(logFile, 'a');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(BENCH_DIR, 'feed-scale-replica.ts'), JSON.stringify(options)],
    {
      cwd: dirname(BENCH_DIR),
      env: inheritedEnv(),
      stdio: ['ignore', log, log, 'ipc'],
    },
  );
  closeSync(log);
  const done = new Promise<Extract<FeedScaleChildMessage, { type: 'done' }> | null>((resolve) => {
    child.on('message', (m: FeedScaleChildMessage) => {
      if (m.type === 'done') resolve(m);
    });
    child.once('exit', () => resolve(null));
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`feed-scale replica did not start (see ${logFile})`)),
      // Three minutes: on the shared 2 cores a tsx start has taken more than one.
      180_000,
    );
    child.on('message', (m: FeedScaleChildMessage) => {
      if (m.type !== 'ready') return;
      clearTimeout(timer);
      resolve({ process: child, done, hwm: 0 });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`feed-scale replica exited with ${code} (see ${logFile})`));
    });
  });
}

async function totalCommands(redis: Redis): Promise<number> {
  const info = await redis.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? Number.NaN);
}

export async function runFeedScale(options: FeedScaleOptions): Promise<FeedScaleResult> {
  const empresaIds = Array.from({ length: options.workspaces }, (_, i) => FIRST_GENERATED_COMPANY + i);
  const sandbox = await startSandbox({
    port: 0,
    rateLimit: options.limit,
    extraCompanies: options.workspaces,
  });
  const prefix = `bench:feed-scale:${randomBytes(4).toString('hex')}:`;
  const keys = new Keys(prefix);
  const boxKey = randomBytes(32).toString('base64');
  const box = SecretBox.fromBase64(boxKey);
  const main = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  const children: Child[] = [];
  try {
    await linkFeedWorkspaces({
      kv: new RedisKeyValue(main),
      keys,
      box,
      authUrl: sandbox.authUrl,
      empresaIds,
    });
    for (let i = 0; i < options.replicas; i += 1) {
      children.push(
        await spawnReplica(
          {
            redisUrl: REDIS_URL,
            prefix,
            boxKey,
            sandbox: { baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl },
            limit: options.limit,
            sharePercent: options.sharePercent,
            intervalMs: options.intervalMs,
            leaseMs: options.leaseMs,
            owner: `scale-${i}`,
          },
          join(options.logDir, `feed-scale-${i}.log`),
        ),
      );
    }
    // The replicas start their loops as they come up; the run is measured from the last one's start.
    const serverBefore = await totalCommands(main);
    const startedAt = Date.now();
    const sampler = setInterval(() => {
      for (const child of children) {
        const memory = child.process.pid === undefined ? null : readProcMemory(child.process.pid);
        if (memory) child.hwm = Math.max(child.hwm, memory.hwm);
      }
    }, 1_000);
    await new Promise((resolve) => setTimeout(resolve, options.durationMs));
    const serverAfter = await totalCommands(main);
    const elapsedMs = Date.now() - startedAt;
    for (const child of children) {
      const memory = child.process.pid === undefined ? null : readProcMemory(child.process.pid);
      if (memory) child.hwm = Math.max(child.hwm, memory.hwm);
      child.process.send({ type: 'stop' });
    }
    clearInterval(sampler);
    const reports = await Promise.all(children.map((c) => c.done));
    const lateness: number[] = [];
    const reasons: Record<string, number> = {};
    let redisCommands = 0;
    let ticks = 0;
    let errors = 0;
    for (const report of reports) {
      if (!report) continue;
      // Rounds planned before the measured run started (the set-up) are not the scheduler's lateness.
      for (const [plannedAt, at] of report.rounds) if (plannedAt >= startedAt) lateness.push(at - plannedAt);
      for (const [reason, n] of Object.entries(report.reasons)) reasons[reason] = (reasons[reason] ?? 0) + n;
      redisCommands += report.redisCommands;
      ticks += report.ticks;
      errors += report.errors;
    }
    const rounds = reports.reduce((sum, r) => sum + (r?.rounds.length ?? 0), 0);
    const toleranceMs = Math.max(100, Math.floor(options.intervalMs / 4));
    const serverCommands = serverAfter - serverBefore;
    return {
      workspaces: options.workspaces,
      replicas: options.replicas,
      durationMs: elapsedMs,
      intervalMs: options.intervalMs,
      limit: options.limit,
      sharePercent: options.sharePercent,
      toleranceMs,
      rounds,
      onTime:
        lateness.length === 0 ? null : lateness.filter((ms) => ms <= toleranceMs).length / lateness.length,
      latenessMs: percentiles(lateness),
      redisCommands,
      commandsPerRound: rounds === 0 ? null : redisCommands / rounds,
      commandsPerSecond: redisCommands / (elapsedMs / 1_000),
      serverCommands,
      serverCommandsPerRound: rounds === 0 ? null : serverCommands / rounds,
      peakRssMb: children.map((c) => Math.round((c.hwm / MB) * 10) / 10),
      ticks,
      reasons,
      errors,
    };
  } finally {
    for (const child of children) if (child.process.exitCode === null) child.process.kill('SIGKILL');
    await sandbox.close();
    await deletePrefix(main, prefix);
    await main.quit().catch(() => main.disconnect());
  }
}

/** The scale line's report, one paragraph. */
export function feedScaleText(r: FeedScaleResult | null | undefined): string {
  if (!r) return 'Feed scale line: not run.';
  const num = (value: number | null, digits = 0) => (value === null ? '–' : value.toFixed(digits));
  const pct = (v: number | null) => (v === null ? 'n/a' : `${num(v * 100, 1)} %`);
  return [
    `Feed scale line: ${r.workspaces} workspaces, ${r.replicas} replica processes, ${(r.durationMs / 1000).toFixed(0)} s, FEED_INTERVAL ${r.intervalMs} ms, limit ${r.limit.count}/${r.limit.windowMs / 1000}s, share ${r.sharePercent} %`,
    `  rounds run: ${r.rounds}; on time (≤ ${r.toleranceMs} ms late, one tick): ${pct(r.onTime)}; lateness p50 ${num(r.latenessMs.p50)} ms, p95 ${num(r.latenessMs.p95)} ms, max ${num(r.latenessMs.max)} ms`,
    `  Redis commands sent by the replicas: ${r.redisCommands} (${num(r.commandsPerRound, 1)} per round, ${num(r.commandsPerSecond, 1)}/s); shared server's total_commands_processed: +${r.serverCommands} (${num(r.serverCommandsPerRound, 1)} per round, others' traffic included)`,
    `  peak RSS per replica: ${r.peakRssMb.map((mb) => `${mb} MB`).join(', ')}; ticks ${r.ticks}; reports ${JSON.stringify(r.reasons)}; tick errors ${r.errors}`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { parseArgs } = await import('node:util');
  const { values } = parseArgs({
    options: {
      workspaces: { type: 'string', default: '1000' },
      replicas: { type: 'string', default: '3' },
      duration: { type: 'string', default: '180' },
      compression: { type: 'string', default: '3' },
      json: { type: 'boolean', default: false },
    },
  });
  const result = await runFeedScale(
    feedScaleDefaults(
      {
        workspaces: Number(values.workspaces),
        replicas: Number(values.replicas),
        durationMs: Number(values.duration) * 1_000,
        logDir: join(BENCH_DIR, 'results', 'logs'),
      },
      Number(values.compression),
    ),
  );
  process.stdout.write(`${feedScaleText(result)}\n`);
  if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  process.exit(0);
}

/**
 * The scale line as `npm run bench` runs it: the production budget (250 calls an hour, share 20 %) and
 * FEED_INTERVAL 2 min, compressed three times (an hour in 20 minutes). Not the 120× of the other benches: 1,000
 * workspaces at 120× ask for about 500 rounds a second, far beyond the 2 shared cores the bench runs on; at 3×
 * about 15 (a round costs about 3 calls, so the share stretches the interval to about 72 s).
 */
export function feedScaleDefaults(
  options: Pick<FeedScaleOptions, 'workspaces' | 'replicas' | 'durationMs' | 'logDir'>,
  compression = 3,
): FeedScaleOptions {
  return {
    ...options,
    intervalMs: Math.round(120_000 / compression),
    limit: { count: 250, windowMs: Math.round(3_600_000 / compression) },
    sharePercent: 20,
    leaseMs: Math.round(180_000 / compression),
  };
}
