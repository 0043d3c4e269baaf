import { expect } from 'vitest';

/** Multipart login form; values go as given (tests pass quoted values on purpose). */
export function loginForm(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return form;
}

export const DEMO_FORM = {
  login: 'demo',
  Password: 'demo',
  Plataform: '6',
  ExpireCurrentSession: 'false',
  StayConnected: 'true',
};

export interface AuthToken {
  jti: string;
  token: string;
  refreshToken: string;
  expiresIn: string;
  refreshExpiresIn: string;
}

export interface AuthBody {
  success: boolean;
  message: string | null;
  hasActiveSession: boolean;
  authToken: AuthToken | null;
}

export async function postLogin(authUrl: string, fields: Record<string, string>) {
  const response = await fetch(`${authUrl}/v1/auth/`, { method: 'POST', body: loginForm(fields) });
  return { status: response.status, body: (await response.json()) as AuthBody, response };
}

/** Logs in and returns the token pair; fails the test when the issuer refuses. */
export async function login(authUrl: string, user = 'demo', password = user): Promise<AuthToken> {
  const { status, body } = await postLogin(authUrl, { ...DEMO_FORM, login: user, Password: password });
  expect(status).toBe(200);
  expect(body.success).toBe(true);
  if (!body.authToken) throw new Error('no authToken');
  return body.authToken;
}

export async function postRefresh(authUrl: string, token: string, refreshToken: string) {
  const response = await fetch(`${authUrl}/v1/auth/refresh`, {
    method: 'POST',
    body: new URLSearchParams({ Token: token, RefreshToken: refreshToken }),
  });
  return { status: response.status, body: (await response.json()) as AuthBody };
}

/** GET a data endpoint with a bearer token; returns status, parsed JSON (or null) and the response. */
export async function get<T = unknown>(
  baseUrl: string,
  path: string,
  token: string | null,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T; response: Response; text: string }> {
  const response = await fetch(`${baseUrl}${path}`, {
    headers: { ...(token === null ? {} : { Authorization: `Bearer ${token}` }), ...headers },
  });
  const text = await response.text();
  return { status: response.status, body: (text === '' ? null : JSON.parse(text)) as T, response, text };
}

type FieldType = 'int' | 'number' | 'string' | 'bool' | 'datetime';
/** `int?` means nullable. */
export type Shape = Record<string, FieldType | `${FieldType}?`>;

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function typeOk(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'int':
      return (
        Number.isInteger(value) && (value as number) >= -2_147_483_648 && (value as number) <= 2_147_483_647
      );
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'string':
      return typeof value === 'string';
    case 'bool':
      return typeof value === 'boolean';
    case 'datetime':
      return typeof value === 'string' && ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
  }
}

/** Every property of `shape` is present with its type (null only where nullable); with `exact`, no other property. */
export function expectShape(record: unknown, shape: Shape, exact = true): void {
  expect(record).toBeTypeOf('object');
  const object = record as Record<string, unknown>;
  const problems: string[] = [];
  for (const [field, spec] of Object.entries(shape)) {
    const nullable = spec.endsWith('?');
    const type = spec.replace('?', '') as FieldType;
    if (!(field in object)) problems.push(`${field} missing`);
    else if (object[field] === null) {
      if (!nullable) problems.push(`${field} is null`);
    } else if (!typeOk(object[field], type))
      problems.push(`${field} is not ${type}: ${JSON.stringify(object[field])}`);
  }
  if (exact) {
    for (const field of Object.keys(object)) if (!(field in shape)) problems.push(`unexpected ${field}`);
  }
  expect(problems).toEqual([]);
}

export const USER_SHAPE: Shape = {
  usuario: 'int',
  nome: 'string?',
  email: 'string?',
  inativo: 'bool',
  superUsuario: 'bool?',
  login: 'string?',
  usuarioDesignado: 'bool?',
  filtrosDefault: 'bool?',
  filtrosAlteracaoDefault: 'bool?',
  filtrosTodosTiposAnomalias: 'bool?',
  tipo: 'int?',
  cargo: 'int?',
  setor: 'int?',
  assinaturaPath: 'string?',
  celular: 'string?',
  dataCadastro: 'datetime?',
  acessoTodasAreas: 'bool',
  tipoNome: 'string?',
  image: 'string?',
  emailValido: 'bool',
};

export const STOCKROOM_SHAPE: Shape = {
  almoxarifado: 'int',
  nome: 'string?',
  site: 'int?',
  grupoArea: 'int?',
  area: 'int?',
  subgrupoArea: 'int?',
  status: 'int',
};

export const MATERIAL_SHAPE: Shape = {
  material: 'int',
  empresa: 'int',
  site: 'int?',
  tipoMaterial: 'int?',
  codigo: 'string?',
  nome: 'string?',
  status: 'int',
  custo: 'number?',
  custoMaoObra: 'number?',
  fabricante: 'string?',
  modelo: 'string?',
  marca: 'string?',
  categoriaMaterial: 'int?',
  unidadeConsumo: 'int',
  ratearMaoObraProporcionalAQuantidade: 'bool',
  classe: 'int?',
  nomeFormatted: 'string?',
  isAtivo: 'bool',
  isEpi: 'bool',
};

export const REQUEST_SHAPE: Shape = {
  solicitacaoMaterialId: 'int',
  almoxarifado: 'int',
  site: 'int',
  solicitante: 'int',
  almoxarifado_Nome: 'string?',
  solicitante_Nome: 'string?',
  listaStatusAndamentoSolicitacao: 'string?',
  statusAndamentoSolicitacao: 'int?',
  statusAndamentoSolicitacao_Nome: 'string?',
  ocorrencias: 'string?',
  concluidoComRessalvas: 'bool',
  rowNumber: 'int',
  totalRows: 'int',
};

export const ITEM_SHAPE: Shape = {
  solicitacaoMaterialItemId: 'int',
  solicitacaoMaterialId: 'int',
  material: 'int',
  material_Nome: 'string?',
  quantidade: 'number',
  estoqueAtual: 'number',
  estoqueMinimo: 'number?',
  estoqueMaximo: 'number?',
  statusCompra: 'int?',
  statusCompraMaterial_Nome: 'string?',
  quantidadeEntregue: 'number?',
  statusAndamentoSolicitacao: 'int?',
  statusAndamentoSolicitacao_Nome: 'string?',
  ocorrencias: 'string?',
  valorUnitario: 'number?',
  valorTotal: 'number?',
  prazoDevolucao: 'datetime?',
  compraMaterialItem: 'int?',
  rowNumber: 'int',
  destinacaoTipo: 'int?',
  destinacaoId: 'int?',
  ocorrenciasRelacionadasCount: 'int',
};

export const HISTORY_SHAPE: Shape = {
  andamentoSolicitacao: 'int',
  solicitacaoMaterial: 'int',
  responsavelSaidaMaterial: 'int?',
  responsavelRetirada: 'int?',
  status: 'int',
  data: 'datetime',
  site_Nome: 'string?',
  almoxarifado_Nome: 'string?',
  solicitante: 'int?',
  solicitante_Nome: 'string?',
  responsavelSaidaMaterial_Nome: 'string?',
  responsavelRetirada_Nome: 'string?',
  statusAndamentoSolicitacao_Nome: 'string?',
  rowNumber: 'int',
  totalRows: 'int',
};

export const PROBLEM_SHAPE: Shape = {
  type: 'string?',
  title: 'string?',
  status: 'int?',
  detail: 'string?',
  instance: 'string?',
};

export interface Problem {
  type: string | null;
  title: string | null;
  status: number | null;
  detail: string | null;
  instance: string | null;
}

/** A ProblemDetails answer with its media type. */
export function expectProblem(
  result: { status: number; body: unknown; response: Response },
  status: number,
  detail?: RegExp,
): void {
  expect(result.status).toBe(status);
  expect(result.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expectShape(result.body, PROBLEM_SHAPE, false);
  const problem = result.body as Problem;
  expect(problem.status).toBe(status);
  if (detail) expect(problem.detail).toMatch(detail);
}

/** POST /_sandbox/advance with a JSON body (a string is sent as is). */
export async function postAdvance(
  adminUrl: string,
  body: unknown,
  contentType = 'application/json',
): Promise<{ status: number; body: unknown; response: Response }> {
  const response = await fetch(`${adminUrl}/advance`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? null : JSON.parse(text), response };
}

/** Every row of a paginated list (PageSize 100), following totalRows. */
export async function listAll<T extends { totalRows: number }>(
  baseUrl: string,
  path: string,
  token: string,
): Promise<T[]> {
  const rows: T[] = [];
  const separator = path.includes('?') ? '&' : '?';
  for (let page = 1; ; page++) {
    const result = await get<T[]>(baseUrl, `${path}${separator}PageSize=100&Page=${page}`, token);
    expect(result.status, path).toBe(200);
    rows.push(...result.body);
    if (result.body.length < 100 || rows.length >= (result.body[0]?.totalRows ?? 0)) return rows;
  }
}
