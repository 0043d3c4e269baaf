import { FIRST_GENERATED_EMPRESA, generatedLogin } from '../src/sandbox/catalog-generated.js';
import { DEMO_FACTS } from '../src/sandbox/facts.js';
import type { SandboxChange } from '../src/sandbox/server.js';
import { FeedListenerStore } from '../src/store/feed-listeners.js';
import { FeedSnapshotStore } from '../src/store/feed-snapshot-store.js';
import { credentialIdOf } from '../src/upstream/credential.js';
import { callTimesByLogin, reportableNews } from './feed.js';
import { type StepPlan, sleep } from './load.js';
import { maxInSlidingWindow, type Percentiles, percentiles } from './measure.js';
import type { BotProcess, RunMode } from './processes.js';
import { type ConfigResult, type ConfigSpec, runConfig, type ScenarioHooks } from './scenario.js';
import { BENCH_TEAM, type RateLimit, type Stage } from './stage.js';

/**
 * The change feed beside interactive load, on the bot as built: two replica processes (bench/replica.ts) with the
 * feed on, the load of bench/load.ts into the workspace whose credential the feed shares, the feed's posts going
 * through the fake Slack's Web API (SLACK_API_URL). The same steps run twice in one go: first with no listener
 * anywhere (the baseline: the feed costs nothing), then with a channel feed in every workspace. After the load
 * of the second, one replica is killed (SIGKILL) while it holds a workspace's round lease, the sandbox goes on
 * changing for a while, and missed and doubled events are counted from the fake Slack's posts against the
 * sandbox's change log.
 */

export interface FeedLoadOptions {
  limit: RateLimit;
  users: number;
  /** The load's steps (bench/run.ts plans them: JIT warm-up, priming, then 1× and 4× the budget). */
  plans: StepPlan[];
  /** Workspaces with a listener, the load's own included; the others each have a generated company. */
  workspaces: number;
  /** FEED_INTERVAL, compressed like the window. */
  intervalMs: number;
  /** The round lease (and delivery claims), compressed like the window. */
  leaseMs: number;
  sharePercent: number;
  /** One sandbox change every this long, the companies in turn. */
  advanceEveryMs: number;
  /** How long the sandbox goes on changing after the kill. */
  tailMs: number;
  logDir: string;
  drainMs: number;
  mode: RunMode;
}

export interface FeedLoadFigures {
  workspaces: number;
  replicas: number;
  intervalMs: number;
  leaseMs: number;
  sharePercent: number;
  /** floor(limit × share): feed calls a window per credential. */
  shareCalls: number;
  limit: RateLimit;
  /** Sandbox changes made while the bots ran. */
  changes: number;
  /** New requests the feed had to report (made after a workspace's first round recorded, before its last read). */
  expected: number;
  missed: number;
  /** Which (workspace, request, when it was made), to look up in the replicas' logs. */
  missedEvents: string[];
  /** Every workspace had two complete rounds after the changes stopped, and every outbox emptied, before counting. */
  settled: boolean;
  /** Events (new requests and status changes) posted more than once in the same channel. */
  doubled: number;
  /** Of those, the ones whose every repeat said it may repeat an earlier post. */
  doubledSaid: number;
  /** Events shown as rows of the fake Slack's posts; plus those only counted in "e mais N". */
  delivered: number;
  hidden: number;
  posts: number;
  /** Change-to-post latency of new requests: every workspace, the load's alone, and the others (feed only). */
  latency: Percentiles;
  latencyLoadWorkspace: Percentiles;
  latencyOtherWorkspaces: Percentiles;
  /** The interval in force at the end, per workspace; and the load's workspace's. */
  effectiveIntervalMs: Percentiles;
  loadWorkspaceIntervalMs: number | null;
  /**
   * Each new request's change-to-post latency over the interval in force when it was posted (as the round that
   * posted it wrote it, the figure `/estoque status` shows): every workspace, the load's, the others. The goal is a
   * p95 of at most 2.
   */
  latencyOverInterval: Percentiles;
  latencyOverIntervalLoad: Percentiles;
  latencyOverIntervalOthers: Percentiles;
  /** The interval in force at each of those posts: the load's workspace, the others. */
  intervalAtPostLoad: Percentiles;
  intervalAtPostOthers: Percentiles;
  /** Most feed calls in any window, from the budget's own feed log: any credential, and the load's credential. */
  maxFeedCallsInWindow: number;
  loadCredentialFeedMax: number;
  /** Most calls of the load's credential in any window (the sandbox's log: interactive, feed and tokens). */
  loadCredentialMax: number;
  upstream429: number;
  kill: { atMs: number; midRound: boolean; workspaceId: string | null };
}

export interface FeedLoadResult {
  baseline: ConfigResult;
  withFeed: ConfigResult;
  feed: FeedLoadFigures;
}

const FEED_CHANNEL = 'C0FEEDLOAD';

interface FeedWorkspace {
  workspaceId: string;
  empresa: number;
  login: string;
}

function feedWorkspaces(count: number): FeedWorkspace[] {
  const load = DEMO_FACTS.company1;
  return [
    { workspaceId: BENCH_TEAM, empresa: load.empresa, login: load.login },
    ...Array.from({ length: Math.max(0, count - 1) }, (_, i) => {
      const empresa = FIRST_GENERATED_EMPRESA + i;
      return {
        workspaceId: `T0FL${String(i + 1).padStart(5, '0')}`,
        empresa,
        login: generatedLogin(empresa),
      };
    }),
  ];
}

/** Installs and links every workspace but the load's (runConfig does that one); a channel feed in each when asked. */
async function prepareWorkspaces(stage: Stage, all: FeedWorkspace[], listeners: boolean): Promise<void> {
  const store = new FeedListenerStore(stage.kv, stage.keys);
  for (const ws of all) {
    if (ws.workspaceId !== BENCH_TEAM) {
      stage.slack.addTeam({
        id: ws.workspaceId,
        name: `Condomínio ${ws.empresa}`,
        botUserId: `U0FLB${ws.empresa}`,
        botId: `B0FLB${ws.empresa}`,
      });
      await stage.install(ws.workspaceId);
      await stage.link(ws.workspaceId, { login: ws.login, password: ws.login, empresa: ws.empresa });
    }
    if (!listeners) continue;
    const team = stage.slack.teams.get(ws.workspaceId);
    stage.slack.addChannel({
      id: `${FEED_CHANNEL}${ws.empresa}`,
      name: 'manutencao-alertas',
      members: new Set([team?.botUserId ?? '']),
      teamId: ws.workspaceId,
    });
    await store.upsertChannel({
      workspaceId: ws.workspaceId,
      channelId: `${FEED_CHANNEL}${ws.empresa}`,
      stockroomId: null,
      subscribedBy: 'U0BENCH001',
    });
  }
}

/** The sandbox changing requests (new ones and status moves), one change every `everyMs`, the companies in turn. */
function startMover(stage: Stage, all: FeedWorkspace[], everyMs: number): () => void {
  let turn = 0;
  const timer = setInterval(() => {
    const ws = all[turn % all.length];
    turn += 1;
    if (ws) stage.sandbox.advance({ empresaId: ws.empresa, changes: 1, kinds: ['novas', 'status'] });
  }, everyMs);
  return () => clearInterval(timer);
}

interface SeenEvent {
  key: string;
  requestId: number;
  novas: boolean;
}

/**
 * The events a feed post shows, read back from its rows, how many more it only counts ("e mais N"), and whether it
 * says it may repeat an earlier post (one whose outcome was not known: deliver.ts).
 */
export function eventsOfPost(blocks: readonly unknown[]): {
  events: SeenEvent[];
  hidden: number;
  mayRepeat: boolean;
} {
  const events: SeenEvent[] = [];
  let hidden = 0;
  let mayRepeat = false;
  for (const block of blocks as {
    type?: string;
    text?: { text?: string };
    elements?: { text?: string }[];
  }[]) {
    if (block.type === 'section') {
      const text = block.text?.text ?? '';
      const novas = /^Nova solicitação \*(\d+)\*/.exec(text);
      const status = /^Solicitação \*(\d+)\*: (.+)$/m.exec(text);
      if (novas?.[1]) events.push({ key: `novas:${novas[1]}`, requestId: Number(novas[1]), novas: true });
      else if (status?.[1])
        events.push({ key: `status:${status[1]}:${status[2]}`, requestId: Number(status[1]), novas: false });
    } else if (block.type === 'context') {
      for (const element of block.elements ?? []) {
        const more = /E mais (\d+) mudanças?/.exec(element.text ?? '');
        if (more?.[1]) hidden += Number(more[1]);
        if (/pode repetir parte de um enviado/.test(element.text ?? '')) mayRepeat = true;
      }
    }
  }
  return { events, hidden, mayRepeat };
}

/** Waits until replica `bot` holds some workspace's round lease (it is mid-round), at most `timeoutMs`. */
async function waitMidRound(
  stage: Stage,
  all: FeedWorkspace[],
  bot: BotProcess,
  timeoutMs: number,
): Promise<string | null> {
  const keys = all.map((ws) => stage.keys.feedRoundLease(ws.workspaceId));
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const owners = await stage.redis.mget(...keys);
    const held = owners.findIndex((owner) => owner?.startsWith(`p${bot.pid}-`));
    if (held >= 0) return all[held]?.workspaceId ?? null;
    await sleep(10);
  }
  return null;
}

export async function runFeedLoad(o: FeedLoadOptions): Promise<FeedLoadResult> {
  const all = feedWorkspaces(o.workspaces);
  const shareCalls = Math.floor((o.limit.count * o.sharePercent) / 100);
  const spec = (name: string, label: string): ConfigSpec => ({
    name,
    label,
    kind: 'replica',
    replicas: 2,
    env: { FEED_INTERVAL: `${o.intervalMs}ms`, FEED_BUDGET_SHARE: String(o.sharePercent) },
    feedLeaseMs: o.leaseMs,
  });
  const common = {
    limit: o.limit,
    users: o.users,
    plans: o.plans,
    logDir: o.logDir,
    drainMs: o.drainMs,
    mode: o.mode,
    ttlScale: 1,
    extraCompanies: o.workspaces - 1,
  };

  const noop = () => undefined;
  let stopMover: () => void = noop;
  let settled = false;
  const baseline = await runConfig(
    spec('feed-off', 'feed beside the load: no listeners (baseline), 2 replicas'),
    {
      ...common,
      hooks: {
        prepare: (stage) => prepareWorkspaces(stage, all, false),
        started: (stage) => {
          stopMover = startMover(stage, all, o.advanceEveryMs);
        },
        finish: async () => stopMover(),
      },
    },
  );

  let figures: FeedLoadFigures | null = null;
  const posts: { at: number; channel: string; events: SeenEvent[]; hidden: number; mayRepeat: boolean }[] =
    [];
  const feedLog = new Map<string, Map<string, number>>();
  let sampler: NodeJS.Timeout | null = null;
  // Each workspace's interval in force (the round state), read every second: a post's is the first read after it
  // (the round that posted writes its state right after its delivery).
  const intervalLog = new Map<string, { at: number; ms: number }[]>();
  let unsubscribe: () => void = noop;
  let startedAt = 0;
  const hooks: ScenarioHooks = {
    prepare: (stage) => prepareWorkspaces(stage, all, true),
    started: (stage) => {
      startedAt = Date.now();
      unsubscribe = stage.slack.on('message', (message) => {
        if (message.via !== 'chat.postMessage' || !message.channel.startsWith(FEED_CHANNEL)) return;
        posts.push({ at: Date.now(), channel: message.channel, ...eventsOfPost(message.blocks) });
      });
      // The budget's feed log keeps a window of entries: read every second, it gives every feed call's time.
      const stateStore = new FeedSnapshotStore(stage.kv, stage.keys);
      sampler = setInterval(() => {
        const at = Date.now();
        for (const ws of all) {
          void stateStore.state(ws.workspaceId).then((state) => {
            if (state.intervalMs === null) return;
            const log = intervalLog.get(ws.workspaceId) ?? [];
            log.push({ at, ms: state.intervalMs });
            intervalLog.set(ws.workspaceId, log);
          });
          const key = stage.keys.budgetFeedLog(credentialIdOf(stage.sandbox.authUrl, ws.login));
          void stage.redis.zrange(key, 0, -1, 'WITHSCORES').then((flat) => {
            const log = feedLog.get(ws.login) ?? new Map<string, number>();
            for (let i = 0; i + 1 < flat.length; i += 2) log.set(flat[i] as string, Number(flat[i + 1]));
            feedLog.set(ws.login, log);
          });
        }
      }, 1_000);
      stopMover = startMover(stage, all, o.advanceEveryMs);
    },
    finish: async (stage, bots) => {
      const victim = bots[0];
      const killedIn = victim ? await waitMidRound(stage, all, victim, 20_000) : null;
      const killedAt = Date.now();
      await victim?.kill();
      await sleep(o.tailMs);
      stopMover();
      const stoppedAt = Date.now();
      // Let the last changes be reported: the sandbox still, until every workspace has had two complete rounds
      // since the changes stopped and every outbox is empty (at most four windows). Two, because a round may
      // take a list page a command or the previous round fetched since that round read (FeedRound's
      // `freshSince`), which can predate the last change: the round after it reads past it. Counting after one
      // round, or after a fixed pause, took such a change for missed when it was only due in the next round.
      const snapshots = new FeedSnapshotStore(stage.kv, stage.keys);
      await sleep(o.leaseMs + 2 * o.intervalMs);
      const firstRead = new Map<string, number>();
      const until = Date.now() + 4 * o.limit.windowMs;
      while (Date.now() < until) {
        let rounds = true;
        for (const ws of all) {
          const state = await snapshots.state(ws.workspaceId);
          if (state.lastCompleteAt === null || state.lastCompleteAt <= stoppedAt) {
            rounds = false;
            continue;
          }
          const first = firstRead.get(ws.workspaceId);
          if (first === undefined) {
            firstRead.set(ws.workspaceId, state.readUntil ?? state.lastCompleteAt);
            rounds = false;
          } else if (state.lastCompleteAt <= first) rounds = false;
        }
        const left = await Promise.all(all.map((ws) => snapshots.outbox(ws.workspaceId)));
        settled = rounds && left.every((events) => events.length === 0);
        if (settled) break;
        await sleep(500);
      }
      if (sampler) clearInterval(sampler);
      unsubscribe();
      figures = await countFeed(stage, all, posts, feedLog, intervalLog, snapshots, {
        o,
        shareCalls,
        startedAt,
        kill: { atMs: killedAt - startedAt, midRound: killedIn !== null, workspaceId: killedIn },
        settled,
      });
    },
  };
  const withFeed = await runConfig(
    spec('feed-on', 'feed beside the load: a channel feed in every workspace, 2 replicas'),
    { ...common, hooks },
  );
  if (!figures) throw new Error('feed beside the load: the feed was not counted');
  return { baseline, withFeed, feed: figures };
}

async function countFeed(
  stage: Stage,
  all: FeedWorkspace[],
  posts: { at: number; channel: string; events: SeenEvent[]; hidden: number; mayRepeat: boolean }[],
  feedLog: Map<string, Map<string, number>>,
  intervalLog: Map<string, { at: number; ms: number }[]>,
  snapshots: FeedSnapshotStore,
  run: {
    o: FeedLoadOptions;
    shareCalls: number;
    startedAt: number;
    kill: FeedLoadFigures['kill'];
    settled: boolean;
  },
): Promise<FeedLoadFigures> {
  const { o, startedAt } = run;
  const changes = stage.sandbox.changes.filter((c) => c.at >= startedAt);
  // Keyed by company too: each generated company numbers its requests in its own range, which may overlap.
  const newRequest = new Map<string, SandboxChange>();
  for (const c of changes)
    if (c.kind === 'novas') newRequest.set(`${c.empresa}:${c.solicitacaoMaterialId}`, c);
  const latency: number[] = [];
  const latencyLoad: number[] = [];
  const latencyOthers: number[] = [];
  let missed = 0;
  const missedEvents: string[] = [];
  let expected = 0;
  let doubled = 0;
  let doubledSaid = 0;
  const intervals: number[] = [];
  let loadInterval: number | null = null;
  const ratios = { load: [] as number[], others: [] as number[] };
  const atPost = { load: [] as number[], others: [] as number[] };
  for (const ws of all) {
    const channel = `${FEED_CHANNEL}${ws.empresa}`;
    const seen = new Map<string, number>();
    /** Events posted again only in posts that said they may repeat an earlier one. */
    const repeatsUnsaid = new Set<string>();
    const state = await snapshots.state(ws.workspaceId);
    const log = intervalLog.get(ws.workspaceId) ?? [];
    const inForceAt = (at: number) => log.find((sample) => sample.at >= at)?.ms ?? state.intervalMs;
    const group = ws.workspaceId === BENCH_TEAM ? 'load' : 'others';
    for (const post of posts.filter((p) => p.channel === channel)) {
      for (const event of post.events) {
        seen.set(event.key, (seen.get(event.key) ?? 0) + 1);
        if ((seen.get(event.key) ?? 0) > 1 && !post.mayRepeat) repeatsUnsaid.add(event.key);
        const change = event.novas ? newRequest.get(`${ws.empresa}:${event.requestId}`) : undefined;
        // The first post of an event is its latency; a second one is counted as doubled.
        if (!change || (seen.get(event.key) ?? 0) > 1) continue;
        const ms = Math.max(0, post.at - change.at);
        latency.push(ms);
        (ws.workspaceId === BENCH_TEAM ? latencyLoad : latencyOthers).push(ms);
        const inForce = inForceAt(post.at);
        if (inForce !== null && inForce > 0) {
          ratios[group].push(ms / inForce);
          atPost[group].push(inForce);
        }
      }
    }
    const twice = [...seen.entries()].filter(([, n]) => n > 1).map(([key]) => key);
    doubled += twice.length;
    doubledSaid += twice.filter((key) => !repeatsUnsaid.has(key)).length;
    if (state.intervalMs !== null) intervals.push(state.intervalMs);
    if (ws.workspaceId === BENCH_TEAM) loadInterval = state.intervalMs;
    const due = reportableNews(changes, ws.empresa, state);
    expected += due.length;
    const lost = due.filter((c) => c.kind === 'novas' && !seen.has(`novas:${c.solicitacaoMaterialId}`));
    missed += lost.length;
    for (const c of lost)
      if (c.kind === 'novas')
        missedEvents.push(
          `${ws.workspaceId} request ${c.solicitacaoMaterialId} made ${((c.at - startedAt) / 1000).toFixed(1)} s in`,
        );
  }
  const feedMax = (login: string) =>
    maxInSlidingWindow([...(feedLog.get(login)?.values() ?? [])], o.limit.windowMs);
  const loadLogin = DEMO_FACTS.company1.login;
  return {
    workspaces: all.length,
    replicas: 2,
    intervalMs: o.intervalMs,
    leaseMs: o.leaseMs,
    sharePercent: o.sharePercent,
    shareCalls: run.shareCalls,
    limit: o.limit,
    changes: changes.length,
    expected,
    missed,
    missedEvents,
    settled: run.settled,
    doubled,
    doubledSaid,
    delivered: posts.reduce((sum, p) => sum + p.events.length, 0),
    hidden: posts.reduce((sum, p) => sum + p.hidden, 0),
    posts: posts.length,
    latency: percentiles(latency),
    latencyLoadWorkspace: percentiles(latencyLoad),
    latencyOtherWorkspaces: percentiles(latencyOthers),
    effectiveIntervalMs: percentiles(intervals),
    loadWorkspaceIntervalMs: loadInterval,
    latencyOverInterval: percentiles([...ratios.load, ...ratios.others]),
    latencyOverIntervalLoad: percentiles(ratios.load),
    latencyOverIntervalOthers: percentiles(ratios.others),
    intervalAtPostLoad: percentiles(atPost.load),
    intervalAtPostOthers: percentiles(atPost.others),
    maxFeedCallsInWindow: Math.max(0, ...all.map((ws) => feedMax(ws.login))),
    loadCredentialFeedMax: feedMax(loadLogin),
    loadCredentialMax: maxInSlidingWindow(
      callTimesByLogin(stage.sandbox.calls, startedAt).get(loadLogin) ?? [],
      o.limit.windowMs,
    ),
    upstream429: stage.sandbox.calls.filter((c) => c.at >= startedAt && c.status === 429).length,
    kill: run.kill,
  };
}
