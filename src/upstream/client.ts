import type { Dispatcher } from 'undici';
import type { z } from 'zod';
import { errFields, type Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import { retriedByTokenManager, type TokenGrant, type TokenManager } from './auth.js';
import type { Budget, Demand, Priority, ScheduleOptions } from './budget.js';
import { DEFAULT_MAX_WAIT_MS } from './budget-policy.js';
import type { CallObserver } from './call-observer.js';
import type { UpstreamCredential } from './credential.js';
import {
  CredentialsExpiredError,
  errorFromResponse,
  TokenRefusedError,
  UpstreamBadRequestError,
  UpstreamError,
  UpstreamRateLimitedError,
  UpstreamTimeoutError,
  UpstreamUnauthorizedError,
} from './errors.js';
import { sendOnce } from './http.js';
import { InFlight } from './in-flight.js';
import { observeAttempt } from './metered.js';
import {
  type HistoryQuery,
  type PurchaseQuery,
  type ReceiptQuery,
  type RequestQuery,
  type UserQuery,
  validateHistoryQuery,
  validateId,
  validatePurchaseQuery,
  validateReceiptQuery,
  validateRequestQuery,
  validateUserQuery,
} from './queries.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, withRetry } from './retry.js';
import {
  type GoodsReceipt,
  goodsReceiptListSchema,
  type HistoryEntry,
  historyEntryListSchema,
  type Material,
  type MaterialCategory,
  type MaterialRequest,
  type MaterialType,
  materialCategoryListSchema,
  materialListSchema,
  materialRequestListSchema,
  materialTypeListSchema,
  type PurchaseOrder,
  parseOrThrow,
  purchaseOrderListSchema,
  type RequestItem,
  requestItemListSchema,
  type Stockroom,
  stockroomListSchema,
  type User,
  userListSchema,
} from './schemas.js';

/** Who calls, at what priority: every call is made for one credential and spends its budget. */
export interface CallContext {
  credential: UpstreamCredential;
  priority: Priority;
  correlationId?: string;
  /**
   * Epoch ms by which the answer this call is part of must be final (an interactive answer's deadline): the wait
   * for a budget slot and each attempt are cut to it, a timeout is retried at most once, and no retry starts
   * that could not end before it.
   */
  deadline?: number;
  /** Told where the call stands: waiting for a budget slot (and its place), then gone out. */
  observer?: CallObserver;
  /** Who waits on this call (ScheduleOptions.demand): the cache's readers joined to its refresh. */
  demand?: () => Demand;
  /**
   * False: a 401 is the answer, with no renewal, no retry and nothing recorded against the credential. For a broken
   * link's check (domain/links/link-healer.ts), whose token a login obtained moments before: another renewal would
   * only be refused the same way, and the link is broken already.
   */
  renewOn401?: false;
}

export type { CallObserver } from './call-observer.js';

/** One page of a paginated list; `totalRows` comes from the rows themselves (0 when the page is empty). */
export interface Page<T> {
  rows: T[];
  page: number;
  pageSize: number;
  totalRows: number;
  totalPages: number;
  /**
   * True when the rows' total cannot be believed and the page came full, so more rows may follow: a total past
   * MAX_STATED_TOTAL_ROWS, or one lower than the rows the page proves exist (the service's count is wrong either
   * way). `totalRows` then counts the rows proven so far, a lower bound, and `totalPages` one page more, which may
   * hold more rows. A short page is the last (isLastPage), whatever the total says.
   */
  totalUnknown?: boolean;
}

/**
 * The most rows a list's stated total is believed at: a million, far past any stockroom list of a company, and what
 * the bot's routes can page through (MAX_PAGE pages of 10, domain/routes.ts). A larger `totalRows` (the int32 lets a
 * service say 2,000,000,000 beside 10 rows) is a service's mistake, not a count: shown, it made a page count of
 * 200,000,000 with `Próxima` to empty pages, and the readers that walk every page spent their budget up to their
 * bound on it.
 */
export const MAX_STATED_TOTAL_ROWS = 1_000_000;

export interface UpstreamClientOptions {
  baseUrl: string;
  tokens: TokenManager;
  budget: Budget;
  dispatcher: Dispatcher;
  logger: Logger;
  retryPolicy?: RetryPolicy;
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Make identical calls in flight once (default true; the benchmark's naive bot turns it off). */
  coalesce?: boolean;
  /** Counts and times every HTTP attempt by endpoint template and status. */
  metrics?: Pick<Metrics, 'upstreamCall'>;
  /** The most bytes read from one answer (UPSTREAM_MAX_RESPONSE_BYTES); default DEFAULT_MAX_RESPONSE_BYTES. */
  maxResponseBytes?: number;
  /** The most rows kept of one list answer; default MAX_ROWS_PER_LIST. */
  maxRows?: number;
  /** The clock of deadlines (CallContext.deadline) and of the period checks; default Date.now. */
  now?: () => number;
  /**
   * The service's time zone (DIGEST_TZ), in which date-time parameters without a zone are wall times: the 12-month
   * period check reads them there. Without it they are read in the process's zone.
   */
  timeZone?: string;
}

/** The page size of the stockroom lists and the request history when none is asked (upstream-api.md, Limits). */
export const DEFAULT_PAGE_SIZE = 50;
const PAGE_PARAMS = { page: 'Page', size: 'PageSize' };
/** The history's parameters are spelt in lower camel case (upstream-api.md, Endpoints). */
const HISTORY_PAGE_PARAMS = { page: 'page', size: 'pageSize' };
/** How a refusal's cause says "page size" in words (English or Portuguese) rather than by the parameter's name. */
const PAGE_SIZE_WORDS = ['page size', 'tamanho da página', 'tamanho de página', 'tamanho das páginas'];
/**
 * Words of a refusal's cause that name something other than the page size: the period (the lists allow 12 months),
 * dates, a filter. A 400 in prose that says one of them, or names another parameter of the call, states its cause.
 */
const OTHER_CAUSE_WORDS = [
  'período',
  'periodo',
  'meses',
  'data',
  'date',
  'status',
  'filtro',
  'filter',
  'busca',
  'search',
  'almoxarifado',
  'solicitante',
  'fornecedor',
  'compra',
  'empresa',
  'unidade',
];

type PagedRow = { totalRows?: number | null; rowNumber?: number | null };

/** 4 MiB: about ten times the largest list the service documents (a whole material catalogue of a company). */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/**
 * Rows kept of one list answer: a page holds at most 100 rows; the lists without pages (materials, users,
 * stockrooms) hold what the company has, and a cut there hides materials from the search and people from
 * `minhas` without a word. So the bound is far past what the byte cap lets through (a material is 300 to 600
 * bytes of JSON: the default 4 MiB holds about 10,000, and a larger answer is refused with its own message);
 * past it the rest is dropped and logged. It guards only against tiny rows in a raised byte cap.
 */
export const MAX_ROWS_PER_LIST = 100_000;

type Query = Record<string, string | number | boolean | readonly (string | number)[] | undefined | null>;

interface Endpoint<T> {
  /** Label for logs and errors: method and path template, never values. */
  label: string;
  path: string;
  query?: Query;
  /** Which context headers the endpoint takes (the request list takes EmpresaId only). */
  headers: 'empresa' | 'empresa-unidade';
  schema: z.ZodType<T>;
}

/**
 * One typed method per endpoint of the stockroom area. Arguments are checked before any budget is spent;
 * identical calls in flight are made once; a 401 gets at most one renewal and retry (TokenManager.refused); 429,
 * 5xx, timeouts and network errors are retried with backoff, every attempt through the shared budget.
 */
export class UpstreamClient {
  private readonly inflight = new InFlight<unknown>();
  private readonly baseUrl: string;
  private readonly retryPolicy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly maxRows: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly timeZone: string | undefined;
  /** Per list (endpoint label): the PageSize asked at most, once the service refused a larger one (pageCall). */
  private readonly pageSizeCaps = new Map<string, number>();
  /** Attempts made, by outcome; the benchmark and the status command read it. */
  readonly counters = { calls: 0, retries: 0, coalesced: 0, rateLimited: 0, unauthorized: 0 };

  constructor(private readonly options: UpstreamClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retryPolicy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.maxRows = options.maxRows ?? MAX_ROWS_PER_LIST;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
    this.timeZone = options.timeZone;
  }

  async listUsers(ctx: CallContext, query: UserQuery = {}): Promise<User[]> {
    const q = validateUserQuery(query);
    return this.call(ctx, {
      label: 'GET /v1/usuarios',
      path: '/v1/usuarios',
      // The parameter list shows EmpresaId as a query parameter, the authentication rules as a header: send both.
      query: { ...q, EmpresaId: q.EmpresaId ?? ctx.credential.empresaId ?? undefined },
      headers: 'empresa-unidade',
      schema: userListSchema,
    });
  }

  async listStockrooms(ctx: CallContext, query: { unidadeId?: number } = {}): Promise<Stockroom[]> {
    if (query.unidadeId !== undefined) validateId(query.unidadeId, 'unidadeId');
    return this.call(ctx, {
      label: 'GET /v1/almoxarifados',
      path: '/v1/almoxarifados',
      query: { unidadeId: query.unidadeId },
      headers: 'empresa-unidade',
      schema: stockroomListSchema,
    });
  }

  async listMaterials(
    ctx: CallContext,
    query: { codigo?: string; almoxarifadoId?: number } = {},
  ): Promise<Material[]> {
    if (query.almoxarifadoId !== undefined) validateId(query.almoxarifadoId, 'almoxarifadoId');
    return this.call(ctx, {
      label: 'GET /v1/materiais',
      path: '/v1/materiais',
      query: { codigo: query.codigo, almoxarifadoId: query.almoxarifadoId },
      headers: 'empresa-unidade',
      schema: materialListSchema,
    });
  }

  async listMaterialTypes(ctx: CallContext): Promise<MaterialType[]> {
    return this.call(ctx, {
      label: 'GET /v1/materiais/tipos',
      path: '/v1/materiais/tipos',
      headers: 'empresa-unidade',
      schema: materialTypeListSchema,
    });
  }

  async listMaterialCategories(ctx: CallContext): Promise<MaterialCategory[]> {
    return this.call(ctx, {
      label: 'GET /v1/materiais/categorias',
      path: '/v1/materiais/categorias',
      headers: 'empresa-unidade',
      schema: materialCategoryListSchema,
    });
  }

  /**
   * The request list takes no UnidadeId header (upstream-api.md lists EmpresaId only) but a `SiteId` filter, the
   * unit's older name (the users endpoint lists SiteId as deprecated beside UnidadeId): a link to one unit asks
   * with it, so its lists hold that unit's requests, the ones whose items and history (asked with UnidadeId)
   * it can open.
   */
  async listRequests(ctx: CallContext, query: RequestQuery = {}): Promise<Page<MaterialRequest>> {
    const unit = ctx.credential.unidadeId;
    const scoped = query.siteId === undefined && unit !== null ? { ...query, siteId: unit } : query;
    const q = validateRequestQuery(scoped, new Date(this.now()), this.timeZone);
    return this.pageCall(
      ctx,
      {
        label: 'GET /v1/solicitacoes-materiais',
        path: '/v1/solicitacoes-materiais',
        query: q,
        headers: 'empresa',
        schema: materialRequestListSchema,
      },
      PAGE_PARAMS,
    );
  }

  async listRequestItems(ctx: CallContext, requestId: number): Promise<RequestItem[]> {
    validateId(requestId, 'id');
    return this.call(ctx, {
      label: 'GET /v1/solicitacoes-materiais/{id}/itens',
      path: `/v1/solicitacoes-materiais/${requestId}/itens`,
      headers: 'empresa-unidade',
      schema: requestItemListSchema,
    });
  }

  async listRequestHistory(
    ctx: CallContext,
    requestId: number,
    query: HistoryQuery = {},
  ): Promise<Page<HistoryEntry>> {
    validateId(requestId, 'id');
    const q = validateHistoryQuery(query);
    return this.pageCall(
      ctx,
      {
        label: 'GET /v1/solicitacoes-materiais/{id}/historico',
        path: `/v1/solicitacoes-materiais/${requestId}/historico`,
        query: q,
        headers: 'empresa-unidade',
        schema: historyEntryListSchema,
      },
      HISTORY_PAGE_PARAMS,
    );
  }

  async listPurchases(ctx: CallContext, query: PurchaseQuery = {}): Promise<Page<PurchaseOrder>> {
    const q = validatePurchaseQuery(query, new Date(this.now()), this.timeZone);
    return this.pageCall(
      ctx,
      {
        label: 'GET /v1/compras-materiais',
        path: '/v1/compras-materiais',
        query: q,
        headers: 'empresa-unidade',
        schema: purchaseOrderListSchema,
      },
      PAGE_PARAMS,
    );
  }

  /** At most 50 rows, no pagination (documented). */
  async listPurchaseRequests(ctx: CallContext, purchaseId: number): Promise<MaterialRequest[]> {
    validateId(purchaseId, 'id');
    return this.call(ctx, {
      label: 'GET /v1/compras-materiais/{id}/solicitacoes',
      path: `/v1/compras-materiais/${purchaseId}/solicitacoes`,
      headers: 'empresa-unidade',
      schema: materialRequestListSchema,
    });
  }

  /** The date filter applies to the date of the purchase, not of the receipt (documented). */
  async listReceipts(ctx: CallContext, query: ReceiptQuery = {}): Promise<Page<GoodsReceipt>> {
    const q = validateReceiptQuery(query, new Date(this.now()), this.timeZone);
    return this.pageCall(
      ctx,
      {
        label: 'GET /v1/entradas-materiais',
        path: '/v1/entradas-materiais',
        query: q,
        headers: 'empresa-unidade',
        schema: goodsReceiptListSchema,
      },
      PAGE_PARAMS,
    );
  }

  /** Purchases of one stockroom with a pending receivable balance; the endpoint answers per stockroom. */
  async listPendingPurchases(ctx: CallContext, almoxarifadoId: number): Promise<PurchaseOrder[]> {
    validateId(almoxarifadoId, 'almoxarifadoId');
    return this.call(ctx, {
      label: 'GET /v1/entradas-materiais/compras',
      path: '/v1/entradas-materiais/compras',
      query: { almoxarifadoId },
      headers: 'empresa-unidade',
      schema: purchaseOrderListSchema,
    });
  }

  /**
   * A page of a list whose allowed PageSize is not documented (upstream-api.md: "not shown"). A PageSize over the
   * documented default refused with a 400 that names the page size (a validation error of the field, or its
   * name or PAGE_SIZE_WORDS in the cause or title) is asked again at that default, and once served there, that list
   * is asked at most that from then on (this process: one refused call per list and replica); the page says the
   * size it was served at (servedPage), so its readers page on at that size as they do with a service that serves
   * fewer rows. Any other 400 is final (upstream-api.md Errors rule 6: no automatic retry of a 400) and teaches
   * nothing about page sizes.
   */
  private async pageCall<T extends PagedRow>(
    ctx: CallContext,
    endpoint: Endpoint<T[]>,
    params: { page: string; size: string },
  ): Promise<Page<T>> {
    const query = endpoint.query ?? {};
    const page = query[params.page] as number | undefined;
    const asked = (query[params.size] as number | undefined) ?? DEFAULT_PAGE_SIZE;
    const atMost = (size: number) =>
      this.call(ctx, { ...endpoint, query: { ...query, [params.size]: size } });
    const cap = this.pageSizeCaps.get(endpoint.label);
    if (cap !== undefined && asked > cap) return servedPage(await atMost(cap), page, cap);
    try {
      return servedPage(await this.call(ctx, endpoint), page, asked);
    } catch (error) {
      if (!(asked > DEFAULT_PAGE_SIZE && error instanceof UpstreamBadRequestError)) throw error;
      if (!pageSizeMayBeTheCause(error, query, params, asked)) throw error;
      const served = await atMost(DEFAULT_PAGE_SIZE);
      this.pageSizeCaps.set(endpoint.label, DEFAULT_PAGE_SIZE);
      this.options.logger.warn(
        {
          correlationId: ctx.correlationId,
          endpoint: endpoint.label,
          refused: asked,
          asking: DEFAULT_PAGE_SIZE,
        },
        'upstream refused the page size; this list is asked at its default size from now on',
      );
      return servedPage(served, page, DEFAULT_PAGE_SIZE);
    }
  }

  private call<T>(ctx: CallContext, endpoint: Endpoint<T>): Promise<T> {
    const url = this.urlOf(endpoint);
    // A check's call (renewOn401) answers a 401 differently: never shared with the others.
    const key = `${ctx.credential.id} ${ctx.credential.empresaId ?? ''}/${ctx.credential.unidadeId ?? ''} ${url}${ctx.renewOn401 === false ? ' check' : ''}`;
    if (this.options.coalesce === false) return this.callWithRetries(ctx, endpoint, url);
    // Callers that join this call in flight hear its place in the budget queue as its first caller does.
    const { job, shared } = this.inflight.run(
      key,
      ctx.priority,
      (observer) => this.callWithRetries({ ...ctx, observer }, endpoint, url),
      ctx.observer,
    );
    if (shared) this.counters.coalesced += 1;
    return job as Promise<T>;
  }

  private async callWithRetries<T>(ctx: CallContext, endpoint: Endpoint<T>, url: string): Promise<T> {
    let renewed = false;
    const { deadline } = ctx;
    let timeouts = 0;
    const shouldRetry = (error: unknown) => {
      if (!(error instanceof UpstreamError && error.retryable)) return false;
      // The token step's own retries are spent already: retrying it here would multiply them.
      if (retriedByTokenManager(error)) return false;
      if (deadline === undefined) return true;
      // Under a deadline a hanging upstream gets one more chance, not three: the answer must arrive in time.
      if (error instanceof UpstreamTimeoutError) timeouts += 1;
      return timeouts <= 1;
    };
    for (;;) {
      // The token the last attempt sent, for the verdict on its 401.
      const sent: { grant?: TokenGrant } = {};
      try {
        return await withRetry((attempt) => this.attempt(ctx, endpoint, url, attempt, sent), {
          policy: this.retryPolicy,
          sleep: this.sleep,
          shouldRetry,
          ...(deadline !== undefined && { remainingMs: () => deadline - this.now() }),
          onRetry: (error, attempt, delayMs) => {
            this.counters.retries += 1;
            this.options.logger.warn(
              {
                correlationId: ctx.correlationId,
                endpoint: endpoint.label,
                attempt,
                delayMs,
                ...errFields(error),
              },
              'upstream call failed; retrying',
            );
          },
        });
      } catch (error) {
        // A 401 upstream gave (TokenRefusedError is the token manager's, without a call): the token may have expired
        // early or been revoked, and one renewal (refresh, or login when the refresh is refused) and one more try may
        // cure it. The renewed token refused too is the login's access itself: no more (the API document: do not
        // retry a 401 automatically), and no renewal on any replica for a while (TokenManager.refused).
        if (
          !(error instanceof UpstreamUnauthorizedError) ||
          error instanceof TokenRefusedError ||
          !sent.grant ||
          ctx.renewOn401 === false
        )
          throw error;
        const verdict = await this.options.tokens.refused(ctx.credential, sent.grant);
        if (verdict.renew && !renewed) {
          renewed = true;
          continue;
        }
        if (!verdict.renew && verdict.broken)
          throw new CredentialsExpiredError(
            'tokens handed out by renewals were refused (401) again after every cooldown',
            error,
          );
        throw error;
      }
    }
  }

  private async attempt<T>(
    ctx: CallContext,
    endpoint: Endpoint<T>,
    url: string,
    attempt: number,
    /** Told the token the attempt sends. */
    sent: { grant?: TokenGrant },
  ): Promise<T> {
    // A renewal this call needs is waited for within the answer's deadline, like the budget slot below.
    const grant = await this.options.tokens.grant(ctx.credential, ctx.priority, {
      ...(ctx.deadline !== undefined && { deadline: ctx.deadline }),
    });
    sent.grant = grant;
    const headers: Record<string, string> = {};
    if (ctx.credential.empresaId !== null) headers.EmpresaId = String(ctx.credential.empresaId);
    if (endpoint.headers === 'empresa-unidade' && ctx.credential.unidadeId !== null) {
      headers.UnidadeId = String(ctx.credential.unidadeId);
    }
    if (ctx.correlationId) headers['X-Correlation-Id'] = ctx.correlationId;
    const remaining = this.remainingMs(ctx);
    if (remaining <= 0) throw new UpstreamTimeoutError(endpoint.label, 0);
    const scheduleOptions: ScheduleOptions = {
      ...(Number.isFinite(remaining) && { maxWaitMs: slotWaitMs(ctx.priority, remaining) }),
      ...(ctx.observer?.queued && { onQueued: (position: number) => ctx.observer?.queued?.(position) }),
      ...(ctx.demand && { demand: ctx.demand }),
    };
    const result = await this.options.budget.schedule(
      ctx.credential.id,
      ctx.priority,
      () => {
        // The wait for the slot may have outlived the token, or a renewal replaced it: the newest good one goes.
        sent.grant = this.options.tokens.current(ctx.credential.id, grant);
        headers.Authorization = `Bearer ${sent.grant.token}`;
        this.counters.calls += 1;
        ctx.observer?.started?.();
        return observeAttempt(this.options.metrics, endpoint.label, () =>
          sendOnce(this.options.dispatcher, {
            method: 'GET',
            url,
            headers,
            // What is left of the deadline once the slot is granted, at least a moment.
            timeoutMs: Math.max(1, Math.min(this.timeoutMs, this.remainingMs(ctx))),
            maxBytes: this.maxResponseBytes,
            endpoint: endpoint.label,
          }),
        );
      },
      scheduleOptions,
    );
    this.options.logger.debug(
      { correlationId: ctx.correlationId, endpoint: endpoint.label, status: result.status, attempt },
      'upstream call',
    );
    if (result.status >= 200 && result.status < 300) {
      await this.options.tokens.accepted(ctx.credential.id);
      // An empty body is an empty list; a `null` (or any other non-list) is not, and fails the schema.
      const parsed = parseOrThrow(
        endpoint.schema,
        result.body === undefined ? [] : result.body,
        endpoint.label,
      );
      return this.keepRows(parsed, ctx, endpoint.label);
    }
    const error = errorFromResponse(result.status, result.body, result.headers, endpoint.label);
    if (error instanceof UpstreamUnauthorizedError) this.counters.unauthorized += 1;
    if (error instanceof UpstreamRateLimitedError) {
      this.counters.rateLimited += 1;
      // Stop every replica for this credential: the upstream counts differently from us (another client?). The
      // pause grows with the credential's 429s in a row, counted across replicas (Budget.pauseAfter429).
      const pauseMs = await this.options.budget.pauseAfter429(ctx.credential.id, error.retryAfterMs);
      throw new UpstreamRateLimitedError(endpoint.label, error.retryAfterMs, this.now() + pauseMs, {
        traceId: error.traceId,
      });
    }
    throw error;
  }

  private remainingMs(ctx: CallContext): number {
    return ctx.deadline === undefined ? Number.POSITIVE_INFINITY : ctx.deadline - this.now();
  }

  /** A list longer than maxRows keeps its first maxRows rows; the cut is logged. */
  private keepRows<T>(parsed: T, ctx: CallContext, label: string): T {
    if (!Array.isArray(parsed) || parsed.length <= this.maxRows) return parsed;
    this.options.logger.warn(
      { correlationId: ctx.correlationId, endpoint: label, rows: parsed.length, kept: this.maxRows },
      'upstream list longer than the rows kept; the rest is dropped',
    );
    return parsed.slice(0, this.maxRows) as T;
  }

  private urlOf(endpoint: Endpoint<unknown>): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(endpoint.query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const item of value) params.append(name, String(item));
      else params.set(name, String(value));
    }
    params.sort();
    const text = params.toString();
    return `${this.baseUrl}${endpoint.path}${text ? `?${text}` : ''}`;
  }
}

/** The rows' stated `totalRows` when it can be believed; 0 when absent or past MAX_STATED_TOTAL_ROWS. */
function believedTotal(rows: readonly { totalRows?: number | null }[]): number {
  const stated = rows[0]?.totalRows ?? 0;
  return stated <= MAX_STATED_TOTAL_ROWS ? stated : 0;
}

/**
 * A page of rows with its total. The total is the rows' `totalRows`, but never fewer than the rows this page
 * proves exist (the pages before it and its own rows): a service that says 0, or less, beside rows it sends is
 * wrong, and taken at its word it hid those rows (a list of 10 under "0 solicitações" with no next page, a digest
 * with "nenhuma" new requests beside the rows it counted). A total past MAX_STATED_TOTAL_ROWS is not believed: the
 * rows proven count. A full page beside a total not believed, or lower than the rows it proves, leaves the total
 * unknown (Page.totalUnknown: more may follow). `atLeast`: a total known from elsewhere (the block a page was cut
 * from); `totalUnknown`: that block's, which then decides instead of this page.
 */
export function toPage<T extends { totalRows?: number | null }>(
  rows: T[],
  page: number | undefined,
  pageSize: number | undefined,
  atLeast = 0,
  totalUnknown?: boolean,
): Page<T> {
  const size = pageSize ?? DEFAULT_PAGE_SIZE;
  const at = page ?? 1;
  const stated = rows[0]?.totalRows ?? 0;
  const proven = rows.length === 0 ? 0 : (at - 1) * size + rows.length;
  const totalRows = Math.max(believedTotal(rows), proven, atLeast);
  // A full page beside a total too high to believe, or lower than the rows it proves (absent or null included).
  const unknown =
    totalUnknown ?? (rows.length >= size && (stated > MAX_STATED_TOTAL_ROWS || stated < proven));
  return {
    rows,
    page: at,
    pageSize: size,
    totalRows,
    totalPages: Math.max(1, Math.ceil(totalRows / size) + (unknown ? 1 : 0)),
    ...(unknown && { totalUnknown: true }),
  };
}

/**
 * No page follows this one. A page shorter than its size is the last, whatever the total says (a total too high
 * must not send a reader on to pages that are empty or refused). A full page is the last when it reaches the total,
 * which a total not believed (Page.totalUnknown) never does: then only a short or empty page ends the list. A full
 * last page of an honest total ends it too: no empty page is read after it.
 */
export function isLastPage(page: Page<unknown>): boolean {
  return page.rows.length < page.pageSize || page.page >= page.totalPages;
}

/**
 * A 400 or 404 answering a page after the first of a list whose earlier pages were served: the service refuses a
 * page past the rows it has (a total too high, or too low and read on), which is the end of the list, not a failure.
 */
export function isPastLastPage(error: unknown, page: number): boolean {
  return page > 1 && error instanceof UpstreamError && (error.status === 400 || error.status === 404);
}

/**
 * A page as the service served it. The allowed PageSize of the stockroom lists is not documented (upstream-api.md:
 * "not shown"; their default is 50), so a service may serve fewer rows a page than asked: page 1 shorter than asked
 * while its total says more rows follow, or a later page whose first rowNumber does not follow from the size asked,
 * says the size it pages by. `pageSize` and `totalPages` are then that size's, so whoever reads the next pages
 * (same Page numbers, the service keeps its size) reads every row, and whoever cuts pages out of a block knows
 * where the block really starts.
 */
export function servedPage<T extends PagedRow>(
  rows: T[],
  page: number | undefined,
  pageSize: number | undefined,
): Page<T> {
  const asked = pageSize ?? DEFAULT_PAGE_SIZE;
  const at = page ?? 1;
  const first = rows[0];
  let served = asked;
  if (first && rows.length < asked && at === 1 && believedTotal(rows) > rows.length) served = rows.length;
  if (first && at > 1 && typeof first.rowNumber === 'number') {
    const implied = (first.rowNumber - 1) / (at - 1);
    if (Number.isInteger(implied) && implied >= rows.length && implied >= 1 && implied < asked)
      served = implied;
  }
  return toPage(rows, page, served);
}

/**
 * Reads every page of a paginated list, bounded by ceil(totalRows / pageSize) and by `maxPages` (each page is
 * one call of the budget), and up to the first page shorter than its size or empty: that page is the last
 * (upstream-api.md), whatever the total says. Under a total not believed (Page.totalUnknown) it reads on while the
 * pages come full, and a page after the first that the service refuses (400 or 404, isPastLastPage) ends it too.
 * `complete`: the end was reached and the rows are all the total claimed.
 */
export async function fetchAllPages<T extends { totalRows?: number | null }>(
  fetchPage: (page: number) => Promise<Page<T>>,
  maxPages = 10,
  /**
   * The row's id: a row met again on a later page is left out. Pages read at different times (one from the
   * cache, the next fresh) can show a row twice when the list moved in between.
   */
  idOf?: (row: T) => number | string,
): Promise<{ rows: T[]; totalRows: number; complete: boolean }> {
  const seen = new Set<number | string>();
  const rows: T[] = [];
  const add = (page: Page<T>) => {
    for (const row of page.rows) {
      if (idOf) {
        const id = idOf(row);
        if (seen.has(id)) continue;
        seen.add(id);
      }
      rows.push(row);
    }
  };
  let last = await fetchPage(1);
  add(last);
  // A total not believed grows with the rows read; a believed one stands.
  let totalRows = last.totalRows;
  let ended = isLastPage(last);
  for (let page = 2; !ended && page <= maxPages; page += 1) {
    const next = await fetchPage(page).catch((error: unknown) => {
      // Refused past the rows the service has (a total too high): the end of the list, not a failure.
      if (isPastLastPage(error, page)) return null;
      throw error;
    });
    if (next === null) {
      ended = true;
      break;
    }
    last = next;
    add(last);
    totalRows = Math.max(totalRows, last.totalRows);
    ended = isLastPage(last);
  }
  return { rows, totalRows, complete: ended && rows.length >= totalRows };
}

/**
 * Of an answer's deadline, what a call keeps for itself once it has its slot: the upstream answer (well under a
 * second when upstream is well), rendering and the post that replaces the first message.
 */
const AFTER_SLOT_MS = 5_000;

/**
 * How long a call under a deadline may wait for a budget slot: as long as the deadline leaves `AFTER_SLOT_MS` for
 * the call itself, and at least the priority's usual wait cut to the deadline. An answer under a deadline has a
 * first message on screen within a second (saved data or its place in the queue, slack/first-message.ts), so a
 * longer wait costs nobody a blank screen, and a call that gets its slot at 15 s answers with fresh data where it
 * used to give up at 10 s and answer "limite atingido" over saved data. With ANSWER_DEADLINE 25 s: 20 s.
 */
export function slotWaitMs(priority: Priority, remainingMs: number): number {
  return Math.max(Math.min(DEFAULT_MAX_WAIT_MS[priority], remainingMs), remainingMs - AFTER_SLOT_MS);
}

/**
 * Whether a 400 of a page over the documented default may be that page size's refusal, worth one call at the default.
 * The allowed range is not shown, nor how its refusal reads. Yes when the 400 names the page size (a validation
 * error of the field, its name, PAGE_SIZE_WORDS or the size asked in its cause or title), and when its cause names
 * no field at all and none of the call's other parameters nor OTHER_CAUSE_WORDS ("Parâmetros inválidos."). No when
 * it states another cause ("O período da consulta é limitado a 12 meses.", a validation error of another field):
 * upstream-api.md Errors rule 6, a 400 is not retried. Until 2026-11-27 every such 400 without a validation error
 * of another field was asked again (two calls for a refused period); for an hour of that day only a 400 naming
 * the page size was, and a refusal in prose of its own ("Parâmetros inválidos.") failed every list.
 */
function pageSizeMayBeTheCause(
  error: UpstreamBadRequestError,
  query: Record<string, unknown>,
  params: { page: string; size: string },
  asked: number,
): boolean {
  if (error.blames(params.size, [...PAGE_SIZE_WORDS, String(asked)])) return true;
  if (error.fields.length > 0) return false;
  const others = Object.keys(query).filter((name) => name !== params.size && name !== params.page);
  return !others.some((name) => error.blames(name)) && !error.says(OTHER_CAUSE_WORDS);
}
