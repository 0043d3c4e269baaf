import { errFields } from '../../lib/logger.js';
import { definedOnly } from '../../lib/objects.js';
import { fold } from '../../lib/text.js';
import { type LastKnownStock, type MaterialScope, standingBalances } from '../../store/stock-store.js';
import { isLastingRefusal, isTransient } from '../../upstream/budget-errors.js';
import { fetchAllPages, type Page } from '../../upstream/client.js';
import { UpstreamNotFoundError } from '../../upstream/errors.js';
import type { MaterialRequest, RequestItem } from '../../upstream/schemas.js';
import { localDateDaysAgo } from '../dates.js';
import type { DomainDeps } from '../deps.js';
import { oldest, type PurchaseService } from '../purchases/purchase-service.js';
import type { RequestService } from '../requests/request-service.js';
import type { Answer, Freshness, PendingPurchasesView } from '../views.js';
import { materialScope, type WorkspaceContext } from '../workspace.js';
import type {
  BelowMinimumSection,
  DigestView,
  InProgressSection,
  OpenedSection,
  PendingSection,
  StatusCount,
} from './digest-view.js';
import type { DigestMaterialNotes } from './material-notes.js';
import { upstreamWallTime, wallTimeOf } from './schedule.js';

/** Rows each part of a digest shows. */
export const DIGEST_TOP_ROWS = 5;
/** Item lists of new requests a digest reads, at most (one call each), to refresh the last known stock. */
export const DIGEST_MAX_ITEM_READS = 10;
/**
 * Pages of new requests: page 1's totalRows is the count (the rows carry no date). The list's order is not
 * documented, so the page is as large as a list page goes, and past it the last page is read too: the newest are
 * shown whatever order the service lists them in (a page of 10 from a service that lists oldest first held the 10
 * oldest).
 */
const OPENED_PAGE_SIZE = 100;
const IN_PROGRESS_DAYS = 30;
const IN_PROGRESS_MAX_PAGES = 3;
/** A digest never reports "new" requests from further back than this (a subscription paused for months). */
const MAX_SINCE_AGE_MS = 30 * 86_400_000;

export interface DigestQuery {
  workspaceId: string;
  stockroomId: number | null;
  /** Report requests opened from this instant on (the previous digest's `coveredUntil`). */
  since: number;
  correlationId?: string;
}

/**
 * The upstream does not document what its request statuses mean, so "open" is read from the status name: a
 * request is taken as closed when its folded name says attended or delivered (but not partially), cancelled,
 * concluded, finished, closed (encerrada, fechada, baixada, arquivada), refused or rejected, or when the row says
 * it was concluded with caveats. Anything else, an unknown
 * or missing name included, counts as still in progress: a digest should rather show one request too many than
 * hide one that waits.
 */
export function looksClosed(
  request: Pick<MaterialRequest, 'statusAndamentoSolicitacao_Nome' | 'concluidoComRessalvas'>,
): boolean {
  if (request.concluidoComRessalvas) return true;
  const name = fold(request.statusAndamentoSolicitacao_Nome ?? '');
  if (/cancelad|conclu|finaliz|recusad|rejeitad|encerrad|fechad|baixad|arquivad/.test(name)) return true;
  // "Não entregue", "A ser atendida", "Aguardando entrega" wait still.
  return /atendid|entregue/.test(name) && !/parcial|\bnao\b|\ba ser\b|aguard/.test(name);
}

/**
 * Requests newest first: the request list's order is not documented (upstream-api.md orders only the history) and
 * its rows carry no date, so the number, which grows as requests are opened, stands for it.
 */
export function newestFirst<T extends Pick<MaterialRequest, 'solicitacaoMaterialId'>>(
  rows: readonly T[],
): T[] {
  return [...rows].sort((a, b) => b.solicitacaoMaterialId - a.solicitacaoMaterialId);
}

/**
 * The name of a digest's one stockroom (`almox:`), read at no cost: from the saved stockroom list, as the pending
 * purchases found it, else from a new request of that stockroom (its rows carry `almoxarifado_Nome`); null when
 * neither has it (the digest shows the number).
 */
function stockroomNameOf(
  stockroomId: number,
  pending: PendingPurchasesView,
  opened: readonly MaterialRequest[],
): string | null {
  const names = [
    pending.groups.find((group) => group.stockroom.almoxarifado === stockroomId)?.stockroom.nome,
    ...opened.filter((row) => row.almoxarifado === stockroomId).map((row) => row.almoxarifado_Nome),
  ];
  return names.map((name) => name?.trim() ?? '').find((name) => name !== '') ?? null;
}

/**
 * The names of stockrooms this digest read at no extra cost: the stockroom list the pending purchases read (every
 * active stockroom, in a digest of every stockroom), else the rows of requests (`almoxarifado_Nome`).
 */
function stockroomNamesOf(
  pending: PendingPurchasesView,
  requests: readonly MaterialRequest[],
): Map<number, string> {
  const names = new Map<number, string>();
  for (const row of requests) {
    const name = row.almoxarifado_Nome?.trim();
    if (name) names.set(row.almoxarifado, name);
  }
  for (const { stockroom } of pending.groups) {
    const name = stockroom.nome?.trim();
    if (name) names.set(stockroom.almoxarifado, name);
  }
  return names;
}

/**
 * Builds a digest from the same services and cache the commands use, every call at the 'digest' priority of
 * the shared budget (`Workspaces.resolve(ws, 'digest')`). Cost with a cold cache, in upstream calls:
 * stockrooms 1 (none for one stockroom, `almox:`: its name comes from saved data, or its number shows), new requests 1
 * (a page of 100; 2 past 100), requests of the last 30 days 1 (up to 3 past 100 rows), purchases to receive 1 per
 * stockroom asked, item lists 1 per new request up to DIGEST_MAX_ITEM_READS; plus a token call when the
 * token must be renewed. Every part is cached, so channels and ticks that ask the same thing share it.
 */
export class DigestService {
  private readonly maxItemReads: number;

  constructor(
    private readonly deps: DomainDeps,
    private readonly services: { requests: RequestService; purchases: PurchaseService },
    /** What the digest noted of materials' stockrooms until 2026-11-27: read for entries kept before then. */
    private readonly legacyNotes: DigestMaterialNotes,
    options: { maxItemReads?: number } = {},
  ) {
    this.maxItemReads = options.maxItemReads ?? DIGEST_MAX_ITEM_READS;
  }

  /** The instant a digest for `since` really covers from: at most 30 days back, never in the future. */
  effectiveSince(since: number): number {
    const now = this.deps.now();
    return Math.min(now, Math.max(since, now - MAX_SINCE_AGE_MS));
  }

  /** Digests with the same key are the same digest: build once, post to every channel of the group. */
  groupKey(query: Pick<DigestQuery, 'workspaceId' | 'stockroomId' | 'since'>): string {
    const since = upstreamWallTime(this.effectiveSince(query.since), this.deps.timeZone);
    return JSON.stringify([query.workspaceId, query.stockroomId, since]);
  }

  async build(query: DigestQuery): Promise<DigestView> {
    const since = this.effectiveSince(query.since);
    const ws = await this.deps.workspaces.resolve(query.workspaceId, 'digest', query.correlationId);
    const [opened, { answer: inProgress, rows: recentRows }, pending] = await Promise.all([
      this.openedSince(ws, query.stockroomId, since),
      this.inProgress(ws, query.stockroomId),
      // A stockroom whose pending purchases cannot be read now is counted, not the digest's failure.
      this.services.purchases.pending(ws, query.stockroomId, 1, undefined, { partial: true }),
    ]);
    // The document gives the list no order: the newest (highest numbers) first, whatever order the page came in.
    const openedRows = newestFirst(opened.data.rows);
    const itemListsRead = await this.readNewItems(ws, openedRows);
    const belowMinimum = await this.belowMinimum(
      materialScope(ws),
      query.stockroomId,
      [...openedRows, ...recentRows],
      stockroomNamesOf(pending.data, [...openedRows, ...recentRows]),
    );

    const pendingRows = pending.data.groups.flatMap((group) =>
      group.purchases.map((purchase) => ({ purchase, stockroom: group.stockroom })),
    );
    const pendingSection: PendingSection = {
      unread: pending.data.unread ?? [],
      ...(pending.data.noActiveStockrooms && { noActiveStockrooms: pending.data.noActiveStockrooms }),
      total: pendingRows.length,
      stockrooms: pending.data.groups.filter((group) => group.purchases.length > 0).length,
      rows: pendingRows.slice(0, DIGEST_TOP_ROWS),
    };
    const wall = wallTimeOf(since, this.deps.timeZone);
    const openedSection: OpenedSection = {
      total: opened.data.totalRows,
      ...(opened.data.totalUnknown && { atLeast: true }),
      rows: openedRows.slice(0, DIGEST_TOP_ROWS),
      fromDay: { year: wall.year, month: wall.month, day: wall.day },
    };
    return {
      workspaceId: query.workspaceId,
      stockroomId: query.stockroomId,
      stockroomName:
        query.stockroomId === null ? null : stockroomNameOf(query.stockroomId, pending.data, openedRows),
      since,
      coveredUntil: Math.max(since, opened.freshness.fetchedAt),
      opened: openedSection,
      inProgress: inProgress.data,
      pending: pendingSection,
      belowMinimum: { ...belowMinimum, itemListsRead, newRequests: opened.data.totalRows },
      freshness: oldest([opened.freshness, inProgress.freshness, pending.freshness]),
    };
  }

  /**
   * The requests opened since `since`: page 1 (of 100), and with more than a page the last page too, so that the
   * newest are among the rows whichever end the service lists from (the list's order is not documented). A last
   * page that cannot be read now leaves page 1 alone.
   */
  private async openedSince(
    ws: WorkspaceContext,
    stockroomId: number | null,
    since: number,
  ): Promise<Answer<Page<MaterialRequest>>> {
    const read = (page: number) => {
      const query = definedOnly({
        almoxarifadoId: stockroomId ?? undefined,
        dataInicial: upstreamWallTime(since, this.deps.timeZone),
        page,
        pageSize: OPENED_PAGE_SIZE,
      });
      return this.deps.reader.read(ws, 'requestList', query, (call) =>
        this.deps.client.listRequests(call, query),
      );
    };
    const first = await read(1);
    // A total not believed (Page.totalUnknown) names no last page: page 1 alone, its count a lower bound.
    if (first.data.totalPages <= 1 || first.data.totalUnknown) return first;
    const last = await read(first.data.totalPages).catch((error: unknown) => {
      this.deps.logger.warn(errFields(error), 'digest: last page of new requests not read; page 1 alone');
      return null;
    });
    if (!last) return first;
    const onFirst = new Set(first.data.rows.map((row) => row.solicitacaoMaterialId));
    return {
      data: {
        ...first.data,
        rows: [
          ...first.data.rows,
          ...last.data.rows.filter((row) => !onFirst.has(row.solicitacaoMaterialId)),
        ],
      },
      freshness: oldest([first.freshness, last.freshness]),
    };
  }

  /** The open requests of the last 30 days by status, and the rows read (each names its request's stockroom). */
  private async inProgress(
    ws: WorkspaceContext,
    stockroomId: number | null,
  ): Promise<{ answer: Answer<InProgressSection>; rows: MaterialRequest[] }> {
    const fromDay = localDateDaysAgo(this.deps.now(), this.deps.timeZone, IN_PROGRESS_DAYS);
    const freshness: Freshness[] = [];
    // Pages of different ages (each its own cache entry) can both hold a request the list moved: counted once.
    const all = await fetchAllPages(
      async (page) => {
        // The same pages as the change feed's rounds read: one cache entry each, shared.
        const answer = await this.services.requests.recentPage(ws, stockroomId, page);
        freshness.push(answer.freshness);
        return answer.data;
      },
      IN_PROGRESS_MAX_PAGES,
      (request) => request.solicitacaoMaterialId,
    );
    const counts = new Map<string, StatusCount>();
    for (const request of all.rows) {
      if (looksClosed(request)) continue;
      const status = request.statusAndamentoSolicitacao ?? null;
      const name = request.statusAndamentoSolicitacao_Nome?.trim() || null;
      const key = `${status ?? ''}|${name ?? ''}`;
      const entry = counts.get(key) ?? { status, name, count: 0 };
      entry.count += 1;
      counts.set(key, entry);
    }
    const statuses = [...counts.values()].sort(
      (a, b) =>
        b.count - a.count || (a.status ?? Number.MAX_SAFE_INTEGER) - (b.status ?? Number.MAX_SAFE_INTEGER),
    );
    return {
      answer: {
        data: {
          total: statuses.reduce((sum, entry) => sum + entry.count, 0),
          statuses,
          fromDay,
          complete: all.complete,
        },
        freshness: oldest(freshness),
      },
      rows: all.rows,
    };
  }

  /**
   * Reads the items of the newest new requests (one call each, cached and shared with `/solicitacao`), which
   * records the stock they show with the request's stockroom (its list row names it; items from the cache, read
   * by someone who did not know it, are placed there). A spent budget or a transient upstream failure ends the
   * reading, a lasting refusal skips that request; neither fails the digest: the stock already known still shows.
   * Returns how many item lists were read.
   */
  private async readNewItems(ws: WorkspaceContext, requests: MaterialRequest[]): Promise<number> {
    let read = 0;
    for (const request of requests.slice(0, this.maxItemReads)) {
      const id = request.solicitacaoMaterialId;
      try {
        const items = await this.deps.reader.read(ws, 'requestItems', { id }, async (call) => {
          const rows: RequestItem[] = await this.deps.client.listRequestItems(call, id);
          await this.services.requests.recordStock(ws, rows, request.almoxarifado);
          return rows;
        });
        if (items.freshness.fromCache)
          await this.services.requests
            .placeStock(ws, items.data, request.almoxarifado)
            .catch((error: unknown) => this.deps.logger.warn(errFields(error), 'stock not placed'));
        read += 1;
      } catch (error) {
        if (error instanceof UpstreamNotFoundError) continue;
        // Refused for good (a 403 for a link limited to a unit, a record of the wrong shape): this request's
        // stock stays unknown, the others are read. Rethrown, it failed the digest every tick of the day, and
        // the next day again while the request stayed among the newest.
        if (isLastingRefusal(error)) {
          this.deps.logger.warn(
            { workspaceId: ws.workspaceId, requestId: id, ...errFields(error) },
            'digest skipped the items of a request upstream refuses',
          );
          continue;
        }
        if (isTransient(error)) {
          this.deps.logger.warn(
            { workspaceId: ws.workspaceId, requestId: id, ...errFields(error) },
            'digest stopped reading request items',
          );
          break;
        }
        throw error;
      }
    }
    return read;
  }

  /**
   * The last known balances below their minimum (StockStore keeps one per material and stockroom): with `almox:`,
   * that stockroom's; for every stockroom, each stockroom's, named (`stockroomNames`, else its number). A
   * balance's stockroom is the one recorded with it, else the one `requests` (the list rows this digest read) give
   * its request, which is then recorded too (StockStore.place); one kept before stockrooms were (2026-11-27) falls
   * back on the stockroom the digest noted for its material then. A balance whose stockroom stays unknown counts
   * only while it is its material's newest (standingBalances), and only in a digest of every stockroom. Until
   * 2026-11-27 one balance per material was kept, the newest of any stockroom: a material below its minimum in one
   * stockroom and then seen above it in another was in neither digest.
   */
  private async belowMinimum(
    scope: MaterialScope,
    stockroomId: number | null,
    requests: readonly MaterialRequest[],
    stockroomNames: ReadonlyMap<number, string>,
  ): Promise<Pick<BelowMinimumSection, 'total' | 'materials' | 'rows'>> {
    const [balances, legacyNotes, names] = await Promise.all([
      this.deps.stock.balances(scope),
      this.legacyNotes.all(scope),
      this.deps.stock.names(scope),
    ]);
    const requestStockroom = new Map(requests.map((row) => [row.solicitacaoMaterialId, row.almoxarifado]));
    const placements = [...balances.values()]
      .flat()
      .filter((entry) => typeof entry.stockroomId !== 'number' && requestStockroom.has(entry.requestId));
    await this.deps.stock
      .place(scope, placements, (requestId) => requestStockroom.get(requestId) ?? null)
      .catch((error: unknown) => this.deps.logger.warn(errFields(error), 'stock not placed'));
    const stockroomOf = (entry: LastKnownStock): number | null | undefined =>
      typeof entry.stockroomId === 'number'
        ? entry.stockroomId
        : (requestStockroom.get(entry.requestId) ??
          (entry.stockroomId === undefined
            ? legacyNotes.get(entry.materialId)?.stockroomId
            : entry.stockroomId));
    const rows = [...balances.values()]
      .flatMap((kept) =>
        standingBalances(kept.map((entry) => ({ ...entry, stockroomId: stockroomOf(entry) ?? null }))),
      )
      .filter((entry) => entry.minimum !== null && entry.current < entry.minimum)
      .filter((entry) => stockroomId === null || entry.stockroomId === stockroomId)
      .map((entry) => ({
        stock: entry,
        name: names.get(entry.materialId) ?? null,
        stockroomName:
          typeof entry.stockroomId === 'number' ? (stockroomNames.get(entry.stockroomId) ?? null) : null,
      }))
      .sort(
        (a, b) =>
          shortfall(a.stock) - shortfall(b.stock) ||
          a.stock.materialId - b.stock.materialId ||
          (a.stock.stockroomId ?? 0) - (b.stock.stockroomId ?? 0),
      );
    return {
      total: rows.length,
      materials: new Set(rows.map((row) => row.stock.materialId)).size,
      rows: rows.slice(0, DIGEST_TOP_ROWS),
    };
  }
}

/** Stock relative to its minimum: -1 when empty, near 0 when just below. */
function shortfall(entry: { current: number; minimum: number | null }): number {
  const minimum = entry.minimum ?? 0;
  return (entry.current - minimum) / Math.max(Math.abs(minimum), 1);
}
