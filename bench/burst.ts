import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { FORM, signedBody, sleep, startSenderWorker } from './load.js';
import { type Percentiles, percentiles, preciseNow, ratio } from './measure.js';
import { type BotKind, type RunMode, spawnBot } from './processes.js';
import type { PlannedSend, SenderReply, SenderRequest } from './sender-worker.js';
import { BENCH_TEAM, openStage, type RateLimit, SIGNING_SECRET, type Stage } from './stage.js';
import { makeMix, seededRandom } from './workload.js';

/**
 * A burst: every command of a crowd sent at the same instant (a shift change, a meeting that ends), to a
 * process that has just started (cold) and again once it has answered them (warm), against the bot and the
 * bare Bolt app in turns. Acks are timed from outside, by the sender thread, as Slack would see them.
 */
export interface BurstOptions {
  commands: number;
  users: number;
  workspaces: number;
  /** Bare and bot take turns this many times; each turn is a fresh process, cold then warm. */
  rounds: number;
  limit: RateLimit;
  mode: RunMode;
  logDir: string;
  /** How long to wait for the cold burst's answers before the warm one (the bot only). */
  drainMs: number;
  /** Where bot processes write CPU profiles (`--cpu-prof`), or none. */
  cpuProfileDir?: string;
}

export interface BurstSide {
  kind: BotKind;
  /** Acks of every round's cold burst, pooled. */
  cold: Percentiles;
  warm: Percentiles;
  /**
   * The same acks timed inside the process, from its HTTP server's 'request' event to the answer's last byte
   * handed to the socket: what is left of `cold` once the sender, the loopback and the accept queue are out.
   */
  coldInBot: Percentiles;
  warmInBot: Percentiles;
  /** Non-200 acks and transport errors. */
  failed: number;
  /** Answers that had not arrived when the drain gave up (the bot only). */
  unanswered: number;
  /** The highest VmHWM of a process (bytes). */
  peakRss: number;
}

export interface BurstResult {
  commands: number;
  users: number;
  workspaces: number;
  rounds: number;
  bare: BurstSide;
  bot: BurstSide;
  /** Bot p99 ÷ bare p99. */
  coldP99Ratio: number | null;
  warmP99Ratio: number | null;
}

export async function runBurst(options: BurstOptions): Promise<BurstResult> {
  const acks: Record<
    BotKind,
    {
      cold: number[];
      warm: number[];
      coldInBot: number[];
      warmInBot: number[];
      failed: number;
      unanswered: number;
      rss: number;
    }
  > = {
    bare: { cold: [], warm: [], coldInBot: [], warmInBot: [], failed: 0, unanswered: 0, rss: 0 },
    replica: { cold: [], warm: [], coldInBot: [], warmInBot: [], failed: 0, unanswered: 0, rss: 0 },
  };
  for (let round = 1; round <= options.rounds; round += 1) {
    for (const kind of ['bare', 'replica'] as const) {
      const side = acks[kind];
      const figures = await oneTurn(kind, round, options);
      side.cold.push(...figures.cold);
      side.warm.push(...figures.warm);
      side.coldInBot.push(...figures.coldInBot);
      side.warmInBot.push(...figures.warmInBot);
      side.failed += figures.failed;
      side.unanswered += figures.unanswered;
      side.rss = Math.max(side.rss, figures.peakRss);
    }
  }
  const sideOf = (kind: BotKind): BurstSide => ({
    kind,
    cold: percentiles(acks[kind].cold),
    warm: percentiles(acks[kind].warm),
    coldInBot: percentiles(acks[kind].coldInBot),
    warmInBot: percentiles(acks[kind].warmInBot),
    failed: acks[kind].failed,
    unanswered: acks[kind].unanswered,
    peakRss: acks[kind].rss,
  });
  const bare = sideOf('bare');
  const bot = sideOf('replica');
  return {
    commands: options.commands,
    users: options.users,
    workspaces: options.workspaces,
    rounds: options.rounds,
    bare,
    bot,
    coldP99Ratio: ratio(bot.cold.p99, bare.cold.p99),
    warmP99Ratio: ratio(bot.warm.p99, bare.warm.p99),
  };
}

/** The workspaces of a burst: the load's own and more of the fake Slack, each installed and linked. */
async function burstTeams(stage: Stage, count: number): Promise<string[]> {
  const teams: string[] = [BENCH_TEAM];
  for (let w = 2; w <= count; w += 1) {
    const id = `T0BURST${String(w).padStart(3, '0')}`;
    stage.slack.addTeam({
      id,
      name: `Condomínio ${w}`,
      botUserId: `U0BURSTB${String(w).padStart(2, '0')}`,
      botId: `B0BURSTB${String(w).padStart(2, '0')}`,
    });
    teams.push(id);
  }
  for (const team of teams) {
    await stage.install(team);
    await stage.link(team);
  }
  return teams;
}

async function oneTurn(
  kind: BotKind,
  round: number,
  options: BurstOptions,
): Promise<{
  cold: number[];
  warm: number[];
  coldInBot: number[];
  warmInBot: number[];
  failed: number;
  unanswered: number;
  peakRss: number;
}> {
  const stage = await openStage(`burst-${kind}-${round}`, { rateLimit: options.limit });
  const worker = startSenderWorker();
  try {
    const teams = await burstTeams(stage, options.workspaces);
    const bot = await spawnBot(
      kind,
      options.mode,
      stage.botEnv({ logLevel: 'warn' }),
      join(options.logDir, `burst-${kind}-${round}.log`),
      options.cpuProfileDir ? { cpuProfileDir: join(options.cpuProfileDir, `burst-${kind}-${round}`) } : {},
    );
    try {
      const cold = await fire(stage, worker, bot.eventsUrl, teams, options, 1_000 * round + 1);
      const coldLeft = kind === 'bare' ? 0 : await cold.answered(options.drainMs);
      const warmFrom = preciseNow();
      const warm = await fire(stage, worker, bot.eventsUrl, teams, options, 1_000 * round + 2);
      const warmLeft = kind === 'bare' ? 0 : await warm.answered(options.drainMs);
      const inBot = (await bot.stop())?.timings?.acks ?? [];
      return {
        coldInBot: inBot.filter((a) => a.at < warmFrom).map((a) => a.ms),
        warmInBot: inBot.filter((a) => a.at >= warmFrom).map((a) => a.ms),
        cold: cold.acks.filter((a) => a.status === 200).map((a) => a.ackMs),
        warm: warm.acks.filter((a) => a.status === 200).map((a) => a.ackMs),
        failed: [...cold.acks, ...warm.acks].filter((a) => a.status !== 200).length,
        unanswered: coldLeft + warmLeft,
        peakRss: bot.peakRss(),
      };
    } finally {
      await bot.stop();
    }
  } finally {
    await worker.terminate();
    await stage.close();
  }
}

interface Fired {
  acks: SenderReply[];
  /** Waits for the response_url answers, at most `timeoutMs`; returns how many never came. */
  answered(timeoutMs: number): Promise<number>;
}

/**
 * Sends `commands` signed requests, all planned for the same instant, spread over the users and workspaces,
 * each in a channel of its own so that its answer is known; resolves when every ack is back.
 */
async function fire(
  stage: Stage,
  worker: Worker,
  eventsUrl: string,
  teams: readonly string[],
  options: BurstOptions,
  seed: number,
): Promise<Fired> {
  const rng = seededRandom(seed);
  const next = makeMix(rng);
  const waiting = new Set<string>();
  const sends: PlannedSend[] = [];
  const at = preciseNow() + 500;
  for (let i = 0; i < options.commands; i += 1) {
    const user = i % options.users;
    const teamId = teams[user % teams.length] as string;
    const userId = `U0BURST${String(user + 1).padStart(3, '0')}`;
    const channelId = `CBU${seed.toString(36).toUpperCase()}${i.toString(36).toUpperCase().padStart(4, '0')}`;
    waiting.add(channelId);
    sends.push({
      id: i,
      at,
      eventsUrl,
      body: signedBody(stage, next(), { teamId, channelId, userId }),
      contentType: FORM,
    });
  }
  const acks: SenderReply[] = [];
  const unsubscribe = stage.slack.on('message', (message) => {
    waiting.delete(message.channel);
  });
  await new Promise<void>((resolve) => {
    const onReply = (reply: SenderReply) => {
      if (reply.type !== 'acked') return;
      acks.push(reply);
      if (acks.length === sends.length) {
        worker.off('message', onReply);
        resolve();
      }
    };
    worker.on('message', onReply);
    worker.postMessage({ type: 'plan', signingSecret: SIGNING_SECRET, sends } satisfies SenderRequest);
  });
  return {
    acks,
    async answered(timeoutMs) {
      const deadline = preciseNow() + timeoutMs;
      while (waiting.size > 0 && preciseNow() < deadline) await sleep(100);
      unsubscribe();
      return waiting.size;
    },
  };
}
