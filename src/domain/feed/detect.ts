import { createHash } from 'node:crypto';
import type { Follow } from '../../store/feed-listeners.js';
import type { PurchaseSnapshot, RequestSnapshot } from '../../store/feed-snapshot-store.js';
import type { MaterialRequest, PurchaseOrder } from '../../upstream/schemas.js';
import { DEFAULT_PERIOD_DAYS } from '../requests/request-service.js';
import type { FeedEvent, NewRequestEvent, ReceiptEvent, StatusEvent } from './types.js';

/**
 * The pure half of a detection round: the rows a round read against the snapshot the previous round left, into
 * events and the snapshot's next entries. Event ids come from the data (workspace, subject, transition), so a
 * round run again after a crash, on any replica, names the same events the same way.
 */

/** Request list rows carry no date: entries a round has not seen for this long (out of the 30 days) are dropped. */
export const SNAPSHOT_KEEP_MS = 35 * 86_400_000;
/**
 * The rounds' list covers the last DEFAULT_PERIOD_DAYS (30). Rows carry no date, so a request the list showed within
 * that many days is taken as still in the channel feeds' reach when a round reads it by its number alone (a page not
 * read this round): it may have left the 30 days since, by at most as long ago as it was last listed.
 */
const RECENT_MS = DEFAULT_PERIOD_DAYS * 86_400_000;

export interface RequestDiff {
  novas: NewRequestEvent[];
  status: StatusEvent[];
  /** Entries to write: every row read (with its new status and version), seen now. */
  next: Map<number, RequestSnapshot>;
}

/**
 * `rows` are the rows a round read; a request missing from them is not gone (a page the budget did not pay for,
 * or a request older than the 30 days): only rows read are compared. A row the snapshot lacks is `novas` only when
 * its number is above the snapshot's highest (highestRecorded). No `novas` for rows read on their own
 * (followed requests older than the 30 days), and while the workspace is only being recorded, no event but the status
 * changes of rows an earlier recording round recorded and the followers' own baselines (below).
 * A followed request the snapshot does not have yet is compared with the status each follower was shown when they
 * followed it (`follows`), in a recording round too: a change made between the follow and this first read is told to
 * them. (Until 2026-11-27 a recording round skipped it, and a follow that was its workspace's first listener never
 * got a change made before that round.)
 * A change of a request the snapshot has names the followers already shown its new status (`seenBy`): they are not
 * told of it.
 */
export function diffRequests(
  workspaceId: string,
  previous: ReadonlyMap<number, RequestSnapshot>,
  rows: readonly MaterialRequest[],
  detectedAt: number,
  options: { record: boolean; fromList: ReadonlySet<number>; follows?: readonly Follow[] },
): RequestDiff {
  const novas: NewRequestEvent[] = [];
  const status: StatusEvent[] = [];
  const next = new Map<number, RequestSnapshot>();
  const highest = highestRecorded(previous);
  for (const row of rows) {
    const id = row.solicitacaoMaterialId;
    if (next.has(id)) continue;
    const before = previous.get(id);
    const statusCode = row.statusAndamentoSolicitacao ?? null;
    const statusName = row.statusAndamentoSolicitacao_Nome?.trim() || null;
    const base = {
      workspaceId,
      detectedAt,
      stockroomId: row.almoxarifado,
    };
    if (!before) {
      next.set(id, {
        status: statusCode,
        statusName,
        stockroomId: row.almoxarifado,
        requesterId: row.solicitante,
        version: 0,
        seenAt: detectedAt,
        ...(options.fromList.has(id) && { listSeenAt: detectedAt }),
      });
      // The status each follower was shown is a baseline of its own, compared in a recording round too: a follow
      // made just before the workspace's first round (its first listener) had its change recorded, never told.
      const followers = (options.follows ?? []).filter((follow) => follow.requestId === id);
      status.push(...firstReadChanges(workspaceId, row, followers, detectedAt, options.fromList.has(id)));
      // At or below the highest number recorded: a request that existed then, which the rounds missed (a page that
      // came back short, a row that moved between two pages' reads, a list served oldest first): recorded silently.
      if (!options.record && options.fromList.has(id) && id > highest) {
        novas.push({
          ...base,
          id: `${workspaceId}:novas:${id}`,
          kind: 'novas',
          requestId: id,
          stockroomName: row.almoxarifado_Nome?.trim() || null,
          requesterName: row.solicitante_Nome?.trim() || null,
          requesterEmail: null,
          statusName,
        });
      }
      continue;
    }
    // Codes when both sides have one; otherwise the names when both have one: a code that is null on one side only
    // (the field is nullable) beside the same name is the same status, not "X → X".
    const changed =
      statusCode !== null && before.status !== null
        ? statusCode !== before.status
        : statusName !== null && before.statusName !== null
          ? statusName !== before.statusName
          : statusCode !== before.status || statusName !== before.statusName;
    const version = changed ? before.version + 1 : before.version;
    const inList = options.fromList.has(id);
    const listSeenAt = inList ? detectedAt : before.listSeenAt;
    next.set(id, {
      status: statusCode,
      statusName: statusName ?? (changed ? null : before.statusName),
      stockroomId: row.almoxarifado,
      requesterId: row.solicitante,
      version,
      seenAt: detectedAt,
      ...(listSeenAt !== undefined && { listSeenAt }),
    });
    // Read by its number alone (the list did not show it this round: a page not read, a page that came back short)
    // is outside the 30 days only when the list has not shown it within them: otherwise the channels get it too.
    const outsideRecent = !inList && (listSeenAt === undefined || detectedAt - listSeenAt > RECENT_MS);
    // In a recording round too: a row an earlier recording round recorded, read again on the page this one goes back
    // to, changed since it was recorded (a change, not a first sight).
    if (changed) {
      const seenBy = followersShown(options.follows ?? [], id, statusName);
      status.push({
        ...base,
        id: `${workspaceId}:status:${id}:${version}:${before.status ?? ''}>${statusCode ?? ''}`,
        kind: 'status',
        requestId: id,
        fromStatus: before.statusName,
        toStatus: statusName,
        requesterEmail: null,
        ...(outsideRecent && { outsideRecent: true }),
        ...(seenBy.length > 0 && { seenBy }),
      });
    }
  }
  return { novas, status, next };
}

/**
 * The high-water mark of the snapshot: the highest request number it holds. Request numbers are assigned increasing
 * (an assumption: upstream-api.md does not say so, but every number the service and the sandbox give grows), so a
 * request the list shows for the first time with a number at or below the mark is not new: it existed when that
 * number was recorded, and a round missed it. The newest requests are the last the snapshot forgets (entries unseen
 * for SNAPSHOT_KEEP_MS), so the mark only falls when the whole list has been empty that long.
 */
export function highestRecorded(previous: ReadonlyMap<number, RequestSnapshot>): number {
  let highest = 0;
  for (const id of previous.keys()) if (id > highest) highest = id;
  return highest;
}

/**
 * The slot of a status event found against the snapshot: its request and the version it moves from (its id less the
 * `from>to` part). A round rerun after a replica died between the outbox and the snapshot, with the status changed
 * again meanwhile, finds another event in the same slot (A>C where the outbox holds A>B), which supersedes it. Null
 * for other events, and for a status event for named followers (its id has no version).
 */
export function statusSlot(event: FeedEvent): string | null {
  if (event.kind !== 'status' || event.followers !== undefined) return null;
  return event.id.slice(0, event.id.lastIndexOf(':') + 1);
}

/**
 * The first read of a followed request: one event per follower whose last seen status is another, for that follower
 * only. Its id names the follow and both statuses, so a rerun on any replica names it the same way, and the
 * snapshot entry the round writes keeps the next round from finding it again.
 */
function firstReadChanges(
  workspaceId: string,
  row: MaterialRequest,
  followers: readonly Follow[],
  detectedAt: number,
  inList: boolean,
): StatusEvent[] {
  const id = row.solicitacaoMaterialId;
  const statusName = row.statusAndamentoSolicitacao_Nome?.trim() || null;
  if (statusName === null) return [];
  const out: StatusEvent[] = [];
  for (const follow of [...followers].sort((a, b) => a.userId.localeCompare(b.userId))) {
    const seen = follow.lastSeenStatus?.trim() || null;
    // Nothing seen (the follow could not read a status): nothing to compare with.
    if (seen === null || sameStatusName(seen, statusName)) continue;
    const to = row.statusAndamentoSolicitacao ?? nameHash(statusName);
    out.push({
      id: `${workspaceId}:status:${id}:seen:${follow.userId}:${follow.createdAt}:${nameHash(seen)}>${to}`,
      kind: 'status',
      workspaceId,
      detectedAt,
      stockroomId: row.almoxarifado,
      requestId: id,
      fromStatus: seen,
      toStatus: statusName,
      requesterEmail: null,
      followers: [follow.userId],
      ...(!inList && { outsideRecent: true }),
    });
  }
  return out;
}

/**
 * The followers of the request who were shown `statusName` already: they followed it after the change happened
 * (the follow's answer said "status agora: …") or were told of it since. The change found against the snapshot is
 * news to the channels, not to them. (Until 2026-11-27 they were DMed "Aberta → Em separação" right after being
 * shown "Em separação".) Judged at detection, never at delivery: the delivery itself moves a follow's last seen
 * status to the event's before posting, and a post retried after a failure must still reach them.
 */
function followersShown(follows: readonly Follow[], requestId: number, statusName: string | null): string[] {
  if (statusName === null) return [];
  const users = follows
    .filter((follow) => follow.requestId === requestId)
    .filter((follow) => {
      const seen = follow.lastSeenStatus?.trim() || null;
      return seen !== null && sameStatusName(seen, statusName);
    })
    .map((follow) => follow.userId);
  return [...new Set(users)].sort();
}

function sameStatusName(a: string, b: string): boolean {
  return a.localeCompare(b, 'pt-BR', { sensitivity: 'accent' }) === 0;
}

function nameHash(name: string): string {
  return createHash('sha256').update(name).digest('hex').slice(0, 12);
}

/** Snapshot entries no round has seen for SNAPSHOT_KEEP_MS, except the ones still followed. */
export function staleRequests(
  snapshot: ReadonlyMap<number, RequestSnapshot>,
  now: number,
  keep: ReadonlySet<number>,
): number[] {
  const out: number[] = [];
  for (const [id, entry] of snapshot) {
    if (!keep.has(id) && now - (entry.seenAt ?? 0) > SNAPSHOT_KEEP_MS) out.push(id);
  }
  return out;
}

/** A receipt seen in the pending list: the purchase, and whether it left the list (complete) or only fell. */
export interface ReceiptSeen {
  purchaseId: number;
  complete: boolean;
  /** The balance after the receipt (0 when it left): part of the event id, since a balance only falls. */
  balanceAfter: number;
  stockroomId: number | null;
  supplierName: string | null;
}

export interface PurchaseDiff {
  receipts: ReceiptSeen[];
  /** Entries to write: every pending purchase read. */
  next: Map<number, PurchaseSnapshot>;
  /** Purchases that left the pending list of a stockroom that was read. */
  gone: number[];
}

/**
 * `read` maps each stockroom whose pending list was read to its rows; purchases of stockrooms not read (a call the
 * budget did not pay for) are left as they were, never taken as received.
 */
export function diffPurchases(
  previous: ReadonlyMap<number, PurchaseSnapshot>,
  read: ReadonlyMap<number, readonly PurchaseOrder[]>,
): PurchaseDiff {
  const receipts: ReceiptSeen[] = [];
  const next = new Map<number, PurchaseSnapshot>();
  for (const [stockroomId, rows] of read) {
    for (const row of rows) {
      const id = row.compraMaterialId;
      const entry: PurchaseSnapshot = {
        balance: pendingBalanceOf(row),
        stockroomId,
        supplierName: supplierNameOf(row),
      };
      next.set(id, entry);
      const before = previous.get(id);
      if (before && before.balance !== null && entry.balance !== null && entry.balance < before.balance) {
        receipts.push({
          purchaseId: id,
          complete: false,
          balanceAfter: entry.balance,
          stockroomId,
          supplierName: entry.supplierName ?? before.supplierName,
        });
      }
    }
  }
  const gone: number[] = [];
  for (const [id, before] of previous) {
    if (next.has(id) || before.stockroomId === null || !read.has(before.stockroomId)) continue;
    gone.push(id);
    receipts.push({
      purchaseId: id,
      complete: true,
      balanceAfter: 0,
      stockroomId: before.stockroomId,
      supplierName: before.supplierName,
    });
  }
  return { receipts, next, gone };
}

/**
 * `version`: how many receipts of the purchase were reported before this one (PurchaseReceipts), in the id, so a
 * balance that falls to a value it fell to before, or a purchase that leaves the pending list again, is another event.
 * The first keeps the id it had before versions existed (no `v0`): an event detected, or sent, under that id by a
 * replica of the older version during a rolling upgrade is the same event, never posted twice.
 */
export function receiptEvent(
  workspaceId: string,
  seen: ReceiptSeen,
  requestIds: number[],
  detectedAt: number,
  requesterEmails: string[] = [],
  version = 0,
): ReceiptEvent {
  const transition = seen.complete ? 'done' : String(seen.balanceAfter);
  return {
    id: `${workspaceId}:recebimentos:${seen.purchaseId}:${version === 0 ? '' : `v${version}:`}${transition}`,
    kind: 'recebimentos',
    workspaceId,
    detectedAt,
    stockroomId: seen.stockroomId,
    purchaseId: seen.purchaseId,
    supplierName: seen.supplierName,
    complete: seen.complete,
    requestIds,
    requesterEmails,
  };
}

/**
 * The pending receivable balance of a purchase of the pending list. The record is undocumented past its id: the
 * fields looked for are the ones the service's own names suggest (and the sandbox serves). Null when none is there:
 * then only leaving the list is a receipt.
 */
export function pendingBalanceOf(row: PurchaseOrder): number | null {
  const record = row as Record<string, unknown>;
  for (const field of ['quantidadePendente', 'quantidadeSaldoReceber', 'saldoReceber', 'saldo']) {
    const value = record[field];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
  }
  const bought = record.quantidadeComprada;
  const received = record.quantidadeRecebida;
  if (typeof bought === 'number' && typeof received === 'number') return bought - received;
  return null;
}

function supplierNameOf(row: PurchaseOrder): string | null {
  const name = (row as Record<string, unknown>).fornecedor_Nome;
  return typeof name === 'string' && name.trim() !== '' ? name.trim() : null;
}
