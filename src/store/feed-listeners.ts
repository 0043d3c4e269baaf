import { FeedSnapshotStore } from './feed-snapshot-store.js';
import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

// The change feed's listeners. Re-exported by domain/feed/types.ts, the feed's vocabulary.
export type FeedEventKind = 'novas' | 'status' | 'recebimentos';

export const FEED_EVENT_KINDS: readonly FeedEventKind[] = ['novas', 'status', 'recebimentos'];

export type FeedPauseReason = 'unlinked' | 'tokens_revoked';

/** `/estoque alertas assinar [almox:ID] [eventos:...]` in a channel. One per workspace and channel. */
export interface ChannelFeed {
  workspaceId: string;
  channelId: string;
  /** null: every stockroom. */
  stockroomId: number | null;
  /** Never empty; default every kind. */
  kinds: FeedEventKind[];
  subscribedBy: string;
  createdAt: number;
  paused: FeedPauseReason | null;
}

/** A user following one request (`Acompanhar`, `/solicitacao <id> acompanhar`). */
export interface Follow {
  workspaceId: string;
  userId: string;
  requestId: number;
  /** Status name when the follow began or last changed: what `/solicitacao acompanhando` shows. */
  lastSeenStatus: string | null;
  createdAt: number;
  /**
   * The company (empresaId) linked when the follow was made: the request number names that company's request. A
   * follow stored before 2026-11-27 has none, and counts as the company the feed last read.
   */
  empresaId?: number | null;
}

/** A user following every request whose requester is them (`/solicitacao minhas acompanhar`). */
export interface OwnFollow {
  workspaceId: string;
  userId: string;
  /** The e-mail matched against the requester's, as `/solicitacao minhas` does. */
  email: string;
  createdAt: number;
}

export interface ChannelFeedInput {
  workspaceId: string;
  channelId: string;
  stockroomId: number | null;
  /** Empty or absent: every kind. */
  kinds?: FeedEventKind[];
  subscribedBy: string;
}

/** Everything that listens in one workspace: what a detection round needs, read in four commands. */
export interface WorkspaceListeners {
  workspaceId: string;
  paused: FeedPauseReason | null;
  channels: ChannelFeed[];
  follows: Follow[];
  ownFollows: OwnFollow[];
}

type StoredChannelFeed = Omit<ChannelFeed, 'paused'>;

/**
 * How many times a follow's write is tried again when another one came between its read and its write (a double
 * click, a delivery, another replica): each retry means one more write to that one follow meanwhile, already rare.
 */
const WRITE_ATTEMPTS = 10;

/**
 * The change feed's listeners per workspace, in Redis (or the embedded store): channel feeds, follows of one
 * request, follows of one's own requests. `feedListenerIndex()` holds the workspaces that have any listener,
 * so the rounds list them without scanning keys (as the digest's `subscriptionIndex()`).
 *
 * A pause is one value per workspace (`feedPaused`), not a field per listener: unlink and `tokens_revoked`
 * stop the whole workspace, and a listener added while paused is paused too. The first reason is kept; only
 * the same reason resumes (a new link resumes both reasons, a new install `tokens_revoked`: the callers say which).
 */
export class FeedListenerStore {
  /** What the feed saw of a workspace, forgotten when its last listener leaves (see dropFromIndexIfEmpty). */
  private readonly snapshots: FeedSnapshotStore;

  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
    private readonly now: () => number = Date.now,
  ) {
    this.snapshots = new FeedSnapshotStore(kv, keys);
  }

  // Channel feeds.

  /** Creates or changes the channel's feed; when it was created is kept. */
  async upsertChannel(input: ChannelFeedInput): Promise<{ feed: ChannelFeed; created: boolean }> {
    const key = this.keys.feedChannels(input.workspaceId);
    const previous = parse<StoredChannelFeed>(await this.kv.hget(key, input.channelId));
    const stored: StoredChannelFeed = {
      workspaceId: input.workspaceId,
      channelId: input.channelId,
      stockroomId: input.stockroomId,
      kinds: normaliseKinds(input.kinds),
      subscribedBy: input.subscribedBy,
      createdAt: previous?.createdAt ?? this.now(),
    };
    await this.kv.hset(key, input.channelId, JSON.stringify(stored));
    await this.index(input.workspaceId);
    return {
      feed: { ...stored, paused: await this.pausedReason(input.workspaceId) },
      created: previous === null,
    };
  }

  async getChannel(workspaceId: string, channelId: string): Promise<ChannelFeed | null> {
    const stored = parse<StoredChannelFeed>(
      await this.kv.hget(this.keys.feedChannels(workspaceId), channelId),
    );
    return stored ? { ...stored, paused: await this.pausedReason(workspaceId) } : null;
  }

  /** False when the channel had no feed; of two removals at once, exactly one is told it had. */
  async removeChannel(workspaceId: string, channelId: string): Promise<boolean> {
    const removed = await this.kv.hdel(this.keys.feedChannels(workspaceId), channelId);
    await this.dropFromIndexIfEmpty(workspaceId);
    return removed > 0;
  }

  async listChannels(workspaceId: string): Promise<ChannelFeed[]> {
    const paused = await this.pausedReason(workspaceId);
    return values<StoredChannelFeed>(await this.kv.hgetall(this.keys.feedChannels(workspaceId)))
      .map((feed) => ({ ...feed, paused }))
      .sort((a, b) => a.createdAt - b.createdAt || a.channelId.localeCompare(b.channelId));
  }

  // Follows of one request.

  /**
   * Starts following (or keeps following: the first `createdAt` stays, the status seen and the company are
   * updated). `empresaId`: the company linked now, whose request the number names. Written only over what was read
   * (compare-and-set): a follow ended meanwhile (parar, another replica) is made anew, `created` with a new
   * `createdAt`, and one made meanwhile (a double click) is kept, not `created` again.
   */
  async follow(
    workspaceId: string,
    userId: string,
    requestId: number,
    lastSeenStatus: string | null,
    empresaId?: number | null,
  ): Promise<{ follow: Follow; created: boolean }> {
    const key = this.keys.feedFollows(workspaceId);
    const field = followField(userId, requestId);
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      const raw = await this.kv.hget(key, field);
      const previous = parse<Follow>(raw);
      const follow: Follow = {
        workspaceId,
        userId,
        requestId,
        lastSeenStatus: lastSeenStatus ?? previous?.lastSeenStatus ?? null,
        createdAt: previous?.createdAt ?? this.now(),
      };
      const company = empresaId !== undefined ? empresaId : previous?.empresaId;
      if (company !== undefined) follow.empresaId = company;
      if (!(await this.kv.hsetIfEquals(key, field, raw, JSON.stringify(follow)))) continue;
      await this.index(workspaceId);
      return { follow, created: previous === null };
    }
    throw new Error(
      `follow of request ${requestId} not recorded: rewritten ${WRITE_ATTEMPTS} times meanwhile`,
    );
  }

  /**
   * False when the user did not follow the request. Of two unfollows at once (a double click, two replicas), exactly
   * one is told it was following: the delete's own count says.
   */
  async unfollow(workspaceId: string, userId: string, requestId: number): Promise<boolean> {
    const removed = await this.kv.hdel(this.keys.feedFollows(workspaceId), followField(userId, requestId));
    await this.dropFromIndexIfEmpty(workspaceId);
    return removed > 0;
  }

  async getFollow(workspaceId: string, userId: string, requestId: number): Promise<Follow | null> {
    return parse<Follow>(
      await this.kv.hget(this.keys.feedFollows(workspaceId), followField(userId, requestId)),
    );
  }

  /**
   * Records the status a follower was last told about (a delivered `status` event). Only updates, and only over the
   * follow read (compare-and-set): a follow removed meanwhile stays removed, one made again meanwhile keeps what it
   * wrote. Returns whether it was there.
   */
  async updateLastSeen(
    workspaceId: string,
    userId: string,
    requestId: number,
    status: string | null,
  ): Promise<boolean> {
    const key = this.keys.feedFollows(workspaceId);
    const field = followField(userId, requestId);
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      const raw = await this.kv.hget(key, field);
      const current = parse<Follow>(raw);
      if (!current) return false;
      if (current.lastSeenStatus === status) return true;
      const updated = JSON.stringify({ ...current, lastSeenStatus: status });
      if (await this.kv.hsetIfEquals(key, field, raw, updated)) return true;
    }
    throw new Error(
      `status seen of request ${requestId} not recorded: rewritten ${WRITE_ATTEMPTS} times meanwhile`,
    );
  }

  /** The workspace's follows, or one user's, oldest first. */
  async listFollows(workspaceId: string, userId?: string): Promise<Follow[]> {
    return values<Follow>(await this.kv.hgetall(this.keys.feedFollows(workspaceId)))
      .filter((follow) => userId === undefined || follow.userId === userId)
      .sort(
        (a, b) => a.createdAt - b.createdAt || a.requestId - b.requestId || a.userId.localeCompare(b.userId),
      );
  }

  // Follows of one's own requests.

  async followOwn(
    workspaceId: string,
    userId: string,
    email: string,
  ): Promise<{ own: OwnFollow; created: boolean }> {
    const key = this.keys.feedOwnFollows(workspaceId);
    const previous = parse<OwnFollow>(await this.kv.hget(key, userId));
    const own: OwnFollow = { workspaceId, userId, email, createdAt: previous?.createdAt ?? this.now() };
    await this.kv.hset(key, userId, JSON.stringify(own));
    await this.index(workspaceId);
    return { own, created: previous === null };
  }

  /** False when the user did not follow their own requests; of two at once, exactly one is told they did. */
  async unfollowOwn(workspaceId: string, userId: string): Promise<boolean> {
    const removed = await this.kv.hdel(this.keys.feedOwnFollows(workspaceId), userId);
    await this.dropFromIndexIfEmpty(workspaceId);
    return removed > 0;
  }

  async getOwnFollow(workspaceId: string, userId: string): Promise<OwnFollow | null> {
    return parse<OwnFollow>(await this.kv.hget(this.keys.feedOwnFollows(workspaceId), userId));
  }

  async listOwnFollows(workspaceId: string): Promise<OwnFollow[]> {
    return values<OwnFollow>(await this.kv.hgetall(this.keys.feedOwnFollows(workspaceId))).sort(
      (a, b) => a.createdAt - b.createdAt || a.userId.localeCompare(b.userId),
    );
  }

  /**
   * A DM to the user failed for good (`cannot_dm_bot`, `user_not_found`, ...): every follow of theirs ends,
   * own-request follow included, each in one delete. Returns how many were removed (by this call: one ended
   * meanwhile by another is not counted).
   */
  async removeUser(workspaceId: string, userId: string): Promise<number> {
    const key = this.keys.feedFollows(workspaceId);
    const fields = Object.entries(await this.kv.hgetall(key))
      .filter(([, value]) => parse<Follow>(value)?.userId === userId)
      .map(([field]) => field);
    const removed = await this.kv.hdel(key, ...fields);
    const own = await this.unfollowOwn(workspaceId, userId);
    return removed + (own ? 1 : 0);
  }

  // The workspace as a whole.

  /** Everything that listens in the workspace, with its pause. */
  async listWorkspace(workspaceId: string): Promise<WorkspaceListeners> {
    const [paused, channels, follows, ownFollows] = await Promise.all([
      this.pausedReason(workspaceId),
      this.listChannels(workspaceId),
      this.listFollows(workspaceId),
      this.listOwnFollows(workspaceId),
    ]);
    return { workspaceId, paused, channels, follows, ownFollows };
  }

  /** The workspaces with at least one listener (paused ones included), sorted. */
  async listWorkspaces(): Promise<string[]> {
    return Object.keys(await this.kv.hgetall(this.keys.feedListenerIndex())).sort();
  }

  async pausedReason(workspaceId: string): Promise<FeedPauseReason | null> {
    const raw = await this.kv.get(this.keys.feedPaused(workspaceId));
    return raw === 'unlinked' || raw === 'tokens_revoked' ? raw : null;
  }

  /**
   * Pauses the workspace's listeners (unlink, a broken link, `tokens_revoked`). A workspace already paused keeps
   * its first reason. Returns whether it was paused now.
   */
  async pauseWorkspace(workspaceId: string, reason: FeedPauseReason): Promise<boolean> {
    const key = this.keys.feedPaused(workspaceId);
    // Only when not paused yet: a broken link pauses again at every resolve, and holding scans the workspace's claims.
    if ((await this.kv.get(key)) !== null) return false;
    // The outbox waits through the pause, and the delivery claims that guard it must not expire meanwhile: held
    // before the pause is set, so that a hold the store refuses leaves the workspace unpaused, and the next pause
    // (a broken link's next resolve, the unlink asked again) holds them.
    await this.snapshots.holdDeliveries(workspaceId);
    return this.kv.set(key, reason, { onlyIfAbsent: true });
  }

  /** Resumes the workspace when it was paused for `reason` (a new link, a new install). Returns whether it was. */
  async resumeWorkspace(workspaceId: string, reason: FeedPauseReason): Promise<boolean> {
    const key = this.keys.feedPaused(workspaceId);
    if ((await this.kv.get(key)) !== reason) return false;
    // The outbox waited while paused: its events are kept from now on (deliver.ts), not expired for the wait, and
    // the claims that guard them expire again, counted from now too. Before the pause is lifted, so that a step the
    // store refuses leaves it paused, and the resume asked again (the link's retry) does it.
    await this.snapshots.updateState(workspaceId, { resumedAt: this.now() });
    await this.snapshots.releaseDeliveries(workspaceId);
    return this.kv.delIfEquals(key, reason);
  }

  /** `app_uninstalled`: every listener of the workspace and its pause. Returns how many listeners there were. */
  async removeWorkspace(workspaceId: string): Promise<number> {
    const keys = [
      this.keys.feedChannels(workspaceId),
      this.keys.feedFollows(workspaceId),
      this.keys.feedOwnFollows(workspaceId),
    ];
    let count = 0;
    for (const key of keys) count += Object.keys(await this.kv.hgetall(key)).length;
    await this.kv.del(...keys, this.keys.feedPaused(workspaceId));
    await this.dropFromIndexIfEmpty(workspaceId);
    return count;
  }

  /**
   * Indexes the workspace and enters it in the feed's schedule, due now unless it is there already (the engine
   * plans its first round on first sight).
   */
  private async index(workspaceId: string): Promise<void> {
    await this.kv.hset(this.keys.feedListenerIndex(), workspaceId, '1');
    await this.kv.zadd(this.keys.feedSchedule(), workspaceId, this.now(), 'nx');
  }

  /** Whether the workspace has no listener left, in one command: a hash without fields does not exist. */
  private async isEmpty(workspaceId: string): Promise<boolean> {
    const listening = await this.kv.exists(
      this.keys.feedChannels(workspaceId),
      this.keys.feedFollows(workspaceId),
      this.keys.feedOwnFollows(workspaceId),
    );
    return listening === 0;
  }

  /**
   * Removes the workspace from the index and the schedule, and forgets what the feed saw of it, when it has no
   * listener left. A listener added meanwhile is written before the index, so the second look puts the index back
   * if one arrived (its first round then only records).
   */
  private async dropFromIndexIfEmpty(workspaceId: string): Promise<void> {
    if (!(await this.isEmpty(workspaceId))) return;
    await this.kv.hdel(this.keys.feedListenerIndex(), workspaceId);
    await this.kv.zrem(this.keys.feedSchedule(), workspaceId);
    // Out of the schedule, no round of it runs to notice it has no listener: what the feed saw goes now, so that
    // whoever listens next starts with a round that only records, not with every change since as new.
    await this.snapshots.forget(workspaceId);
    if (!(await this.isEmpty(workspaceId))) await this.index(workspaceId);
  }
}

function followField(userId: string, requestId: number): string {
  return `${userId}:${requestId}`;
}

/** The kinds in their canonical order, without repeats; none means every kind. */
export function normaliseKinds(kinds: FeedEventKind[] | undefined): FeedEventKind[] {
  const chosen = FEED_EVENT_KINDS.filter((kind) => kinds?.includes(kind));
  return chosen.length > 0 ? chosen : [...FEED_EVENT_KINDS];
}

function parse<T>(raw: string | null): T | null {
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as T;
  } catch {
    // A damaged entry is skipped, never fatal.
    return null;
  }
}

function values<T>(raw: Record<string, string>): T[] {
  const out: T[] = [];
  for (const value of Object.values(raw)) {
    const parsed = parse<T>(value);
    if (parsed) out.push(parsed);
  }
  return out;
}
