import { compareLocalDates, firstDayOfMonthsEnding, type LocalDate } from '../../domain/dates.js';
import { FEED_EVENT_KINDS, type FeedEventKind } from '../../domain/feed/types.js';
import { leadingRequestNumber } from '../../domain/requests/request-refs.js';
import { MAX_PAGE, MAX_STATUS_VALUES } from '../../domain/routes.js';
import { fold } from '../../lib/text.js';
import { formatNumber } from '../../render/format.js';
import { MAX_PERIOD_MONTHS as MAX_REQUEST_PERIOD_MONTHS } from '../../upstream/queries.js';
import { didYouMean, SUBCOMMAND_WORDS, type Suggestion } from './did-you-mean.js';
import {
  fail,
  lengthProblem,
  looksLikeNumber,
  normalizeCommandText,
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

/**
 * The typed queries of the three slash commands. Handlers dispatch on `kind`; nothing here does I/O. Every command
 * whose answer pages (`Anterior`/`Próxima`) takes `pagina:` and carries its `page`; no other command takes it.
 */

export interface DateRange {
  from?: LocalDate;
  to?: LocalDate;
}

export type EstoqueCommand =
  | { kind: 'help' }
  | { kind: 'stockrooms'; page: number }
  | { kind: 'types'; page: number }
  | { kind: 'categories'; page: number }
  | { kind: 'link' }
  | { kind: 'unlink' }
  | { kind: 'status' }
  | {
      kind: 'material-search';
      text: string;
      stockroomId?: number;
      page: number;
      suggestion?: Suggestion<EstoqueCommand>;
    }
  | { kind: 'digest-subscribe'; hour: number; minute: number; stockroomId?: number; weekdaysOnly: boolean }
  | { kind: 'digest-cancel' }
  | { kind: 'digest-list' }
  | { kind: 'digest-now' }
  | { kind: 'feed-subscribe'; stockroomId?: number; kinds?: FeedEventKind[] }
  | { kind: 'feed-cancel' }
  | { kind: 'feed-list' }
  | { kind: 'sandbox-advance'; changes: number };

export interface RequestFilters extends DateRange {
  stockroomId?: number;
  status?: number[];
  purchaseId?: number;
  text?: string;
}

export type SolicitacaoCommand =
  | { kind: 'request-detail'; id: number; page: number }
  | { kind: 'request-history'; id: number; page: number }
  | {
      kind: 'request-list';
      filters: RequestFilters;
      page: number;
      suggestion?: Suggestion<SolicitacaoCommand>;
    }
  | { kind: 'request-mine'; filters: RequestFilters; page: number }
  | { kind: 'request-follow'; id: number }
  | { kind: 'request-unfollow'; id: number }
  | { kind: 'request-following'; page: number }
  | { kind: 'request-own-follow' }
  | { kind: 'request-own-unfollow' };

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
  | { kind: 'purchases-pending'; stockroomId?: number; page: number }
  | { kind: 'purchase-requests'; id: number; page: number }
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

/**
 * What each id filter names, with the article and the adjective that agree with it: the noun's gender is the
 * label's, not the template's (until 2026-11-27 one "válido" followed every label: "uma compra válido").
 */
const ID_FILTER_NOUNS = {
  almox: 'um almoxarifado válido',
  compra: 'uma compra válida',
  oc: 'uma ordem de compra válida',
  fornecedor: 'um fornecedor válido',
} as const;

function idFilter(tokens: Tokens, key: keyof typeof ID_FILTER_NOUNS): number | undefined | string {
  const raw = tokens.filters.get(key);
  if (raw === undefined) return undefined;
  return parseId(raw) ?? `\`${key}:${raw}\` não é ${ID_FILTER_NOUNS[key]} (use um número)`;
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

/** The request list takes at most 12 months between `de:` and `ate:` (upstream-api.md). */
function requestPeriodProblem(range: DateRange): string | null {
  if (!range.from || !range.to) return null;
  const earliest = firstDayOfMonthsEnding(range.to, MAX_REQUEST_PERIOD_MONTHS);
  if (compareLocalDates(range.from, earliest) >= 0) return null;
  const day = (d: LocalDate) =>
    `${String(d.day).padStart(2, '0')}/${String(d.month).padStart(2, '0')}/${d.year}`;
  return (
    `o período entre \`de:\` e \`ate:\` passa de ${MAX_REQUEST_PERIOD_MONTHS} meses, o máximo da lista de ` +
    `solicitações: com \`ate:${day(range.to)}\`, comece em ${day(earliest)} ou depois`
  );
}

function statusFilter(tokens: Tokens): number[] | undefined | string {
  const raw = tokens.filters.get('status');
  if (raw === undefined) return undefined;
  const values = parseIdList(raw, true);
  if (values === null)
    return `\`status:${raw}\` não é válido (use números separados por vírgula, como \`status:1,2\`)`;
  const distinct = [...new Set(values)];
  return distinct.length <= MAX_STATUS_VALUES
    ? distinct
    : `\`status:\` aceita no máximo ${MAX_STATUS_VALUES} valores diferentes (foram ${distinct.length})`;
}

function pageFilter(tokens: Tokens): number | string {
  const raw = tokens.filters.get('pagina');
  if (raw === undefined) return 1;
  const page = parseId(raw);
  return page !== null && page <= MAX_PAGE
    ? page
    : `\`pagina:${raw}\` não é válida (use um número de 1 a ${formatNumber(MAX_PAGE)})`;
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
  ['vincular', { kind: 'link' }],
  ['desvincular', { kind: 'unlink' }],
  ['status', { kind: 'status' }],
]);

/** The lists of the company's stockrooms, material types and categories: they page, and take `pagina:` alone. */
const CATALOG_ESTOQUE: ReadonlyMap<string, 'stockrooms' | 'types' | 'categories'> = new Map([
  ['almoxarifados', 'stockrooms'],
  ['tipos', 'types'],
  ['categorias', 'categories'],
] as const);

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
  const catalog = CATALOG_ESTOQUE.get(head);
  if (catalog) {
    if (rest.length > 0) return fail(`\`${head}\` aceita só o filtro \`pagina:\``);
    const problem = firstProblem(tokens, ['pagina']);
    if (problem) return fail(problem);
    const page = pageFilter(tokens);
    if (typeof page === 'string') return fail(page);
    return ok({ kind: catalog, page });
  }
  if (head === 'resumo') return parseDigest(rest, tokens);
  if (head === 'alertas') return parseFeed(rest, tokens);
  if (head === 'sandbox') return parseSandbox(rest, tokens);

  const problem = firstProblem(tokens, ['almox', 'pagina']);
  if (problem) return fail(problem);
  const stockroomId = idFilter(tokens, 'almox');
  if (typeof stockroomId === 'string') return fail(stockroomId);
  const page = pageFilter(tokens);
  if (typeof page === 'string') return fail(page);
  const query = tokens.words.join(' ').trim();
  if (query === '') return fail('diga o que procurar: um código ou palavras do nome do material');
  const longQuery = searchProblem(query);
  if (longQuery) return fail(longQuery);
  const suggestion = didYouMean(text, SUBCOMMAND_WORDS.estoque, parseEstoque, 'material-search');
  return ok({
    kind: 'material-search',
    text: query,
    ...(stockroomId !== undefined && { stockroomId }),
    page,
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
      const stockroomId = idFilter(tokens, 'almox');
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

function parseFeed(rest: string[], tokens: Tokens): Result<EstoqueCommand> {
  const [action, ...args] = rest.map(fold);
  switch (action) {
    case 'cancelar':
    case 'listar':
      if (args.length > 0 || tokens.filters.size > 0 || tokens.problems.length > 0)
        return fail(`\`alertas ${action}\` não aceita argumentos`);
      return ok({ kind: action === 'cancelar' ? 'feed-cancel' : 'feed-list' });
    case 'assinar': {
      const problem = firstProblem(tokens, ['almox', 'eventos']);
      if (problem) return fail(problem);
      if (args.length > 0) return fail('`alertas assinar` aceita só os filtros `almox:` e `eventos:`');
      const stockroomId = idFilter(tokens, 'almox');
      if (typeof stockroomId === 'string') return fail(stockroomId);
      const raw = tokens.filters.get('eventos');
      let kinds: FeedEventKind[] | undefined;
      if (raw !== undefined) {
        // Empty pieces are no event (`eventos:novas,`), as `status:1,` is status 1.
        const words = raw
          .split(',')
          .map((word) => fold(word.trim()))
          .filter((word) => word !== '');
        const unknown = words.find((word) => !(FEED_EVENT_KINDS as readonly string[]).includes(word));
        if (unknown !== undefined || words.length === 0)
          return fail(
            `\`eventos:${raw}\` não é válido (use ${FEED_EVENT_KINDS.join(', ')}, separados por vírgula)`,
          );
        kinds = FEED_EVENT_KINDS.filter((kind) => words.includes(kind));
      }
      return ok({
        kind: 'feed-subscribe',
        ...(stockroomId !== undefined && { stockroomId }),
        ...(kinds !== undefined && { kinds }),
      });
    }
    default:
      return fail(action ? `\`alertas ${action}\` não existe` : 'diga o que fazer com os alertas');
  }
}

/** Changes one `/estoque sandbox avancar` makes at most (the sandbox takes 100; a page shows these). */
export const SANDBOX_MAX_CHANGES = 20;

/** `sandbox avancar [N]`: local mode only (the handler says so elsewhere). */
function parseSandbox(rest: string[], tokens: Tokens): Result<EstoqueCommand> {
  const [action, count, ...more] = rest.map(fold);
  if (action !== 'avancar')
    return fail(action ? `\`sandbox ${action}\` não existe` : 'use `sandbox avancar [N]`');
  if (more.length > 0 || tokens.filters.size > 0 || tokens.problems.length > 0)
    return fail('`sandbox avancar` aceita só um número de mudanças');
  if (count === undefined) return ok({ kind: 'sandbox-advance', changes: 3 });
  const changes = parseId(count);
  if (changes === null || changes > SANDBOX_MAX_CHANGES)
    return fail(`\`${count}\` não é um número de mudanças válido (de 1 a ${SANDBOX_MAX_CHANGES})`);
  return ok({ kind: 'sandbox-advance', changes });
}

/** `acompanhar` / `parar` after a request number or `minhas`; null for any other word. */
function followAction(word: string | undefined): 'follow' | 'unfollow' | null {
  const folded = word === undefined ? '' : fold(word);
  if (folded === 'acompanhar') return 'follow';
  if (folded === 'parar') return 'unfollow';
  return null;
}

const REQUEST_FILTERS = ['almox', 'status', 'de', 'ate', 'compra', 'pagina'] as const;

/**
 * A /solicitacao text in words and filters, a request's number at its start read first: `SM 4105`, `solicitação nº
 * 4105`, and a number alone as people write it (`4.105`, `4105/2025`, `(4105)`, `nº 4105`), as Abrir solicitação
 * reads it (`SM １３１２` too, as tokenize would), becomes its digits.
 */
function solicitacaoTokens(text: string): Tokens {
  const named = leadingRequestNumber(normalizeCommandText(text));
  return tokenize(named ? `${named.id} ${named.rest}` : text);
}

/**
 * A request's number typed on its own (the Home's Consultar solicitação field), read as `/solicitacao <número>`
 * reads it (full-width and other scripts' digits, invisible characters, `SM 1312`, `solicitação 1312`, `1.312`,
 * `#1312`); null for anything else, a number followed by more words or filters included.
 */
export function parseRequestNumber(text: string): number | null {
  if (lengthProblem(text)) return null;
  const tokens = solicitacaoTokens(text);
  const [word, ...more] = tokens.words;
  if (word === undefined || more.length > 0 || tokens.filters.size > 0 || tokens.problems.length > 0)
    return null;
  return parseId(word);
}

export function parseSolicitacao(text: string): Result<SolicitacaoCommand> {
  const long = lengthProblem(text);
  if (long) return fail(long);
  const tokens = solicitacaoTokens(text);
  const [first, second, ...rest] = tokens.words;
  const id = first === undefined ? null : parseId(first);
  if (id === null && first !== undefined && looksLikeNumber(first))
    return fail(`\`${first}\` não é um número de solicitação válido`);
  if (id !== null) {
    if (rest.length > 0)
      return fail('use `/solicitacao <número>` sozinho ou com `historico`, `acompanhar` ou `parar`');
    const follow = followAction(second);
    if (follow) {
      if (tokens.filters.size > 0 || tokens.problems.length > 0)
        return fail(`\`${fold(second ?? '')}\` não aceita filtros`);
      return ok({ kind: follow === 'follow' ? 'request-follow' : 'request-unfollow', id });
    }
    const action = second === undefined ? 'itens' : fold(second);
    if (action !== 'historico' && action !== 'itens')
      return fail(
        `\`${second}\` não é uma ação de solicitação (use \`historico\`, \`itens\`, \`acompanhar\` ou \`parar\`)`,
      );
    // Its items and its history page: `pagina:` is the one filter they take.
    const problem = firstProblem(tokens, ['pagina']);
    if (problem) return fail(problem);
    const page = pageFilter(tokens);
    if (typeof page === 'string') return fail(page);
    return ok({ kind: action === 'historico' ? 'request-history' : 'request-detail', id, page });
  }
  const bare = tokens.filters.size === 0 && tokens.problems.length === 0;
  if (first !== undefined && fold(first) === 'acompanhando') {
    // The follows page (Anterior/Próxima): `pagina:` is the one filter the list takes.
    if (second !== undefined) return fail('`acompanhando` aceita só o filtro `pagina:`');
    const problem = firstProblem(tokens, ['pagina']);
    if (problem) return fail(problem);
    const page = pageFilter(tokens);
    if (typeof page === 'string') return fail(page);
    return ok({ kind: 'request-following', page });
  }
  const mine = first !== undefined && fold(first) === 'minhas';
  const ownFollow = mine ? followAction(second) : null;
  if (ownFollow) {
    if (rest.length > 0 || !bare) return fail(`\`minhas ${fold(second ?? '')}\` não aceita argumentos`);
    return ok({ kind: ownFollow === 'follow' ? 'request-own-follow' : 'request-own-unfollow' });
  }
  const problem = firstProblem(tokens, REQUEST_FILTERS);
  if (problem) return fail(problem);
  const range = dateFilters(tokens);
  if (typeof range === 'string') return fail(range);
  const longPeriod = requestPeriodProblem(range);
  if (longPeriod) return fail(longPeriod);
  const page = pageFilter(tokens);
  if (typeof page === 'string') return fail(page);
  const filters = collect<RequestFilters>({
    stockroomId: idFilter(tokens, 'almox'),
    status: statusFilter(tokens),
    purchaseId: idFilter(tokens, 'compra'),
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
  if (id === null && first !== undefined && looksLikeNumber(first))
    return fail(`\`${first}\` não é um número de compra válido`);
  if (id !== null) {
    const usage = 'use `/compras <número>` sozinho (ou com `pagina:`) para ver as solicitações vinculadas';
    if (rest.length > 0 || unknownFilters(tokens, ['pagina']).length > 0) return fail(usage);
    const problem = firstProblem(tokens, ['pagina']);
    if (problem) return fail(problem);
    const page = pageFilter(tokens);
    if (typeof page === 'string') return fail(page);
    return ok({ kind: 'purchase-requests', id, page });
  }
  if (head === 'pendentes') {
    const problem = firstProblem(tokens, ['almox', 'pagina']);
    if (problem) return fail(problem);
    if (rest.length > 0) return fail('`pendentes` aceita só os filtros `almox:` e `pagina:`');
    const stockroomId = idFilter(tokens, 'almox');
    if (typeof stockroomId === 'string') return fail(stockroomId);
    const page = pageFilter(tokens);
    if (typeof page === 'string') return fail(page);
    return ok({ kind: 'purchases-pending', ...(stockroomId !== undefined && { stockroomId }), page });
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
      stockroomId: idFilter(tokens, 'almox'),
      purchaseId: idFilter(tokens, 'oc'),
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
    stockroomId: idFilter(tokens, 'almox'),
    status: statusFilter(tokens),
    supplierId: idFilter(tokens, 'fornecedor'),
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
