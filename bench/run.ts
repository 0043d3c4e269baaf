/**
 * `npm run bench`: the bot against the sandbox upstream and the real Redis, side by side with its baselines,
 * in one run. bench/README.md says what it measures and how to read it.
 *
 *   npm run bench                       the full run (about 50 minutes on 2 cores, 25 of them the soak)
 *   npm run bench -- --soak=3600        a soak of an hour instead of 20 minutes
 *   npm run bench -- --quick            short steps, for trying changes to the bench itself
 *   npm run bench -- --only=built-1,bare --skip-soak --skip-digest --skip-burst
 *   npm run bench -- --tsx              bot processes under tsx instead of tsc-built JavaScript
 *   npm run bench -- --with-prefetch    adds the bot with src/domain/prefetch.ts on (about 5 minutes more)
 *   npm run bench -- --skip-feed-scale  without the feed's scale line (1,000 workspaces, 3 processes; about 5 min)
 *   npm run bench -- --cpu-prof         bot processes write CPU profiles into the run's log directory
 *   npm run bench -- --only= --skip-soak --skip-digest --skip-burst --skip-feed   the feed beside the load alone
 */
import { cpus, platform, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { formatRateLimit, parseRateLimit } from '../src/lib/rate-limit-spec.js';
import { type BurstResult, runBurst } from './burst.js';
import { type DigestOptions, type DigestResult, runDigest } from './digest.js';
import { type FeedBenchResult, runFeed } from './feed.js';
import { type FeedLoadResult, runFeedLoad } from './feed-load.js';
import { type FeedScaleResult, feedScaleDefaults, runFeedScale } from './feed-scale.js';
import type { StepPlan } from './load.js';
import { ratio } from './measure.js';
import { buildBotScripts, type RunMode, removeBotScripts } from './processes.js';
import {
  ackRatio,
  ackRatioText,
  type BenchResult,
  firstMessageTargets,
  fullReport,
  type Machine,
  type Parameters,
  type Target,
  writeResults,
} from './report.js';
import { type ConfigResult, type ConfigSpec, runConfig } from './scenario.js';
import { runSoak, type SoakResult } from './soak.js';
import { type RateLimit, REDIS_URL } from './stage.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const RESULTS_DIR = join(BENCH_DIR, 'results');

const CONFIGS: ConfigSpec[] = [
  { name: 'built-1', label: 'as built, 1 replica', kind: 'replica', replicas: 1 },
  {
    name: 'built-1-nofirst',
    label: 'as built, 1 replica, first message off',
    kind: 'replica',
    replicas: 1,
    // The bot as it was before the first message: both notices later than the answer's deadline (25 s).
    env: { ANSWER_BUDGET_NOTICE: '600s', ANSWER_PENDING_NOTICE: '600s' },
  },
  { name: 'built-3', label: 'as built, 3 replicas', kind: 'replica', replicas: 3 },
  {
    name: 'built-1-ttl',
    label: 'as built, 1 replica, TTLs scaled like the budget',
    kind: 'replica',
    replicas: 1,
    realTtls: true,
  },
  { name: 'naive', label: 'naive (no cache, no coalescing)', kind: 'replica', replicas: 1, naive: true },
  { name: 'bare', label: 'bare Bolt (ack only)', kind: 'bare', replicas: 1 },
];

/** Measured apart (`--with-prefetch`, or `--only=built-1,prefetch-1`, about 5 minutes more). */
const PREFETCH_CONFIG: ConfigSpec = {
  name: 'prefetch-1',
  label: 'prefetch on, 1 replica',
  kind: 'replica',
  replicas: 1,
  prefetch: true,
};

const MULTIPLES = [0.5, 1, 2, 8];
/**
 * How long a configuration waits after its last command for the answers still due: an answer comes at the latest
 * at ANSWER_DEADLINE (25 s; its calls may wait for a slot until 5 s before it) plus the 2 s net under it.
 */
const DRAIN_MS = 30_000;
/** The rates the feed is measured beside (issue 15): at the budget and four times it. */
const FEED_LOAD_MULTIPLES = [1, 4];
/** The feed's share of each window (FEED_BUDGET_SHARE's default). */
const FEED_SHARE_PERCENT = 20;
const USERS = 40;
const HOT_SHARE = 0.8;

function options() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      limit: { type: 'string', default: '25/30s' },
      warmup: { type: 'string', default: '5' },
      measure: { type: 'string', default: '60' },
      soak: { type: 'string', default: '1200' },
      'skip-soak': { type: 'boolean', default: false },
      'skip-digest': { type: 'boolean', default: false },
      'skip-feed': { type: 'boolean', default: false },
      'skip-feed-load': { type: 'boolean', default: false },
      'skip-feed-scale': { type: 'boolean', default: false },
      'skip-burst': { type: 'boolean', default: false },
      tsx: { type: 'boolean', default: false },
      'with-prefetch': { type: 'boolean', default: false },
      'cpu-prof': { type: 'boolean', default: false },
      rates: { type: 'string' },
    },
  });
  const limit = parseRateLimit(values.limit ?? '25/30s');
  if (typeof limit === 'string') throw new Error(`--limit: ${limit}`);
  const quick = values.quick ?? false;
  // `--only=` (empty) runs no load configuration: soak and digest only.
  const only = values.only
    ?.split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const all = [...CONFIGS, PREFETCH_CONFIG];
  const unknown = only?.filter((name) => !all.some((c) => c.name === name)) ?? [];
  if (unknown.length > 0) throw new Error(`--only: unknown configuration ${unknown.join(', ')}`);
  const multiples = values.rates ? values.rates.split(',').map((r) => Number(r.trim())) : MULTIPLES;
  if (multiples.some((m) => !(m > 0)))
    throw new Error(`--rates: not a list of positive multiples: ${values.rates}`);
  return {
    limit,
    quick,
    multiples,
    configs: only
      ? // In the order given: `--only=bare,built-1` runs the bare app first (alternating runs cancel drift).
        only.flatMap((name) => all.filter((c) => c.name === name))
      : [...CONFIGS, ...(values['with-prefetch'] ? [PREFETCH_CONFIG] : [])],
    warmupMs: quick ? 2_000 : Number(values.warmup) * 1_000,
    // At least one full window of the limit per rate.
    measureMs: quick ? 10_000 : Math.max(limit.windowMs, Number(values.measure ?? 0) * 1_000),
    soakMs: quick ? 20_000 : Number(values.soak) * 1_000,
    soak: !(values['skip-soak'] ?? false),
    digest: !(values['skip-digest'] ?? false),
    feed: !(values['skip-feed'] ?? false),
    feedLoad: !(values['skip-feed-load'] ?? false),
    feedScale: !(values['skip-feed-scale'] ?? false),
    burst: !(values['skip-burst'] ?? false),
    mode: (values.tsx ? 'tsx' : 'compiled') as RunMode,
    cpuProf: values['cpu-prof'] ?? false,
  };
}

function plans(
  limit: RateLimit,
  multiples: readonly number[],
  warmupMs: number,
  measureMs: number,
): StepPlan[] {
  const perSecondAtBudget = limit.count / (limit.windowMs / 1_000);
  return [
    // Warms every process's JIT on the request path (about 100 requests per process even with 3 replicas)
    // with answers that call nothing upstream, so the budget is untouched; never measured. A replica that has
    // been up for a while is warm: without this, the first rate would measure 3 replicas' interpreters.
    { name: 'jit', perSecond: 30, warmupMs: 10_000, measureMs: 0, seed: 2, mix: 'help' as const },
    // Wakes the data path up (first connections, the first token); never measured.
    { name: 'prime', perSecond: 1, warmupMs: 5_000, measureMs: 0, seed: 1 },
    ...multiples.map((multiple) => ({
      name: `${multiple}x`,
      perSecond: multiple * perSecondAtBudget,
      warmupMs,
      measureMs,
      // The seed follows the multiple, not its place, so `--rates=8` sends what the full run sends at 8×; a
      // multiple outside the main list (the feed beside the load's 4×) gets its own.
      seed: MULTIPLES.includes(multiple) ? 100 + MULTIPLES.indexOf(multiple) : 200 + multiple,
    })),
  ];
}

/** The real budget: 250 calls per hour per credential (PRODUCT.md). */
const REAL_BUDGET: RateLimit = { count: 250, windowMs: 3_600_000 };

/**
 * How much faster the compressed window lets calls through than the real budget, inverted: with `25/30s`,
 * 1/12. Cache TTLs multiplied by it hold the same number of budget calls as at the real budget, so a
 * configuration run with them shows the freshness a workspace would see at 250 calls an hour.
 */
function ttlScaleOf(limit: RateLimit): number {
  return Math.min(1, limit.windowMs / limit.count / (REAL_BUDGET.windowMs / REAL_BUDGET.count));
}

/** FEED_INTERVAL's default (2 m of a 1 h window) compressed like the budget (25/30s: 1 h -> 30 s), at least 1 s. */
function feedIntervalOf(limit: RateLimit): number {
  return Math.max(1_000, Math.round((120_000 * limit.windowMs) / 3_600_000));
}

/**
 * Issue 15's goals for the feed beside the load. "No worse than the share explains" is read as: with the feed
 * taking at most `share` of each window, interactive answers with data ≤ TTL keep at least (1 − share) of the
 * baseline's, and the answer p95 grows by at most 1 / (1 − share).
 */
function feedLoadTargets(run: FeedLoadResult | null): Target[] {
  const notRun = (name: string): Target => ({ name, met: null, detail: 'not run.' });
  const names = [
    'feed beside the load: none missed, none doubled, 2 replicas, one killed mid-round',
    'feed beside the load: change-to-post p95 within 2 × the effective interval',
    'feed beside the load: the feed never above its share of any window',
    'feed beside the load: interactive answers no worse than the share explains',
  ] as const;
  if (!run) return names.map(notRun);
  const { feed, baseline, withFeed } = run;
  const share = feed.sharePercent / 100;
  const s = (ms: number | null) => (ms === null ? '–' : (ms / 1000).toFixed(1));
  const r = (ratio: number | null) => (ratio === null ? '–' : `${ratio.toFixed(2)}×`);
  const rates = withFeed.steps.map((on, i) => {
    const off = baseline.steps[i];
    const ttlOk = off ? on.withinTtl >= Math.floor((1 - share) * off.withinTtl) : false;
    const p95Ok =
      off && on.answer.p95 !== null && off.answer.p95 !== null
        ? on.answer.p95 <= off.answer.p95 / (1 - share)
        : false;
    return {
      ok: ttlOk && p95Ok,
      text: `${on.step}: data ≤ TTL ${on.withinTtl} of ${on.sent} vs ${off?.withinTtl ?? '–'} of ${off?.sent ?? '–'} without the feed, answer p95 ${on.answer.p95?.toFixed(0) ?? '–'} vs ${off?.answer.p95?.toFixed(0) ?? '–'} ms`,
    };
  });
  return [
    {
      name: names[0],
      met: feed.missed === 0 && feed.doubled === 0 && feed.kill.midRound,
      detail: `${feed.expected} new requests to report: missed ${feed.missed}${feed.missedEvents.length > 0 ? ` (${feed.missedEvents.join('; ')})` : ''}, doubled ${feed.doubled} (${feed.doubledSaid} of them in a post that said it may repeat an earlier one); killed mid-round: ${feed.kill.midRound ? 'yes' : 'no'}${feed.settled ? '' : '; counted before every workspace had two complete rounds after the last change (4 windows)'}.`,
    },
    {
      name: names[1],
      // Each post against the interval in force when it went out (what /estoque status showed then).
      met: feed.latencyOverInterval.p95 === null ? null : feed.latencyOverInterval.p95 <= 2,
      detail: `latency ÷ the interval in force at the post: p95 ${r(feed.latencyOverInterval.p95)} (the load's workspace ${r(feed.latencyOverIntervalLoad.p95)}, interval in force p50 ${s(feed.intervalAtPostLoad.p50)} s; the others ${r(feed.latencyOverIntervalOthers.p95)}, interval p50 ${s(feed.intervalAtPostOthers.p50)} s); latency p95 ${s(feed.latency.p95)} s (the load's ${s(feed.latencyLoadWorkspace.p95)} s, the others ${s(feed.latencyOtherWorkspaces.p95)} s); FEED_INTERVAL ${s(feed.intervalMs)} s, interval in force at the end p95 ${s(feed.effectiveIntervalMs.p95)} s.`,
    },
    {
      name: names[2],
      met: feed.maxFeedCallsInWindow <= feed.shareCalls,
      detail: `most feed calls in any window ${feed.maxFeedCallsInWindow} (load's credential ${feed.loadCredentialFeedMax}), share ${feed.shareCalls} of ${feed.limit.count}.`,
    },
    {
      name: names[3],
      met: rates.length > 0 && rates.every((r) => r.ok),
      detail: `${rates.map((r) => r.text).join('; ')}.`,
    },
  ];
}

async function machine(): Promise<Machine> {
  const redis = new Redis(REDIS_URL);
  const info = await redis.info('server');
  redis.disconnect();
  return {
    nproc: cpus().length,
    memoryGiB: totalmem() / 1024 ** 3,
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    node: process.version,
    redis: /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown',
    platform: `${platform()} ${release()}`,
  };
}

function targets(
  configs: ConfigResult[],
  soak: SoakResult | null,
  digests: { digest: DigestResult | null; digestLarge: DigestResult | null },
  burst: BurstResult | null,
  limit: RateLimit,
): Target[] {
  const byName = new Map(configs.map((c) => [c.name, c]));
  const out: Target[] = [];
  const three = byName.get('built-3');
  out.push({
    name: 'no upstream 429 and never more than the limit in any window, 3 replicas, every rate',
    met: three ? three.totals.upstream429 === 0 && three.totals.maxInWindow <= limit.count : null,
    detail: three
      ? `${three.totals.upstream429} 429s; most calls in any ${limit.windowMs / 1000} s window ${three.totals.maxInWindow} (limit ${limit.count}); per rate: ${three.steps.map((s) => `${s.step} ${s.maxInWindow}`).join(', ')}.`
      : 'not run.',
  });
  const bare = byName.get('bare');
  for (const name of ['built-1', 'built-3']) {
    const c = byName.get(name);
    const pooled = ackRatio(c, bare);
    out.push({
      name: `ack p99 within 1.2× of the bare Bolt app (${c?.label ?? name})`,
      met: pooled === null ? null : pooled.ratio <= 1.2,
      detail:
        c && bare
          ? `all rates: ${c.totals.ack.p99?.toFixed(1)} ms vs ${bare.totals.ack.p99?.toFixed(1)} ms (${ackRatioText(pooled)}×, ${c.totals.ack.n} and ${bare.totals.ack.n} acks); per rate: ${c.steps
              .map(
                (s, i) => `${s.step} ${ratio(s.ack.p99, bare.steps[i]?.ack.p99 ?? null)?.toFixed(2) ?? '–'}×`,
              )
              .join(', ')}.`
          : 'not run.',
    });
  }
  out.push(...firstMessageTargets(configs));
  const naive = byName.get('naive');
  for (const name of ['built-1', 'built-3', 'built-1-ttl', 'prefetch-1']) {
    const c = byName.get(name);
    const mine = c?.steps.at(-1);
    const theirs = naive?.steps.at(-1);
    const r = ratio(mine?.withinTtl ?? null, theirs?.withinTtl ?? null);
    out.push({
      name: `at 8× the budget, ≥ 8× the naive bot's answers with data no older than its TTL (${c?.label ?? name})`,
      met: r === null ? null : r >= 8,
      detail:
        mine && theirs
          ? `${mine.withinTtl} of ${mine.sent} vs ${theirs.withinTtl} of ${theirs.sent}: ${r?.toFixed(1)}×.`
          : 'not run.',
    });
  }
  out.push({
    name: 'memory flat over a long run (soak)',
    met: soak ? soak.rssFlat && soak.dataFlat : null,
    detail: soak
      ? `over ${(soak.measureMs / 60_000).toFixed(1)} min: RSS ${soak.rss.slopePerMin.toFixed(2)} ± ${soak.rss.ci95PerMin.toFixed(2)} MB/min (second half ${soak.rssLate.slopePerMin.toFixed(2)}), live heap without V8 code ${soak.data.slopePerMin.toFixed(3)} ± ${soak.data.ci95PerMin.toFixed(3)} MB/min (second half ${soak.dataLate.slopePerMin.toFixed(3)}; ${soak.dataBesideCode.slopePerMin.toFixed(4)} ± ${soak.dataBesideCode.ci95PerMin.toFixed(4)} with V8's code size held fixed).`
      : 'not run.',
  });
  for (const [what, digest] of [
    ['200 subscriptions', digests.digest],
    ['2,000 subscriptions in 200 workspaces, 3 replicas', digests.digestLarge],
  ] as const) {
    out.push({
      name: `digest fan-out: ${what} posted within 60 s of the hour, none missed or doubled, Slack per-channel rate respected`,
      met: digest
        ? digest.allPostedWithinMs !== null &&
          digest.allPostedWithinMs <= 60_000 &&
          digest.missed === 0 &&
          digest.doubled === 0 &&
          digest.slackRateLimited === 0
        : null,
      detail: digest
        ? `last post ${digest.allPostedWithinMs === null ? 'never' : `${(digest.allPostedWithinMs / 1000).toFixed(1)} s`} after the hour; missed ${digest.missed}, doubled ${digest.doubled}; Slack 429s ${digest.slackRateLimited}.`
        : 'not run.',
    });
  }
  out.push({
    name: `burst of ${burst?.commands ?? 200} concurrent commands: ack p99 within 1.2× of the bare Bolt app's, and under 1 s cold`,
    met: burst
      ? burst.coldP99Ratio !== null &&
        burst.coldP99Ratio <= 1.2 &&
        burst.warmP99Ratio !== null &&
        burst.warmP99Ratio <= 1.2 &&
        (burst.bot.cold.p99 ?? Number.POSITIVE_INFINITY) < 1_000
      : null,
    detail: burst
      ? `cold ${burst.bot.cold.p99?.toFixed(0)} ms vs ${burst.bare.cold.p99?.toFixed(0)} ms (${burst.coldP99Ratio?.toFixed(2)}×), warm ${burst.bot.warm.p99?.toFixed(0)} ms vs ${burst.bare.warm.p99?.toFixed(0)} ms (${burst.warmP99Ratio?.toFixed(2)}×); ${burst.bot.failed} failed acks.`
      : 'not run.',
  });
  return out;
}

async function main(): Promise<void> {
  const o = options();
  const started = new Date();
  const logDir = join(RESULTS_DIR, 'logs', started.toISOString().replace(/[:.]/g, '-'));
  const parameters: Parameters = {
    mode: o.mode,
    limit: o.limit,
    users: USERS,
    multiples: o.multiples,
    warmupMs: o.warmupMs,
    measureMs: o.measureMs,
    hotShare: HOT_SHARE,
  };
  const say = (text: string) =>
    process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${text}\n`);
  say(
    `budget ${formatRateLimit(o.limit)}; rates ${o.multiples.join('×, ')}× the budget; ${o.warmupMs / 1000} s warm-up + ${o.measureMs / 1000} s per rate; logs in ${logDir}`,
  );
  if (o.mode === 'compiled') {
    say('building src/ and bench/ with tsc (bench/tsconfig.build.json)…');
    await buildBotScripts();
  }
  const configs: ConfigResult[] = [];
  for (const spec of o.configs) {
    say(`configuration ${spec.label}…`);
    const result = await runConfig(spec, {
      limit: o.limit,
      users: USERS,
      plans: plans(o.limit, o.multiples, o.warmupMs, o.measureMs),
      logDir,
      drainMs: DRAIN_MS,
      mode: o.mode,
      ttlScale: ttlScaleOf(o.limit),
      ...(o.cpuProf && { cpuProfileDir: join(logDir, 'profiles') }),
    });
    configs.push(result);
    say(
      `  done in ${(result.durationMs / 1000).toFixed(0)} s: ${result.steps.map((s) => `${s.step} ${s.withinTtl}/${s.sent} ≤TTL, ack p99 ${s.ack.p99?.toFixed(1)} ms`).join('; ')}`,
    );
  }
  let soak: SoakResult | null = null;
  if (o.soak) {
    say(`soak: as built, ${(o.soakMs / 60_000).toFixed(1)} min…`);
    soak = await runSoak({
      limit: o.limit,
      users: USERS,
      perSecond: (2 * o.limit.count) / (o.limit.windowMs / 1_000),
      // An hour-long soak showed the live heap growing with the commands handled and levelling off after
      // about 4 000 (V8's feedback and compiled code for every path): the warm-up hands the bot ~3 800
      // commands of the same mix first, so the measured part shows what stays after warm-up.
      warmupPerSecond: (16 * o.limit.count) / (o.limit.windowMs / 1_000),
      warmupMs: o.quick ? 5_000 : 285_000,
      measureMs: o.soakMs,
      sampleEveryMs: o.quick ? 1_000 : 3_000,
      logDir,
      seed: 7,
      mode: o.mode,
    });
  }
  let digest: DigestResult | null = null;
  let digestLarge: DigestResult | null = null;
  if (o.digest) {
    const common: Omit<DigestOptions, 'workspaces'> = {
      channelsPerWorkspace: 10,
      limit: { count: 250, windowMs: 3_600_000 },
      tickEveryMs: 5_000,
      timeoutMs: 90_000,
    };
    say('digest fan-out: 20 workspaces × 10 channels…');
    digest = await runDigest({ ...common, workspaces: 20 });
    say('digest fan-out at ten times the scale: 200 workspaces × 10 channels, 3 schedulers…');
    digestLarge = await runDigest({ ...common, workspaces: 200, schedulers: 3, ownCompanies: true });
  }
  let burst: BurstResult | null = null;
  if (o.burst) {
    say('burst: 200 commands at one instant, cold and warm, bare Bolt and the bot in turns…');
    burst = await runBurst({
      commands: 200,
      users: 50,
      workspaces: 5,
      rounds: o.quick ? 1 : 3,
      limit: o.limit,
      mode: o.mode,
      logDir,
      drainMs: 30_000,
      ...(o.cpuProf && { cpuProfileDir: join(logDir, 'profiles') }),
    });
  }
  let feed: FeedBenchResult | null = null;
  if (o.feed) {
    say('change feed: 20 workspaces, 2 replicas, one stalled halfway…');
    feed = await runFeed({
      workspaces: o.quick ? 5 : 20,
      durationMs: o.quick ? 20_000 : 120_000,
      intervalMs: feedIntervalOf(o.limit),
      limit: o.limit,
      sharePercent: FEED_SHARE_PERCENT,
      advanceEveryMs: 500,
      leaseMs: 5_000,
    });
  }
  let feedLoad: FeedLoadResult | null = null;
  if (o.feedLoad) {
    say(
      `change feed beside the load: ${FEED_LOAD_MULTIPLES.join('× and ')}× the budget, without then with listeners, 2 replica processes, one killed mid-round…`,
    );
    feedLoad = await runFeedLoad({
      limit: o.limit,
      users: USERS,
      plans: plans(o.limit, FEED_LOAD_MULTIPLES, o.warmupMs, o.measureMs),
      workspaces: o.quick ? 4 : 10,
      intervalMs: feedIntervalOf(o.limit),
      // The bot's 3-minute lease compressed like the window is under a second: 5 s, as bench/feed.ts uses.
      leaseMs: 5_000,
      sharePercent: FEED_SHARE_PERCENT,
      // Each company changes every 10 s (20 s quick): a few changes a minute of the compressed window.
      advanceEveryMs: 1_000 * (o.quick ? 5 : 1),
      tailMs: o.quick ? 10_000 : o.limit.windowMs,
      logDir,
      drainMs: DRAIN_MS,
      mode: o.mode,
    });
    say(
      `  missed ${feedLoad.feed.missed}, doubled ${feedLoad.feed.doubled} (said ${feedLoad.feed.doubledSaid}), change-to-post p95 ${((feedLoad.feed.latency.p95 ?? 0) / 1000).toFixed(1)} s`,
    );
  }
  let feedScale: FeedScaleResult | null = null;
  if (o.feedScale) {
    say('change feed scale line: 1,000 workspaces, 3 replica processes, one Redis (budget compressed 3×)…');
    feedScale = await runFeedScale(
      feedScaleDefaults({
        workspaces: o.quick ? 100 : 1_000,
        replicas: 3,
        durationMs: o.quick ? 30_000 : 180_000,
        logDir,
      }),
    );
  }
  const finished = new Date();
  const result: BenchResult = {
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    durationS: (finished.getTime() - started.getTime()) / 1000,
    machine: await machine(),
    parameters,
    configs,
    soak,
    digest,
    feed,
    feedLoad,
    feedScale,
    digestLarge,
    burst,
    targets: [
      ...targets(configs, soak, { digest, digestLarge }, burst, o.limit),
      ...feedLoadTargets(feedLoad),
    ],
  };
  const files = writeResults(result, RESULTS_DIR);
  process.stdout.write(`\n${fullReport(result)}\n\nWritten ${files.latest} and ${files.stamped}\n`);
}

main()
  .catch((error: unknown) => {
    process.stderr.write(
      `bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  })
  .finally(() => {
    removeBotScripts();
    process.exit();
  });
