import { TZDate } from '@date-fns/tz';
import { addMonths } from 'date-fns';
import { InvalidArgumentError } from './errors.js';

/**
 * Typed arguments of the list endpoints and their checks. Everything here runs before a call is spent: a bad
 * argument costs no budget. Outputs use the exact query parameter names of the API document.
 */

const INT32_MAX = 2_147_483_647;
export const MAX_PAGE_SIZE = 100;
export const MAX_PERIOD_MONTHS = 12;

type DateInput = Date | string;

export interface UserQuery {
  search?: string;
  usuarioId?: number;
  empresaId?: number;
  tipoUsuario?: 1 | 2 | 3 | 4;
  unidadeId?: number[];
  grupoUnidadeId?: number[];
  subGrupoUnidadeId?: number[];
  estadoId?: number[];
  cidadeId?: number[];
  fornecedorId?: number[];
  /** Deprecated upstream. */
  siteId?: number[];
  /** Deprecated upstream. */
  fornecedores?: number[];
}

export interface RequestQuery {
  siteId?: number;
  almoxarifadoId?: number;
  solicitanteId?: number;
  /** Empty or [0] means every status. */
  status?: number[];
  dataInicial?: DateInput;
  dataFinal?: DateInput;
  comCompraMaterial?: boolean;
  compraMaterialId?: number;
  search?: string;
  page?: number;
  pageSize?: number;
}

export interface HistoryQuery {
  page?: number;
  pageSize?: number;
}

export interface PurchaseQuery {
  almoxarifadoId?: number;
  fornecedorId?: number;
  status?: number[];
  dataInicial?: DateInput;
  dataFinal?: DateInput;
  search?: string;
  page?: number;
  pageSize?: number;
}

export interface ReceiptQuery {
  almoxarifadoId?: number;
  /** Purchase order id. */
  ordemCompra?: number;
  /** Dates of the PURCHASE, not of the receipt. */
  dataInicial?: DateInput;
  dataFinal?: DateInput;
  search?: string;
  page?: number;
  pageSize?: number;
}

export function validateId(value: number, field: string): number {
  if (!Number.isInteger(value) || value < 1 || value > INT32_MAX) {
    throw new InvalidArgumentError(field, `${field} must be a positive int32`);
  }
  return value;
}

function optionalId(value: number | undefined, field: string): number | undefined {
  return value === undefined ? undefined : validateId(value, field);
}

function ids(values: number[] | undefined, field: string): number[] | undefined {
  if (values === undefined || values.length === 0) return undefined;
  return values.map((v) => validateId(v, field));
}

function statusList(values: number[] | undefined, field: string): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  for (const v of values) {
    if (!Number.isInteger(v) || v < 0 || v > INT32_MAX)
      throw new InvalidArgumentError(field, `${field} values must be integers >= 0`);
  }
  return [...new Set(values)].join(',');
}

function paging(
  page: number | undefined,
  pageSize: number | undefined,
): { page?: number; pageSize?: number } {
  if (page !== undefined && (!Number.isInteger(page) || page < 1 || page > INT32_MAX)) {
    throw new InvalidArgumentError('page', 'page must be an integer >= 1');
  }
  if (pageSize !== undefined && (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE)) {
    throw new InvalidArgumentError('pageSize', `pageSize must be an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  return { page, pageSize };
}

/** `2025-11-24T00:00:00` (seconds and fraction optional): a wall time with no zone. */
const WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?$/;

/**
 * A date-time parameter as an instant. A string without a zone is the service's local wall time (that is how the
 * bot sends them, src/domain/dates.ts), read in `timeZone` when given; JavaScript would read it in the process's
 * own zone, UTC in a container, which moved a start 364 days back past the 12-month limit every evening after
 * 21:00 in São Paulo.
 */
function toDate(value: DateInput | undefined, field: string, timeZone?: string): Date | undefined {
  if (value === undefined) return undefined;
  const wall = typeof value === 'string' && timeZone !== undefined ? WALL_TIME.exec(value) : null;
  const date = wall
    ? TZDate.tz(
        timeZone as string,
        Number(wall[1]),
        Number(wall[2]) - 1,
        Number(wall[3]),
        Number(wall[4] ?? 0),
        Number(wall[5] ?? 0),
        Number(wall[6] ?? 0),
      )
    : typeof value === 'string'
      ? new Date(value)
      : value;
  if (Number.isNaN(date.getTime()))
    throw new InvalidArgumentError(field, `${field} is not a valid date-time`);
  return date;
}

function formatDate(value: DateInput | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.toISOString();
}

/** The request list accepts at most 12 months between DataInicial and DataFinal (or now, when only the start is given). */
function period(
  start: DateInput | undefined,
  end: DateInput | undefined,
  limitMonths: number | null,
  now: Date,
  timeZone?: string,
) {
  const from = toDate(start, 'dataInicial', timeZone);
  const to = toDate(end, 'dataFinal', timeZone);
  if (from && to && from > to)
    throw new InvalidArgumentError('dataInicial', 'dataInicial is after dataFinal');
  if (limitMonths !== null && from && addMonths(from, limitMonths) < (to ?? now)) {
    throw new InvalidArgumentError('dataInicial', `the period is limited to ${limitMonths} months`);
  }
  return { DataInicial: formatDate(start), DataFinal: formatDate(end) };
}

function search(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed ? trimmed : undefined;
}

export function validateUserQuery(q: UserQuery) {
  if (q.tipoUsuario !== undefined && ![1, 2, 3, 4].includes(q.tipoUsuario)) {
    throw new InvalidArgumentError('tipoUsuario', 'tipoUsuario must be 1, 2, 3 or 4');
  }
  return {
    Search: search(q.search),
    UsuarioId: optionalId(q.usuarioId, 'usuarioId'),
    EmpresaId: optionalId(q.empresaId, 'empresaId'),
    TipoUsuario: q.tipoUsuario,
    UnidadeId: ids(q.unidadeId, 'unidadeId'),
    GrupoUnidadeId: ids(q.grupoUnidadeId, 'grupoUnidadeId'),
    SubGrupoUnidadeId: ids(q.subGrupoUnidadeId, 'subGrupoUnidadeId'),
    EstadoId: ids(q.estadoId, 'estadoId'),
    CidadeId: ids(q.cidadeId, 'cidadeId'),
    FornecedorId: ids(q.fornecedorId, 'fornecedorId'),
    SiteId: ids(q.siteId, 'siteId'),
    Fornecedores: ids(q.fornecedores, 'fornecedores'),
  };
}

/** `timeZone`: the service's, in which date-times without a zone are read (see toDate). */
export function validateRequestQuery(q: RequestQuery, now = new Date(), timeZone?: string) {
  const { page, pageSize } = paging(q.page, q.pageSize);
  return {
    SiteId: optionalId(q.siteId, 'siteId'),
    AlmoxarifadoId: optionalId(q.almoxarifadoId, 'almoxarifadoId'),
    SolicitanteId: optionalId(q.solicitanteId, 'solicitanteId'),
    Status: statusList(q.status, 'status'),
    ...period(q.dataInicial, q.dataFinal, MAX_PERIOD_MONTHS, now, timeZone),
    ComCompraMaterial: q.comCompraMaterial,
    CompraMaterialId: optionalId(q.compraMaterialId, 'compraMaterialId'),
    Search: search(q.search),
    Page: page,
    PageSize: pageSize,
  };
}

export function validateHistoryQuery(q: HistoryQuery) {
  const { page, pageSize } = paging(q.page, q.pageSize);
  return { page, pageSize };
}

export function validatePurchaseQuery(q: PurchaseQuery, now = new Date(), timeZone?: string) {
  const { page, pageSize } = paging(q.page, q.pageSize);
  return {
    AlmoxarifadoId: optionalId(q.almoxarifadoId, 'almoxarifadoId'),
    FornecedorId: optionalId(q.fornecedorId, 'fornecedorId'),
    // "0 = all": the document states no default for this list (it does for the request list's), so every status is
    // asked for by name rather than left to the service's default.
    Status: statusList(q.status, 'status') ?? '0',
    ...period(q.dataInicial, q.dataFinal, null, now, timeZone),
    Search: search(q.search),
    Page: page,
    PageSize: pageSize,
  };
}

export function validateReceiptQuery(q: ReceiptQuery, now = new Date(), timeZone?: string) {
  const { page, pageSize } = paging(q.page, q.pageSize);
  return {
    AlmoxarifadoId: optionalId(q.almoxarifadoId, 'almoxarifadoId'),
    OrdemCompra: optionalId(q.ordemCompra, 'ordemCompra'),
    ...period(q.dataInicial, q.dataFinal, null, now, timeZone),
    Search: search(q.search),
    Page: page,
    PageSize: pageSize,
  };
}
