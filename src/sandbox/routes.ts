import type { IncomingHttpHeaders } from 'node:http';
import type { Account, TokenIssuer } from './auth-issuer.js';
import {
  type DataHandler,
  listMaterialCategories,
  listMaterials,
  listMaterialTypes,
  listPurchaseRequests,
  listPurchases,
  listReceipts,
  listReceivablePurchases,
  listRequestHistory,
  listRequestItems,
  listRequests,
  listStockrooms,
  listUsers,
} from './endpoints.js';
import { problem, type Reply, ReplyError, validationProblem } from './http-util.js';
import type { SandboxData } from './model.js';
import { type PageLimit, parseInt32, QueryParams } from './query.js';

/** A data endpoint of the service. */
export interface DataRoute {
  pattern: RegExp;
  handler: DataHandler;
  /** The type and category lists answer 401 with no body. */
  bareUnauthorized?: boolean;
  /** Whether the endpoint takes the UnidadeId header (the document lists it per endpoint). */
  unitHeader: boolean;
  /** GET /v1/usuarios also takes EmpresaId as a query parameter. */
  companyQuery?: boolean;
}

const ID = '([^/]+)';

export const DATA_ROUTES: DataRoute[] = [
  { pattern: /^\/v1\/usuarios$/, handler: listUsers, unitHeader: false, companyQuery: true },
  { pattern: /^\/v1\/almoxarifados$/, handler: listStockrooms, unitHeader: true },
  { pattern: /^\/v1\/materiais$/, handler: listMaterials, unitHeader: true },
  {
    pattern: /^\/v1\/materiais\/tipos$/,
    handler: listMaterialTypes,
    unitHeader: true,
    bareUnauthorized: true,
  },
  {
    pattern: /^\/v1\/materiais\/categorias$/,
    handler: listMaterialCategories,
    unitHeader: true,
    bareUnauthorized: true,
  },
  { pattern: /^\/v1\/solicitacoes-materiais$/, handler: listRequests, unitHeader: false },
  {
    pattern: new RegExp(`^/v1/solicitacoes-materiais/${ID}/itens$`),
    handler: listRequestItems,
    unitHeader: true,
  },
  {
    pattern: new RegExp(`^/v1/solicitacoes-materiais/${ID}/historico$`),
    handler: listRequestHistory,
    unitHeader: true,
  },
  { pattern: /^\/v1\/compras-materiais$/, handler: listPurchases, unitHeader: true },
  {
    pattern: new RegExp(`^/v1/compras-materiais/${ID}/solicitacoes$`),
    handler: listPurchaseRequests,
    unitHeader: true,
  },
  { pattern: /^\/v1\/entradas-materiais$/, handler: listReceipts, unitHeader: true },
  { pattern: /^\/v1\/entradas-materiais\/compras$/, handler: listReceivablePurchases, unitHeader: true },
];

export function matchDataRoute(path: string): { route: DataRoute; rawId: string | undefined } | null {
  for (const route of DATA_ROUTES) {
    const match = route.pattern.exec(path);
    if (match) return { route, rawId: match[1] };
  }
  return null;
}

export function bearerToken(headers: IncomingHttpHeaders): string | null {
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return match?.[1] ?? null;
}

export interface DataCall {
  route: DataRoute;
  rawId: string | undefined;
  headers: IncomingHttpHeaders;
  params: URLSearchParams;
  path: string;
  now: number;
  /** Sandbox.servePagesOf. */
  pageLimit?: PageLimit | null;
  /** Sandbox.stateTotalRows. */
  statedTotalRows?: number | null;
}

const UNAUTHORIZED_DETAIL = {
  missing: 'Token de acesso ausente.',
  malformed: 'Token de acesso inválido.',
  signature: 'Token de acesso com assinatura inválida.',
  expired: 'Token de acesso expirado.',
  revoked: 'Sessão encerrada. Faça login novamente.',
} as const;

function unauthorized(route: DataRoute, reason: keyof typeof UNAUTHORIZED_DETAIL, instance: string): Reply {
  const challenge =
    reason === 'missing' ? 'Bearer' : `Bearer error="invalid_token", error_description="${reason}"`;
  const headers = { 'WWW-Authenticate': challenge };
  if (route.bareUnauthorized) return { status: 401, headers };
  return { ...problem(401, UNAUTHORIZED_DETAIL[reason], instance), headers };
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

function intHeader(headers: IncomingHttpHeaders, name: string, instance: string): number | undefined {
  const raw = headerValue(headers, name);
  if (raw === undefined) return undefined;
  const value = parseInt32(raw);
  if (value === null)
    throw new ReplyError(validationProblem(name, `The value '${raw}' is not valid for ${name}.`, instance));
  return value;
}

/**
 * Runs a data call: bearer token, company context (token company, or an EmpresaId the user may access),
 * UnidadeId, path id, then the endpoint. Throws ReplyError for the error answers.
 */
export function serveData(call: DataCall, issuer: TokenIssuer, data: SandboxData): Reply {
  const { route, headers, path } = call;
  const token = bearerToken(headers);
  if (token === null) return unauthorized(route, 'missing', path);
  const check = issuer.verify(token);
  if (!check.ok) return unauthorized(route, check.reason, path);

  const query = new QueryParams(call.params, path);
  const company = companyFor(check.account, headers, query, route, path, data);
  const unit = route.unitHeader ? intHeader(headers, 'UnidadeId', path) : undefined;
  const unitStockrooms =
    unit === undefined
      ? null
      : new Set(company.stockrooms.filter((s) => s.serves.includes(unit)).map((s) => s.record.almoxarifado));

  let id: number | undefined;
  if (call.rawId !== undefined) {
    const parsed = parseInt32(decodeURIComponent(call.rawId));
    if (parsed === null) {
      return validationProblem('id', `The value '${decodeURIComponent(call.rawId)}' is not valid.`, path);
    }
    id = parsed;
  }
  return route.handler(
    {
      company,
      unitStockrooms,
      query,
      instance: path,
      now: call.now,
      pageLimit: call.pageLimit ?? null,
      statedTotalRows: call.statedTotalRows ?? null,
    },
    id,
  );
}

function companyFor(
  account: Account,
  headers: IncomingHttpHeaders,
  query: QueryParams,
  route: DataRoute,
  path: string,
  data: SandboxData,
) {
  const requested =
    intHeader(headers, 'EmpresaId', path) ?? (route.companyQuery ? query.int('EmpresaId') : undefined);
  const empresa = requested ?? account.empresa;
  const company = data.company(empresa);
  if (!account.empresas.includes(empresa) || !company) {
    throw new ReplyError(problem(403, `Usuário sem permissão para acessar a empresa ${empresa}.`, path));
  }
  return company;
}
