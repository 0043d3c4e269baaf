import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { FeedEvent, FeedPoster, FeedPostResult, FeedTarget } from '../src/domain/feed/types.js';
import { makeLogger } from '../src/lib/logger.js';
import { type SandboxCall, type SandboxChange, startSandbox } from '../src/sandbox/server.js';
import { SecretBox } from '../src/store/crypto.js';
import { type FeedRoundState, FeedSnapshotStore } from '../src/store/feed-snapshot-store.js';
import { Keys } from '../src/store/keys.js';
import { RedisKeyValue } from '../src/store/kv.js';
import {
  buildFeedReplica,
  type FeedReplica,
  FIRST_GENERATED_COMPANY,
  feedWorkspaceOf,
  linkFeedWorkspaces,
} from './feed-setup.js';
import { maxInSlidingWindow, type Percentiles, percentiles } from './measure.js';
import { type RateLimit, REDIS_URL } from './stage.js';

/**
 * The change feed on a compressed window: N workspaces (each linked to its own generated sandbox company, so each
 * has its own budget), one channel feed each, two feed engines as two replicas on one Redis, the sandbox making a
 * few changes a second across the companies. Halfway, replica A stalls for good in a post (as a process killed
 * mid-round): its lease must expire and B must cover. Measures change-to-post latency, events missed and doubled,
 * and the most feed calls any window of any credential held against the share. The posts go to an in-process
 * recorder, not Slack: the Slack side is the digest fan-out's and the HTTP tests' subject.
 */

export interface FeedBenchResult {
  workspaces: number;
  replicas: number;
  durationMs: number;
  intervalMs: number;
  limit: RateLimit;
  sharePercent: number;
  shareCalls: number;
  changes: number;
  /** Changes the feed had to report (made after the workspace's first round recorded, before the last round). */
  expected: number;
  delivered: number;
  missed: number;
  doubled: number;
  latency: Percentiles;
  /** The interval in force at the end, per workspace (FEED_INTERVAL, stretched by the share). */
  effectiveIntervalMs: Percentiles;
  /** The most upstream calls (token calls included) any credential made in any window, against the share. */
  maxCallsInWindow: number;
  upstream429: number;
  killedAtMs: number;
}

export interface FeedBenchOptions {
  workspaces: number;
  durationMs: number;
  intervalMs: number;
  limit: RateLimit;
  sharePercent: number;
  advanceEveryMs: number;
  leaseMs: number;
}

class Recorder implements FeedPoster {
  stalled = false;
  constructor(private readonly posts: { at: number; target: FeedTarget; events: FeedEvent[] }[]) {}
  async post(_ws: string, target: FeedTarget, events: FeedEvent[]): Promise<FeedPostResult> {
    if (this.stalled) return new Promise<FeedPostResult>(() => undefined);
    this.posts.push({ at: Date.now(), target, events });
    return { ok: true };
  }
  async tellFeedLost(): Promise<void> {}
  async tellFollowsEnded(): Promise<void> {}
}

/**
 * The new requests a workspace's feed had to report: made after its first round recorded what existed, and
 * before its last round read (by more than a second: the sandbox dates changes to the second).
 */
export function reportableNews(
  changes: readonly SandboxChange[],
  empresa: number,
  state: Pick<FeedRoundState, 'recordedAt' | 'readUntil'>,
): SandboxChange[] {
  const from = state.recordedAt ?? Number.POSITIVE_INFINITY;
  const to = state.readUntil ?? 0;
  return changes.filter(
    (c) => c.empresa === empresa && c.kind === 'novas' && c.at > from && c.at + 1_000 < to,
  );
}

/** The times of the upstream calls the sandbox logged since `since`, per login (token calls included). */
export function callTimesByLogin(calls: readonly SandboxCall[], since: number): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const call of calls) {
    if (call.at < since || call.login === null) continue;
    const times = out.get(call.login) ?? [];
    times.push(call.at);
    out.set(call.login, times);
  }
  return out;
}

export async function runFeed(options: FeedBenchOptions): Promise<FeedBenchResult> {
  const firstCompany = FIRST_GENERATED_COMPANY;
  const empresaIds = Array.from({ length: options.workspaces }, (_, i) => firstCompany + i);
  const sandbox = await startSandbox({
    port: 0,
    rateLimit: options.limit,
    extraCompanies: options.workspaces,
  });
  const prefix = `bench:feed:${randomBytes(4).toString('hex')}:`;
  const keys = new Keys(prefix);
  const box = new SecretBox(randomBytes(32));
  const logger = makeLogger({ level: 'warn' });
  const connections: Redis[] = [];
  const connect = () => {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
    connections.push(redis);
    return redis;
  };
  const main = connect();
  const mainKv = new RedisKeyValue(main);
  const workspaceOf = feedWorkspaceOf;
  await linkFeedWorkspaces({ kv: mainKv, keys, box, authUrl: sandbox.authUrl, empresaIds });

  const posts: { at: number; target: FeedTarget; events: FeedEvent[] }[] = [];
  const shareCalls = Math.floor((options.limit.count * options.sharePercent) / 100);
  const replicas: (FeedReplica & { poster: Recorder })[] = [];
  for (const name of ['A', 'B']) {
    const poster = new Recorder(posts);
    const replica = buildFeedReplica({
      redis: connect(),
      keys,
      box,
      sandbox,
      limit: options.limit,
      sharePercent: options.sharePercent,
      intervalMs: options.intervalMs,
      leaseMs: options.leaseMs,
      poster,
      logger,
      owner: `replica-${name}`,
    });
    replicas.push({ ...replica, poster });
  }

  const startedAt = Date.now();
  for (const replica of replicas) replica.engine.start();
  // A few changes a second across the companies, in turn.
  let turn = 0;
  const mover = setInterval(() => {
    const empresaId = empresaIds[turn % empresaIds.length] ?? firstCompany;
    turn += 1;
    sandbox.advance({ empresaId, changes: 1, kinds: ['novas', 'status'] });
  }, options.advanceEveryMs);
  const killedAtMs = Math.floor(options.durationMs / 2);
  await new Promise((resolve) => setTimeout(resolve, killedAtMs));
  const [a, b] = replicas;
  if (a) a.poster.stalled = true; // A stalls in its next post and never comes back
  await new Promise((resolve) => setTimeout(resolve, options.durationMs - killedAtMs));
  clearInterval(mover);
  // Let the last changes be reported: the sandbox still, until every outbox is empty (at most two windows).
  const snapshots = new FeedSnapshotStore(mainKv, keys);
  const drainUntil = Date.now() + 2 * options.limit.windowMs;
  await new Promise((resolve) => setTimeout(resolve, 2 * options.intervalMs));
  while (Date.now() < drainUntil) {
    const left = await Promise.all(empresaIds.map((e) => snapshots.outbox(workspaceOf(e))));
    if (left.every((events) => events.length === 0)) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await b?.engine.stop();

  const changes = sandbox.changes.filter((c) => c.at >= startedAt);
  const expectedChanges: SandboxChange[] = [];
  const intervals: number[] = [];
  for (const empresa of empresaIds) {
    const state = await snapshots.state(workspaceOf(empresa));
    if (state.intervalMs !== null) intervals.push(state.intervalMs);
    expectedChanges.push(...reportableNews(changes, empresa, state));
  }
  const seen = new Map<string, number>();
  const latency: number[] = [];
  for (const post of posts) {
    for (const event of post.events) {
      seen.set(event.id, (seen.get(event.id) ?? 0) + 1);
      if (event.kind !== 'novas') continue;
      const change = changes.find((c) => c.kind === 'novas' && c.solicitacaoMaterialId === event.requestId);
      // The sandbox dates changes to the second.
      if (change) latency.push(Math.max(0, post.at - change.at));
    }
  }
  const expectedIds = expectedChanges.map((c) =>
    c.kind === 'novas' ? `${workspaceOf(c.empresa)}:novas:${c.solicitacaoMaterialId}` : '',
  );
  const calls = callTimesByLogin(sandbox.calls, startedAt);
  const result: FeedBenchResult = {
    workspaces: options.workspaces,
    replicas: replicas.length,
    durationMs: options.durationMs,
    intervalMs: options.intervalMs,
    limit: options.limit,
    sharePercent: options.sharePercent,
    shareCalls,
    changes: changes.length,
    expected: expectedIds.length,
    delivered: [...seen.values()].reduce((sum, n) => sum + n, 0),
    missed: expectedIds.filter((id) => !seen.has(id)).length,
    doubled: [...seen.values()].filter((n) => n > 1).length,
    latency: percentiles(latency),
    effectiveIntervalMs: percentiles(intervals),
    maxCallsInWindow: Math.max(
      0,
      ...[...calls.values()].map((t) => maxInSlidingWindow(t, options.limit.windowMs)),
    ),
    upstream429: sandbox.calls.filter((c) => c.at >= startedAt && c.status === 429).length,
    killedAtMs,
  };
  for (const replica of replicas) await replica.close();
  await sandbox.close();
  let cursor = '0';
  do {
    const [next, found] = await main.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    if (found.length > 0) await main.del(...found);
  } while (cursor !== '0');
  await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
  return result;
}
