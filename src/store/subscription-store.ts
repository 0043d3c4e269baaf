import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

export type PauseReason = 'unlinked' | 'tokens_revoked';

/** A channel's daily digest. One per workspace and channel. */
export interface Subscription {
  workspaceId: string;
  channelId: string;
  hour: number;
  minute: number;
  /** IANA name; the hour and minute are wall time there. */
  timeZone: string;
  /** Monday to Friday only. */
  weekdaysOnly: boolean;
  stockroomId: number | null;
  /** Slack user id of who subscribed (or last changed) it: told when the subscription is removed. */
  subscribedBy: string;
  createdAt: number;
  /** Last change by a person (subscribe again); pauses do not touch it. */
  updatedAt: number;
  paused: PauseReason | null;
  /** yyyy-MM-dd in `timeZone` of the last scheduled post. */
  lastPostedDay: string | null;
  lastPostedAt: number | null;
  /** The instant the data of the last digest covered up to: the next one reports what is new since. */
  lastDigestAt: number | null;
}

export interface SubscriptionInput {
  workspaceId: string;
  channelId: string;
  hour: number;
  minute: number;
  timeZone: string;
  weekdaysOnly: boolean;
  stockroomId: number | null;
  subscribedBy: string;
}

/** What a person sets, kept in the workspace's hash (field = channel id). */
type StoredSubscription = Omit<Subscription, 'lastPostedDay' | 'lastPostedAt' | 'lastDigestAt'>;

/**
 * What the scheduler writes, kept apart (`digestState`) so that a person changing the subscription and a
 * replica recording a post never overwrite each other's fields.
 */
interface DigestState {
  lastPostedDay: string | null;
  lastPostedAt: number | null;
  lastDigestAt: number | null;
  /** Failed attempts since the last post, and the instant before which no retry is tried. */
  failures: number;
  retryNotBefore: number | null;
}

const EMPTY_STATE: DigestState = {
  lastPostedDay: null,
  lastPostedAt: null,
  lastDigestAt: null,
  failures: 0,
  retryNotBefore: null,
};

/**
 * Digest subscriptions per workspace and channel, in Redis (or the embedded store). `subscriptions(ws)` is a
 * hash of the workspace's subscriptions; `subscriptionIndex()` a hash of the workspaces that have any, so the
 * scheduler lists everything without scanning keys.
 */
export class SubscriptionStore {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
    private readonly now: () => number = Date.now,
  ) {}

  /** Creates or changes the channel's subscription; what was posted and a pause are kept. */
  async upsert(input: SubscriptionInput): Promise<{ subscription: Subscription; created: boolean }> {
    const key = this.keys.subscriptions(input.workspaceId);
    const previous = parseStored(await this.kv.hget(key, input.channelId));
    const at = this.now();
    const stored: StoredSubscription = {
      ...input,
      createdAt: previous?.createdAt ?? at,
      updatedAt: at,
      paused: previous?.paused ?? null,
    };
    await this.kv.hset(key, input.channelId, JSON.stringify(stored));
    await this.kv.hset(this.keys.subscriptionIndex(), input.workspaceId, '1');
    const state = await this.state(input.workspaceId, input.channelId);
    return { subscription: merge(stored, state), created: previous === null };
  }

  async get(workspaceId: string, channelId: string): Promise<Subscription | null> {
    const stored = parseStored(await this.kv.hget(this.keys.subscriptions(workspaceId), channelId));
    if (!stored) return null;
    return merge(stored, await this.state(workspaceId, channelId));
  }

  /** False when the channel had no subscription. */
  async remove(workspaceId: string, channelId: string): Promise<boolean> {
    const key = this.keys.subscriptions(workspaceId);
    const existed = (await this.kv.hget(key, channelId)) !== null;
    await this.kv.hdel(key, channelId);
    await this.kv.del(this.keys.digestState(workspaceId, channelId));
    await this.dropFromIndexIfEmpty(workspaceId);
    return existed;
  }

  async listWorkspace(workspaceId: string): Promise<Subscription[]> {
    const raw = await this.kv.hgetall(this.keys.subscriptions(workspaceId));
    const out: Subscription[] = [];
    for (const [channelId, value] of Object.entries(raw)) {
      const stored = parseStored(value);
      if (stored) out.push(merge(stored, await this.state(workspaceId, channelId)));
    }
    return out.sort((a, b) => a.createdAt - b.createdAt || a.channelId.localeCompare(b.channelId));
  }

  async listAll(): Promise<Subscription[]> {
    const workspaces = Object.keys(await this.kv.hgetall(this.keys.subscriptionIndex())).sort();
    const out: Subscription[] = [];
    for (const workspaceId of workspaces) out.push(...(await this.listWorkspace(workspaceId)));
    return out;
  }

  /**
   * Pauses every running subscription of the workspace (`desvincular`, `tokens_revoked`). A subscription already
   * paused keeps its first reason. Returns how many were paused now.
   */
  async pauseWorkspace(workspaceId: string, reason: PauseReason): Promise<number> {
    return this.setPaused(workspaceId, (current) => (current === null ? reason : current));
  }

  /** Resumes the subscriptions paused for `reason` (a new link, a new install). Returns how many. */
  async resumeWorkspace(workspaceId: string, reason: PauseReason): Promise<number> {
    return this.setPaused(workspaceId, (current) => (current === reason ? null : current));
  }

  /**
   * `app_uninstalled`: every subscription of the workspace and what the digest kept about it (its notes of
   * materials go with the link's unlink: StockStore.forget).
   */
  async removeWorkspace(workspaceId: string): Promise<number> {
    const key = this.keys.subscriptions(workspaceId);
    const channels = Object.keys(await this.kv.hgetall(key));
    await this.kv.del(key, ...channels.map((channelId) => this.keys.digestState(workspaceId, channelId)));
    await this.dropFromIndexIfEmpty(workspaceId);
    return channels.length;
  }

  /** A scheduled post went out (or was found out, after a crash): the day is done, failures are forgotten. */
  async markPosted(
    workspaceId: string,
    channelId: string,
    post: { day: string; postedAt: number; coveredUntil: number },
  ): Promise<void> {
    const state = await this.state(workspaceId, channelId);
    await this.writeState(workspaceId, channelId, {
      ...state,
      lastPostedDay: post.day,
      lastPostedAt: post.postedAt,
      lastDigestAt: Math.max(post.coveredUntil, state.lastDigestAt ?? 0),
      failures: 0,
      retryNotBefore: null,
    });
  }

  /**
   * A scheduled attempt failed: the next one waits until `backoff(failures)` after now. Returns the instant
   * before which the scheduler will not try again.
   */
  async recordFailure(
    workspaceId: string,
    channelId: string,
    backoff: (failures: number) => number,
  ): Promise<number> {
    const state = await this.state(workspaceId, channelId);
    const failures = state.failures + 1;
    const retryNotBefore = this.now() + backoff(failures);
    await this.writeState(workspaceId, channelId, { ...state, failures, retryNotBefore });
    return retryNotBefore;
  }

  /** The instant before which the scheduler does not retry this channel (null: no failure pending). */
  async retryNotBefore(workspaceId: string, channelId: string): Promise<number | null> {
    return (await this.state(workspaceId, channelId)).retryNotBefore;
  }

  private async setPaused(
    workspaceId: string,
    next: (current: PauseReason | null) => PauseReason | null,
  ): Promise<number> {
    const key = this.keys.subscriptions(workspaceId);
    const raw = await this.kv.hgetall(key);
    let changed = 0;
    for (const [channelId, value] of Object.entries(raw)) {
      const stored = parseStored(value);
      if (!stored) continue;
      const paused = next(stored.paused);
      if (paused === stored.paused) continue;
      // Re-read right before writing: a person may have just changed this subscription.
      const fresh = parseStored(await this.kv.hget(key, channelId));
      if (!fresh) continue;
      await this.kv.hset(key, channelId, JSON.stringify({ ...fresh, paused }));
      changed += 1;
    }
    return changed;
  }

  /**
   * Removes the workspace from the index when it has no subscription left. An upsert racing with this one
   * writes its subscription before the index, so the second look puts the index back if one arrived.
   */
  private async dropFromIndexIfEmpty(workspaceId: string): Promise<void> {
    const key = this.keys.subscriptions(workspaceId);
    if (Object.keys(await this.kv.hgetall(key)).length > 0) return;
    await this.kv.hdel(this.keys.subscriptionIndex(), workspaceId);
    if (Object.keys(await this.kv.hgetall(key)).length > 0) {
      await this.kv.hset(this.keys.subscriptionIndex(), workspaceId, '1');
    }
  }

  private async state(workspaceId: string, channelId: string): Promise<DigestState> {
    const raw = await this.kv.get(this.keys.digestState(workspaceId, channelId));
    if (raw === null) return { ...EMPTY_STATE };
    try {
      return { ...EMPTY_STATE, ...(JSON.parse(raw) as Partial<DigestState>) };
    } catch {
      return { ...EMPTY_STATE };
    }
  }

  /**
   * Only for a subscription that exists: remove() deletes the state, and a state written after it (a post or a
   * failure recorded by a replica that had claimed the day before the cancel) would stay with no TTL. Checked after
   * the write: a remove() before it, or during it, leaves nothing (remove() deletes the state it finds).
   */
  private async writeState(workspaceId: string, channelId: string, state: DigestState): Promise<void> {
    const key = this.keys.digestState(workspaceId, channelId);
    await this.kv.set(key, JSON.stringify(state));
    if ((await this.kv.hget(this.keys.subscriptions(workspaceId), channelId)) === null)
      await this.kv.del(key);
  }
}

function parseStored(raw: string | null): StoredSubscription | null {
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as StoredSubscription;
  } catch {
    // A damaged entry is skipped, never fatal.
    return null;
  }
}

function merge(stored: StoredSubscription, state: DigestState): Subscription {
  return {
    workspaceId: stored.workspaceId,
    channelId: stored.channelId,
    hour: stored.hour,
    minute: stored.minute,
    timeZone: stored.timeZone,
    weekdaysOnly: stored.weekdaysOnly,
    stockroomId: stored.stockroomId,
    subscribedBy: stored.subscribedBy,
    createdAt: stored.createdAt,
    updatedAt: stored.updatedAt,
    paused: stored.paused,
    lastPostedDay: state.lastPostedDay,
    lastPostedAt: state.lastPostedAt,
    lastDigestAt: state.lastDigestAt,
  };
}
