import type { KnownBlock, SectionBlock } from '@slack/types';
import type { Route } from '../domain/routes.js';
import type { Answer, CatalogEntry, Freshness, StockroomsView } from '../domain/views.js';
import { answerMessage, localPage, pageLine, pagingButtons } from './answer.js';
import { context, fieldsSection, header, section } from './blocks.js';
import { code, formatNumber, plural, safeText } from './format.js';
import { noActiveStockroomsText } from './link.js';
import type { Message, RenderContext } from './types.js';

/**
 * Stockrooms, material types and categories: lists shown in two columns, as many as fit one message, and paged
 * (`Anterior`/`Próxima`, `pagina:`) when the list is longer: a page is the columns that fit, so a list of short
 * names never needs more pages than it must.
 */

const LINES_PER_COLUMN = 15;
const COLUMN_CHARS = 1900;
const MAX_SECTIONS = 20;

interface Entry {
  id: number;
  name: string | null;
}

function byName(a: Entry, b: Entry): number {
  if (a.name === null || b.name === null) return a.name === b.name ? a.id - b.id : a.name === null ? 1 : -1;
  return a.name.localeCompare(b.name, 'pt-BR', { sensitivity: 'base' }) || a.id - b.id;
}

function entryLine(entry: Entry): string {
  return `${code(entry.id)} ${entry.name === null ? '_sem nome_' : safeText(entry.name, 80)}`;
}

/** Lines packed into columns of at most LINES_PER_COLUMN lines and COLUMN_CHARS characters. */
function columnsOf(lines: readonly string[]): string[][] {
  const columns: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (current.length > 0 && (current.length >= LINES_PER_COLUMN || size + line.length + 1 > COLUMN_CHARS)) {
      columns.push(current);
      current = [];
      size = 0;
    }
    current.push(line);
    size += line.length + 1;
  }
  if (current.length > 0) columns.push(current);
  return columns;
}

/** Columns two per section. */
function sectionsOf(columns: readonly string[][]): SectionBlock[] {
  const blocks: SectionBlock[] = [];
  for (let index = 0; index < columns.length; index += 2) {
    blocks.push(fieldsSection(columns.slice(index, index + 2).map((column) => column.join('\n'))));
  }
  return blocks;
}

type CatalogView = 'stockrooms' | 'types' | 'categories';

function listMessage(
  title: string,
  entries: Entry[],
  counted: string,
  emptyText: string,
  hint: string | null,
  view: CatalogView,
  page: number,
  freshness: Freshness,
  ctx: RenderContext,
): Message {
  const sorted = [...entries].sort(byName);
  const current = localPage(columnsOf(sorted.map(entryLine)), page, MAX_SECTIONS * 2);
  const route: Route = { view, page: current.page };
  const body: KnownBlock[] = [header(title)];
  if (sorted.length === 0) {
    body.push(section(emptyText));
  } else {
    body.push(...sectionsOf(current.rows));
    const notes = [`${pageLine(current.page, current.totalPages, counted)}.`];
    if (hint) notes.push(hint);
    body.push(context(notes.join(' ')));
  }
  return answerMessage({
    text:
      current.totalPages > 1
        ? `${title}: ${counted} (página ${formatNumber(current.page)})`
        : `${title}: ${counted}`,
    body,
    route,
    freshness,
    ctx,
    buttons: pagingButtons(route, current.page, current.totalPages),
  });
}

export function renderStockrooms(answer: Answer<StockroomsView>, ctx: RenderContext, page = 1): Message {
  const { stockrooms, company } = answer.data;
  const entries = stockrooms.map((stockroom) => ({ id: stockroom.almoxarifado, name: stockroom.nome }));
  return listMessage(
    'Almoxarifados ativos',
    entries,
    plural(entries.length, 'almoxarifado', 'almoxarifados'),
    // Until 2026-11-27 "Nenhum almoxarifado ativo nesta empresa.": the symptom of a wrong link read as a fact.
    noActiveStockroomsText(company),
    'Use o número com `almox:`, como `/estoque lâmpada almox:2`.',
    'stockrooms',
    page,
    answer.freshness,
    ctx,
  );
}

export function renderCatalog(
  kind: 'types' | 'categories',
  answer: Answer<CatalogEntry[]>,
  ctx: RenderContext,
  page = 1,
): Message {
  const types = kind === 'types';
  return listMessage(
    types ? 'Tipos de material' : 'Categorias de material',
    answer.data,
    types
      ? plural(answer.data.length, 'tipo', 'tipos')
      : plural(answer.data.length, 'categoria', 'categorias'),
    types ? 'Nenhum tipo de material cadastrado.' : 'Nenhuma categoria de material cadastrada.',
    null,
    kind,
    page,
    answer.freshness,
    ctx,
  );
}
