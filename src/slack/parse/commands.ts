import { compareLocalDates, type LocalDate } from '../../domain/dates.js';
import { fold } from '../../lib/text.js';
import { didYouMean, SUBCOMMAND_WORDS, type Suggestion } from './did-you-mean.js';
import {
  fail,
  lengthProblem,
  type Parsed,
  parseId,
  parseIdList,
  parseLocalDate,
  parseTimeOfDay,
  searchProblem,
  type Tokens,
  tokenize,
  unknownFilters,
} from './tokens.js';

/** The typed queries of the three slash commands. Handlers dispatch on `kind`; nothing here does I/O. */

export interface DateRange {
  from?: LocalDate;
  to?: LocalDate;
}

export type EstoqueCommand =
  | { kind: 'help' }
  | { kind: 'stockrooms' }
  | { kind: 'types' }
  | { kind: 'categories' }
  | { kind: 'link' }
  | { kind: 'unlink' }
  | { kind: 'status' }
  | { kind: 'material-search'; text: string; stockroomId?: number; suggestion?: Suggestion<EstoqueCommand> }
  | { kind: 'digest-subscribe'; hour: number; minute: number; stockroomId?: number; weekdaysOnly: boolean }
  | { kind: 'digest-cancel' }
  | { kind: 'digest-list' }
  | { kind: 'digest-now' };

export interface RequestFilters extends DateRange {
  stockroomId?: number;
  status?: number[];
  purchaseId?: number;
  text?: string;
}

export type SolicitacaoCommand =
  | { kind: 'request-detail'; id: number }
  | { kind: 'request-history'; id: number }
  | {
      kind: 'request-list';
      filters: RequestFilters;
      page: number;
      suggestion?: Suggestion<SolicitacaoCommand>;
    }
  | { kind: 'request-mine'; filters: RequestFilters; page: number };

export interface PurchaseFilters extends DateRange {
  stockroomId?: number;
  status?: number[];
  supplierId?: number;
  text?: string;
}

export interface ReceiptFilters extends DateRange {
  stockroomId?: number;
  purchaseId?: number;
}

export type ComprasCommand =
  | { kind: 'purchases-pending'; stockroomId?: number }
  | { kind: 'purchase-requests'; id: number }
  | { kind: 'purchase-list'; filters: PurchaseFilters; page: number; suggestion?: Suggestion<ComprasCommand> }
  | { kind: 'receipt-list'; filters: ReceiptFilters; page: number };

type Result<T> = Parsed<{ command: T }>;

const ok = <T>(command: T): Result<T> => ({ ok: true, command });

function firstProblem(tokens: Tokens, allowed: readonly string[]): string | null {
  if (tokens.problems.length > 0) return tokens.problems[0] ?? null;
  const unknown = unknownFilters(tokens, allowed);
  if (unknown.length > 0) {
    return `filtro desconhecido \`${unknown[0]}:\` (aceitos aqui: ${allowed.map((k) => `\`${k}:\``).join(', ') || 'nenhum'})`;
  }
  return null;
}

function idFilter(tokens: Tokens, key: string, label: string): number | undefined | string {
  const raw = tokens.filters.get(key);
  if (raw === undefined) return undefined;
  return parseId(raw) ?? `\`${key}:${raw}\` não é ${label} válido (use um número)`;
}

function dateFilters(tokens: Tokens): DateRange | string {
  const range: DateRange = {};
  for (const [key, field] of [
    ['de', 'from'],
    ['ate', 'to'],
  ] as const) {
    const raw = tokens.filters.get(key);
    if (raw === undefined) continue;
    const date = parseLocalDate(raw);
    if (!date) return `\`${key}:${raw}\` não é uma data válida (use dd/mm/aaaa ou aaaa-mm-dd)`;
    range[field] = date;
  }
  if (range.from && range.to && compareLocalDates(range.from, range.to) > 0) {
    return 'a data de `de:` é posterior à de `ate:`';
  }
  return range;
}

function statusFilter(tokens: Tokens): number[] | undefined | string {
  const raw = tokens.filters.get('status');
  if (raw === undefined) return undefined;
  return (
    parseIdList(raw, true) ??
    `\`status:${raw}\` não é válido (use números separados por vírgula, como \`status:1,2\`)`
  );
}

function pageFilter(tokens: Tokens): number | string {
  const raw = tokens.filters.get('pagina');
  if (raw === undefined) return 1;
  return parseId(raw) ?? `\`pagina:${raw}\` não é válida (use um número a partir de 1)`;
}

/** Collects typed filter values, stopping at the first problem. */
function collect<T extends object>(entries: { [K in keyof T]?: T[K] | string }): T | string {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entries)) {
    if (typeof value === 'string') return value;
    if (value !== undefined) out[key] = value;
  }
  return out as T;
}

/**
 * The subcommands that take no argument. A Map, not an object literal: `simple['constructor']` on an object finds
 * Object's constructor, and `/estoque constructor` was taken for a subcommand with no kind (and never acked).
 */
const SIMPLE_ESTOQUE: ReadonlyMap<string, EstoqueCommand> = new Map<string, EstoqueCommand>([
  ['', { kind: 'help' }],
  ['ajuda', { kind: 'help' }],
  ['help', { kind: 'help' }],
  ['almoxarifados', { kind: 'stockrooms' }],
  ['tipos', { kind: 'types' }],
  ['categorias', { kind: 'categories' }],
  ['vincular', { kind: 'link' }],
  ['desvincular', { kind: 'unlink' }],
  ['status', { kind: 'status' }],
]);

export function parseEstoque(text: string): Result<EstoqueCommand> {
  const long = lengthProblem(text);
  if (long) return fail(long);
  const tokens = tokenize(text);
  const [first, ...rest] = tokens.words;
  const head = first === undefined ? '' : fold(first);
  const command = SIMPLE_ESTOQUE.get(head);
  if (command && rest.length === 0 && tokens.filters.size === 0 && tokens.problems.length === 0)
    return ok(command);
  if (command && head !== '') return fail(`\`${head}\` não aceita argumentos`);
  if (head === 'resumo') return parseDigest(rest, tokens);

  const problem = firstProblem(tokens, ['almox']);
  if (problem) return fail(problem);
  const stockroomId = idFilter(tokens, 'almox', 'um almoxarifado');
  if (typeof stockroomId === 'string') return fail(stockroomId);
  const query = tokens.words.join(' ').trim();
  if (query === '') return fail('diga o que procurar: um código ou palavras do nome do material');
  const longQuery = searchProblem(query);
  if (longQuery) return fail(longQuery);
  const suggestion = didYouMean(text, SUBCOMMAND_WORDS.estoque, parseEstoque, 'material-search');
  return ok({
    kind: 'material-search',
    text: query,
    ...(stockroomId !== undefined && { stockroomId }),
    ...(suggestion && { suggestion }),
  });
}

function parseDigest(rest: string[], tokens: Tokens): Result<EstoqueCommand> {
  const [action, ...args] = rest.map(fold);
  switch (action) {
    case 'cancelar':
    case 'listar':
    case 'agora': {
      if (args.length > 0 || tokens.filters.size > 0)
        return fail(`\`resumo ${action}\` não aceita argumentos`);
      const kinds = { cancelar: 'digest-cancel', listar: 'digest-list', agora: 'digest-now' } as const;
      return ok({ kind: kinds[action] });
    }
    case 'assinar': {
      const problem = firstProblem(tokens, ['almox', 'dias']);
      if (problem) return fail(problem);
      let hour = 8;
      let minute = 0;
      if (args.length > 1) return fail('`resumo assinar` aceita só um horário, como `07:30`');
      if (args[0] !== undefined) {
        const time = parseTimeOfDay(args[0]);
        if (!time) return fail(`\`${args[0]}\` não é um horário válido (use HH:MM, como 07:30)`);
        ({ hour, minute } = time);
      }
      const stockroomId = idFilter(tokens, 'almox', 'um almoxarifado');
      if (typeof stockroomId === 'string') return fail(stockroomId);
      const days = tokens.filters.get('dias');
      if (days !== undefined && !['uteis', 'todos'].includes(fold(days))) {
        return fail(`\`dias:${days}\` não é válido (use \`dias:uteis\` ou \`dias:todos\`)`);
      }
      const weekdaysOnly = days !== undefined && fold(days) === 'uteis';
      return ok({
        kind: 'digest-subscribe',
        hour,
        minute,
        weekdaysOnly,
        ...(stockroomId !== undefined && { stockroomId }),
      });
    }
    default:
      return fail(action ? `\`resumo ${action}\` não existe` : 'diga o que fazer com o resumo');
  }
}

const REQUEST_FILTERS = ['almox', 'status', 'de', 'ate', 'compra', 'pagina'] as const;

export function parseSolicitacao(text: string): Result<SolicitacaoCommand> {
  const long = lengthProblem(text);
  if (long) return fail(long);
  const tokens = tokenize(text);
  const [first, second, ...rest] = tokens.words;
  const id = first === undefined ? null : parseId(first);
  if (id === null && first !== undefined && /^#?\d+$/.test(first))
    return fail(`\`${first}\` não é um número de solicitação válido`);
  if (id !== null) {
    if (tokens.filters.size > 0 || tokens.problems.length > 0)
      return fail('o detalhe de uma solicitação não aceita filtros');
    if (second === undefined) return ok({ kind: 'request-detail', id });
    const action = fold(second);
    if (rest.length > 0) return fail('use `/solicitacao <número>` ou `/solicitacao <número> historico`');
    if (action === 'historico') return ok({ kind: 'request-history', id });
    if (action === 'itens') return ok({ kind: 'request-detail', id });
    return fail(`\`${second}\` não é uma ação de solicitação (use \`historico\` ou \`itens\`)`);
  }
  const mine = first !== undefined && fold(first) === 'minhas';
  const problem = firstProblem(tokens, REQUEST_FILTERS);
  if (problem) return fail(problem);
  const range = dateFilters(tokens);
  if (typeof range === 'string') return fail(range);
  const page = pageFilter(tokens);
  if (typeof page === 'string') return fail(page);
  const filters = collect<RequestFilters>({
    stockroomId: idFilter(tokens, 'almox', 'um almoxarifado'),
    status: statusFilter(tokens),
    purchaseId: idFilter(tokens, 'compra', 'uma compra'),
  });
  if (typeof filters === 'string') return fail(filters);
  const words = mine ? tokens.words.slice(1) : tokens.words;
  const freeText = words.join(' ').trim();
  const longText = searchProblem(freeText);
  if (longText) return fail(longText);
  const all: RequestFilters = { ...filters, ...range, ...(freeText !== '' && { text: freeText }) };
  if (mine) return ok({ kind: 'request-mine', filters: all, page });
  const suggestion =
    freeText === '' ? null : didYouMean(text, SUBCOMMAND_WORDS.solicitacao, parseSolicitacao, 'request-list');
  return ok({ kind: 'request-list', filters: all, page, ...(suggestion && { suggestion }) });
}

const PURCHASE_FILTERS = ['almox', 'status', 'fornecedor', 'de', 'ate', 'pagina'] as const;
const RECEIPT_FILTERS = ['almox', 'oc', 'de', 'ate', 'pagina'] as const;

export function parseCompras(text: string): Result<ComprasCommand> {
  const long = lengthProblem(text);
  if (long) return fail(long);
  const tokens = tokenize(text);
  const [first, ...rest] = tokens.words;
  const head = first === undefined ? '' : fold(first);
  const id = first === undefined ? null : parseId(first);
  if (id === null && first !== undefined && /^#?\d+$/.test(first))
    return fail(`\`${first}\` não é um número de compra válido`);
  if (id !== null) {
    if (rest.length > 0 || tokens.filters.size > 0)
      return fail('use `/compras <número>` sozinho para ver as solicitações vinculadas');
    return ok({ kind: 'purchase-requests', id });
  }
  if (head === 'pendentes') {
    const problem = firstProblem(tokens, ['almox']);
    if (problem) return fail(problem);
    if (rest.length > 0) return fail('`pendentes` aceita só o filtro `almox:`');
    const stockroomId = idFilter(tokens, 'almox', 'um almoxarifado');
    if (typeof stockroomId === 'string') return fail(stockroomId);
    return ok({ kind: 'purchases-pending', ...(stockroomId !== undefined && { stockroomId }) });
  }
  if (head === 'entradas') {
    const problem = firstProblem(tokens, RECEIPT_FILTERS);
    if (problem) return fail(problem);
    if (rest.length > 0) return fail('`entradas` aceita só filtros (`almox:`, `oc:`, `de:`, `ate:`)');
    const range = dateFilters(tokens);
    if (typeof range === 'string') return fail(range);
    const page = pageFilter(tokens);
    if (typeof page === 'string') return fail(page);
    const filters = collect<ReceiptFilters>({
      stockroomId: idFilter(tokens, 'almox', 'um almoxarifado'),
      purchaseId: idFilter(tokens, 'oc', 'uma ordem de compra'),
    });
    if (typeof filters === 'string') return fail(filters);
    return ok({ kind: 'receipt-list', filters: { ...filters, ...range }, page });
  }
  const problem = firstProblem(tokens, PURCHASE_FILTERS);
  if (problem) return fail(problem);
  const range = dateFilters(tokens);
  if (typeof range === 'string') return fail(range);
  const page = pageFilter(tokens);
  if (typeof page === 'string') return fail(page);
  const filters = collect<PurchaseFilters>({
    stockroomId: idFilter(tokens, 'almox', 'um almoxarifado'),
    status: statusFilter(tokens),
    supplierId: idFilter(tokens, 'fornecedor', 'um fornecedor'),
  });
  if (typeof filters === 'string') return fail(filters);
  const freeText = tokens.words.join(' ').trim();
  const longText = searchProblem(freeText);
  if (longText) return fail(longText);
  const suggestion =
    freeText === '' ? null : didYouMean(text, SUBCOMMAND_WORDS.compras, parseCompras, 'purchase-list');
  return ok({
    kind: 'purchase-list',
    filters: { ...filters, ...range, ...(freeText !== '' && { text: freeText }) },
    page,
    ...(suggestion && { suggestion }),
  });
}
