import { orAfter } from '../../lib/deadline.js';
import { errFields } from '../../lib/logger.js';
import { definedOnly } from '../../lib/objects.js';
import { fold } from '../../lib/text.js';
import type { LastKnownStock } from '../../store/stock-store.js';
import type { UserMatch } from '../../store/user-match-store.js';
import { type CallObserver, isLastPage, isPastLastPage, type Page } from '../../upstream/client.js';
import { UpstreamNotFoundError } from '../../upstream/errors.js';
import { MAX_PERIOD_MONTHS, validateRequestQuery } from '../../upstream/queries.js';
import type { HistoryEntry, MaterialRequest, RequestItem } from '../../upstream/schemas.js';
import { NoSavedDataError, type ReadOptions } from '../cached-reader.js';
import {
  endOfLocalDay,
  firstDayOfMonthsEnding,
  type LocalDate,
  localDateDaysAgo,
  startOfLocalDay,
} from '../dates.js';
import type { DomainDeps } from '../deps.js';
import { NotFoundError, UserEmailUnavailableError, UserNotMatchedError } from '../errors.js';
import { type BlockRef, pageOutOfBlocks } from '../page-blocks.js';
import { readStockrooms } from '../stock/catalog-service.js';
import type {
  Answer,
  RequestDetailView,
  RequestFiltersView,
  RequestHeader,
  RequestHistoryView,
  RequestListView,
} from '../views.js';
import { materialScope, type WorkspaceContext } from '../workspace.js';

/** The Slack user asking; the e-mail is read (users.info) only when the match is not cached. */
export interface SlackUserRef {
  id: string;
  email: () => Promise<string | null>;
}

/** Rows per list page: one Slack message shows one upstream page. */
export const LIST_PAGE_SIZE = 10;
/**
 * History rows read per call: the header's first and last entries, and `Histórico`'s pages of 10 cut out of the
 * same read (page-blocks.ts), so a request's detail and its history share one upstream call.
 */
export const HISTORY_BLOCK_SIZE = 50;
/**
 * Rows read per call of the request list: a list's pages of 10 are cut out of one page of 100, the size the digest
 * and the change feed read the 30-day list in (`recentPage`), so one read answers ten `Próxima` pages and, with the
 * default filters, is the very cache entry those read.
 */
export const LIST_BLOCK_SIZE = 100;
export const DEFAULT_PERIOD_DAYS = 30;
/** How far back a request is looked for by its number: the 12 months the request list allows, never past them. */
export const LOOKUP_PERIOD_DAYS = 364;
/** Pages of that search a request's header reads for the names its history left null. */
const HEADER_LOOKUP_PAGES = 2;
/**
 * The longest a request's answer waits for that search (never past the answer's deadline): the names are a nicety
 * of an answer whose items and history are already there. Under AFTER_SLOT_MS (upstream/client.ts), so its
 * background calls, cut to it, wait for no budget slot.
 */
const HEADER_LOOKUP_MS = 2_000;
/** Pages of the saved 30-day list (the digest's and the change feed's reads) looked through for those names. */
const HEADER_SAVED_LIST_PAGES = 10;
/** Rows per page when a service reads the whole 30-day list (the digest's counts, the change feed's rounds). */
export const RECENT_PAGE_SIZE = LIST_BLOCK_SIZE;
const USER_MATCH_TTL_MS = 24 * 3_600_000;
const USER_NO_MATCH_TTL_MS = 3_600_000;

export class RequestService {
  constructor(private readonly deps: DomainDeps) {}

  /**
   * Items and a header taken from the history (no detail endpoint exists). Records the stock seen in items.
   *
   * The history page is asked as soon as the items' call has a budget slot (or the items came from the cache), so
   * with slots to spare both calls are out at once and the answer waits for the slower, not for one after the
   * other; with the window full the history never takes a slot for a detail whose items found none (the answer
   * would be the budget message anyway). A number that does not exist costs its history call too.
   */
  async detail(
    ws: WorkspaceContext,
    id: number,
    page: number,
    options?: ReadOptions,
  ): Promise<Answer<RequestDetailView>> {
    let itemsOut = () => {};
    const itemsGoneOut = new Promise<void>((resolve) => {
      itemsOut = resolve;
    });
    const items = this.items(withStartedHook(ws, itemsOut), id, options);
    // Items from the cache make no call: the history goes once they are there. Items that fail without a call
    // (no slot before the deadline) never let it go.
    items.then(itemsOut, () => undefined);
    const historyRead = itemsGoneOut
      .then(() => this.historyPage(ws, id, 1, HISTORY_BLOCK_SIZE, options))
      .then(
        (answer) => ({ answer }),
        (error: unknown) => ({ error }),
      );
    const itemsAnswer = await items;
    const read = await historyRead;
    if ('error' in read) {
      // The header is a nicety; items already answered.
      this.deps.logger.warn({ requestId: id, ...errFields(read.error) }, 'request history unavailable');
    }
    const history = 'answer' in read ? read.answer : null;
    // A request has at least the entry of its opening: no items and no history at all is a number that does not
    // exist, from a service that answers it with empty lists rather than a 404, or with a 404 on the history only.
    const noHistory = 'error' in read ? read.error instanceof NotFoundError : history?.data.rows.length === 0;
    if (itemsAnswer.data.length === 0 && noHistory) throw new NotFoundError('request', id);
    let last: HistoryEntry | undefined = history?.data.rows.at(-1);
    if (history && history.data.totalPages > 1) {
      const lastPage = await this.historyPage(
        ws,
        id,
        history.data.totalPages,
        HISTORY_BLOCK_SIZE,
        options,
      ).catch(() => null);
      last = lastPage?.data.rows.at(-1) ?? last;
    }
    const { header, row } = await this.withListNames(
      ws,
      id,
      history ? headerOf(history.data.rows[0], last) : null,
    );
    await this.placeStock(ws, itemsAnswer.data, row?.almoxarifado ?? header?.stockroomName ?? null);
    return {
      data: {
        id,
        header,
        items: itemsAnswer.data,
        knownNames: await this.namesOfUnnamed(ws, itemsAnswer.data),
        page,
      },
      freshness: itemsAnswer.freshness,
    };
  }

  async history(
    ws: WorkspaceContext,
    id: number,
    page: number,
    options?: ReadOptions,
  ): Promise<Answer<RequestHistoryView>> {
    const history = await pageOutOfBlocks(
      page,
      LIST_PAGE_SIZE,
      HISTORY_BLOCK_SIZE,
      (ref) => this.historyPage(ws, id, ref.page, ref.pageSize, options),
      this.deps.now,
    );
    if (page === 1 && history.data.rows.length === 0) await this.mustExist(ws, id, options);
    return { data: { id, history: history.data }, freshness: history.freshness };
  }

  /**
   * A history with no entry at all, as detail() decides: a number that does not exist when its items are empty too
   * (a service that answers 200 [] rather than a 404), NotFoundError; a request otherwise (its items are there, or
   * cannot be read now: the empty history is shown as such). The items' read is the detail's, cached alike.
   */
  private async mustExist(ws: WorkspaceContext, id: number, options?: ReadOptions): Promise<void> {
    const items = await this.items(ws, id, options).catch((error: unknown) => {
      if (error instanceof NotFoundError) throw error;
      if (!(error instanceof NoSavedDataError))
        this.deps.logger.warn({ requestId: id, ...errFields(error) }, 'request items unavailable');
      return null;
    });
    if (items?.data.length === 0) throw new NotFoundError('request', id);
  }

  /**
   * A page of the request list. `pageSize` (a divisor of LIST_BLOCK_SIZE; LIST_PAGE_SIZE unless set) is the page
   * cut out of the block read: LIST_BLOCK_SIZE gives the whole block, at no cost past the one read.
   */
  async list(
    ws: WorkspaceContext,
    filters: RequestFiltersView,
    page: number,
    options?: ReadOptions,
    solicitanteId?: number,
    pageSize: number = LIST_PAGE_SIZE,
  ): Promise<Answer<RequestListView>> {
    const defaultPeriod = isDefaultPeriod(filters);
    const periodFrom = (daysAgo: number) => this.periodStart(filters, daysAgo);
    const from = periodFrom(DEFAULT_PERIOD_DAYS);
    const shown = defaultPeriod || filters.from !== undefined ? filters : { ...filters, from };
    const list = await this.listFrom(ws, filters, from, page, pageSize, options, solicitanteId).catch(
      (error: unknown) => {
        // The default period's list is saved under the day it starts on: from saved data alone (the Home), past
        // midnight today's is not there yet, and yesterday's (a day longer, shown with its age) stands in.
        if (!(error instanceof NoSavedDataError && defaultPeriod && options?.savedOnly)) throw error;
        const yesterday = periodFrom(DEFAULT_PERIOD_DAYS + 1);
        return this.listFrom(ws, filters, yesterday, page, pageSize, options, solicitanteId);
      },
    );
    return {
      data: { filters: shown, mine: null, defaultPeriod, list: list.data },
      freshness: list.freshness,
    };
  }

  /**
   * The first day of the list's period: `de:`, else the default period's (`daysAgo` days back), else, with `ate:`
   * alone, 12 months before it (the most the list takes; the answer says so).
   */
  private periodStart(filters: RequestFiltersView, daysAgo: number): LocalDate | undefined {
    if (filters.from) return filters.from;
    if (isDefaultPeriod(filters)) return localDateDaysAgo(this.deps.now(), this.deps.timeZone, daysAgo);
    return filters.to && firstDayOfMonthsEnding(filters.to, MAX_PERIOD_MONTHS);
  }

  /**
   * Refuses, with the InvalidArgumentError the list's read would throw, filters whose query the list cannot be
   * asked (a period over 12 months: `de:` alone runs to today), with no call: `minhas` checks before it spends
   * users.info and the users list on a query refused anyway.
   */
  private checkListFilters(filters: RequestFiltersView): void {
    const from = this.periodStart(filters, DEFAULT_PERIOD_DAYS);
    const query = listQuery(filters, from, { page: 1, pageSize: LIST_BLOCK_SIZE }, undefined);
    validateRequestQuery(definedOnly(query), new Date(this.deps.now()), this.deps.timeZone);
  }

  /** The list's page from `from` on (a period's first day), cut out of its block of LIST_BLOCK_SIZE. */
  private listFrom(
    ws: WorkspaceContext,
    filters: RequestFiltersView,
    from: LocalDate | undefined,
    page: number,
    pageSize: number,
    options: ReadOptions | undefined,
    solicitanteId: number | undefined,
  ) {
    const readBlock = (ref: BlockRef) => {
      const query = listQuery(filters, from, ref, solicitanteId);
      return this.deps.reader.read(
        ws,
        'requestList',
        query,
        (call) => this.deps.client.listRequests(call, definedOnly(query)),
        options,
      );
    };
    return pageOutOfBlocks(page, pageSize, LIST_BLOCK_SIZE, readBlock, this.deps.now);
  }

  /**
   * One page of 100 of the requests of the last 30 days (optionally of one stockroom). The digest's counts and the
   * change feed's rounds read the list this way, with the same parameters, so they share one cache entry per page:
   * a feed round refreshes what a digest reads, and the other way round.
   */
  recentPage(
    ws: WorkspaceContext,
    stockroomId: number | null,
    page: number,
    options?: ReadOptions,
  ): Promise<Answer<Page<MaterialRequest>>> {
    const fromDay = localDateDaysAgo(this.deps.now(), this.deps.timeZone, DEFAULT_PERIOD_DAYS);
    const query = definedOnly({
      almoxarifadoId: stockroomId ?? undefined,
      dataInicial: startOfLocalDay(fromDay),
      page,
      pageSize: RECENT_PAGE_SIZE,
    });
    return this.deps.reader.read(
      ws,
      'requestList',
      query,
      (call) => this.deps.client.listRequests(call, query),
      options,
    );
  }

  /**
   * `/solicitacao minhas`: the Slack user's e-mail matched to an upstream user (cached), then the list (pages of
   * `pageSize`, as `list`; the Home asks the whole block read).
   */
  async mine(
    ws: WorkspaceContext,
    slackUser: SlackUserRef,
    filters: RequestFiltersView,
    page: number,
    options?: ReadOptions,
    pageSize: number = LIST_PAGE_SIZE,
  ): Promise<Answer<RequestListView>> {
    // A bad argument costs nothing: checked before the e-mail (users.info) and the users list are read for it.
    this.checkListFilters(filters);
    const match = await this.matchUser(ws, slackUser, options);
    if (match.upstreamUserId === null) throw new UserNotMatchedError(match.email);
    const answer = await this.list(ws, filters, page, options, match.upstreamUserId, pageSize);
    return { ...answer, data: { ...answer.data, mine: { upstreamUserName: match.upstreamUserName } } };
  }

  /**
   * The user's e-mail, lower-cased, when it matches an active upstream user as `mine` matches it (the feed's
   * `minhas acompanhar` compares it with requesters' e-mails); UserNotMatchedError otherwise.
   */
  async ownEmail(ws: WorkspaceContext, slackUser: SlackUserRef): Promise<string> {
    const match = await this.matchUser(ws, slackUser);
    if (match.upstreamUserId === null) throw new UserNotMatchedError(match.email);
    const email = match.email ?? (await emailOf(slackUser));
    if (!email?.trim()) throw new UserNotMatchedError(null);
    return email.trim().toLowerCase();
  }

  /**
   * The user's upstream match: the saved one while fresh (a day; an hour for "no match"), else made again from the
   * Slack e-mail. When it cannot be made again now (users.info failing or too slow, the users list unreadable), the
   * last one stands until it is made again, so the requests saved for the user still show (until 2026-11-27 a
   * users.info 429 on the day the match expired turned the Home's saved list into "Não foi possível ler…").
   */
  private async matchUser(
    ws: WorkspaceContext,
    slackUser: SlackUserRef,
    options?: ReadOptions,
  ): Promise<UserMatch & { email: string | null }> {
    const cached = await this.deps.userMatches.get(ws.workspaceId, slackUser.id);
    if (cached && (cached.freshUntil === undefined || cached.freshUntil > this.deps.now())) {
      return { ...cached, email: cached.email ?? null };
    }
    try {
      return await this.newMatch(ws, slackUser, options);
    } catch (error) {
      // Slack saying there is no e-mail, or nobody upstream having it, is an answer; anything else is not.
      if (!cached || error instanceof UserNotMatchedError) throw error;
      this.deps.logger.info(
        { workspaceId: ws.workspaceId, matchedAt: cached.matchedAt, ...errFields(error) },
        'user match not renewed now; the last one stands',
      );
      return { ...cached, email: cached.email ?? null };
    }
  }

  private async newMatch(
    ws: WorkspaceContext,
    slackUser: SlackUserRef,
    options?: ReadOptions,
  ): Promise<UserMatch & { email: string | null }> {
    // Asked only when no fresh match is saved: one Slack call per user and day, not per command.
    const address = await emailOf(slackUser);
    if (!address) throw new UserNotMatchedError(null);
    const email = address.trim().toLowerCase();
    const users = await this.deps.reader
      .read(
        ws,
        'users',
        null,
        (call) => this.deps.client.listUsers(call),
        // The Home matches from the cached list only; `Atualizar` does not re-read users (cached for an hour).
        options?.savedOnly ? { savedOnly: true } : undefined,
      )
      .catch((error: unknown) => {
        // The users list answers 404 (upstream-api.md) when it has nobody to list: nobody has this e-mail.
        if (error instanceof UpstreamNotFoundError) throw new UserNotMatchedError(email);
        throw error;
      });
    const user = users.data.find((u) => !u.inativo && u.email?.trim().toLowerCase() === email);
    const match = {
      upstreamUserId: user?.usuario ?? null,
      upstreamUserName: user?.nome ?? null,
      matchedAt: this.deps.now(),
      email,
    };
    await this.deps.userMatches.set(
      ws.workspaceId,
      slackUser.id,
      match,
      user ? USER_MATCH_TTL_MS : USER_NO_MATCH_TTL_MS,
    );
    return { ...match, email: address };
  }

  private async items(
    ws: WorkspaceContext,
    id: number,
    options?: ReadOptions,
  ): Promise<Answer<RequestItem[]>> {
    const items = await this.deps.reader.read(
      ws,
      'requestItems',
      { id },
      async (call) => {
        const rows = await this.deps.client.listRequestItems(call, id).catch(notFoundAs('request', id));
        await this.recordStock(ws, rows);
        return rows;
      },
      options,
    );
    return items;
  }

  private historyPage(
    ws: WorkspaceContext,
    id: number,
    page: number,
    pageSize: number,
    options?: ReadOptions,
  ): Promise<Answer<Page<HistoryEntry>>> {
    return this.deps.reader.read(
      ws,
      'requestHistory',
      { id, page, pageSize },
      (call) => {
        const read = this.deps.client.listRequestHistory(call, id, { page, pageSize });
        // A 404 on the first page is a number that does not exist; on a later one, a page past the end
        // (isPastLastPage): the request exists whatever that page says.
        return page === 1 ? read.catch(notFoundAs('request', id)) : read;
      },
      options,
    );
  }

  /**
   * A request's list row, found by its number: `Search=<id>` over the 12 months the list allows, page after page
   * until the row is on one or the pages end, `maxPages` at most (the search also matches the number's digits in
   * other requests' numbers, stockrooms, requesters and statuses). `complete`: no page was left unread.
   */
  async findListRow(
    ws: WorkspaceContext,
    id: number,
    { maxPages, options }: { maxPages: number; options?: ReadOptions | undefined },
  ): Promise<{ row: MaterialRequest | null; complete: boolean }> {
    const from = startOfLocalDay(localDateDaysAgo(this.deps.now(), this.deps.timeZone, LOOKUP_PERIOD_DAYS));
    for (let page = 1; page <= maxPages; page += 1) {
      const query = definedOnly({ search: String(id), dataInicial: from, page, pageSize: RECENT_PAGE_SIZE });
      const answer = await this.deps.reader
        .read(ws, 'requestList', query, (call) => this.deps.client.listRequests(call, query), options)
        .catch((error: unknown) => {
          if (isPastLastPage(error, page)) return null;
          throw error;
        });
      // A page the service refuses past its rows ends the search, as a short page does; a total too low does not.
      if (answer === null) return { row: null, complete: true };
      const row = answer.data.rows.find((r) => r.solicitacaoMaterialId === id);
      if (row) return { row, complete: true };
      // An empty or short page is the last, whatever total its rows state; a total not believed is not the end.
      if (isLastPage(answer.data)) return { row: null, complete: true };
    }
    return { row: null, complete: false };
  }

  /**
   * The header's names the history left null (they are nullable there) taken from the request's list row, only when
   * a name is missing: first from lists already saved (the search below, as an earlier answer or the change feed
   * read it for an old followed request; the 30-day list the digest, the feed and `/solicitacao` read), with no
   * call; else from findListRow, at background priority (a call only while the window has room, never a wait for a
   * slot) and within HEADER_LOOKUP_MS and the answer's deadline, whichever comes first: past that the answer goes
   * without the names (until 2026-11-27 the search had no deadline, and a slow list cost the answer its items and
   * history, replaced by the timeout message). The status name only when the row is at the history's last status.
   */
  private async withListNames(
    ws: WorkspaceContext,
    id: number,
    header: RequestHeader | null,
  ): Promise<{ header: RequestHeader | null; row?: MaterialRequest }> {
    if (!header || isNamed(header)) return { header };
    const now = this.deps.now();
    const boundMs = Math.min(HEADER_LOOKUP_MS, (ws.call.deadline ?? Number.POSITIVE_INFINITY) - now);
    if (boundMs <= 0) return { header };
    let named = header;
    /** The list row the names came from: its stockroom id places the items' last known stock (placeStock). */
    let found: MaterialRequest | undefined;
    const lookup = async () => {
      const saved = await this.savedListRow(ws, id);
      if (saved) {
        named = withNamesOf(named, saved);
        found = saved;
      }
      if (isNamed(named) || ws.savedOnly) return;
      const { credential, correlationId } = ws.call;
      const nicety: WorkspaceContext = {
        ...ws,
        call: {
          credential,
          priority: 'background',
          deadline: now + boundMs,
          ...(correlationId && { correlationId }),
        },
      };
      const { row } = await this.findListRow(nicety, id, { maxPages: HEADER_LOOKUP_PAGES });
      if (row) {
        named = withNamesOf(named, row);
        found = row;
      }
    };
    // The calls end at that deadline; the net is for waits that are not calls (a refresh of the same page that
    // another reader or replica makes at its own pace, a store that is slow to answer).
    const done = await orAfter(
      lookup().then(
        () => true,
        (error: unknown) => {
          this.deps.logger.warn(
            { requestId: id, ...errFields(error) },
            'request names not found in the list',
          );
          return true;
        },
      ),
      boundMs,
      () => false,
    );
    if (!done)
      this.deps.logger.info(
        { requestId: id, boundMs },
        'request names not found in time; answered without them',
      );
    return { header: named, ...(found && { row: found }) };
  }

  /**
   * The request's row in lists already saved, whatever their age (its stockroom and requester do not change, and
   * the status name is taken only at the same status): the pages of its search (findListRow), then the 30-day
   * list's first pages. Null when none holds it; never a call.
   */
  private async savedListRow(ws: WorkspaceContext, id: number): Promise<MaterialRequest | null> {
    const savedOnly = { savedOnly: true } as const;
    try {
      const found = await this.findListRow(ws, id, {
        maxPages: HEADER_LOOKUP_PAGES,
        options: savedOnly,
      }).catch((error: unknown) => {
        if (error instanceof NoSavedDataError) return { row: null };
        throw error;
      });
      if (found.row) return found.row;
      for (let page = 1; page <= HEADER_SAVED_LIST_PAGES; page += 1) {
        const answer = await this.recentPage(ws, null, page, savedOnly).catch((error: unknown) => {
          if (error instanceof NoSavedDataError) return null;
          throw error;
        });
        if (answer === null) return null;
        const row = answer.data.rows.find((r) => r.solicitacaoMaterialId === id);
        if (row) return row;
        if (isLastPage(answer.data)) return null;
      }
      return null;
    } catch (error) {
      this.deps.logger.warn({ requestId: id, ...errFields(error) }, 'saved request lists unreadable');
      return null;
    }
  }

  /**
   * The request's stockroom, once the detail knows it, given to the last known stock its items recorded (they are
   * that stockroom's: the API lists only items of materials registered there), so a digest of that stockroom lists
   * them (until 2026-11-27 only the digest's own item reads knew their stockroom). `stockroom`: the id from the
   * request's list row, else the name from its history, matched to the saved stockroom list (no call; a name that
   * is not there, or not there once, places nothing). Never fails the answer.
   */
  async placeStock(
    ws: WorkspaceContext,
    items: readonly RequestItem[],
    stockroom: number | string | null,
  ): Promise<void> {
    if (items.length === 0 || stockroom === null) return;
    // The saved stockroom list is read only when an entry still needs its stockroom (once, whatever their number).
    let named: Promise<number | null> | undefined;
    const stockroomOf = () => {
      if (typeof stockroom === 'number') return stockroom;
      named ??= this.savedStockroomNamed(ws, stockroom);
      return named;
    };
    try {
      await this.deps.stock.place(
        materialScope(ws),
        items.map((item) => ({ materialId: item.material, requestId: item.solicitacaoMaterialId })),
        stockroomOf,
      );
    } catch (error) {
      this.deps.logger.warn(errFields(error), 'stockroom of the last known stock not recorded');
    }
  }

  /** The id of the one active stockroom of the saved list with this name (accents and case aside); else null. */
  private async savedStockroomNamed(ws: WorkspaceContext, name: string): Promise<number | null> {
    const wanted = fold(name.trim());
    if (wanted === '') return null;
    const saved = await readStockrooms(this.deps, ws, { savedOnly: true }).catch(() => null);
    const matches = (saved?.data ?? []).filter((s) => fold(s.nome?.trim() ?? '') === wanted);
    return matches.length === 1 && matches[0] ? matches[0].almoxarifado : null;
  }

  /** Names kept from elsewhere for items that came without one; no store read when every item is named. */
  private async namesOfUnnamed(
    ws: WorkspaceContext,
    items: RequestItem[],
  ): Promise<ReadonlyMap<number, string>> {
    if (items.every((item) => item.material_Nome?.trim())) return new Map();
    return this.deps.stock.names(materialScope(ws)).catch((error: unknown) => {
      this.deps.logger.warn(errFields(error), 'material names unavailable');
      return new Map<number, string>();
    });
  }

  /**
   * Every read of request items updates the newest stock seen per material (never shown as live), with the
   * request's stockroom when the reader knows it (null: placed later, placeStock), and the materials' last known
   * names.
   */
  async recordStock(
    ws: WorkspaceContext,
    items: RequestItem[],
    stockroomId: number | null = null,
  ): Promise<void> {
    const scope = materialScope(ws);
    const seenAt = this.deps.now();
    const entries: LastKnownStock[] = items.map((item) => ({
      materialId: item.material,
      current: item.estoqueAtual,
      minimum: item.estoqueMinimo ?? null,
      maximum: item.estoqueMaximo ?? null,
      requestId: item.solicitacaoMaterialId,
      stockroomId,
      seenAt,
    }));
    await Promise.all([
      this.deps.stock.record(scope, entries),
      this.deps.stock.recordNames(
        scope,
        items.map((item) => [item.material, item.material_Nome] as const),
      ),
    ]).catch((error: unknown) => this.deps.logger.warn(errFields(error), 'last known stock not recorded'));
  }
}

/** `ws` whose calls also tell `started` when one goes out (after the observer already there, if any). */
function withStartedHook(ws: WorkspaceContext, started: () => void): WorkspaceContext {
  const outer = ws.call.observer;
  const observer: CallObserver = {
    queued: (position) => outer?.queued?.(position),
    started: () => {
      started();
      outer?.started?.();
    },
    showingData: () => outer?.showingData?.() === true,
  };
  return { ...ws, call: { ...ws.call, observer } };
}

export function notFoundAs(what: 'request' | 'purchase', id: number) {
  return (error: unknown): never => {
    if (error instanceof UpstreamNotFoundError) throw new NotFoundError(what, id);
    throw error;
  };
}

/** The user's e-mail as Slack tells it; a failed lookup is UserEmailUnavailableError (try again), not a bug. */
function emailOf(slackUser: SlackUserRef): Promise<string | null> {
  return slackUser.email().catch((error: unknown) => {
    throw new UserEmailUnavailableError(error);
  });
}

function isDefaultPeriod(filters: RequestFiltersView): boolean {
  return filters.from === undefined && filters.to === undefined;
}

/**
 * The request list's query for one block of the list from `from` on. Same keys in the same order as `recentPage`:
 * with the default filters both read one cache entry.
 */
function listQuery(
  filters: RequestFiltersView,
  from: LocalDate | undefined,
  ref: Pick<BlockRef, 'page' | 'pageSize'>,
  solicitanteId: number | undefined,
) {
  return {
    almoxarifadoId: filters.stockroomId,
    status: filters.status,
    compraMaterialId: filters.purchaseId,
    dataInicial: from && startOfLocalDay(from),
    dataFinal: filters.to && endOfLocalDay(filters.to),
    search: filters.text,
    solicitanteId,
    page: ref.page,
    pageSize: ref.pageSize,
  };
}

function isNamed(header: RequestHeader): boolean {
  return Boolean(header.stockroomName && header.requesterName && header.statusName);
}

/** `header` with the names it lacks taken from the request's list row; its status name only at the same status. */
function withNamesOf(header: RequestHeader, row: MaterialRequest): RequestHeader {
  const sameStatus = row.statusAndamentoSolicitacao === header.status;
  return {
    ...header,
    stockroomName: header.stockroomName || row.almoxarifado_Nome?.trim() || null,
    requesterName: header.requesterName || row.solicitante_Nome?.trim() || null,
    statusName:
      header.statusName || (sameStatus ? row.statusAndamentoSolicitacao_Nome?.trim() || null : null),
  };
}

function headerOf(first: HistoryEntry | undefined, last: HistoryEntry | undefined): RequestHeader | null {
  if (!first) return null;
  const latest = last ?? first;
  return {
    stockroomName: latest.almoxarifado_Nome ?? first.almoxarifado_Nome ?? null,
    requesterName: latest.solicitante_Nome ?? first.solicitante_Nome ?? null,
    statusName: latest.statusAndamentoSolicitacao_Nome ?? null,
    status: latest.status,
    openedAt: first.data,
    lastChangeAt: latest.data,
  };
}

export type { MaterialRequest };
