import { definedOnly } from '../../lib/objects.js';
import { isLastingRefusal, isTransient } from '../../upstream/budget-errors.js';
import type { Page } from '../../upstream/client.js';
import { UpstreamForbiddenError } from '../../upstream/errors.js';
import type { PurchaseOrder, Stockroom } from '../../upstream/schemas.js';
import { NoSavedDataError, type ReadOptions } from '../cached-reader.js';
import { endOfLocalDay, startOfLocalDay } from '../dates.js';
import type { DomainDeps } from '../deps.js';
import { LIST_PAGE_SIZE, notFoundAs } from '../requests/request-service.js';
import type { CatalogService } from '../stock/catalog-service.js';
import type {
  Answer,
  Freshness,
  PendingPurchasesGroup,
  PendingPurchasesView,
  PurchaseFiltersView,
  PurchaseListView,
  PurchaseRequestsView,
  ReceiptFiltersView,
  ReceiptListView,
  UnreadStockroom,
} from '../views.js';
import { linkedCompany, type WorkspaceContext } from '../workspace.js';

export class PurchaseService {
  constructor(
    private readonly deps: DomainDeps,
    private readonly catalog: CatalogService,
  ) {}

  /**
   * Purchases with a pending receivable balance. The endpoint answers per stockroom, so without a stockroom
   * every active one is asked (each answer cached on its own). `partial` (the digest's): a stockroom that cannot be
   * read now is left out and named even when it is the one asked or every one failed, so that this section never
   * keeps the rest of a digest from being posted. An empty stockroom list is said as such (noActiveStockrooms):
   * the company linked shows none, which is no "nothing pending".
   */
  async pending(
    ws: WorkspaceContext,
    stockroomId: number | null,
    page: number,
    options?: ReadOptions,
    { partial = false }: { partial?: boolean } = {},
  ): Promise<Answer<PendingPurchasesView>> {
    // Every stockroom is asked from the list of them; one named stockroom needs the list for its name only, taken
    // from saved data: neither a call nor a failure of the list ever stands in the way of its purchases.
    const stockrooms = stockroomId === null ? await this.catalog.stockrooms(ws) : null;
    if (stockrooms !== null && stockrooms.data.length === 0) {
      return {
        data: { stockroomId, groups: [], page, noActiveStockrooms: linkedCompany(ws) },
        freshness: stockrooms.freshness,
      };
    }
    const named = stockroomId === null ? null : await this.savedStockroom(ws, stockroomId);
    const targets: Pick<Stockroom, 'almoxarifado' | 'nome'>[] =
      named === null ? (stockrooms?.data ?? []) : [named.stockroom];
    const settled = await Promise.allSettled(
      targets.map((stockroom) => this.pendingOf(ws, stockroom.almoxarifado, options)),
    );
    // Every stockroom is asked: one that cannot be read (a spent budget, an upstream failure, a refusal such as a
    // 403) is left out and named with why, so that many stockrooms never make the whole answer (and the digest)
    // fail. Anything else (a broken link) and a failure of every read are the answer's failure, as for one stockroom.
    const answers: (Answer<PurchaseOrder[]> | null)[] = [];
    const unread: UnreadStockroom[] = [];
    let firstFailure: unknown = null;
    for (const [index, outcome] of settled.entries()) {
      if (outcome.status === 'fulfilled') {
        answers.push(outcome.value);
        continue;
      }
      if ((stockroomId !== null && !partial) || !leavesTheRest(outcome.reason)) throw outcome.reason;
      firstFailure ??= outcome.reason;
      answers.push(null);
      const stockroom = targets[index];
      if (stockroom) {
        const { almoxarifado, nome } = stockroom;
        unread.push({ stockroom: { almoxarifado, nome }, reason: unreadReason(outcome.reason) });
      }
    }
    const read = answers.filter((answer): answer is Answer<PurchaseOrder[]> => answer !== null);
    if (firstFailure !== null && read.length === 0 && !partial) throw firstFailure;
    const groups: PendingPurchasesGroup[] = targets
      .map((stockroom, index) => ({ stockroom, purchases: answers[index]?.data ?? [] }))
      .filter((group) => group.purchases.length > 0 || stockroomId !== null);
    return {
      data: {
        stockroomId,
        groups,
        page,
        unread,
        ...(named?.notActive && { stockroomNotActive: true as const }),
      },
      freshness: oldest([...(stockrooms ? [stockrooms.freshness] : []), ...read.map((a) => a.freshness)]),
    };
  }

  /** A stockroom with its name when the saved list has it, else nameless (the answer shows its number). */
  /**
   * The stockroom asked, named from the saved list (no call); `notActive` when a saved, non-empty list does not hold
   * it (an empty list proves nothing: the company context may not hold, see StockroomsView). Its purchases are read
   * all the same: a stockroom no longer active may still await goods.
   */
  private async savedStockroom(
    ws: WorkspaceContext,
    stockroomId: number,
  ): Promise<{ stockroom: Pick<Stockroom, 'almoxarifado' | 'nome'>; notActive: boolean }> {
    const saved = await this.catalog.stockrooms(ws, { savedOnly: true }).catch(() => null);
    const found = saved?.data.find((s) => s.almoxarifado === stockroomId);
    return {
      stockroom: found ?? { almoxarifado: stockroomId, nome: null },
      notActive: found === undefined && (saved?.data.length ?? 0) > 0,
    };
  }

  pendingOf(
    ws: WorkspaceContext,
    stockroomId: number,
    options?: ReadOptions,
  ): Promise<Answer<PurchaseOrder[]>> {
    return this.deps.reader.read(
      ws,
      'pendingPurchases',
      { stockroomId },
      (call) => this.deps.client.listPendingPurchases(call, stockroomId),
      options,
    );
  }

  async list(
    ws: WorkspaceContext,
    filters: PurchaseFiltersView,
    page: number,
    options?: ReadOptions,
  ): Promise<Answer<PurchaseListView>> {
    const query = {
      almoxarifadoId: filters.stockroomId,
      fornecedorId: filters.supplierId,
      status: filters.status,
      dataInicial: filters.from && startOfLocalDay(filters.from),
      dataFinal: filters.to && endOfLocalDay(filters.to),
      search: filters.text,
      page,
      pageSize: LIST_PAGE_SIZE,
    };
    const list = await this.deps.reader.read(
      ws,
      'purchaseList',
      query,
      (call) => this.deps.client.listPurchases(call, definedOnly(query)),
      options,
    );
    return {
      data: { filters, list: list.data, ...(await this.notActiveNote(ws, filters.stockroomId, list.data)) },
      freshness: list.freshness,
    };
  }

  async linkedRequests(
    ws: WorkspaceContext,
    purchaseId: number,
    page: number,
    options?: ReadOptions,
  ): Promise<Answer<PurchaseRequestsView>> {
    const requests = await this.deps.reader.read(
      ws,
      'purchaseRequests',
      { purchaseId },
      (call) =>
        this.deps.client.listPurchaseRequests(call, purchaseId).catch(notFoundAs('purchase', purchaseId)),
      options,
    );
    return { data: { purchaseId, requests: requests.data, page }, freshness: requests.freshness };
  }

  /** Receipts; the date filter is the purchase's date (documented), and the renderer says so. */
  async receipts(
    ws: WorkspaceContext,
    filters: ReceiptFiltersView,
    page: number,
    options?: ReadOptions,
  ): Promise<Answer<ReceiptListView>> {
    const query = {
      almoxarifadoId: filters.stockroomId,
      ordemCompra: filters.purchaseId,
      dataInicial: filters.from && startOfLocalDay(filters.from),
      dataFinal: filters.to && endOfLocalDay(filters.to),
      page,
      pageSize: LIST_PAGE_SIZE,
    };
    const list = await this.deps.reader.read(
      ws,
      'receipts',
      query,
      (call) => this.deps.client.listReceipts(call, definedOnly(query)),
      options,
    );
    return {
      data: { filters, list: list.data, ...(await this.notActiveNote(ws, filters.stockroomId, list.data)) },
      freshness: list.freshness,
    };
  }

  /**
   * `stockroomNotActive` for an empty first page filtered by a stockroom the saved active list does not hold (read
   * only then: one store read, no call). Older purchases and receipts may name a stockroom no longer active, so the
   * list is asked all the same; the note says why it may be empty.
   */
  private async notActiveNote(
    ws: WorkspaceContext,
    stockroomId: number | undefined,
    list: Page<unknown>,
  ): Promise<{ stockroomNotActive?: true }> {
    if (stockroomId === undefined || list.rows.length > 0 || list.page > 1) return {};
    return (await this.savedStockroom(ws, stockroomId)).notActive ? { stockroomNotActive: true } : {};
  }
}

/** A combined answer is as fresh as its oldest part, and degraded if any part was. */
export function oldest(parts: Freshness[]): Freshness {
  let result: Freshness = parts[0] ?? { fetchedAt: Date.now(), fromCache: false, degraded: null };
  for (const part of parts) {
    result = {
      fetchedAt: Math.min(result.fetchedAt, part.fetchedAt),
      fromCache: result.fromCache || part.fromCache,
      degraded: result.degraded ?? part.degraded,
    };
  }
  return result;
}

/** A stockroom's read that failed for reasons of its own or of the moment: the other stockrooms still show. */
function leavesTheRest(error: unknown): boolean {
  return isTransient(error) || isLastingRefusal(error) || error instanceof NoSavedDataError;
}

/** Why a stockroom left out (leavesTheRest) was: a 403 and other lasting refusals are no "try again later". */
function unreadReason(error: unknown): UnreadStockroom['reason'] {
  if (error instanceof UpstreamForbiddenError) return 'forbidden';
  return isLastingRefusal(error) ? 'refused' : 'later';
}
