import { errFields } from '../../lib/logger.js';
import type { WorkspaceListeners } from '../../store/feed-listeners.js';
import {
  DELIVERED_KEEP_MS,
  type FeedRoundState,
  type FeedSnapshotStore,
  type PurchaseReceipts,
} from '../../store/feed-snapshot-store.js';
import { BudgetExhaustedError, isLastingRefusal, isTransient } from '../../upstream/budget-errors.js';
import { isLastPage, isPastLastPage } from '../../upstream/client.js';
import type { MaterialRequest, PurchaseOrder } from '../../upstream/schemas.js';
import type { AnswerReader, CachedEndpoint, ReadOptions } from '../cached-reader.js';
import type { DomainDeps } from '../deps.js';
import { NotFoundError } from '../errors.js';
import { PurchaseService } from '../purchases/purchase-service.js';
import { RequestService } from '../requests/request-service.js';
import { CatalogService } from '../stock/catalog-service.js';
import type { WorkspaceContext } from '../workspace.js';
import { diffPurchases, diffRequests, receiptEvent, staleRequests, statusSlot } from './detect.js';
import { route } from './route.js';
import type { FeedEvent, ReceiptEvent } from './types.js';

/**
 * One detection round of one workspace (the engine holds its lease): reads the request list of the last 30 days
 * (page 1, then every page of 100 from where the last round stopped, as far as the share goes), the followed requests older than that (each searched by number, a few pages at most, from where the last round stopped), and,
 * less often, the pending purchases of the active stockrooms (the least recently read first, as far as the share
 * goes); diffs them with the stored snapshot; puts the events in the outbox, then writes the snapshot. In that order:
 * a replica that dies between the two leaves the snapshot as it was, so the next round finds the same differences,
 * names them with the same ids, and the outbox keeps one of each. (A receipt whose linked requests could not be read
 * yet is kept in a waiting list before the snapshot, and enters the outbox when a later round links it.)
 *
 * Every read goes through the services and the cache the commands use, at the 'feed' priority (the caller resolves
 * the workspace with it): a fresh cache entry costs nothing, and what a round reads is fresh for the next command.
 * When the budget (or upstream) stops the round halfway, what was read is diffed and the rest waits: rows not read
 * are never taken as gone, so the next round reports everything since.
 */

/**
 * Pages of the 30-day list a round reads at most (10,000 requests), whatever total the rows state: a round stops
 * earlier at the first short or empty page.
 */
export const MAX_PAGES = 100;
/** A page past the end of the list, refused by the service (isPastLastPage). */
const PAST_END = Symbol('past-end');
/**
 * Pages of its search (of 100) a followed request older than the 30 days is looked for in, at most. `Search` matches
 * every word of the number, the stockroom, the requester and the status, so newer requests can come before it.
 */
export const FOLLOWED_MAX_PAGES = 5;
/** Receipts are read once every this many intervals: goods arrive far less often than requests move. */
export const RECEIPTS_EVERY_INTERVALS = 3;
/** What a round compares with its snapshot; the catalogues (stockrooms, users, a purchase's requests) keep their TTLs. */
const DIFFED: ReadonlySet<CachedEndpoint> = new Set(['requestList', 'pendingPurchases']);

export interface RoundOutcome {
  /** Upstream calls made (cache hits and token calls left out). */
  calls: number;
  /** Every read the round wanted was made. */
  complete: boolean;
  /** At least one page of the 30-day list was read (from upstream or a cache entry fresh enough). */
  readList: boolean;
  /** The round only recorded (first round of the workspace, or of its purchases). */
  recorded: boolean;
  /** Events put in the outbox. */
  detected: number;
  /** Set when the budget stopped the round: when a slot frees. */
  budgetRetryAt: number | null;
}

/** The round's lease went to another process (it ran longer than the lease): this one stops without writing. */
export class RoundLeaseLostError extends Error {
  override readonly name = 'RoundLeaseLostError';
  constructor() {
    super('The feed round lease was lost');
  }
}

export class FeedRound {
  private calls = 0;
  private stopped: unknown = null;
  private readonly requests: RequestService;
  private readonly purchases: PurchaseService;
  private readonly catalog: CatalogService;
  private readonly deps: DomainDeps;

  constructor(
    deps: DomainDeps,
    private readonly snapshots: FeedSnapshotStore,
    private readonly ws: WorkspaceContext,
    private readonly listeners: WorkspaceListeners,
    private readonly state: FeedRoundState,
    private readonly receiptsEveryMs: number,
    /** Extends the round's lease; false when it was lost. Called before each read. */
    private readonly keepLease: () => Promise<boolean> = async () => true,
  ) {
    // The round's services read through a reader that counts the calls that reach upstream.
    // Stale entries are refused: a round must know it read nothing new, and when the budget frees. Fresh entries are
    // used (no call) when fetched since the previous round read: a command or a digest refreshed them meanwhile.
    const reader: AnswerReader = {
      read: (ws, endpoint, params, fetch, options) =>
        deps.reader.read(
          ws,
          endpoint,
          params,
          async (call) => {
            this.calls += 1;
            try {
              return await fetch(call);
            } catch (error) {
              if (error instanceof BudgetExhaustedError) this.calls -= 1;
              throw error;
            }
          },
          // Only an entry someone else fetched after the previous round read is newer than the snapshot.
          {
            ...options,
            serveStale: false,
            ...(DIFFED.has(endpoint) && { freshSince: (this.state.readUntil ?? 0) + 1 }),
          },
        ),
    };
    this.deps = { ...deps, reader };
    this.requests = new RequestService(this.deps);
    this.catalog = new CatalogService(this.deps);
    this.purchases = new PurchaseService(this.deps, this.catalog);
  }

  async run(): Promise<RoundOutcome> {
    const { workspaceId } = this.ws;
    const detectedAt = this.deps.now();
    const record = this.state.recordedAt === null;

    // Own follows match by the requester's e-mail: the users list is read first (cached for an hour, so mostly no
    // call), so that a round the budget stops later has e-mails for every event it did detect. Read after the list,
    // a stop in between sent those events out without e-mails, and own follows never got them.
    const emails = await this.readRequesterEmails();
    // A recording cut short by the budget goes on where it stopped, one page back (rows move down as requests are
    // opened): a list longer than the share of a window is recorded over several rounds instead of never.
    const fromPage = record ? Math.max(1, (this.state.recordFromPage ?? 1) - 1) : 1;
    const head = await this.readRecent(fromPage, { maxPages: 1 });
    // Receipts an earlier round found but could not link (its share ran out after the stockroom's pending list): their
    // links before anything else is read, or a share that pays for a pending list but not also for its receipts'
    // links would never get them out.
    const stillWaiting = await this.snapshots.receiptsWaiting<ReceiptEvent>(workspaceId);
    const earlier = await this.linkReceipts(
      stillWaiting.sort((a, b) => a.detectedAt - b.detectedAt || a.id.localeCompare(b.id)),
      emails,
    );
    // Receipts, when due, right after the first page of a recorded workspace's round, so a list longer than the share
    // of a window never starves them; at most once per receipts interval, so receipts that the share cannot pay for
    // whole (read after the list in the rounds between, as a recording round reads them) never starve the list.
    const receiptsDue = this.due(this.state.receiptsReadAt, detectedAt);
    const receiptsFirst = !record && receiptsDue && this.due(this.state.receiptsFirstAt, detectedAt);
    let receipts = receiptsFirst ? await this.readReceipts(detectedAt, emails) : null;
    // A recording goes on from the page after. A recorded workspace's round reads page 1 (the newest requests) and
    // then goes on from where the last round stopped (one page back, as a recording does), wrapping around to page 2
    // once it reached the end: a list longer than the share is read whole over several rounds, not only its first
    // pages again and again. A list read whole every round always goes on from page 2: the same calls as before.
    const deepFrom = record ? head.nextPage : Math.max(2, (this.state.readFromPage ?? 2) - 1);
    const deep = head.complete
      ? null
      : await this.readRecent(deepFrom, { above: deepFrom === head.nextPage ? head.lastFetchedAt : null });
    const recent = {
      rows: [...head.rows, ...(deep?.rows ?? [])],
      complete: deep === null ? head.complete : deep.complete,
      nextPage: deep?.nextPage ?? head.nextPage,
      pagesRead: head.pagesRead + (deep?.pagesRead ?? 0),
    };
    const fromList = new Set(recent.rows.map((row) => row.solicitacaoMaterialId));
    const followed = [...new Set(this.listeners.follows.map((follow) => follow.requestId))];
    const previous = await this.snapshots.requests(workspaceId);
    // Recorded by an earlier recording round: not read again on its own.
    const recordedBefore = (id: number) => record && previous.has(id);
    const older = await this.readFollowedOutside(
      followed.filter((id) => !fromList.has(id) && !recordedBefore(id)),
    );
    const requestDiff = diffRequests(workspaceId, previous, [...recent.rows, ...older.rows], detectedAt, {
      record,
      fromList,
      follows: this.listeners.follows,
    });
    const requestEvents: FeedEvent[] = [...requestDiff.novas, ...requestDiff.status];
    addRequesterEmails(requestEvents, requestDiff.next, emails);
    if (receiptsDue && !receiptsFirst) receipts = await this.readReceipts(detectedAt, emails);

    // One of each: a rerun after a crash may find again a receipt that waited for its links.
    const events = [
      ...new Map(
        [...requestEvents, ...earlier.linked, ...(receipts?.events ?? [])].map((event) => [event.id, event]),
      ).values(),
    ];
    const readUntil = this.deps.now();

    // The outbox first, the snapshot after (see above); receipts still waiting for their links are kept before the
    // pending snapshot that no longer shows them as differences, and leave the waiting list once in the outbox.
    await this.dropSuperseded(events);
    const added = await this.snapshots.addToOutbox(workspaceId, events);
    if (receipts && receipts.waiting.length > 0)
      await this.snapshots.saveReceiptsWaiting(workspaceId, receipts.waiting);
    await this.snapshots.saveRequests(workspaceId, requestDiff.next);
    await this.snapshots.forgetRequests(
      workspaceId,
      staleRequests(previous, detectedAt, new Set([...followed, ...requestDiff.next.keys()])),
    );
    if (receipts) {
      await this.snapshots.savePurchases(workspaceId, receipts.next, receipts.gone);
      await this.snapshots.savePurchaseReceipts(workspaceId, receipts.counted, receipts.uncounted);
      await this.snapshots.saveStockroomReads(workspaceId, receipts.reads);
      await this.snapshots.forgetStockrooms(workspaceId, receipts.inactive, receipts.inactivePurchases);
    }
    if (earlier.linked.length > 0)
      await this.snapshots.removeReceiptsWaiting(
        workspaceId,
        earlier.linked.map((event) => event.id),
      );

    const complete = this.stopped === null;
    await this.snapshots.updateState(workspaceId, {
      readUntil,
      ...(record && recent.complete && { recordedAt: detectedAt, recordFromPage: 1 }),
      ...(record && !recent.complete && recent.nextPage > fromPage && { recordFromPage: recent.nextPage }),
      // Where the next round's read goes on after page 1: back to page 2 once this one reached the end.
      ...(!record && deep !== null && deep.complete && { readFromPage: 2 }),
      ...(!record &&
        deep !== null &&
        !deep.complete &&
        deep.nextPage > deepFrom && { readFromPage: deep.nextPage }),
      // Only a turn that read them counts: one stopped before any stockroom keeps it for the next round.
      ...(receiptsFirst && receipts?.progressed && { receiptsFirstAt: detectedAt }),
      // Every active stockroom read, in this round or earlier ones: receipts are due an interval after the oldest
      // reading, and the purchases are recorded.
      ...(receipts !== null &&
        receipts.readAt !== null && {
          receiptsReadAt: receipts.readAt,
          ...(this.state.purchasesRecordedAt === null && { purchasesRecordedAt: detectedAt }),
        }),
      ...(older.stoppedAfter !== null && { followedAfter: older.stoppedAfter }),
    });
    if (this.stopped !== null) {
      this.deps.logger.info(
        { workspaceId, ...errFields(this.stopped), calls: this.calls },
        'feed round stopped early; the next round covers the rest',
      );
    }
    return {
      calls: this.calls,
      complete,
      readList: recent.pagesRead > 0,
      recorded: record || (receipts !== null && this.state.purchasesRecordedAt === null),
      detected: added.length,
      budgetRetryAt: this.stopped instanceof BudgetExhaustedError ? this.stopped.retryAt : null,
    };
  }

  /**
   * Takes out of the outbox the status events this round's supersede (statusSlot: same request and version, another
   * `to`) that no target claimed yet: left by a replica that died between the outbox and the snapshot, while the
   * status changed again before this rerun. Posted beside the newer one, they told a transition already overtaken. One
   * a target claimed (or was sent) stays, so every target of it gets the same.
   */
  private async dropSuperseded(events: readonly FeedEvent[]): Promise<void> {
    const slots = new Map<string, string>();
    for (const event of events) {
      const slot = statusSlot(event);
      if (slot !== null) slots.set(slot, event.id);
    }
    if (slots.size === 0) return;
    const { workspaceId } = this.ws;
    const drop: string[] = [];
    for (const event of await this.snapshots.outbox<FeedEvent>(workspaceId)) {
      const slot = statusSlot(event);
      if (slot === null || !slots.has(slot) || slots.get(slot) === event.id) continue;
      const claims = await Promise.all(
        route(this.listeners, [event]).map((delivery) =>
          this.snapshots.delivery(workspaceId, delivery.key, event.id),
        ),
      );
      if (claims.every((claim) => claim === null)) drop.push(event.id);
    }
    if (drop.length > 0) await this.snapshots.removeFromOutbox(workspaceId, drop);
  }

  /**
   * Runs a read unless an earlier one was stopped by the budget or upstream; null when it did not run or failed.
   * A spent budget or a transient failure stops the round's reads. An upstream refusal that no retry mends (a 403,
   * an answer that breaks the schema) never fails the round: what was read is diffed, the outbox is written and
   * delivered. It stops the reads that follow, unless the read is a `part` (the users list for own follows, a
   * followed request, a stockroom's pending purchases), whose refusal leaves only that part out. Otherwise one
   * lasting refusal (a login that may not read the users list) would keep every event from the outbox for good.
   */
  private async attempt<T>(read: () => Promise<T>, options: { part?: boolean } = {}): Promise<T | null> {
    if (this.stopped !== null) return null;
    // A read may wait for a budget slot: the lease is extended before each one, so it outlives a slow round.
    if (!(await this.keepLease())) throw new RoundLeaseLostError();
    try {
      return await read();
    } catch (error) {
      if (isTransient(error)) {
        this.stopped = error;
        return null;
      }
      if (!isLastingRefusal(error)) throw error;
      this.deps.logger.warn(
        { workspaceId: this.ws.workspaceId, part: options.part === true, ...errFields(error) },
        'feed read refused by upstream; the round goes on with what it read',
      );
      if (!options.part) this.stopped = error;
      return null;
    }
  }

  /**
   * The 30-day list from `fromPage` on, `maxPages` at most; `complete`: the end of the list was reached; `nextPage`:
   * the first page not read (where a recording, or the next round, goes on), `pagesRead`: how many were. `above`:
   * when the page before `fromPage` was read, if this round read it (see the loop).
   */
  private async readRecent(
    fromPage: number,
    options: { maxPages?: number; above?: number | null } = {},
  ): Promise<{
    rows: MaterialRequest[];
    complete: boolean;
    nextPage: number;
    pagesRead: number;
    lastFetchedAt: number | null;
  }> {
    const rows: MaterialRequest[] = [];
    let pagesRead = 0;
    let above: number | null = options.above ?? null;
    const upTo = Math.min(MAX_PAGES, fromPage + (options.maxPages ?? MAX_PAGES) - 1);
    // A page the service refuses past the rows it has (isPastLastPage) ends the list.
    const read = (page: number, readOptions?: ReadOptions) =>
      this.attempt(() =>
        this.requests
          .recentPage(this.ws, null, page, readOptions)
          .catch((error: unknown): typeof PAST_END => {
            if (isPastLastPage(error, page)) return PAST_END;
            throw error;
          }),
      );
    for (let page = fromPage; page <= upTo; page += 1) {
      let answer = await read(page);
      if (answer === PAST_END)
        return { rows, complete: true, nextPage: page, pagesRead, lastFetchedAt: above };
      if (answer === null) return { rows, complete: false, nextPage: page, pagesRead, lastFetchedAt: above };
      // The list is newest first: rows move down a page as requests are opened. A page cached before the page above
      // it was read misses the rows that moved down between the two reads (in neither), so it is read again. A page
      // older than the one above it after that (upstream could not be asked) leaves the read incomplete.
      if (above !== null && answer.freshness.fetchedAt < above) {
        answer = await read(page, { bypassCache: true });
        if (answer === PAST_END)
          return { rows, complete: true, nextPage: page, pagesRead, lastFetchedAt: above };
        if (answer === null || answer.freshness.fetchedAt < above)
          return { rows, complete: false, nextPage: page, pagesRead, lastFetchedAt: above };
      }
      above = answer.freshness.fetchedAt;
      pagesRead += 1;
      rows.push(...answer.data.rows);
      // A short page is the end, and a full one is unless its total is honest and reached (isLastPage): a total
      // too low (a full page proves more rows) is read on, a total too high never sends the read to empty pages.
      if (isLastPage(answer.data))
        return { rows, complete: true, nextPage: page + 1, pagesRead, lastFetchedAt: above };
    }
    return { rows, complete: false, nextPage: upTo + 1, pagesRead, lastFetchedAt: above };
  }

  /**
   * Followed requests outside the 30 days: found by number in the list of the last 12 months (findListRow; older
   * ones cannot be read from it), FOLLOWED_MAX_PAGES pages of its search at most: one call each when it is on page 1.
   * In turn: from the one after where the last round stopped (`followedAfter`), by number, wrapping around, so that
   * more than one round's share pays for are all read over several rounds (a request not read keeps its snapshot
   * entry, and its change is found when it is read). Until 2026-11-27 every round started again at the lowest number,
   * and the ones past what a round's share reached were never read. `stoppedAfter`: the last one read (or refused for
   * good), null when none was.
   */
  private async readFollowedOutside(
    ids: number[],
  ): Promise<{ rows: MaterialRequest[]; stoppedAfter: number | null }> {
    const rows: MaterialRequest[] = [];
    const sorted = [...ids].sort((a, b) => a - b);
    const after = this.state.followedAfter;
    const next = after === null ? -1 : sorted.findIndex((id) => id > after);
    const from = next === -1 ? 0 : next;
    let stoppedAfter: number | null = null;
    for (const id of [...sorted.slice(from), ...sorted.slice(0, from)]) {
      const row = await this.findFollowed(id);
      // Stopped by the budget or upstream (before this one, or during its search): the next round goes on from it.
      if (this.stopped !== null) break;
      stoppedAfter = id;
      if (row) rows.push(row);
    }
    return { rows, stoppedAfter };
  }

  private async findFollowed(id: number): Promise<MaterialRequest | null> {
    const found = await this.attempt(
      () => this.requests.findListRow(this.ws, id, { maxPages: FOLLOWED_MAX_PAGES }),
      { part: true },
    );
    if (found && !found.complete) {
      this.deps.logger.warn(
        { workspaceId: this.ws.workspaceId, requestId: id, pages: FOLLOWED_MAX_PAGES },
        'followed request not found within the pages its search reads; not watched this round',
      );
    }
    return found?.row ?? null;
  }

  /**
   * The requesters' e-mails own-request follows match by, from the users list (cached, as `minhas` reads it); null
   * when nobody follows their own requests, or the list cannot be read now.
   */
  private async readRequesterEmails(): Promise<ReadonlyMap<number, string | null> | null> {
    if (this.listeners.ownFollows.length === 0) return null;
    const users = await this.attempt(
      () => this.deps.reader.read(this.ws, 'users', null, (call) => this.deps.client.listUsers(call)),
      { part: true },
    );
    if (users === null) return null;
    return new Map(users.data.map((user) => [user.usuario, user.email?.trim().toLowerCase() ?? null]));
  }

  /**
   * Completes receipt events with the requests linked to their purchase (`/compras-materiais/{id}/solicitacoes`, for
   * follows) and their requesters' e-mails (own follows). `waiting`: those whose linked requests cannot be read now
   * (the budget, a transient failure): they keep their id, and a later round links them (FeedSnapshotStore
   * receiptsWaiting). A purchase the service no longer knows, or whose requests the login may not read, was still
   * received: linked to nothing (waiting for them would hold the receipt back for good).
   */
  private async linkReceipts(
    events: readonly ReceiptEvent[],
    emails: ReadonlyMap<number, string | null> | null,
  ): Promise<{ linked: ReceiptEvent[]; waiting: ReceiptEvent[] }> {
    const linked: ReceiptEvent[] = [];
    const waiting: ReceiptEvent[] = [];
    for (const event of events) {
      const requests = await this.attempt(() =>
        this.purchases
          .linkedRequests(this.ws, event.purchaseId, 1)
          .then((answer) => answer.data.requests)
          .catch((error: unknown) => {
            if (error instanceof NotFoundError || isLastingRefusal(error)) return [];
            throw error;
          }),
      );
      if (requests === null) {
        waiting.push(event);
        continue;
      }
      const requesterEmails = [
        ...new Set(
          requests
            .map((request) => emails?.get(request.solicitante) ?? null)
            .filter((email): email is string => email !== null && email !== ''),
        ),
      ];
      linked.push({
        ...event,
        requestIds: requests.map((request) => request.solicitacaoMaterialId),
        requesterEmails,
      });
    }
    return { linked, waiting };
  }

  /** Whether a receipts interval has gone since `last` (never: due). */
  private due(last: number | null, now: number): boolean {
    return last === null || now - last >= this.receiptsEveryMs;
  }

  /**
   * The pending lists of the active stockrooms, the least recently read first (never read first), as many as the
   * round can pay for: a share that cannot pay for all of them in one round reads them over several, each round going
   * on with the ones the last did not reach. Each stockroom is compared with its own last reading (the snapshot's
   * purchases of that stockroom; its first reading only records it), so a receipt is found whichever round reads its
   * stockroom next. Until 2026-11-27 every round started again at the first stockroom and the purchases were recorded,
   * and compared, only once a single round had read every stockroom: with more stockrooms than a round's share
   * reached, no receipt was ever reported. A receipt whose linked requests cannot be read now waits for a later
   * round to link it (`waiting`); the stockroom's reading is kept all the same. Until 2026-11-27 it was left out of
   * the reading instead, to be found again by the next one: a share that paid for a stockroom's pending list but not
   * also for its receipts' linked requests never got them out.
   */
  private async readReceipts(detectedAt: number, emails: ReadonlyMap<number, string | null> | null) {
    const { workspaceId } = this.ws;
    const stockrooms = await this.attempt(() => this.catalog.stockrooms(this.ws), { part: true });
    if (stockrooms === null) return null;
    const lastRead = await this.snapshots.stockroomReads(workspaceId);
    const active = new Set(stockrooms.data.map((stockroom) => stockroom.almoxarifado));
    // Stable: stockrooms read at the same time (or never) keep the list's order.
    const order = [...stockrooms.data].sort(
      (a, b) => (lastRead.get(a.almoxarifado) ?? -1) - (lastRead.get(b.almoxarifado) ?? -1),
    );
    const read = new Map<number, PurchaseOrder[]>();
    // The stockrooms this round read or found refused for good, noted as read at the round's start.
    const reads = new Map<number, number>();
    for (const stockroom of order) {
      const answer = await this.attempt(() => this.purchases.pendingOf(this.ws, stockroom.almoxarifado), {
        part: true,
      });
      // Refused for good: that stockroom is left out of this diff (not read is not emptied) and goes to the back of
      // the turn, so it never keeps the others from being read; stopped: the rest wait for the next round.
      if (answer === null) {
        if (this.stopped !== null) break;
        reads.set(stockroom.almoxarifado, detectedAt);
        continue;
      }
      read.set(stockroom.almoxarifado, answer.data);
      reads.set(stockroom.almoxarifado, detectedAt);
    }
    const previous = await this.snapshots.purchases(workspaceId);
    const diff = diffPurchases(previous, read);
    const found: ReceiptEvent[] = [];
    const reported = await this.snapshots.purchaseReceipts(workspaceId);
    const counted = new Map<number, PurchaseReceipts>();
    for (const seen of diff.receipts) {
      const version = reported.get(seen.purchaseId)?.version ?? 0;
      found.push(receiptEvent(workspaceId, seen, [], detectedAt, [], version));
      counted.set(seen.purchaseId, { version: version + 1, at: detectedAt });
    }
    // Their linked requests now, as far as the round goes; the rest wait for a later round (see run).
    const { linked: events, waiting } = await this.linkReceipts(found, emails);
    // Still pending: read now, or not read now (its stockroom waits for a later round) and not gone.
    const pending = (id: number) => diff.next.has(id) || (previous.has(id) && !diff.gone.includes(id));
    const readings = stockrooms.data.map((stockroom) =>
      reads.has(stockroom.almoxarifado) ? detectedAt : lastRead.get(stockroom.almoxarifado),
    );
    return {
      events,
      waiting,
      next: diff.next,
      gone: diff.gone,
      counted,
      // A count is kept as long as an event of the purchase may still be claimed as sent (DELIVERED_KEEP_MS, counted
      // from a resume too, as the claims are), then dropped unless the purchase is still pending.
      uncounted: [...reported]
        .filter(
          ([id, entry]) =>
            !pending(id) &&
            !counted.has(id) &&
            detectedAt - Math.max(entry.at, this.state.resumedAt ?? 0) > DELIVERED_KEEP_MS,
        )
        .map(([id]) => id),
      reads,
      // Stockrooms read before that are no longer in the active list: their read times go (until 2026-11-27 they
      // stayed in the snapshot for good, one per stockroom that was ever active) ...
      // An empty list prunes nothing: it is how the API answers a wrong company context (a blip of the service),
      // and a stockroom pruned would have its receipts of the meantime recorded, never told.
      inactive: active.size === 0 ? [] : [...lastRead.keys()].filter((id) => !active.has(id)),
      // ... and so do their purchases in the pending snapshot, with no event (they were not read: diffPurchases never
      // saw them go). Until 2026-11-27 they stayed for good, as did those of stockrooms pruned before. One that comes
      // back has no reading, so its first reading records it again (a receipt made while it was out is not told).
      inactivePurchases: [...previous]
        .filter(() => active.size > 0)
        .filter(
          ([id, entry]) => entry.stockroomId !== null && !active.has(entry.stockroomId) && !diff.next.has(id),
        )
        .map(([id]) => id),
      // At least one stockroom read or refused for good (or none to read): the turn made progress.
      progressed: reads.size > 0 || stockrooms.data.length === 0,
      // Every active stockroom read or refused for good, in this round or earlier ones: the oldest of those readings
      // (a refusal that no retry mends, a 403, must not keep the others from ever being recorded); null otherwise.
      readAt: readings.every((at) => at !== undefined)
        ? Math.min(detectedAt, ...readings.map((at) => at ?? detectedAt))
        : null,
    };
  }
}

function addRequesterEmails(
  events: FeedEvent[],
  entries: ReadonlyMap<number, { requesterId: number }>,
  emails: ReadonlyMap<number, string | null> | null,
): void {
  if (emails === null) return;
  for (const event of events) {
    if (event.kind === 'recebimentos') continue;
    const requesterId = entries.get(event.requestId)?.requesterId;
    event.requesterEmail = requesterId === undefined ? null : (emails.get(requesterId) ?? null);
  }
}
