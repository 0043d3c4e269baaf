import { afterEach, expect } from 'vitest';
import { FeedEngine, type FeedListenerSource } from '../../src/domain/feed/engine.js';
import type {
  ChannelFeed,
  FeedEvent,
  FeedPoster,
  FeedPostOptions,
  FeedPostResult,
  FeedTarget,
} from '../../src/domain/feed/types.js';
import type { Logger } from '../../src/lib/logger.js';
import { SlackFeedPoster } from '../../src/slack/feed-poster.js';
import { createSlackClients } from '../../src/slack/slack-clients.js';
import { FeedListenerStore } from '../../src/store/feed-listeners.js';
import { FeedSnapshotStore } from '../../src/store/feed-snapshot-store.js';
import { type KeyValue, RedisKeyValue } from '../../src/store/kv.js';
import type { BudgetOptions } from '../../src/upstream/budget.js';
import { feedShareCalls } from '../../src/upstream/budget-policy.js';
import { type Harness, type Replica, SP, saoPaulo, startDigestHarness, WS } from './digest-harness.js';

export { WS };

/** One post the recording poster received. */
export interface RecordedPost {
  replica: string;
  workspaceId: string;
  target: FeedTarget;
  events: FeedEvent[];
  lateSince: number | null;
  /** The post said it may repeat one made then (FeedPostOptions.mayRepeatSince). */
  mayRepeatSince: number | null;
}

/**
 * A FeedPoster double that records what it is handed. `results` answers per target key (`c-<channel>`,
 * `u-<user>`); `hold` makes posts wait until released (a replica that stalls or dies mid-post).
 */
export class RecordingPoster implements FeedPoster {
  readonly posts: RecordedPost[] = [];
  readonly lost: ChannelFeed[] = [];
  readonly results = new Map<string, FeedPostResult>();
  hold = false;
  /** Posts started while held, never finished. */
  held = 0;
  /** Called once a post is recorded (Slack has it), before the result goes back to the caller. */
  afterPost?: () => void;
  /**
   * A first attempt answered 429: the post waits for this, then tries again. The guard is asked before each
   * attempt, as PacedPoster does.
   */
  rateLimitedUntil?: Promise<void>;

  constructor(
    private readonly replica: string,
    private readonly shared?: RecordedPost[],
  ) {}

  async post(
    workspaceId: string,
    target: FeedTarget,
    events: FeedEvent[],
    options: FeedPostOptions = {},
  ): Promise<FeedPostResult> {
    if (this.hold) {
      this.held += 1;
      return new Promise<FeedPostResult>(() => undefined);
    }
    const stopped = { ok: false, lost: false, error: 'stopped' } as const;
    if (options.guard && !(await options.guard())) return stopped;
    if (this.rateLimitedUntil) {
      await this.rateLimitedUntil;
      if (options.guard && !(await options.guard())) return stopped;
    }
    const key = target.kind === 'channel' ? `c-${target.channelId}` : `u-${target.userId}`;
    const result = this.results.get(key) ?? { ok: true };
    // Slack has the message when it accepted it, and when its reply was lost on the way.
    if (result.ok || result.mayHaveArrived === true) {
      const post = {
        replica: this.replica,
        workspaceId,
        target,
        events,
        lateSince: options.lateSince ?? null,
        mayRepeatSince: options.mayRepeatSince ?? null,
      };
      this.posts.push(post);
      this.shared?.push(post);
      this.afterPost?.();
    }
    return result;
  }

  async tellFeedLost(_workspaceId: string, feed: ChannelFeed): Promise<void> {
    this.lost.push(feed);
  }

  async tellFollowsEnded(): Promise<void> {}
}

export interface FeedReplica {
  name: string;
  engine: FeedEngine;
  poster: RecordingPoster;
  /** With `slack: true`: the real poster the engine posts through, to the harness's fake Slack (else null). */
  slackPoster: SlackFeedPoster | null;
  replica: Replica;
  snapshots: FeedSnapshotStore;
}

export interface FeedHarness extends Harness {
  listeners: FeedListenerStore;
  /** Every post of every replica, in order. */
  allPosts: RecordedPost[];
  feedReplica(options?: {
    budget?: Pick<BudgetOptions, 'limit' | 'feedSharePercent' | 'maxWaitMs'> & { onTestClock?: boolean };
    intervalMs?: number;
    leaseMs?: number;
    batch?: number;
    /** Wraps the store the replica's feed snapshots and delivery claims use (a store that stops answering). */
    wrapKv?: (kv: KeyValue) => KeyValue;
    /** Wraps the listener store the replica's rounds read (a round held at its start). */
    wrapListeners?: (listeners: FeedListenerSource) => FeedListenerSource;
    /**
     * Posts through the real SlackFeedPoster to the harness's fake Slack instead of the recording double (no pacing
     * waits: the poster's waits are not slept). `logger`: the poster's (the rounds keep the replica's).
     */
    slack?: boolean | { logger: Logger };
  }): FeedReplica;
}

export const INTERVAL_MS = 120_000;

/** The digest harness (sandbox, fake clock, real Redis, linked workspace) plus feed engines as replicas. */
export async function startFeedHarness(startAt: number): Promise<FeedHarness> {
  const harness = await startDigestHarness(startAt);
  const listeners = new FeedListenerStore(
    new RedisKeyValue(harness.redis.connect()),
    harness.redis.keys,
    harness.clock.now,
  );
  const allPosts: RecordedPost[] = [];
  let count = 0;
  return Object.assign(harness, {
    listeners,
    allPosts,
    feedReplica(options: Parameters<FeedHarness['feedReplica']>[0] = {}): FeedReplica {
      count += 1;
      const name = `replica-${count}`;
      const limit = options.budget?.limit ?? { count: 1_000, windowMs: 60_000 };
      const share = options.budget?.feedSharePercent ?? 20;
      const replica = harness.replica({
        budget: {
          limit,
          feedSharePercent: share,
          ...(options.budget?.onTestClock && { onTestClock: true }),
          ...(options.budget?.maxWaitMs && { maxWaitMs: options.budget.maxWaitMs }),
        },
      });
      const kv = new RedisKeyValue(harness.redis.connect());
      const snapshots = new FeedSnapshotStore(options.wrapKv?.(kv) ?? kv, harness.redis.keys);
      const poster = new RecordingPoster(name, allPosts);
      const listenerStore = new FeedListenerStore(kv, harness.redis.keys, harness.clock.now);
      const posterLogger = typeof options.slack === 'object' ? options.slack.logger : replica.domain.logger;
      const slackPoster = options.slack
        ? new SlackFeedPoster({
            clients: createSlackClients({
              slackApiUrl: harness.slack.apiUrl,
              logger: posterLogger,
              botToken: 'xoxb-feed-test',
            }),
            listeners: listenerStore,
            kv,
            keys: harness.redis.keys,
            logger: posterLogger,
            timeZone: SP,
            now: harness.clock.now,
            maxSlotWaitMs: 0,
            sleep: async () => undefined,
          })
        : null;
      const engine = new FeedEngine({
        domain: replica.domain,
        snapshots,
        listeners: (options.wrapListeners ?? ((l) => l))(listenerStore),
        poster: slackPoster ?? poster,
        logger: replica.domain.logger,
        intervalMs: options.intervalMs ?? INTERVAL_MS,
        share: { windowMs: limit.windowMs, calls: feedShareCalls(limit.count, share) },
        clock: harness.clock,
        owner: name,
        ...(options.leaseMs !== undefined && { leaseMs: options.leaseMs }),
        ...(options.batch !== undefined && { batch: options.batch }),
      });
      return { name, engine, poster, slackPoster, replica, snapshots };
    },
  });
}

/** Event ids per target over posts: a target that got one event twice shows it twice. */
export function deliveredIds(posts: readonly RecordedPost[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const post of posts) {
    const key = post.target.kind === 'channel' ? `c-${post.target.channelId}` : `u-${post.target.userId}`;
    out.set(key, [...(out.get(key) ?? []), ...post.events.map((event) => event.id)]);
  }
  return out;
}

/**
 * A harness for each test of the file that calls this (at its top level): `open()` starts it, on Monday 23/11/2026
 * 09:00 in São Paulo unless told otherwise, and it is closed after the test.
 */
export function feedHarnessPerTest(): (startAt?: number) => Promise<FeedHarness> {
  let harness: FeedHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  return async (startAt = saoPaulo(2026, 11, 23, 9)) => {
    harness = await startFeedHarness(startAt);
    return harness;
  };
}

/**
 * Lets the workspace's first round run (at once: its first listener has just arrived): it only records. The round
 * after it falls at the workspace's place in the interval; the clock is moved on to an interval before it, so that
 * the next round is due an interval from now, as after any round.
 */
export async function recorded(h: FeedHarness, engine = h.feedReplica().engine): Promise<FeedEngine> {
  const first = await engine.runIfDue(WS);
  expect(first).toMatchObject({ ran: true, round: { recorded: true, detected: 0, complete: true } });
  const next = Number(await h.redis.redis.hget(h.redis.keys.feedRoundState(WS), 'nextRoundAt'));
  expect(next).toBeGreaterThanOrEqual(h.clock.now() + INTERVAL_MS);
  h.clock.set(next - INTERVAL_MS);
  return engine;
}

/** A channel of the test workspace that gets the feed (every event, every stockroom), subscribed by U1. */
export function channelListens(h: FeedHarness, channelId: string): Promise<unknown> {
  return h.listeners.upsertChannel({ workspaceId: WS, channelId, stockroomId: null, subscribedBy: 'U1' });
}
