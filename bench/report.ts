import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BurstResult } from './burst.js';
import type { DigestResult } from './digest.js';
import type { FeedBenchResult } from './feed.js';
import type { FeedLoadResult } from './feed-load.js';
import { type FeedScaleResult, feedScaleText } from './feed-scale.js';
import { FIRST_MESSAGE_TARGET_MS, firstMessageGoalMet, type StepFigures } from './figures.js';
import { type Percentiles, percentileRatioInterval, ratio } from './measure.js';
import type { ConfigResult } from './scenario.js';
import type { SoakResult } from './soak.js';
import type { RateLimit } from './stage.js';
import { seededRandom } from './workload.js';

export interface Machine {
  nproc: number;
  memoryGiB: number;
  cpu: string;
  node: string;
  redis: string;
  platform: string;
}

export interface Parameters {
  /** How the bot processes ran: tsc-built JavaScript, or TypeScript under tsx. */
  mode: 'compiled' | 'tsx';
  limit: RateLimit;
  users: number;
  /** Multiples of the budget, in commands per window. */
  multiples: number[];
  warmupMs: number;
  measureMs: number;
  hotShare: number;
}

export interface Target {
  name: string;
  met: boolean | null;
  detail: string;
}

export interface BenchResult {
  startedAt: string;
  finishedAt: string;
  durationS: number;
  machine: Machine;
  parameters: Parameters;
  configs: ConfigResult[];
  soak: SoakResult | null;
  digest: DigestResult | null;
  feed?: FeedBenchResult | null;
  /** The feed on the bot as built, beside the interactive load, with the same load without it (bench/feed-load.ts). */
  feedLoad?: FeedLoadResult | null;
  /** The feed's scale line: 1,000 workspaces on 3 replica processes (bench/feed-scale.ts). */
  feedScale?: FeedScaleResult | null;
  /** The same fan-out at ten times the scale (each workspace its own company), 3 scheduler instances. */
  digestLarge: DigestResult | null;
  burst: BurstResult | null;
  targets: Target[];
}

const fmt = (value: number | null, digits = 0) => (value === null ? '–' : value.toFixed(digits));
const ms = (p: Percentiles) => `${fmt(p.p50)} / ${fmt(p.p95)} / ${fmt(p.p99)}`;
const ms1 = (p: Percentiles) => `${fmt(p.p50, 1)} / ${fmt(p.p95, 1)} / ${fmt(p.p99, 1)}`;
const seconds = (p: Percentiles) =>
  `${fmt(p.p50 === null ? null : p.p50 / 1000, 1)} / ${fmt(p.p95 === null ? null : p.p95 / 1000, 1)}`;

function multipleOf(step: StepFigures, limit: RateLimit): string {
  const perWindow = (step.perSecond * limit.windowMs) / 1000;
  return `${fmt(perWindow / limit.count, perWindow / limit.count < 1 ? 1 : 0)}×`;
}

/** The main table: one row per configuration and rate. */
export function stepsTable(result: Pick<BenchResult, 'configs' | 'parameters'>): string {
  const { limit } = result.parameters;
  const head =
    '| configuration | rate | sent | data ≤ TTL | fresh / cache / saved | budget msg | data age p50 / p95 (s) | upstream calls | max in any window (limit) | 429s | ack p50 / p95 / p99 (ms) | final answer p50 / p95 / p99 (ms) | peak RSS (MB) |\n' +
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|';
  const rows: string[] = [];
  for (const config of result.configs) {
    const bare = config.name === 'bare';
    for (const s of config.steps) {
      rows.push(
        [
          config.label,
          multipleOf(s, limit),
          s.sent,
          bare ? '–' : `${s.withinTtl} (${pct(s.withinTtl, s.sent)})`,
          bare ? '–' : `${s.fresh} / ${s.cached} / ${s.stale}`,
          bare ? '–' : s.budget,
          bare ? '–' : seconds(s.age),
          s.upstreamCalls,
          `${s.maxInWindow} (${s.limit})`,
          s.upstream429,
          ms(s.ack),
          bare ? '–' : ms(s.answer),
          fmt(s.peakRssMb),
        ].join(' | '),
      );
    }
  }
  return `${head}\n${rows.map((r) => `| ${r} |`).join('\n')}`;
}

/**
 * First message and final answer, per configuration and rate (not the bare app: it answers nothing): what a
 * person sees first (an ephemeral ack, a first message on the response_url, or the answer itself) and when the
 * final answer replaced it.
 */
export function firstMessageTable(result: Pick<BenchResult, 'configs' | 'parameters'>): string {
  const { limit } = result.parameters;
  const within = `within ${fmt(FIRST_MESSAGE_TARGET_MS / 1000)} s`;
  const rows = [
    `| configuration | rate | sent | first message p50 / p95 / p99 (ms) | first message ${within} | saw nothing | final answer p50 / p95 / p99 (ms) |`,
    '|---|---|---|---|---|---|---|',
  ];
  for (const config of result.configs) {
    if (config.name === 'bare') continue;
    for (const s of config.steps) {
      rows.push(
        `| ${config.label} | ${multipleOf(s, limit)} | ${s.sent} | ${ms(s.firstMessage)} | ${s.firstMessageInTime} (${pct(s.firstMessageInTime, s.sent)}) | ${s.noFirstMessage} | ${ms(s.answer)} |`,
      );
    }
  }
  return rows.join('\n');
}

/**
 * "First message within 1 s at p95 at every rate, 8× included" for the bot as built (1 and 3 replicas), with the
 * same figure of the bot with the first message off beside it when that configuration ran.
 */
export function firstMessageTargets(configs: readonly ConfigResult[]): Target[] {
  const byName = new Map(configs.map((c) => [c.name, c]));
  const off = byName.get('built-1-nofirst');
  const perRate = (c: ConfigResult) =>
    c.steps
      .map(
        (s) =>
          `${s.step} p95 ${fmt(s.firstMessage.p95)} ms (${s.firstMessageInTime} of ${s.sent} within ${fmt(FIRST_MESSAGE_TARGET_MS / 1000)} s)`,
      )
      .join(', ');
  return ['built-1', 'built-3'].map((name) => {
    const c = byName.get(name);
    return {
      name: `first message within ${fmt(FIRST_MESSAGE_TARGET_MS / 1000)} s at p95 at every rate, 8× included (${c?.label ?? name})`,
      met: c && c.steps.length > 0 ? c.steps.every((s) => firstMessageGoalMet(s)) : null,
      detail: c ? `${perRate(c)}.${off ? ` First message off: ${perRate(off)}.` : ''}` : 'not run.',
    };
  });
}

function pct(part: number, whole: number): string {
  return whole === 0 ? '–' : `${Math.round((part / whole) * 100)} %`;
}

/** Pooled ack p99 of a configuration over the bare Bolt app's, with its 95 % bootstrap interval. */
export function ackRatio(
  config: ConfigResult | undefined,
  bare: ConfigResult | undefined,
): { ratio: number; low: number | null; high: number | null } | null {
  const point = ratio(config?.totals.ack.p99 ?? null, bare?.totals.ack.p99 ?? null);
  if (point === null || !config || !bare) return null;
  const interval = percentileRatioInterval(
    config.totals.ackSamples,
    bare.totals.ackSamples,
    99,
    seededRandom(99),
  );
  return { ratio: point, low: interval?.low ?? null, high: interval?.high ?? null };
}

export function ackRatioText(r: ReturnType<typeof ackRatio>): string {
  if (r === null) return '–';
  return `${fmt(r.ratio, 2)}${r.low === null ? '' : ` (95 % ${fmt(r.low, 2)}–${fmt(r.high, 2)})`}`;
}

/** Ratios against the baselines, per rate. */
export function ratiosTable(result: BenchResult): string {
  const { limit } = result.parameters;
  const byName = new Map(result.configs.map((c) => [c.name, c]));
  const bare = byName.get('bare');
  const naive = byName.get('naive');
  const others = result.configs.filter((c) => c.name !== 'bare' && c.name !== 'naive');
  const head = [
    'rate',
    ...others.map((c) => `ack p99 ${c.label} ÷ bare Bolt`),
    ...others.map((c) => `data ≤ TTL ${c.label} ÷ naive`),
  ];
  const rows: string[] = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  const steps = others[0]?.steps ?? [];
  steps.forEach((step, i) => {
    const cells = [multipleOf(step, limit)];
    for (const c of others)
      cells.push(fmt(ratio(c.steps[i]?.ack.p99 ?? null, bare?.steps[i]?.ack.p99 ?? null), 2));
    for (const c of others) {
      cells.push(fmt(ratio(c.steps[i]?.withinTtl ?? null, naive?.steps[i]?.withinTtl ?? null), 1));
    }
    rows.push(`| ${cells.join(' | ')} |`);
  });
  const pooled = ['all rates (pooled)'];
  for (const c of others) pooled.push(ackRatioText(ackRatio(c, bare)));
  for (const _ of others) pooled.push('');
  rows.push(`| ${pooled.join(' | ')} |`);
  return rows.join('\n');
}

export function totalsTable(result: BenchResult): string {
  const rows = [
    '| configuration | upstream calls | max in any window (limit) | 429s | ack p50 / p95 / p99 (ms), all rates | in the bot p50 / p95 / p99 (ms) | event-loop delay p99 / max per process (ms) | VmHWM per process (MB) | unanswered at the end | prefetch: refreshed / no background slot / claimed elsewhere |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const c of result.configs) {
    const prefetch = c.prefetch.filter((p) => p !== null);
    const refreshes =
      prefetch.length === 0
        ? '–'
        : [
            prefetch.reduce((sum, p) => sum + p.refreshed, 0),
            prefetch.reduce((sum, p) => sum + p.deniedByBudget, 0),
            prefetch.reduce((sum, p) => sum + p.skippedClaimed, 0),
          ].join(' / ');
    rows.push(
      `| ${c.label} | ${c.totals.upstreamCalls} | ${c.totals.maxInWindow} (${result.parameters.limit.count}) | ${c.totals.upstream429} | ${ms(c.totals.ack)} | ${ms1(c.totals.ackInBot)} | ${c.loopDelay.map((d) => (d ? `${fmt(d.p99, 1)} / ${fmt(d.max, 0)}` : '–')).join(', ')} | ${c.totals.peakRssMbByProcess.map((v) => fmt(v)).join(', ')} | ${c.leftover} | ${refreshes} |`,
    );
  }
  return rows.join('\n');
}

export function soakText(soak: SoakResult | null): string {
  if (!soak) return 'Soak: not run.';
  return [
    `Soak: ${soak.label}, ${fmt(soak.perSecond, 2)} commands/s for ${fmt(soak.measureMs / 60_000, 1)} min after ${fmt(soak.warmupMs / 1000)} s of warm-up at ${fmt(soak.warmupPerSecond, 2)} commands/s, ${soak.rss.samples} samples.`,
    `RSS ${fmt(soak.rssStartMb, 1)} → ${fmt(soak.rssEndMb, 1)} MB: slope ${fmt(soak.rss.slopePerMin, 2)} ± ${fmt(soak.rss.ci95PerMin, 2)} MB/min (95 %; second half ${fmt(soak.rssLate.slopePerMin, 2)}), residual σ ${fmt(soak.rss.residualStd, 2)} MB → ${soak.rssFlat ? 'flat within noise' : 'NOT flat'}.`,
    `Live heap (after a full GC at each sample) ${fmt(soak.heapStartMb, 1)} → ${fmt(soak.heapEndMb, 1)} MB: slope ${fmt(soak.heap.slopePerMin, 2)} ± ${fmt(soak.heap.ci95PerMin, 2)} MB/min, residual σ ${fmt(soak.heap.residualStd, 2)} MB → ${soak.heapFlat ? 'flat within noise' : 'NOT flat'}.`,
    `Live heap without V8 code (compiled code and bytecode) ${fmt(soak.dataStartMb, 1)} → ${fmt(soak.dataEndMb, 1)} MB: slope ${fmt(soak.data.slopePerMin, 3)} ± ${fmt(soak.data.ci95PerMin, 3)} MB/min (second half ${fmt(soak.dataLate.slopePerMin, 3)}), residual σ ${fmt(soak.data.residualStd, 2)} MB → ${soak.dataFlat ? 'flat within noise' : 'NOT flat'}.`,
    `  With V8's code size held fixed: ${fmt(soak.dataBesideCode.slopePerMin, 4)} ± ${fmt(soak.dataBesideCode.ci95PerMin, 4)} MB/min over time (second half ${fmt(soak.dataBesideCodeLate.slopePerMin, 4)} ± ${fmt(soak.dataBesideCodeLate.ci95PerMin, 4)}), and ${fmt(soak.dataBesideCode.perCovariate, 2)} MB more for each MB of code.`,
    `${soak.sent} commands, ${soak.answered} answered, ${soak.upstream429} upstream 429s.`,
  ].join('\n');
}

export function digestText(digest: DigestResult | null): string {
  if (!digest) return 'Digest fan-out: not run.';
  return [
    `Digest fan-out: ${digest.subscriptions} subscriptions in ${digest.workspaces} workspaces, ${digest.schedulers} scheduler instances ticking every ${fmt(digest.tickEveryMs / 1000)} s from the hour.`,
    `All posted ${digest.allPostedWithinMs === null ? 'NOT within the run' : `${fmt(digest.allPostedWithinMs / 1000, 1)} s after the hour`} (p50 ${fmt(digest.postDelay.p50 === null ? null : digest.postDelay.p50 / 1000, 1)} s, p95 ${fmt(digest.postDelay.p95 === null ? null : digest.postDelay.p95 / 1000, 1)} s).`,
    `Posts per subscription: ${Object.entries(digest.postsPerSubscription)
      .map(([posts, n]) => `${n} × ${posts}`)
      .join(', ')}; missed ${digest.missed}, doubled ${digest.doubled}.`,
    `Slack: ${digest.slackRateLimited} chat.postMessage answered 429; shortest gap between two posts in one channel ${digest.minChannelGapMs === null ? '– (one post per channel)' : `${fmt(digest.minChannelGapMs)} ms`}.`,
    `Upstream: ${digest.upstreamCalls} calls, ${digest.upstream429} 429s, most in any window ${windowsText(digest.maxInWindowByLogin)}.`,
  ].join('\n');
}

function windowsText(byLogin: DigestResult['maxInWindowByLogin']): string {
  if (byLogin.length <= 4) return byLogin.map((l) => `${l.login} ${l.max} (${l.limit})`).join(', ');
  const worst = byLogin.reduce((a, b) => (b.max / b.limit > a.max / a.limit ? b : a));
  return `${worst.max} (limit ${worst.limit}) for the busiest of ${byLogin.length} logins (${worst.login})`;
}

const mb = (bytes: number) => fmt(bytes / 1024 / 1024);

export function burstText(burst: BurstResult | null): string {
  if (!burst) return 'Burst: not run.';
  const row = (label: string, side: BurstResult['bare']) =>
    `| ${label} | ${ms(side.cold)} | ${ms(side.coldInBot)} | ${ms(side.warm)} | ${ms(side.warmInBot)} | ${side.failed} | ${side.kind === 'bare' ? '–' : side.unanswered} | ${mb(side.peakRss)} |`;
  return [
    `Burst: ${burst.commands} commands sent at one instant by ${burst.users} users of ${burst.workspaces} workspaces, to a process that has just started (cold) and again once it answered them (warm); bare Bolt and the bot take turns, ${burst.rounds} fresh processes each, acks pooled.`,
    '| process | cold ack p50 / p95 / p99 (ms) | of which in the process | warm ack p50 / p95 / p99 (ms) | of which in the process | failed acks | unanswered | peak RSS (MB) |',
    '|---|---|---|---|---|---|---|---|',
    row('bare Bolt (ack only)', burst.bare),
    row('as built, 1 replica', burst.bot),
    `Ack p99, bot ÷ bare: cold ${fmt(burst.coldP99Ratio, 2)}×, warm ${fmt(burst.warmP99Ratio, 2)}×.`,
  ].join('\n');
}

export function targetsText(targets: Target[]): string {
  return targets
    .map((t) => `- ${t.met === null ? 'n/a' : t.met ? 'MET' : 'NOT MET'}: ${t.name}. ${t.detail}`)
    .join('\n');
}

export function feedText(feed: FeedBenchResult | null | undefined): string {
  if (!feed) return 'Change feed: not run.';
  const s = (ms: number | null) => fmt(ms === null ? null : ms / 1000, 1);
  return [
    `Change feed: ${feed.workspaces} workspaces (one company and credential each), ${feed.replicas} replicas, ${fmt(feed.durationMs / 1000)} s of changes (${feed.changes}), FEED_INTERVAL ${s(feed.intervalMs)} s, budget ${feed.limit.count}/${feed.limit.windowMs / 1000}s, share ${feed.sharePercent} % (${feed.shareCalls} calls a window); replica A stalled for good in a post at ${s(feed.killedAtMs)} s.`,
    `New requests to report ${feed.expected}: missed ${feed.missed}, doubled ${feed.doubled} (events delivered ${feed.delivered}). Change-to-post latency p50 ${s(feed.latency.p50)} s, p95 ${s(feed.latency.p95)} s; effective interval p50 ${s(feed.effectiveIntervalMs.p50)} s, p95 ${s(feed.effectiveIntervalMs.p95)} s.`,
    `Upstream: most calls of one credential in any window ${feed.maxCallsInWindow} (share ${feed.shareCalls}, tokens included), 429s ${feed.upstream429}.`,
  ].join('\n');
}

/**
 * The feed beside the load: the interactive steps without and with the feed (the same table as the
 * configurations'), then the feed's own figures.
 */
export function feedLoadText(result: Pick<BenchResult, 'feedLoad' | 'parameters'>): string {
  const run = result.feedLoad;
  if (!run) return 'Change feed beside the load: not run.';
  const { feed } = run;
  const s = (ms: number | null) => fmt(ms === null ? null : ms / 1000, 1);
  const configs = { configs: [run.baseline, run.withFeed], parameters: result.parameters };
  const killed = feed.kill.midRound
    ? `killed (SIGKILL) ${s(feed.kill.atMs)} s in, while it held the round lease of ${feed.kill.workspaceId}`
    : `killed (SIGKILL) ${s(feed.kill.atMs)} s in, NOT seen mid-round (no lease of its own within 20 s)`;
  return [
    `Change feed beside the load: ${feed.workspaces} workspaces with a channel feed (the load's own on the demo credential, the others a company each), ${feed.replicas} replica processes, FEED_INTERVAL ${s(feed.intervalMs)} s, round lease ${s(feed.leaseMs)} s, share ${feed.sharePercent} % (${feed.shareCalls} calls a window); after the load, one replica ${killed}.`,
    '',
    stepsTable(configs),
    '',
    '| feed figure | value |',
    '|---|---|',
    `| sandbox changes / new requests to report | ${feed.changes} / ${feed.expected} |`,
    `| missed / doubled | ${feed.missed} / ${feed.doubled}${'doubledSaid' in feed ? ` (${feed.doubledSaid} said they may repeat)` : ''} (${feed.posts} posts in the fake Slack, ${feed.delivered} rows, ${feed.hidden} more only counted as "e mais N") |`,
    `| change-to-post latency of new requests p50 / p95, every workspace | ${s(feed.latency.p50)} / ${s(feed.latency.p95)} s (${feed.latency.n}) |`,
    `| the same, the load's workspace; the others (feed only) | ${s(feed.latencyLoadWorkspace.p50)} / ${s(feed.latencyLoadWorkspace.p95)} s (${feed.latencyLoadWorkspace.n}); ${s(feed.latencyOtherWorkspaces.p50)} / ${s(feed.latencyOtherWorkspaces.p95)} s (${feed.latencyOtherWorkspaces.n}) |`,
    `| interval in force at the end p50 / p95; the load's workspace | ${s(feed.effectiveIntervalMs.p50)} / ${s(feed.effectiveIntervalMs.p95)} s; ${s(feed.loadWorkspaceIntervalMs)} s |`,
    `| interval in force at the posts p50 / p95: the load's workspace; the others | ${s(feed.intervalAtPostLoad.p50)} / ${s(feed.intervalAtPostLoad.p95)} s; ${s(feed.intervalAtPostOthers.p50)} / ${s(feed.intervalAtPostOthers.p95)} s |`,
    `| latency ÷ interval in force at the post p50 / p95 (goal p95 ≤ 2): every workspace; the load's; the others | ${fmt(feed.latencyOverInterval.p50, 2)} / ${fmt(feed.latencyOverInterval.p95, 2)}; ${fmt(feed.latencyOverIntervalLoad.p50, 2)} / ${fmt(feed.latencyOverIntervalLoad.p95, 2)}; ${fmt(feed.latencyOverIntervalOthers.p50, 2)} / ${fmt(feed.latencyOverIntervalOthers.p95, 2)} |`,
    `| most feed calls in any ${feed.limit.windowMs / 1000} s window (share): any credential; the load's | ${feed.maxFeedCallsInWindow}; ${feed.loadCredentialFeedMax} (${feed.shareCalls}) |`,
    `| most calls of the load's credential in any window (limit) | ${feed.loadCredentialMax} (${feed.limit.count}) |`,
    `| upstream 429s | ${feed.upstream429} |`,
  ].join('\n');
}

export function fullReport(result: BenchResult): string {
  const { parameters: p, machine: m } = result;
  return [
    `estoque-bot benchmark, ${result.startedAt} (${fmt(result.durationS / 60, 1)} min)`,
    `Machine: ${m.nproc} cores (${m.cpu}), ${fmt(m.memoryGiB, 1)} GiB, Node ${m.node}, Redis ${m.redis}, ${m.platform}.`,
    `Budget UPSTREAM_RATE_LIMIT=${p.limit.count}/${p.limit.windowMs / 1000}s (sandbox limit the same); ${p.users} users; ${Math.round(p.hotShare * 100)} % of commands on a hot set of 10; each rate: ${p.warmupMs / 1000} s warm-up + ${p.measureMs / 1000} s measured.`,
    '',
    stepsTable(result),
    '',
    firstMessageTable(result),
    '',
    ratiosTable(result),
    '',
    totalsTable(result),
    '',
    soakText(result.soak),
    '',
    digestText(result.digest),
    '',
    feedText(result.feed),
    '',
    feedLoadText(result),
    feedScaleText(result.feedScale),
    '',
    result.digestLarge
      ? `At ten times the scale:\n${digestText(result.digestLarge)}`
      : 'Digest fan-out at ten times the scale: not run.',
    '',
    burstText(result.burst),
    '',
    'Targets:',
    targetsText(result.targets),
  ].join('\n');
}

export function writeResults(result: BenchResult, dir: string): { latest: string; stamped: string } {
  mkdirSync(dir, { recursive: true });
  const json = `${JSON.stringify(result, null, 2)}\n`;
  const latest = join(dir, 'latest.json');
  const stamped = join(dir, `${result.startedAt.replace(/[:.]/g, '-')}.json`);
  writeFileSync(latest, json);
  writeFileSync(stamped, json);
  writeFileSync(join(dir, 'latest.txt'), `${fullReport(result)}\n`);
  return { latest, stamped };
}
