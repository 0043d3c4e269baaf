import { Redis } from 'ioredis';
import type { Config } from '../src/config.js';
import { FIRST_GENERATED_EMPRESA, generatedLogin } from '../src/sandbox/catalog-generated.js';
import { DEMO_FACTS } from '../src/sandbox/facts.js';
import { SubscriptionStore } from '../src/store/subscription-store.js';
import { buildDigestReplica, type DigestReplica } from './digest-replica.js';
import { maxInSlidingWindow, type Percentiles, percentiles } from './measure.js';
import { BENCH_TZ, openStage, type RateLimit, REDIS_URL, type Stage } from './stage.js';

export interface DigestResult {
  workspaces: number;
  subscriptions: number;
  schedulers: number;
  tickEveryMs: number;
  /** From the hour (the fake clock's start) to the last post, ms; null when some never came. */
  allPostedWithinMs: number | null;
  /** Delay of each post after the hour, ms. */
  postDelay: Percentiles;
  /** How many subscriptions got 0, 1, 2… posts. */
  postsPerSubscription: Record<string, number>;
  missed: number;
  doubled: number;
  /** chat.postMessage calls the fake Slack answered 429 (its per-channel rate). */
  slackRateLimited: number;
  /** The shortest time between two posts in the same channel; null when no channel got two. */
  minChannelGapMs: number | null;
  upstreamCalls: number;
  upstream429: number;
  maxInWindowByLogin: { login: string; max: number; limit: number }[];
  /** What the tick reports of both schedulers added up. */
  ticks: { posted: number; failed: number; claimed: number; lost: number; builds: number };
}

export interface DigestOptions {
  workspaces: number;
  channelsPerWorkspace: number;
  /** The production budget: the fan-out is not compressed in time. */
  limit: RateLimit;
  tickEveryMs: number;
  /** Give up after this long (the target is 60 s). */
  timeoutMs: number;
  /** Scheduler instances, as replicas (default 2). */
  schedulers?: number;
  /**
   * Each workspace linked to a company of its own (the sandbox's generated `empresaN` logins, one credential
   * and budget each), as separate customers are; default: alternately the two demo logins.
   */
  ownCompanies?: boolean;
}

/**
 * 20 workspaces (each linked to the sandbox's `demo` or `demo2` login), 10 channels each subscribed at the same
 * hour; two scheduler instances (as two replicas: their own Redis connection, budget queue, upstream client),
 * a clock that starts at the hour and runs at real speed, both ticking. Measures when every post arrived and
 * how many each subscription got.
 */
export async function runDigest(options: DigestOptions): Promise<DigestResult> {
  const ownCompanies = options.ownCompanies ?? false;
  const stage = await openStage('digest', {
    rateLimit: options.limit,
    enforceChannelRate: true,
    extraCompanies: ownCompanies ? options.workspaces : 0,
  });
  const logins: string[] = [];
  const hour = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const subscriptions: { workspaceId: string; channelId: string }[] = [];
  const connections: Redis[] = [];
  const replicas: DigestReplica[] = [];
  try {
    for (let w = 1; w <= options.workspaces; w += 1) {
      const workspaceId = `T0DIG${String(w).padStart(4, '0')}`;
      const team = stage.slack.addTeam({
        id: workspaceId,
        name: `Condomínio ${w}`,
        botUserId: `U0DIGB${String(w).padStart(4, '0')}`,
        botId: `B0DIGB${String(w).padStart(4, '0')}`,
      });
      await stage.install(workspaceId);
      const account = ownCompanies
        ? { login: generatedLogin(FIRST_GENERATED_EMPRESA + w - 1), empresa: FIRST_GENERATED_EMPRESA + w - 1 }
        : w % 2 === 1
          ? DEMO_FACTS.company1
          : DEMO_FACTS.company2;
      await stage.link(workspaceId, {
        login: account.login,
        password: account.login,
        empresa: account.empresa,
      });
      if (!logins.includes(account.login)) logins.push(account.login);
      for (let c = 1; c <= options.channelsPerWorkspace; c += 1) {
        const channelId = `C0DIG${String(w).padStart(3, '0')}${String(c).padStart(2, '0')}`;
        stage.slack.addChannel({
          id: channelId,
          name: `manutencao-${c}`,
          members: new Set([team.botUserId]),
          teamId: workspaceId,
        });
        subscriptions.push({ workspaceId, channelId });
      }
    }
    const config: Pick<
      Config,
      'UPSTREAM_RATE_LIMIT' | 'BOT_ADMINS' | 'DIGEST_TZ' | 'SLACK_API_URL' | 'SLACK_BOT_TOKEN'
    > = {
      UPSTREAM_RATE_LIMIT: options.limit,
      BOT_ADMINS: [],
      DIGEST_TZ: BENCH_TZ,
      SLACK_API_URL: stage.slack.apiUrl,
      SLACK_BOT_TOKEN: undefined,
    };
    // Subscribed a minute before the hour: the hour's post is due, not "late".
    await subscribeAll(stage, subscriptions, hour, config.DIGEST_TZ);

    const started = Date.now();
    const clock = () => hour + (Date.now() - started);
    for (let i = 1; i <= (options.schedulers ?? 2); i += 1) {
      const redis = new Redis(REDIS_URL);
      connections.push(redis);
      replicas.push(buildDigestReplica({ stage, redis, config, now: clock, name: `digest-${i}` }));
    }
    const wanted = new Set(subscriptions.map((s) => s.channelId));
    const postsIn = () =>
      stage.slack.messages.filter(
        (m) => m.via === 'chat.postMessage' && wanted.has(m.channel) && !m.replaced,
      );
    const reports = replicas.map(() => ({ posted: 0, failed: 0, claimed: 0, lost: 0, builds: 0 }));
    let running = true;
    const loops = replicas.map(async (replica, i) => {
      while (running) {
        const tickStarted = Date.now();
        const report = await replica.scheduler.tick();
        const total = reports[i] as (typeof reports)[number];
        total.posted += report.posted;
        total.failed += report.failed;
        total.claimed += report.claimed;
        total.lost += report.lost;
        total.builds += report.builds;
        await sleep(Math.max(0, options.tickEveryMs - (Date.now() - tickStarted)));
      }
    });
    const deadline = started + options.timeoutMs;
    while (Date.now() < deadline && new Set(postsIn().map((m) => m.channel)).size < wanted.size) {
      await sleep(100);
    }
    // A little more, to catch a second post of a subscription that was already posted.
    await sleep(Math.min(5_000, options.tickEveryMs * 2));
    running = false;
    await Promise.all(loops);

    const posts = postsIn();
    const perChannel = new Map<string, number[]>();
    for (const post of posts)
      perChannel.set(post.channel, [...(perChannel.get(post.channel) ?? []), post.at]);
    const histogram: Record<string, number> = {};
    let missed = 0;
    let doubled = 0;
    let minGap: number | null = null;
    for (const channelId of wanted) {
      const times = (perChannel.get(channelId) ?? []).sort((a, b) => a - b);
      histogram[String(times.length)] = (histogram[String(times.length)] ?? 0) + 1;
      if (times.length === 0) missed += 1;
      if (times.length > 1) doubled += 1;
      for (let i = 1; i < times.length; i += 1) {
        const gap = (times[i] as number) - (times[i - 1] as number);
        minGap = minGap === null ? gap : Math.min(minGap, gap);
      }
    }
    const delays = posts.map((p) => p.at - started);
    const calls = stage.sandbox.calls;
    return {
      workspaces: options.workspaces,
      subscriptions: subscriptions.length,
      schedulers: replicas.length,
      tickEveryMs: options.tickEveryMs,
      allPostedWithinMs: missed === 0 ? Math.max(...delays) : null,
      postDelay: percentiles(delays),
      postsPerSubscription: histogram,
      missed,
      doubled,
      slackRateLimited: stage.slack.calls.filter((c) => c.method === 'chat.postMessage' && c.status === 429)
        .length,
      minChannelGapMs: minGap,
      upstreamCalls: calls.filter((c) => c.login !== null).length,
      upstream429: calls.filter((c) => c.status === 429).length,
      maxInWindowByLogin: logins.map((login) => ({
        login,
        max: maxInSlidingWindow(
          calls.filter((c) => c.login === login).map((c) => c.at),
          options.limit.windowMs,
        ),
        limit: options.limit.count,
      })),
      ticks: reports.reduce(
        (sum, r) => ({
          posted: sum.posted + r.posted,
          failed: sum.failed + r.failed,
          claimed: sum.claimed + r.claimed,
          lost: sum.lost + r.lost,
          builds: sum.builds + r.builds,
        }),
        { posted: 0, failed: 0, claimed: 0, lost: 0, builds: 0 },
      ),
    };
  } finally {
    await Promise.all(replicas.map((r) => r.close()));
    for (const c of connections) c.disconnect();
    await stage.close();
  }
}

async function subscribeAll(
  stage: Stage,
  subscriptions: { workspaceId: string; channelId: string }[],
  hour: number,
  timeZone: string,
): Promise<void> {
  const store = new SubscriptionStore(stage.kv, stage.keys, () => hour - 60_000);
  const local = new Date(hour).toLocaleString('en-GB', { timeZone, hour: '2-digit', hourCycle: 'h23' });
  for (const s of subscriptions) {
    await store.upsert({
      workspaceId: s.workspaceId,
      channelId: s.channelId,
      hour: Number(local),
      minute: 0,
      timeZone,
      weekdaysOnly: false,
      stockroomId: null,
      subscribedBy: 'U0DIGUSER1',
    });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
