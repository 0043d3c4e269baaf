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
  lastKnown: LastKnownStock | null;
  /** The name the bot last saw for it elsewhere (request items), for a material listed without one. */
  knownName: string | null;
}

export interface MaterialSearchView {
  text: string;
  stockroomId: number | null;
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

export interface PendingPurchasesGroup {
  stockroom: Pick<Stockroom, 'almoxarifado' | 'nome'>;
  purchases: PurchaseOrder[];
}

export interface PendingPurchasesView {
  stockroomId: number | null;
  groups: PendingPurchasesGroup[];
  page: number;
  /**
   * Stockrooms whose pending purchases could not be read now (the budget, an upstream failure) and are missing
   * from `groups`; only when every stockroom is asked, and never all of them (that is the answer's failure).
   */
  unread?: number;
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
}

export interface LinkStatusView {
  linked: boolean;
  broken: boolean;
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
