import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

/**
 * What the change feed's detection rounds remember per workspace, in the shared store so that every replica and a
 * restart see the same thing: the last status of each request, the pending purchases with their balance, the
 * round state (first complete round, next round due, last round's cost), the outbox of events detected but not yet
 * delivered to everyone, the round lease and the delivery claims. Only one round of a workspace runs at a time
 * (the lease), so the snapshot hashes have a single writer.
 */

/** A request as the last round saw it. */
export interface RequestSnapshot {
  /** statusAndamentoSolicitacao. */
  status: number | null;
  statusName: string | null;
  stockroomId: number;
  requesterId: number;
  /** How many status changes the feed has seen: part of the status event's id, so A→B→A→B gives two events. */
  version: number;
  /** When a round last read it (epoch ms): entries unseen for long are pruned. */
  seenAt: number;
  /**
   * When a round last read it in the 30-day list (not by its number alone); absent when never, or when the entry
   * predates this field.
   */
  listSeenAt?: number;
}

/** The receipts of one purchase the feed reported (FeedSnapshotStore.purchaseReceipts). */
export interface PurchaseReceipts {
  /** How many: the version of the purchase's next receipt event. */
  version: number;
  /** When the last was detected (epoch ms). */
  at: number;
}

/** A pending purchase as the last receipts read saw it. */
export interface PurchaseSnapshot {
  /** The pending receivable balance, when the record carries one. */
  balance: number | null;
  stockroomId: number | null;
  supplierName: string | null;
}

export interface FeedRoundState {
  /** When the first complete round recorded the workspace (null: not yet; rounds only record). */
  recordedAt: number | null;
  /**
   * When every active stockroom's pending purchases had been read once (null: not yet). Each stockroom's first
   * reading only records it; its later readings are compared with its own last one (FeedSnapshotStore.stockroomReads).
   */
  purchasesRecordedAt: number | null;
  /**
   * When the pending purchases were last read: the oldest reading among the active stockrooms (a share that cannot pay
   * for all of them in one round reads them over several), so receipts are due again an interval after it.
   */
  receiptsReadAt: number | null;
  /** When the next round is due (epoch ms); null before the first round was planned. */
  nextRoundAt: number | null;
  /**
   * The interval in force: how often the rounds really come. FEED_INTERVAL, stretched when the share cannot pay for
   * it (`shareIntervalMs`), and further when complete rounds came later than that because the budget's slots went
   * to interactive users (the spacing of the last two complete rounds, or the time since the last one).
   */
  intervalMs: number | null;
  /** The interval the feed's share pays for, from the last round's cost. */
  shareIntervalMs: number | null;
  /** When the last round that made every read it wanted started. */
  lastCompleteAt: number | null;
  /** How much later than planned the rounds came, as the last one ended (see intervalInForce). */
  lateMs: number | null;
  /** Upstream calls the last round made (cache hits cost nothing). */
  lastRoundCalls: number | null;
  lastRoundAt: number | null;
  /**
   * When the last round that read the request list (a page of it at least) started: what a late post counts from.
   * A round the budget stopped before any read still sets lastRoundAt, and changes since then are not any newer.
   */
  lastReadAt: number | null;
  /** When the last round finished reading: a cache entry fetched later was fetched by someone else, and is newer. */
  readUntil: number | null;
  /** Which company (and unit) the snapshot was read from: `<empresaId>:<unidadeId>`; null before it was noted. */
  scope: string | null;
  /**
   * When the workspace last resumed from a pause (a new link, a reinstall): its outbox waited meanwhile, and its
   * events are kept for OUTBOX_KEEP_MS from then, not from their detection.
   */
  resumedAt: number | null;
  /**
   * While the workspace is not recorded yet: the page of the 30-day list the next recording round goes on from (a
   * list longer than the feed's share of a window is recorded over several rounds, not restarted at page 1).
   */
  recordFromPage: number | null;
  /**
   * Once recorded: the page of the 30-day list the next round goes on from after page 1 (a list longer than the
   * feed's share of a window is read whole over several rounds, wrapping around); null: page 2.
   */
  readFromPage: number | null;
  /** When a round last read the pending purchases before the deep pages of the list (at most once an interval). */
  receiptsFirstAt: number | null;
  /**
   * The followed request (older than the 30 days, read by its number) the last round's reading of them stopped after:
   * the next round goes on from the one after it, wrapping around, so that followed requests one round cannot pay for
   * are all read over several rounds; null: from the lowest.
   */
  followedAfter: number | null;
}

const STATE_FIELDS = [
  'recordedAt',
  'purchasesRecordedAt',
  'receiptsReadAt',
  'nextRoundAt',
  'intervalMs',
  'shareIntervalMs',
  'lastCompleteAt',
  'lateMs',
  'lastRoundCalls',
  'lastRoundAt',
  'lastReadAt',
  'readUntil',
  'resumedAt',
  'recordFromPage',
  'readFromPage',
  'receiptsFirstAt',
  'followedAfter',
] as const satisfies readonly (keyof FeedRoundState)[];

/**
 * How long a delivered event is remembered per target: far longer than any event stays in an outbox of a workspace
 * that runs (7 days). A pause keeps the outbox for as long as it lasts, so it stops this clock (holdDeliveries).
 */
export const DELIVERED_KEEP_MS = 30 * 86_400_000;

export type DeliveryClaim = { state: 'posting'; owner: string } | { state: 'sent'; at: number };

/** A post whose outcome is not known yet: when it was made, with which events. */
export interface PostAttempt {
  at: number;
  eventIds: string[];
}

/** As long as an event may wait in the outbox (deliver.ts, OUTBOX_KEEP_MS). */
const ATTEMPT_KEEP_MS = 7 * 86_400_000;

export class FeedSnapshotStore {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
  ) {}

  // Requests.

  async requests(workspaceId: string): Promise<Map<number, RequestSnapshot>> {
    return parseHash<RequestSnapshot>(await this.kv.hgetall(this.keys.feedSnapshotRequests(workspaceId)));
  }

  async saveRequests(workspaceId: string, entries: ReadonlyMap<number, RequestSnapshot>): Promise<void> {
    await this.kv.hsetMany(this.keys.feedSnapshotRequests(workspaceId), serialise(entries));
  }

  async forgetRequests(workspaceId: string, ids: readonly number[]): Promise<void> {
    const key = this.keys.feedSnapshotRequests(workspaceId);
    for (const id of ids) await this.kv.hdel(key, String(id));
  }

  // Pending purchases.

  async purchases(workspaceId: string): Promise<Map<number, PurchaseSnapshot>> {
    return parseHash<PurchaseSnapshot>(await this.kv.hgetall(this.keys.feedSnapshotPurchases(workspaceId)));
  }

  /** Writes `entries` and removes `gone` (purchases that left the pending list). */
  async savePurchases(
    workspaceId: string,
    entries: ReadonlyMap<number, PurchaseSnapshot>,
    gone: readonly number[],
  ): Promise<void> {
    const key = this.keys.feedSnapshotPurchases(workspaceId);
    await this.kv.hsetMany(key, serialise(entries));
    for (const id of gone) await this.kv.hdel(key, String(id));
  }

  /** When each stockroom's pending purchases were last read (or refused for good), epoch ms; never read: no entry. */
  async stockroomReads(workspaceId: string): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    for (const [field, value] of Object.entries(
      await this.kv.hgetall(this.keys.feedSnapshotStockrooms(workspaceId)),
    )) {
      const id = Number(field);
      const at = Number(value);
      if (Number.isSafeInteger(id) && Number.isFinite(at)) out.set(id, at);
    }
    return out;
  }

  async saveStockroomReads(workspaceId: string, reads: ReadonlyMap<number, number>): Promise<void> {
    if (reads.size === 0) return;
    const fields: Record<string, string> = {};
    for (const [id, at] of reads) fields[String(id)] = String(at);
    await this.kv.hsetMany(this.keys.feedSnapshotStockrooms(workspaceId), fields);
  }

  /**
   * Stockrooms that left the active list: removes the pending purchases read from them (`purchaseIds`), then their
   * read times (`stockroomIds`). In that order: a process that dies in between leaves the read times, and the next
   * round that reads the list prunes again.
   */
  async forgetStockrooms(
    workspaceId: string,
    stockroomIds: readonly number[],
    purchaseIds: readonly number[],
  ): Promise<void> {
    const purchases = this.keys.feedSnapshotPurchases(workspaceId);
    for (const id of purchaseIds) await this.kv.hdel(purchases, String(id));
    const reads = this.keys.feedSnapshotStockrooms(workspaceId);
    for (const id of stockroomIds) await this.kv.hdel(reads, String(id));
  }

  /**
   * Receipt events a round detected but could not yet link to their purchase's requests (the budget ran out after
   * the pending list): the next rounds link them and put them in the outbox. Their purchases' snapshot has moved on,
   * so this is the only place they are kept.
   */
  async receiptsWaiting<E extends { id: string }>(workspaceId: string): Promise<E[]> {
    const events: E[] = [];
    for (const value of Object.values(await this.kv.hgetall(this.keys.feedReceiptsWaiting(workspaceId)))) {
      const event = parse<E>(value);
      if (event && typeof event.id === 'string') events.push(event);
    }
    return events;
  }

  async saveReceiptsWaiting<E extends { id: string }>(
    workspaceId: string,
    events: readonly E[],
  ): Promise<void> {
    if (events.length === 0) return;
    await this.kv.hsetMany(
      this.keys.feedReceiptsWaiting(workspaceId),
      Object.fromEntries(events.map((event) => [event.id, JSON.stringify(event)])),
    );
  }

  async removeReceiptsWaiting(workspaceId: string, ids: readonly string[]): Promise<void> {
    const key = this.keys.feedReceiptsWaiting(workspaceId);
    for (const id of ids) await this.kv.hdel(key, id);
  }

  /** How many receipts of each purchase were reported (a purchase with none has no entry). */
  async purchaseReceipts(workspaceId: string): Promise<Map<number, PurchaseReceipts>> {
    return parseHash<PurchaseReceipts>(await this.kv.hgetall(this.keys.feedPurchaseReceipts(workspaceId)));
  }

  /** Writes `entries` and removes `forget`. */
  async savePurchaseReceipts(
    workspaceId: string,
    entries: ReadonlyMap<number, PurchaseReceipts>,
    forget: readonly number[],
  ): Promise<void> {
    const key = this.keys.feedPurchaseReceipts(workspaceId);
    if (entries.size > 0) await this.kv.hsetMany(key, serialise(entries));
    for (const id of forget) await this.kv.hdel(key, String(id));
  }

  // Round state.

  async state(workspaceId: string): Promise<FeedRoundState> {
    const raw = await this.kv.hgetall(this.keys.feedRoundState(workspaceId));
    const read = (field: (typeof STATE_FIELDS)[number]): number | null => {
      const value = Number(raw[field]);
      return raw[field] !== undefined && Number.isFinite(value) ? value : null;
    };
    const numbers = Object.fromEntries(STATE_FIELDS.map((field) => [field, read(field)]));
    return { ...numbers, scope: raw.scope ?? null } as unknown as FeedRoundState;
  }

  /** Notes the company (and unit) the snapshot is read from (FeedRoundState.scope). */
  async setScope(workspaceId: string, scope: string): Promise<void> {
    await this.kv.hset(this.keys.feedRoundState(workspaceId), 'scope', scope);
  }

  /**
   * Everything the feed saw and delivered for the workspace: the snapshots, the round state, the outbox and the
   * delivery claims. Its next round starts over and only records (the workspace now links another company, or
   * the app was uninstalled, or its last listener left). The schedule and the round's lease are left as they are.
   */
  async forget(workspaceId: string): Promise<void> {
    const claims = await this.kv.keysWithPrefix(this.keys.feedDeliveryPrefix(workspaceId));
    const attempts = await this.kv.keysWithPrefix(this.keys.feedPostAttemptPrefix(workspaceId));
    await this.kv.del(
      this.keys.feedSnapshotRequests(workspaceId),
      this.keys.feedSnapshotPurchases(workspaceId),
      this.keys.feedSnapshotStockrooms(workspaceId),
      this.keys.feedReceiptsWaiting(workspaceId),
      this.keys.feedPurchaseReceipts(workspaceId),
      this.keys.feedRoundState(workspaceId),
      this.keys.feedOutbox(workspaceId),
      ...claims,
      ...attempts,
    );
  }

  /**
   * Writes the round state. A new `nextRoundAt` also moves the workspace in the schedule, first (the schedule
   * decides when a round is looked at; the hash is read under the lease): only when the workspace is in it, so a
   * workspace whose last listener left mid-round stays out.
   */
  async updateState(workspaceId: string, changes: Partial<FeedRoundState>): Promise<void> {
    const fields: Record<string, string> = {};
    for (const [field, value] of Object.entries(changes)) {
      if (typeof value === 'number' && Number.isFinite(value)) fields[field] = String(value);
    }
    if (fields.nextRoundAt !== undefined)
      await this.kv.zadd(this.keys.feedSchedule(), workspaceId, Number(fields.nextRoundAt), 'xx');
    await this.kv.hsetMany(this.keys.feedRoundState(workspaceId), fields);
  }

  // The schedule: when each workspace with listeners is due (sorted set, score = nextRoundAt).

  /** The workspaces due at `now`, most overdue first, the first `offset` skipped, at most `limit`. */
  async due(now: number, limit: number, offset = 0): Promise<string[]> {
    const entries = await this.kv.zrangeByScore(this.keys.feedSchedule(), now, limit, offset);
    return entries.map((entry) => entry.member);
  }

  /** Every workspace in the schedule. */
  async scheduled(): Promise<Set<string>> {
    const entries = await this.kv.zrangeByScore(this.keys.feedSchedule(), Number.POSITIVE_INFINITY);
    return new Set(entries.map((entry) => entry.member));
  }

  /** Enters the workspace at `at` unless it is in the schedule already. */
  async enter(workspaceId: string, at: number): Promise<void> {
    await this.kv.zadd(this.keys.feedSchedule(), workspaceId, at, 'nx');
  }

  async leave(workspaceId: string): Promise<void> {
    await this.kv.zrem(this.keys.feedSchedule(), workspaceId);
  }

  // The round lease.

  /** Takes the workspace's round lease for `ms` unless another process holds it. */
  takeRound(workspaceId: string, owner: string, ms: number): Promise<boolean> {
    return this.kv.set(this.keys.feedRoundLease(workspaceId), owner, { ttlMs: ms, onlyIfAbsent: true });
  }

  /**
   * Extends a lease this process holds, in one step (compare and extend): a lease that expired and went to another
   * process is not taken back, and no other process can take it in the middle of the renewal.
   */
  renewRound(workspaceId: string, owner: string, ms: number): Promise<boolean> {
    return this.kv.expireIfEquals(this.keys.feedRoundLease(workspaceId), owner, ms);
  }

  async releaseRound(workspaceId: string, owner: string): Promise<void> {
    await this.kv.delIfEquals(this.keys.feedRoundLease(workspaceId), owner);
  }

  // The outbox.

  async outbox<E extends { id: string }>(workspaceId: string): Promise<E[]> {
    const raw = await this.kv.hgetall(this.keys.feedOutbox(workspaceId));
    const events: E[] = [];
    for (const value of Object.values(raw)) {
      const event = parse<E>(value);
      if (event && typeof event.id === 'string') events.push(event);
    }
    return events;
  }

  /** Adds the events not in the outbox yet (one already there keeps its first detection time). Returns those added. */
  async addToOutbox<E extends { id: string }>(workspaceId: string, events: readonly E[]): Promise<E[]> {
    if (events.length === 0) return [];
    const key = this.keys.feedOutbox(workspaceId);
    const present = new Set(Object.keys(await this.kv.hgetall(key)));
    const added = events.filter((event) => !present.has(event.id));
    await this.kv.hsetMany(key, Object.fromEntries(added.map((event) => [event.id, JSON.stringify(event)])));
    return added;
  }

  async removeFromOutbox(workspaceId: string, ids: readonly string[]): Promise<void> {
    const key = this.keys.feedOutbox(workspaceId);
    for (const id of ids) await this.kv.hdel(key, id);
  }

  // Delivery claims: one key per (target, event).

  async delivery(workspaceId: string, target: string, eventId: string): Promise<DeliveryClaim | null> {
    return parseDelivery(await this.kv.get(this.keys.feedDelivery(workspaceId, target, eventId)));
  }

  /** Claims one event's delivery to one target for `leaseMs`; false when it is being posted or was sent. */
  claimDelivery(
    workspaceId: string,
    target: string,
    eventId: string,
    owner: string,
    leaseMs: number,
  ): Promise<boolean> {
    return this.kv.set(this.keys.feedDelivery(workspaceId, target, eventId), `posting:${owner}`, {
      ttlMs: leaseMs,
      onlyIfAbsent: true,
    });
  }

  /**
   * Slack has the message with these events: unconditional, whatever happened to the claims meanwhile, and in one
   * write, so a process that dies while recording a post leaves all of its events sent or none (none: the post is
   * made again, see deliver.ts).
   */
  async markDelivered(
    workspaceId: string,
    target: string,
    eventIds: readonly string[],
    at: number,
  ): Promise<void> {
    const entries: Record<string, string> = {};
    for (const eventId of eventIds)
      entries[this.keys.feedDelivery(workspaceId, target, eventId)] = `sent:${at}`;
    await this.kv.setMany(entries, { ttlMs: DELIVERED_KEEP_MS });
    // Paused meanwhile (unlink, tokens_revoked): holdDeliveries may have looked before these were written. Read after
    // the write, the pause is seen by one of the two.
    if ((await this.kv.get(this.keys.feedPaused(workspaceId))) !== null) {
      for (const [key, value] of Object.entries(entries)) await this.kv.set(key, value);
    }
  }

  /**
   * The workspace pauses: its outbox waits for as long as the pause lasts (deliver.ts keeps events from the resume),
   * and so must what guards its events: the `sent` claims, or a target that had an event would get it again after a
   * pause longer than DELIVERED_KEEP_MS, and the notes of posts in doubt, or the repeat would not say so. They stop
   * expiring until releaseDeliveries. A claim being posted is left to its lease.
   */
  async holdDeliveries(workspaceId: string): Promise<void> {
    for (const { key, value } of await this.guards(workspaceId)) await this.kv.set(key, value);
  }

  /** The workspace resumed: what holdDeliveries kept expires again, counted from now. */
  async releaseDeliveries(workspaceId: string): Promise<void> {
    for (const { key, value, keepMs } of await this.guards(workspaceId))
      await this.kv.expireIfEquals(key, value, keepMs);
  }

  /** The `sent` claims and the notes of posts in doubt of the workspace, with how long each is kept. */
  private async guards(workspaceId: string): Promise<{ key: string; value: string; keepMs: number }[]> {
    const out: { key: string; value: string; keepMs: number }[] = [];
    const kinds = [
      { prefix: this.keys.feedDeliveryPrefix(workspaceId), keepMs: DELIVERED_KEEP_MS, sent: true },
      { prefix: this.keys.feedPostAttemptPrefix(workspaceId), keepMs: ATTEMPT_KEEP_MS, sent: false },
    ];
    for (const { prefix, keepMs, sent } of kinds) {
      for (const key of await this.kv.keysWithPrefix(prefix)) {
        const value = await this.kv.get(key);
        if (value !== null && (!sent || value.startsWith('sent:'))) out.push({ key, value, keepMs });
      }
    }
    return out;
  }

  /**
   * Extends this process's `posting` claims, each compare and extend (as renewRound): false when any of them ran
   * out or went to another process, which is then free to post, so this process must not.
   */
  async renewDeliveries(
    workspaceId: string,
    target: string,
    eventIds: readonly string[],
    owner: string,
    leaseMs: number,
  ): Promise<boolean> {
    const renewed = await Promise.all(
      eventIds.map((eventId) =>
        this.kv.expireIfEquals(
          this.keys.feedDelivery(workspaceId, target, eventId),
          `posting:${owner}`,
          leaseMs,
        ),
      ),
    );
    return renewed.every(Boolean);
  }

  /**
   * The post about to be made to `target`, written before it goes (one per target: the round's owner is the only
   * process posting to the workspace's targets). It stays when the process dies before Slack's reply, or when
   * the reply was lost, so that the next post of those events says it may repeat this one.
   */
  async notePostAttempt(
    workspaceId: string,
    target: string,
    eventIds: readonly string[],
    at: number,
  ): Promise<void> {
    await this.kv.set(
      this.keys.feedPostAttempt(workspaceId, target),
      JSON.stringify({ at, eventIds: [...eventIds] } satisfies PostAttempt),
      { ttlMs: ATTEMPT_KEEP_MS },
    );
  }

  /** The post to `target` whose outcome is not known (see notePostAttempt), or null. */
  async postAttempt(workspaceId: string, target: string): Promise<PostAttempt | null> {
    const raw = parse<Partial<PostAttempt>>(
      await this.kv.get(this.keys.feedPostAttempt(workspaceId, target)),
    );
    if (raw === null || typeof raw.at !== 'number' || !Array.isArray(raw.eventIds)) return null;
    return { at: raw.at, eventIds: raw.eventIds.filter((id): id is string => typeof id === 'string') };
  }

  /** The post's outcome is known (Slack has it, or it refused it, or it was never sent). */
  async clearPostAttempt(workspaceId: string, target: string): Promise<void> {
    await this.kv.del(this.keys.feedPostAttempt(workspaceId, target));
  }

  /** Gives a claim back (the post failed): a later round tries again. */
  async releaseDelivery(workspaceId: string, target: string, eventId: string, owner: string): Promise<void> {
    await this.kv.delIfEquals(this.keys.feedDelivery(workspaceId, target, eventId), `posting:${owner}`);
  }
}

function parseDelivery(raw: string | null): DeliveryClaim | null {
  if (raw === null) return null;
  if (raw.startsWith('sent:')) return { state: 'sent', at: Number(raw.slice(5)) || 0 };
  return { state: 'posting', owner: raw.slice(raw.indexOf(':') + 1) };
}

function serialise<T>(entries: ReadonlyMap<number, T>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [id, entry] of entries) fields[String(id)] = JSON.stringify(entry);
  return fields;
}

function parseHash<T>(raw: Record<string, string>): Map<number, T> {
  const out = new Map<number, T>();
  for (const [field, value] of Object.entries(raw)) {
    const id = Number(field);
    const entry = parse<T>(value);
    if (Number.isSafeInteger(id) && entry !== null) out.set(id, entry);
  }
  return out;
}

function parse<T>(raw: string | null): T | null {
  if (raw === null) return null;
  try {
    const value: unknown = JSON.parse(raw);
    // A damaged entry is skipped, never fatal: the next round records it again.
    return typeof value === 'object' && value !== null ? (value as T) : null;
  } catch {
    return null;
  }
}
