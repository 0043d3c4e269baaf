import { z } from 'zod';
import { UpstreamSchemaError } from './errors.js';

/**
 * zod schemas of every record the stockroom area documents, with the exact property names. Types come from
 * these schemas (`z.infer`), never written a second time.
 *
 * Decisions:
 * - Objects are loose: properties the document does not list are kept, not stripped nor refused.
 * - A field documented as nullable must accept null; we also accept it MISSING and turn that into null
 *   (`.nullable().default(null)`), because .NET services commonly omit nulls. Consumers therefore see
 *   `T | null`, never undefined. A field documented as non-nullable must be present and non-null.
 * - Identifiers and other int32 fields are integers within the int32 range; a string id is a mismatch.
 * - date-time fields stay strings (the service sends local times without an offset); they must look like an
 *   ISO date and be accepted by Date.parse.
 */

const int32 = z.int32();
const double = z.number();
const text = z.string();
const bool = z.boolean();

/** An ISO-like date-time, loosely checked and kept as the string the service sent. */
export const dateTimeSchema = z
  .string()
  .refine((value) => /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value)), {
    message: 'expected an ISO date-time',
  });

/** Documented as nullable: may be null, may also be absent (read as null). */
function nullable<T extends z.ZodType>(schema: T) {
  return schema.nullable().default(null);
}

export const userSchema = z.looseObject({
  usuario: int32,
  nome: nullable(text),
  email: nullable(text),
  inativo: bool,
  superUsuario: nullable(bool),
  login: nullable(text),
  usuarioDesignado: nullable(bool),
  filtrosDefault: nullable(bool),
  filtrosAlteracaoDefault: nullable(bool),
  filtrosTodosTiposAnomalias: nullable(bool),
  /** ETipoUsuario: 1, 2 (administrator), 3 (operational), 4 (ticket user); kept as any int32. */
  tipo: nullable(int32),
  cargo: nullable(int32),
  setor: nullable(int32),
  assinaturaPath: nullable(text),
  celular: nullable(text),
  dataCadastro: nullable(dateTimeSchema),
  acessoTodasAreas: bool,
  tipoNome: nullable(text),
  image: nullable(text),
  emailValido: bool,
});
export type User = z.infer<typeof userSchema>;

export const stockroomSchema = z.looseObject({
  almoxarifado: int32,
  nome: nullable(text),
  site: nullable(int32),
  grupoArea: nullable(int32),
  area: nullable(int32),
  subgrupoArea: nullable(int32),
  status: int32,
});
export type Stockroom = z.infer<typeof stockroomSchema>;

/** EUnidadeConsumo: its values are not documented, so any integer or string is taken as is. */
export const consumptionUnitSchema = z.union([z.int(), z.string()]);

export const materialSchema = z.looseObject({
  material: int32,
  empresa: int32,
  site: nullable(int32),
  tipoMaterial: nullable(int32),
  codigo: nullable(text),
  nome: nullable(text),
  status: int32,
  custo: nullable(double),
  custoMaoObra: nullable(double),
  fabricante: nullable(text),
  modelo: nullable(text),
  marca: nullable(text),
  categoriaMaterial: nullable(int32),
  unidadeConsumo: consumptionUnitSchema,
  ratearMaoObraProporcionalAQuantidade: bool,
  classe: nullable(int32),
  nomeFormatted: nullable(text),
  isAtivo: bool,
  isEpi: bool,
});
export type Material = z.infer<typeof materialSchema>;

export const materialTypeSchema = z.looseObject({
  tipoMaterialId: int32,
  nome: nullable(text),
});
export type MaterialType = z.infer<typeof materialTypeSchema>;

export const materialCategorySchema = z.looseObject({
  categoriaMaterialId: int32,
  nome: nullable(text),
});
export type MaterialCategory = z.infer<typeof materialCategorySchema>;

export const materialRequestSchema = z.looseObject({
  solicitacaoMaterialId: int32,
  almoxarifado: int32,
  site: int32,
  solicitante: int32,
  almoxarifado_Nome: nullable(text),
  solicitante_Nome: nullable(text),
  listaStatusAndamentoSolicitacao: nullable(text),
  statusAndamentoSolicitacao: nullable(int32),
  statusAndamentoSolicitacao_Nome: nullable(text),
  ocorrencias: nullable(text),
  concluidoComRessalvas: bool,
  rowNumber: int32,
  /** Total of rows of the whole result, repeated in each row. */
  totalRows: int32,
});
export type MaterialRequest = z.infer<typeof materialRequestSchema>;

export const requestItemSchema = z.looseObject({
  solicitacaoMaterialItemId: int32,
  solicitacaoMaterialId: int32,
  material: int32,
  material_Nome: nullable(text),
  quantidade: double,
  estoqueAtual: double,
  estoqueMinimo: nullable(double),
  estoqueMaximo: nullable(double),
  statusCompra: nullable(int32),
  statusCompraMaterial_Nome: nullable(text),
  quantidadeEntregue: nullable(double),
  statusAndamentoSolicitacao: nullable(int32),
  statusAndamentoSolicitacao_Nome: nullable(text),
  ocorrencias: nullable(text),
  valorUnitario: nullable(double),
  valorTotal: nullable(double),
  prazoDevolucao: nullable(dateTimeSchema),
  compraMaterialItem: nullable(int32),
  rowNumber: int32,
  destinacaoTipo: nullable(int32),
  destinacaoId: nullable(int32),
  ocorrenciasRelacionadasCount: int32,
});
export type RequestItem = z.infer<typeof requestItemSchema>;

export const historyEntrySchema = z.looseObject({
  andamentoSolicitacao: int32,
  solicitacaoMaterial: int32,
  responsavelSaidaMaterial: nullable(int32),
  responsavelRetirada: nullable(int32),
  status: int32,
  data: dateTimeSchema,
  site_Nome: nullable(text),
  almoxarifado_Nome: nullable(text),
  solicitante: nullable(int32),
  solicitante_Nome: nullable(text),
  responsavelSaidaMaterial_Nome: nullable(text),
  responsavelRetirada_Nome: nullable(text),
  statusAndamentoSolicitacao_Nome: nullable(text),
  rowNumber: int32,
  totalRows: int32,
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

/**
 * Purchase order: only the id is documented. Rows of the purchase list carry totalRows; the same record is
 * returned by GET /v1/entradas-materiais/compras, where the document does not promise it, hence optional, and null
 * taken as absent (its type is not shown: a record shared by a paged and an unpaged list may send null there).
 * Every other property is kept as an unknown extra.
 */
export const purchaseOrderSchema = z.looseObject({
  compraMaterialId: int32,
  totalRows: int32.nullish(),
});
export type PurchaseOrder = z.infer<typeof purchaseOrderSchema>;

/** Goods receipt: no field is documented; the row is kept whole (totalRows as the purchase's). */
export const goodsReceiptSchema = z.looseObject({
  totalRows: int32.nullish(),
});
export type GoodsReceipt = z.infer<typeof goodsReceiptSchema>;

export const userListSchema = z.array(userSchema);
export const stockroomListSchema = z.array(stockroomSchema);
export const materialListSchema = z.array(materialSchema);
export const materialTypeListSchema = z.array(materialTypeSchema);
export const materialCategoryListSchema = z.array(materialCategorySchema);
export const materialRequestListSchema = z.array(materialRequestSchema);
export const requestItemListSchema = z.array(requestItemSchema);
export const historyEntryListSchema = z.array(historyEntrySchema);
export const purchaseOrderListSchema = z.array(purchaseOrderSchema);
export const goodsReceiptListSchema = z.array(goodsReceiptSchema);

/** Body of 400, 401, 403, 404 and 429 answers. */
export const problemDetailsSchema = z.looseObject({
  type: nullable(text),
  title: nullable(text),
  status: nullable(int32),
  detail: nullable(text),
  instance: nullable(text),
});
export type ProblemDetails = z.infer<typeof problemDetailsSchema>;

/**
 * Body of 500 answers. The document says it has no other properties, so this schema is strict: use it to
 * report contract drift. The error path itself (errorFromResponse) reads these fields leniently and never
 * fails because of an extra property.
 */
export const errorCommandResultSchema = z.strictObject({
  type: nullable(text),
  hash: nullable(text),
});
export type ErrorCommandResult = z.infer<typeof errorCommandResultSchema>;

/**
 * The two expiries may be missing (or null): the token manager then assumes the documented lifetimes (about 2 h and
 * 7 days) rather than refusing a token it can use. One that is there must still be a date-time.
 */
export const authTokenSchema = z.looseObject({
  jti: text,
  token: text,
  refreshToken: text,
  expiresIn: dateTimeSchema.nullish(),
  refreshExpiresIn: dateTimeSchema.nullish(),
});
export type AuthToken = z.infer<typeof authTokenSchema>;

/**
 * Answer of POST /v1/auth/ and /v1/auth/refresh. A success must carry a complete authToken; a refusal may
 * carry none, null or a half-filled one, which is read as null. `hasActiveSession` only adds to what the answer
 * says: missing or not a boolean, it reads as absent (a refusal without it still shows the issuer's message).
 */
const activeSession = bool.optional().catch(undefined);
export const authResponseSchema = z.discriminatedUnion('success', [
  z.looseObject({
    success: z.literal(true),
    message: nullable(text),
    hasActiveSession: activeSession,
    authToken: authTokenSchema,
  }),
  z.looseObject({
    success: z.literal(false),
    message: nullable(text),
    hasActiveSession: activeSession,
    authToken: authTokenSchema.nullable().catch(null),
  }),
]);
export type AuthResponse = z.infer<typeof authResponseSchema>;

const MAX_ISSUES = 5;

function formatPath(path: readonly PropertyKey[]): string {
  let out = '$';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
  return out;
}

/** Paths and messages of the first issues. zod's messages name the expected type, never the input value. */
export function summarizeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, MAX_ISSUES).map((issue) => `${formatPath(issue.path)}: ${issue.message}`);
  const more = issues.length - shown.length;
  return more > 0 ? `${shown.join('; ')} (+${more} more)` : shown.join('; ');
}

/** Parses an upstream payload or throws UpstreamSchemaError naming the endpoint and the mismatched paths. */
export function parseOrThrow<S extends z.ZodType>(schema: S, data: unknown, endpoint: string): z.output<S> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  throw new UpstreamSchemaError(endpoint, summarizeIssues(result.error.issues));
}
