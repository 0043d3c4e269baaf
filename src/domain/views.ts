import type { WorkspaceLink } from '../store/link-store.js';
import type { LastKnownStock } from '../store/stock-store.js';
import type { Page } from '../upstream/client.js';
import type {
  GoodsReceipt,
  HistoryEntry,
  Material,
  MaterialRequest,
  PurchaseOrder,
  RequestItem,
  Stockroom,
} from '../upstream/schemas.js';
import type { LocalDate } from './dates.js';

/**
 * What the domain services hand to the renderers: plain data, no Slack, no HTTP. Every answer says how fresh
 * its data is, so a message can tell the user it comes from cache and how old it is.
 */

export interface Freshness {
  /** Epoch ms when the data was read from upstream. */
  fetchedAt: number;
  /** Served from the cache. */
  fromCache: boolean;
  /** Served from the cache only because upstream could not be asked (budget spent, upstream down). */
  degraded: 'budget' | 'upstream' | null;
  /** With `degraded: 'budget'`, when the budget is expected to have room again (epoch ms), when known. */
  retryAt?: number;
}

export interface Answer<T> {
  data: T;
  freshness: Freshness;
}

export interface CatalogEntry {
  id: number;
  name: string | null;
}

export interface MaterialMatch {
  material: Material;
  typeName: string | null;
  categoryName: string | null;
  /**
   * The last known balance that answers (never a live figure): with `almox:N` (`stockroomAsked`), stockroom N's,
   * null when none of N is known; without, the newest of any stockroom (one whose stockroom is not known says
   * nothing of one).
   */
  lastKnown: LastKnownStock | null;
  /**
   * The material's other balances that stand, newest first: without `almox:`, each other stockroom's; with
   * `almox:N` and none of N known, the newest of another stockroom (shown as that stockroom's, never as N's).
   */
  otherStock?: LastKnownStock[];
  /** The `almox:` asked, when one was. */
  stockroomAsked?: number | null;
  /** Names of stockrooms from the saved stockroom list (no call): a stockroom not there shows its number. */
  stockroomNames?: ReadonlyMap<number, string>;
  /** The name the bot last saw for it elsewhere (request items), for a material listed without one. */
  knownName: string | null;
}

export interface MaterialSearchView {
  text: string;
  stockroomId: number | null;
  /**
   * With `almox:`, what the stockroom list says of it: `active` (listed), `inactive` (a list was read and it is
   * not there: nothing searched, no call), `unchecked` (the list could not be read, or came empty). Absent: active.
   */
  stockroomState?: 'active' | 'inactive' | 'unchecked';
  /** The `almox:` stockroom's name, from the stockroom list. */
  stockroomName?: string | null;
  /** All matches; the renderer shows one page of them. */
  matches: MaterialMatch[];
  page: number;
}

export interface RequestHeader {
  stockroomName: string | null;
  requesterName: string | null;
  statusName: string | null;
  status: number | null;
  /** ISO date-time of the first history entry, when known. */
  openedAt: string | null;
  lastChangeAt: string | null;
}

export interface RequestDetailView {
  id: number;
  header: RequestHeader | null;
  items: RequestItem[];
  /** Last known names of the materials of items that arrived without one (material id -> name). */
  knownNames: ReadonlyMap<number, string>;
  /** Page of the items shown (items are paged by the renderer). */
  page: number;
}

export interface RequestHistoryView {
  id: number;
  history: Page<HistoryEntry>;
}

export interface RequestFiltersView {
  stockroomId?: number;
  status?: number[];
  purchaseId?: number;
  from?: LocalDate;
  to?: LocalDate;
  text?: string;
}

export interface RequestListView {
  filters: RequestFiltersView;
  /** Set for `/solicitacao minhas`: whose requests these are. */
  mine: { upstreamUserName: string | null } | null;
  /** True when the default period (last 30 days) was applied. */
  defaultPeriod: boolean;
  list: Page<MaterialRequest>;
}

/** The company and unit the workspace is linked to, as an answer names them. */
export type LinkedCompany = Pick<WorkspaceLink, 'empresaId' | 'unidadeId'>;

/**
 * `/estoque almoxarifados`. An empty list is no plain "none": the API answers one, not an error, where the link's
 * company or unit does not hold for its login, or the login lost access (upstream-api.md), so the answer names the
 * company linked.
 */
export interface StockroomsView {
  stockrooms: Stockroom[];
  company: LinkedCompany;
}

/** A stockroom whose pending purchases could not be read, and why (what the reader may do about it differs). */
export interface UnreadStockroom {
  stockroom: Pick<Stockroom, 'almoxarifado' | 'nome'>;
  /**
   * `forbidden`: a 403, the login may not read it (no wait mends it); `refused`: another refusal no retry mends (a
   * 4xx, an answer of the wrong shape or size); `later`: the budget, a 429, a 5xx, a timeout, nothing saved yet.
   */
  reason: 'forbidden' | 'refused' | 'later';
}

export interface PendingPurchasesGroup {
  stockroom: Pick<Stockroom, 'almoxarifado' | 'nome'>;
  purchases: PurchaseOrder[];
}

export interface PendingPurchasesView {
  stockroomId: number | null;
  groups: PendingPurchasesGroup[];
  page: number;
  /**
   * Stockrooms whose pending purchases could not be read (the budget, an upstream failure, a refusal) and are
   * missing from `groups`, in the list's order; only when every stockroom is asked, and never all of them (that is
   * the answer's failure) but in the digest. Until 2026-11-27 only their count, and every cause read as "later".
   */
  unread?: UnreadStockroom[];
  /**
   * Every stockroom was to be asked and the list of them came back empty: the company linked shows none (see
   * StockroomsView), which is said, never "no purchase pending".
   */
  noActiveStockrooms?: LinkedCompany;
  /**
   * The one stockroom asked is not in the saved list of active ones (its purchases are read all the same); said
   * beside the answer. Until 2026-11-27 nothing said it, and an unknown number read as a stockroom with nothing pending.
   */
  stockroomNotActive?: true;
}

export interface PurchaseFiltersView {
  stockroomId?: number;
  status?: number[];
  supplierId?: number;
  from?: LocalDate;
  to?: LocalDate;
  text?: string;
}

export interface PurchaseListView {
  filters: PurchaseFiltersView;
  list: Page<PurchaseOrder>;
  /** An empty first page filtered by a stockroom the saved active list does not hold (PendingPurchasesView's). */
  stockroomNotActive?: true;
}

export interface PurchaseRequestsView {
  purchaseId: number;
  requests: MaterialRequest[];
  page: number;
}

export interface ReceiptFiltersView {
  stockroomId?: number;
  purchaseId?: number;
  from?: LocalDate;
  to?: LocalDate;
}

export interface ReceiptListView {
  filters: ReceiptFiltersView;
  list: Page<GoodsReceipt>;
  /** An empty first page filtered by a stockroom the saved active list does not hold (PendingPurchasesView's). */
  stockroomNotActive?: true;
}

export interface LinkStatusView {
  linked: boolean;
  broken: boolean;
  /**
   * A broken link's automatic checks (LinkHealer): when the next is due, or why none is to come (`password`: the
   * issuer refused the password as wrong; `ended`: the checks' week is over). Null when not broken.
   */
  checks: { nextAt: number } | { nextAt: null; ended: 'password' | 'ended' } | null;
  linkedBy: string | null;
  linkedAt: number | null;
  login: string | null;
  empresaId: number | null;
  unidadeId: number | null;
  tokenExpiresAt: number | null;
  refreshExpiresAt: number | null;
  budget: {
    limit: number;
    windowMs: number;
    used: number;
    remaining: number;
    pausedUntil: number | null;
  } | null;
  cache: { hits: number; misses: number } | null;
  /** The change feed: its interval in force and its calls in the current window against its share. */
  feed: {
    listening: boolean;
    intervalMs: number;
    /** Why the interval is longer than FEED_INTERVAL (FeedStatus.stretchedBy). */
    stretchedBy: 'share' | 'load' | null;
    used: number;
    cap: number;
    /** Commands were refused a slot within the last window: the feed keeps to FEED_BUDGET_SHARE_SATURATED. */
    saturated: boolean;
    /** The cap outside saturation: 0 when FEED_BUDGET_SHARE is 0 (a cap of 0 with this above: the saturated share). */
    shareCap: number;
  } | null;
}
