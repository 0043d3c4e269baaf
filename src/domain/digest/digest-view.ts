import type { LastKnownStock } from '../../store/stock-store.js';
import type { MaterialRequest, PurchaseOrder, Stockroom } from '../../upstream/schemas.js';
import type { LocalDate } from '../dates.js';
import type { Freshness, LinkedCompany, UnreadStockroom } from '../views.js';

/** What one digest shows, for one workspace and stockroom filter, built once and rendered for each channel. */
export interface DigestView {
  workspaceId: string;
  stockroomId: number | null;
  /** Name of the filtered stockroom, when known. */
  stockroomName: string | null;
  /** New requests are those opened at or after this instant. */
  since: number;
  /** The instant the data covers up to: the next digest starts from here. */
  coveredUntil: number;
  opened: OpenedSection;
  inProgress: InProgressSection;
  pending: PendingSection;
  belowMinimum: BelowMinimumSection;
  /** As fresh as its oldest part; degraded when a part came from the cache because upstream could not be asked. */
  freshness: Freshness;
}

export interface OpenedSection {
  total: number;
  /**
   * True when the service's total was not believed and its first page came full (Page.totalUnknown): `total` is a
   * lower bound, the rows read.
   */
  atLeast?: boolean;
  /** The newest ones (at most the top rows shown). */
  rows: MaterialRequest[];
  /** The local day `since` falls on: the "see all" button lists requests from it. */
  fromDay: LocalDate;
}

export interface StatusCount {
  status: number | null;
  name: string | null;
  count: number;
}

export interface InProgressSection {
  /** Requests of the period whose status does not look closed. */
  total: number;
  /** By count, highest first. */
  statuses: StatusCount[];
  /** The period counted: requests opened from this day on (the last 30 days). */
  fromDay: LocalDate;
  /** False when the period held more rows than the digest reads: the counts are a lower bound. */
  complete: boolean;
}

export interface PendingRow {
  purchase: PurchaseOrder;
  stockroom: Pick<Stockroom, 'almoxarifado' | 'nome'>;
}

export interface PendingSection {
  total: number;
  /** Stockrooms with at least one such purchase. */
  stockrooms: number;
  rows: PendingRow[];
  /** Stockrooms that could not be read, and why: their purchases are not counted (PendingPurchasesView.unread). */
  unread?: UnreadStockroom[];
  /** The stockroom list came back empty: no stockroom was read (PendingPurchasesView.noActiveStockrooms). */
  noActiveStockrooms?: LinkedCompany;
}

export interface BelowMinimumRow {
  /** One stockroom's balance (null stockroomId: not known, in a digest of every stockroom). */
  stock: LastKnownStock;
  name: string | null;
  /** Its stockroom's name, when the digest read it; the number shows otherwise. */
  stockroomName?: string | null;
}

export interface BelowMinimumSection {
  /** Balances below their minimum: in a digest of every stockroom, a material's in each stockroom counts. */
  total: number;
  /** The materials they are of (`total` when absent). */
  materials?: number;
  /** Lowest stock relative to its minimum first. */
  rows: BelowMinimumRow[];
  /** Item lists of new requests read by this digest, and how many new requests there were to read. */
  itemListsRead: number;
  newRequests: number;
}

/** Nothing new, nothing open, nothing to receive, nothing short: the digest is one short line. */
export function isEmptyDigest(view: DigestView): boolean {
  return (
    view.opened.total === 0 &&
    view.inProgress.total === 0 &&
    view.pending.total === 0 &&
    // An empty stockroom list is news (the link's company or access is wrong), and stockrooms that could not be read
    // leave nothing to say "nada a relatar" of: both are said (until 2026-11-27 such a digest was "nada a relatar").
    view.pending.noActiveStockrooms === undefined &&
    (view.pending.unread?.length ?? 0) === 0 &&
    view.belowMinimum.total === 0
  );
}
