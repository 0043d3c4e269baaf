import { join } from 'node:path';
import { DEMO_FACTS } from '../src/sandbox/facts.js';
import { LoadDriver, sleep } from './load.js';
import {
  MB,
  preciseNow,
  readProcMemory,
  type Trend,
  type TrendBeside,
  trend,
  trendBeside,
} from './measure.js';
import { type RunMode, spawnBot } from './processes.js';
import { BENCH_TEAM, openStage, type RateLimit, type Stage } from './stage.js';
import { benchUsers } from './workload.js';

/** One memory sample of the bot process, taken after a full GC. */
export interface Sample {
  atS: number;
  rssMb: number;
  heapMb: number;
  codeMb: number;
}

export interface SoakResult {
  label: string;
  perSecond: number;
  warmupPerSecond: number;
  warmupMs: number;
  measureMs: number;
  sampleEveryMs: number;
  /** VmRSS of the bot process, MB per minute. */
  rss: Trend;
  /** The same over the second half of the samples: whether growth is slowing down. */
  rssLate: Trend;
  rssFlat: boolean;
  rssStartMb: number;
  rssEndMb: number;
  /** V8 heap still alive after a full GC (process.memoryUsage().heapUsed, asked over IPC), MB per minute. */
  heap: Trend;
  heapFlat: boolean;
  heapStartMb: number;
  heapEndMb: number;
  sent: number;
  answered: number;
  upstream429: number;
  /** Live heap without V8's code and bytecode, MB per minute: the data the bot keeps. */
  data: Trend;
  dataLate: Trend;
  dataFlat: boolean;
  /**
   * The same with V8's code size held fixed: what grows beside the code (the heap objects V8 keeps with compiled
   * functions move with it) told apart from what grows on its own. An explanation, not the target's test.
   */
  dataBesideCode: TrendBeside;
  dataBesideCodeLate: TrendBeside;
  dataStartMb: number;
  dataEndMb: number;
  samples: Sample[];
}

export interface SoakOptions {
  limit: RateLimit;
  users: number;
  perSecond: number;
  warmupPerSecond: number;
  warmupMs: number;
  measureMs: number;
  sampleEveryMs: number;
  logDir: string;
  seed: number;
  mode: RunMode;
}

/**
 * "Flat within noise": the slope's 95 % interval holds 0, or the growth the slope predicts over the whole soak
 * is within two residual standard deviations (GC sawtooth) of the samples.
 */
export function isFlat(t: Trend, minutes: number): boolean {
  return Math.abs(t.slopePerMin) <= t.ci95PerMin || Math.abs(t.slopePerMin) * minutes <= 2 * t.residualStd;
}

/** The as-built bot, one replica, at a moderate rate for a few minutes; memory sampled after a warm-up. */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const stage = await openStage('soak', { rateLimit: options.limit });
  try {
    return await soak(stage, options);
  } finally {
    await stage.close();
  }
}

async function soak(stage: Stage, options: SoakOptions): Promise<SoakResult> {
  await stage.install(BENCH_TEAM);
  await stage.link(BENCH_TEAM);
  // --expose-gc: each sample first runs a full collection, so the heap figure is what is still alive.
  const bot = await spawnBot('replica', options.mode, stage.botEnv(), join(options.logDir, 'soak-1.log'), {
    exposeGc: true,
  });
  const driver = new LoadDriver(stage, [bot.eventsUrl], benchUsers(options.users));
  const samples: SoakResult['samples'] = [];
  try {
    // The warm-up runs faster: what the JIT and V8's own metadata add grows with the commands handled, not time.
    await driver.runStep({
      name: 'soak-warmup',
      perSecond: options.warmupPerSecond,
      warmupMs: options.warmupMs,
      measureMs: 0,
      seed: options.seed,
    });
    const running = driver.runStep({
      name: 'soak',
      perSecond: options.perSecond,
      warmupMs: 0,
      measureMs: options.measureMs,
      seed: options.seed + 1,
    });
    const start = preciseNow();
    while (preciseNow() - start < options.measureMs) {
      const memory = await bot.memory({ gc: true });
      const rss = readProcMemory(bot.pid)?.rss ?? memory?.rss ?? 0;
      samples.push({
        atS: (preciseNow() - start) / 1000,
        rssMb: rss / MB,
        heapMb: (memory?.heapUsed ?? 0) / MB,
        codeMb: (memory?.codeUsed ?? 0) / MB,
      });
      await sleep(options.sampleEveryMs);
    }
    await running;
    await driver.drain(15_000);
  } finally {
    await bot.stop();
    await driver.close();
  }
  const minutes = options.measureMs / 60_000;
  const rss = trend(samples.map((s) => ({ at: s.atS * 1000, value: s.rssMb })));
  const heap = trend(samples.map((s) => ({ at: s.atS * 1000, value: s.heapMb })));
  // The data heap: live heap less V8's code, with the code size beside it.
  const dataPoint = (s: Sample) => ({ at: s.atS * 1000, value: s.heapMb - s.codeMb, covariate: s.codeMb });
  const data = trend(samples.map(dataPoint));
  const dataBesideCode = trendBeside(samples.map(dataPoint));
  const late = samples.slice(Math.floor(samples.length / 2));
  const rssLate = trend(late.map((s) => ({ at: s.atS * 1000, value: s.rssMb })));
  const dataLate = trend(late.map(dataPoint));
  const dataBesideCodeLate = trendBeside(late.map(dataPoint));
  const measured = driver.records.filter((r) => r.measured);
  return {
    label: 'as built, 1 replica',
    perSecond: options.perSecond,
    warmupPerSecond: options.warmupPerSecond,
    warmupMs: options.warmupMs,
    measureMs: options.measureMs,
    sampleEveryMs: options.sampleEveryMs,
    rss,
    rssLate,
    rssFlat: isFlat(rss, minutes),
    rssStartMb: samples[0]?.rssMb ?? 0,
    rssEndMb: samples.at(-1)?.rssMb ?? 0,
    heap,
    heapFlat: isFlat(heap, minutes),
    heapStartMb: samples[0]?.heapMb ?? 0,
    heapEndMb: samples.at(-1)?.heapMb ?? 0,
    data,
    dataLate,
    dataFlat: isFlat(data, minutes),
    dataBesideCode,
    dataBesideCodeLate,
    dataStartMb: samples[0] ? dataPoint(samples[0]).value : 0,
    dataEndMb: samples.length > 0 ? dataPoint(samples[samples.length - 1] as Sample).value : 0,
    sent: measured.length,
    answered: measured.filter((r) => r.answeredAt !== null).length,
    upstream429: stage.sandbox.calls.filter((c) => c.login === DEMO_FACTS.company1.login && c.status === 429)
      .length,
    samples,
  };
}
