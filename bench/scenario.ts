import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DEMO_FACTS } from '../src/sandbox/facts.js';
import { firstMessageMs, type RunTotals, runTotals, type StepFigures, stepFigures } from './figures.js';
import type { LoopDelay, PrefetchCounters, UpstreamCounters } from './ipc.js';
import { LoadDriver, type StepPlan, type StepWindow } from './load.js';
import { RssSampler } from './measure.js';
import { type BotKind, type BotProcess, type RunMode, spawnBot } from './processes.js';
import { BENCH_TEAM, openStage, type RateLimit, type Stage } from './stage.js';
import { benchUsers } from './workload.js';

/** One way of running the bot that the benchmark compares. */
export interface ConfigSpec {
  name: string;
  label: string;
  kind: BotKind;
  replicas: number;
  naive?: boolean;
  prefetch?: boolean;
  /** Cache TTLs scaled like the budget window (see run.ts): freshness as at the real budget. */
  realTtls?: boolean;
  /** Bot variables set on top of the stage's (src/config.ts reads them as in production). */
  env?: Record<string, string>;
  /** The change feed's round lease, ms, compressed like the window (bench/feed-load.ts); default the bot's. */
  feedLeaseMs?: number;
}

export interface ConfigResult {
  name: string;
  label: string;
  replicas: number;
  /** The cache TTLs' factor this configuration ran with. */
  ttlScale: number;
  steps: StepFigures[];
  totals: RunTotals;
  /** Commands still unanswered when the drain gave up. */
  leftover: number;
  counters: (UpstreamCounters | null)[];
  prefetch: (PrefetchCounters | null)[];
  /** Event-loop delay of each bot process over its life. */
  loopDelay: (LoopDelay | null)[];
  durationMs: number;
}

export interface ScenarioOptions {
  limit: RateLimit;
  users: number;
  plans: StepPlan[];
  logDir: string;
  drainMs: number;
  /** The factor that shrinks the budget window (compressed window per call ÷ the real one's). */
  ttlScale: number;
  mode: RunMode;
  /** Where bot processes write CPU profiles (`--cpu-prof`), or none. */
  cpuProfileDir?: string;
  /** Generated sandbox companies (`empresaN` logins) besides the demo ones, for workspaces a hook links. */
  extraCompanies?: number;
  hooks?: ScenarioHooks;
}

/** What a scenario built on this one (the feed beside the load, bench/feed-load.ts) adds around the steps. */
export interface ScenarioHooks {
  /** After the load's workspace is installed and linked, before the bots start: more workspaces, listeners. */
  prepare?(stage: Stage): Promise<void>;
  /** Once every bot listens, before the first step. */
  started?(stage: Stage, bots: readonly BotProcess[]): Promise<void> | void;
  /** After the last step's answers came in (or the drain gave up), before the bots stop. */
  finish?(stage: Stage, bots: readonly BotProcess[]): Promise<void>;
}

/** Runs every step of `plans` against a fresh sandbox, fake Slack and Redis prefix, on fresh bot processes. */
export async function runConfig(spec: ConfigSpec, options: ScenarioOptions): Promise<ConfigResult> {
  const started = Date.now();
  const stage = await openStage(spec.name, {
    rateLimit: options.limit,
    extraCompanies: options.extraCompanies ?? 0,
  });
  const bots: BotProcess[] = [];
  try {
    await stage.install(BENCH_TEAM);
    await stage.link(BENCH_TEAM);
    await options.hooks?.prepare?.(stage);
    const ttlScale = spec.realTtls ? options.ttlScale : 1;
    const env = {
      ...stage.botEnv({
        naive: spec.naive ?? false,
        prefetch: spec.prefetch ?? false,
        ttlScale,
        ...(spec.feedLeaseMs !== undefined && { feedLeaseMs: spec.feedLeaseMs }),
      }),
      ...spec.env,
    };
    for (let i = 0; i < spec.replicas; i += 1) {
      bots.push(
        await spawnBot(
          spec.kind,
          options.mode,
          env,
          join(options.logDir, `${spec.name}-${i + 1}.log`),
          options.cpuProfileDir ? { cpuProfileDir: join(options.cpuProfileDir, spec.name) } : {},
        ),
      );
    }
    await options.hooks?.started?.(stage, bots);
    const sampler = new RssSampler(bots.map((b) => b.pid));
    const driver = new LoadDriver(
      stage,
      bots.map((b) => b.eventsUrl),
      benchUsers(options.users),
    );
    const windows: StepWindow[] = [];
    for (const plan of options.plans) {
      const window = await driver.runStep(plan);
      if (plan.measureMs > 0) windows.push(window);
    }
    // The bare app answers nothing on response_url: nothing to wait for.
    const leftover = spec.kind === 'bare' ? 0 : await driver.drain(options.drainMs);
    await options.hooks?.finish?.(stage, bots);
    sampler.stop();
    const hwm = bots.map((b) => b.peakRss());
    const stopped = await Promise.all(bots.map((b) => b.stop()));
    bots.length = 0;
    await driver.close();
    const login = DEMO_FACTS.company1.login;
    const calls = stage.sandbox.calls;
    const inBot = stopped.flatMap((s) => s?.timings?.acks ?? []);
    // The upstream calls as the sandbox saw them, one JSON line each, with the measured steps' windows: where the
    // budget went (which endpoints, which pages) is read from here.
    // And what each measured command got (which answers the budget went to, which went without) and when.
    await writeFile(
      join(options.logDir, `${spec.name}-answers.jsonl`),
      driver.records
        .filter((r) => r.measured)
        .map((r) =>
          JSON.stringify({
            step: r.step,
            label: r.item.label,
            hot: r.item.hot,
            kind: r.kind,
            ageMs: r.ageMs,
            // ms from sending: what the user saw first, and the final answer (null: none).
            firstMs: firstMessageMs(r),
            answerMs: r.answeredAt === null || r.sentAt === null ? null : r.answeredAt - r.sentAt,
          }),
        )
        .join('\n'),
    );
    // Every ack as the sender saw it and as the bot process timed it (one clock: epoch ms), to find what the slowest
    // acks waited on.
    await writeFile(
      join(options.logDir, `${spec.name}-acks.jsonl`),
      [
        ...driver.records
          .filter((r) => r.measured && r.ackMs !== null)
          .map((r) =>
            JSON.stringify({ side: 'sender', step: r.step, label: r.item.label, at: r.sentAt, ms: r.ackMs }),
          ),
        ...inBot.map((a) => JSON.stringify({ side: 'bot', at: a.at, ms: a.ms })),
      ].join('\n'),
    );
    await writeFile(
      join(options.logDir, `${spec.name}-upstream.jsonl`),
      [
        ...windows.map((w) => JSON.stringify({ step: w.name, from: w.from, to: w.to })),
        ...calls.map((c) => JSON.stringify(c)),
      ].join('\n'),
    );
    return {
      name: spec.name,
      label: spec.label,
      replicas: spec.replicas,
      ttlScale,
      steps: windows.map((w) =>
        stepFigures(
          w,
          driver.records,
          calls,
          login,
          options.limit,
          sampler.peak(w.from, w.to),
          inBot,
          ttlScale,
        ),
      ),
      totals: runTotals(driver.records, calls, login, options.limit, hwm, windows, inBot),
      leftover,
      counters: stopped.map((s) => s?.counters ?? null),
      prefetch: stopped.map((s) => s?.prefetch ?? null),
      loopDelay: stopped.map((s) => s?.timings?.loopDelay ?? null),
      durationMs: Date.now() - started,
    };
  } finally {
    await Promise.all(bots.map((b) => b.stop()));
    await stage.close();
  }
}
