import {
  matchesAllWords,
  paginate,
  problem,
  type Reply,
  ReplyError,
  searchWords,
  unexpectedError,
  validationProblem,
} from './http-util.js';
import type { CompanyData, RequestRow, StockroomRow } from './model.js';
import { addMonths, type PageLimit, type QueryParams, readPaging, readStatusList } from './query.js';

/** What a data endpoint knows about the call: the company of the token and the unit of the UnidadeId header. */
export interface DataContext {
  company: CompanyData;
  /** Stockrooms that serve the UnidadeId header's unit; null when the header is absent. */
  unitStockrooms: Set<number> | null;
  query: QueryParams;
  /** The request path, for ProblemDetails.instance. */
  instance: string;
  now: number;
  /** Sandbox.servePagesOf: the most rows a page serves, and what a larger PageSize gets. */
  pageLimit: PageLimit | null;
  /** Sandbox.stateTotalRows: the totalRows the request list states in its rows instead of the true total. */
  statedTotalRows?: number | null;
}

export type DataHandler = (ctx: DataContext, id: number | undefined) => Reply;

const MAX_LINKED_REQUESTS = 50;
const PERIOD_LIMIT_MONTHS = 12;

function ok(body: unknown): Reply {
  return { status: 200, body };
}

function visibleInUnit(ctx: DataContext, almoxarifado: number): boolean {
  return ctx.unitStockrooms === null || ctx.unitStockrooms.has(almoxarifado);
}

function stockroomOf(ctx: DataContext, almoxarifado: number): StockroomRow | undefined {
  return ctx.company.stockrooms.find((s) => s.record.almoxarifado === almoxarifado);
}

function byName(a: { nome: string | null }, b: { nome: string | null }): number {
  return (a.nome ?? '').localeCompare(b.nome ?? '', 'pt-BR');
}

function inPeriod(at: number, from: number | undefined, to: number | undefined): boolean {
  return (from === undefined || at >= from) && (to === undefined || at <= to);
}

/** The request of a path id, or a 404 (also for a request of a stockroom outside the UnidadeId unit). */
function requestOr404(ctx: DataContext, id: number): RequestRow {
  const request = ctx.company.requests.find((r) => r.record.solicitacaoMaterialId === id);
  if (!request || !visibleInUnit(ctx, request.record.almoxarifado)) {
    throw new ReplyError(problem(404, `Solicitação de material ${id} não encontrada.`, ctx.instance));
  }
  return request;
}

export const listUsers: DataHandler = (ctx) => {
  const { query } = ctx;
  const words = searchWords(query.text('Search'));
  const userId = query.int('UsuarioId');
  const type = query.int('TipoUsuario');
  if (type !== undefined && ![1, 2, 3, 4].includes(type)) {
    return validationProblem(
      'TipoUsuario',
      `The value '${type}' is not valid for TipoUsuario.`,
      ctx.instance,
    );
  }
  const unitIds = [...query.ints('UnidadeId'), ...query.ints('SiteId')];
  const unitFilters = [
    { ids: query.ints('GrupoUnidadeId'), key: 'grupo' },
    { ids: query.ints('SubGrupoUnidadeId'), key: 'subgrupo' },
    { ids: query.ints('EstadoId'), key: 'estado' },
    { ids: query.ints('CidadeId'), key: 'cidade' },
  ] as const;
  const suppliers = [...query.ints('FornecedorId'), ...query.ints('Fornecedores')];
  const users = ctx.company.users.filter((user) => {
    const units = ctx.company.units.filter((u) => user.units.includes(u.id));
    return (
      matchesAllWords(words, [user.record.nome]) &&
      (userId === undefined || user.record.usuario === userId) &&
      (type === undefined || user.record.tipo === type) &&
      (unitIds.length === 0 || user.units.some((u) => unitIds.includes(u))) &&
      unitFilters.every((f) => f.ids.length === 0 || units.some((u) => f.ids.includes(u[f.key]))) &&
      (suppliers.length === 0 || (user.fornecedor !== null && suppliers.includes(user.fornecedor)))
    );
  });
  return ok(users.map((u) => u.record).sort(byName));
};

export const listStockrooms: DataHandler = (ctx) => {
  const unit = ctx.query.int('unidadeId');
  const rows = ctx.company.stockrooms.filter(
    (s) =>
      s.record.status === 1 &&
      visibleInUnit(ctx, s.record.almoxarifado) &&
      (unit === undefined || s.serves.includes(unit)),
  );
  return ok(rows.map((s) => s.record));
};

export const listMaterials: DataHandler = (ctx) => {
  const code = ctx.query.text('codigo');
  const stockroomId = ctx.query.int('almoxarifadoId');
  const registeredIn = (material: number, almoxarifado: number) =>
    stockroomOf(ctx, almoxarifado)?.materials.has(material) ?? false;
  const rows = ctx.company.materials.filter(
    (m) =>
      m.isAtivo &&
      !m.isEpi &&
      (code === undefined || m.codigo === code) &&
      (stockroomId === undefined || registeredIn(m.material, stockroomId)) &&
      (ctx.unitStockrooms === null || [...ctx.unitStockrooms].some((s) => registeredIn(m.material, s))),
  );
  return ok([...rows].sort(byName));
};

export const listMaterialTypes: DataHandler = (ctx) => ok([...ctx.company.types].sort(byName));

export const listMaterialCategories: DataHandler = (ctx) => ok([...ctx.company.categories].sort(byName));

/** Reads DataInicial/DataFinal; the request list also enforces its 12-month limit. */
function readPeriod(ctx: DataContext, limited: boolean): { from?: number; to?: number } {
  const from = ctx.query.date('DataInicial', 'start');
  const to = ctx.query.date('DataFinal', 'end');
  if (limited && from !== undefined && addMonths(from, PERIOD_LIMIT_MONTHS) < (to ?? ctx.now)) {
    throw new ReplyError(
      validationProblem(
        'DataInicial',
        `O período da consulta é limitado a ${PERIOD_LIMIT_MONTHS} meses (entre DataInicial e DataFinal).`,
        ctx.instance,
      ),
    );
  }
  return { from, to };
}

function requestRecords(rows: RequestRow[]) {
  return rows.map((r) => r.record);
}

export const listRequests: DataHandler = (ctx) => {
  const { query } = ctx;
  const site = query.int('SiteId');
  const stockroom = query.int('AlmoxarifadoId');
  const requester = query.int('SolicitanteId');
  const withPurchase = query.bool('ComCompraMaterial');
  const purchase = query.int('CompraMaterialId');
  const { page, pageSize } = readPaging(query, ctx.instance, ctx.pageLimit);
  const { from, to } = readPeriod(ctx, true);
  const statuses = readStatusList(query);
  if (statuses === 'invalid') return unexpectedError();
  const words = searchWords(query.text('Search'));
  const rows = ctx.company.requests.filter(
    (r) =>
      (site === undefined || r.record.site === site) &&
      (stockroom === undefined || r.record.almoxarifado === stockroom) &&
      (requester === undefined || r.record.solicitante === requester) &&
      (statuses === 'all' || statuses.includes(r.record.statusAndamentoSolicitacao ?? -1)) &&
      inPeriod(r.createdAt, from, to) &&
      (withPurchase === undefined || r.purchaseIds.length > 0 === withPurchase) &&
      (purchase === undefined || r.purchaseIds.includes(purchase)) &&
      matchesAllWords(words, [
        r.record.solicitacaoMaterialId,
        r.record.almoxarifado_Nome,
        r.record.solicitante_Nome,
        r.record.statusAndamentoSolicitacao_Nome,
      ]),
  );
  rows.sort((a, b) => b.record.solicitacaoMaterialId - a.record.solicitacaoMaterialId);
  return ok(paginate(requestRecords(rows), page, pageSize, ctx.statedTotalRows ?? undefined));
};

export const listRequestItems: DataHandler = (ctx, id = 0) => {
  const request = requestOr404(ctx, id);
  const registered = stockroomOf(ctx, request.record.almoxarifado)?.materials ?? new Set<number>();
  const items = request.items
    .filter((item) => registered.has(item.material))
    .map((item, index) => ({ ...item, rowNumber: index + 1 }));
  return ok(items);
};

export const listRequestHistory: DataHandler = (ctx, id = 0) => {
  const { page, pageSize } = readPaging(ctx.query, ctx.instance, ctx.pageLimit);
  const request = requestOr404(ctx, id);
  const entries = [...request.history].sort(
    (a, b) => Date.parse(a.data) - Date.parse(b.data) || a.andamentoSolicitacao - b.andamentoSolicitacao,
  );
  return ok(paginate(entries, page, pageSize));
};

export const listPurchases: DataHandler = (ctx) => {
  const { query } = ctx;
  const stockroom = query.int('AlmoxarifadoId');
  const supplier = query.int('FornecedorId');
  const { page, pageSize } = readPaging(query, ctx.instance, ctx.pageLimit);
  const { from, to } = readPeriod(ctx, false);
  const statuses = readStatusList(query);
  if (statuses === 'invalid') return unexpectedError();
  const words = searchWords(query.text('Search'));
  const rows = ctx.company.purchases.filter(
    ({ record, at }) =>
      record.status !== 5 &&
      visibleInUnit(ctx, record.almoxarifado) &&
      (stockroom === undefined || record.almoxarifado === stockroom) &&
      (supplier === undefined || record.fornecedor === supplier) &&
      (statuses === 'all' || statuses.includes(record.status)) &&
      inPeriod(at, from, to) &&
      matchesAllWords(words, [
        record.compraMaterialId,
        record.almoxarifado_Nome,
        record.fornecedor_Nome,
        record.status_Nome,
        record.observacao,
      ]),
  );
  const records = rows.map((p) => p.record).sort((a, b) => b.compraMaterialId - a.compraMaterialId);
  return ok(paginate(records, page, pageSize));
};

export const listPurchaseRequests: DataHandler = (ctx, id = 0) => {
  const purchase = ctx.company.purchases.find((p) => p.record.compraMaterialId === id);
  if (!purchase || !visibleInUnit(ctx, purchase.record.almoxarifado)) {
    return problem(404, `Compra de material ${id} não encontrada.`, ctx.instance);
  }
  const rows = ctx.company.requests
    .filter((r) => purchase.requestIds.includes(r.record.solicitacaoMaterialId))
    .slice(0, MAX_LINKED_REQUESTS);
  return ok(rows.map((r, index) => ({ ...r.record, rowNumber: index + 1, totalRows: rows.length })));
};

export const listReceipts: DataHandler = (ctx) => {
  const { query } = ctx;
  const stockroom = query.int('AlmoxarifadoId');
  const order = query.int('OrdemCompra');
  const { page, pageSize } = readPaging(query, ctx.instance, ctx.pageLimit);
  // The date filter applies to the date of the PURCHASE, not of the receipt.
  const { from, to } = readPeriod(ctx, false);
  const words = searchWords(query.text('Search'));
  const rows = ctx.company.receipts.filter(
    ({ record, purchaseAt }) =>
      visibleInUnit(ctx, record.almoxarifado) &&
      (stockroom === undefined || record.almoxarifado === stockroom) &&
      (order === undefined || record.ordemCompra === order) &&
      inPeriod(purchaseAt, from, to) &&
      matchesAllWords(words, [
        record.entradaMaterialId,
        record.ordemCompra,
        record.numeroNotaFiscal,
        record.fornecedor_Nome,
        record.almoxarifado_Nome,
      ]),
  );
  const records = rows.map((r) => r.record).sort((a, b) => b.entradaMaterialId - a.entradaMaterialId);
  return ok(paginate(records, page, pageSize));
};

/** Purchases of one stockroom with a receivable balance; without almoxarifadoId nothing matches (like the service). */
export const listReceivablePurchases: DataHandler = (ctx) => {
  const stockroom = ctx.query.int('almoxarifadoId');
  const rows = ctx.company.purchases.filter(
    ({ record }) =>
      record.almoxarifado === stockroom &&
      visibleInUnit(ctx, record.almoxarifado) &&
      record.status !== 5 &&
      record.status !== 6 &&
      record.quantidadeComprada - record.quantidadeRecebida > 0,
  );
  return ok(
    rows
      .sort((a, b) => a.at - b.at)
      .map(({ record }) => ({
        ...record,
        quantidadePendente: record.quantidadeComprada - record.quantidadeRecebida,
      })),
  );
};
