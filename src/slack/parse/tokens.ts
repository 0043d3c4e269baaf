import type { LocalDate } from '../../domain/dates.js';
import { isRequestNumberWord } from '../../domain/requests/request-refs.js';
import { MAX_ID, MAX_ROUTE_TEXT, MAX_YEAR, MIN_YEAR } from '../../domain/routes.js';
import { fold } from '../../lib/text.js';
import { formatNumber, restoreMrkdwnMarkers } from '../../render/format.js';

/**
 * Shared pieces of the command text parser: words, `key:value` filters, accent- and case-insensitive keywords,
 * dates in dd/mm/aaaa or ISO. Pure functions; every failure is a ParseFailure naming what was wrong.
 */

export interface ParseFailure {
  ok: false;
  /** pt-BR, shown to the user above the command's usage. */
  problem: string;
}

export type Parsed<T> = ({ ok: true } & T) | ParseFailure;

export function fail(problem: string): ParseFailure {
  return { ok: false, problem };
}

/**
 * The longest command text read (Slack sends up to a few thousand characters): every command this bot takes
 * fits in a few dozen. Longer text is refused with the usage before it is even split into words.
 */
export const MAX_COMMAND_TEXT = 1_000;
/**
 * The longest search text: a material name or a few words of it; no upstream call is spent on more. The route's
 * limit, so that a search's answer keeps its buttons.
 */
export const MAX_SEARCH_TEXT = MAX_ROUTE_TEXT;

export function lengthProblem(text: string): string | null {
  return text.length > MAX_COMMAND_TEXT
    ? `texto longo demais (${formatNumber(text.length)} caracteres; o máximo é ${formatNumber(MAX_COMMAND_TEXT)})`
    : null;
}

export function searchProblem(search: string): string | null {
  return search.length > MAX_SEARCH_TEXT
    ? `busca longa demais (${formatNumber(search.length)} caracteres; o máximo é ${formatNumber(MAX_SEARCH_TEXT)})`
    : null;
}

export interface Tokens {
  words: string[];
  filters: Map<string, string>;
  /** Filter keys repeated or written with an empty value. */
  problems: string[];
}

/**
 * Unicode's invisible format characters (category Cf: zero-width space, word joiner, bidi marks and isolates, BOM,
 * soft hyphen), which phones and copied text leave beside a number: `1312\u200b` was a word, searched as text.
 */
const FORMAT_CHARACTERS = /\p{Cf}/gu;

/** A word written as a number (`12`, `#12`), signs included (`-5`): read as one, never searched as text. */
export function looksLikeNumber(word: string): boolean {
  return /^#?[-+−]?\d+$/.test(word);
}

const FILTER = /^([\p{L}_]+):(.*)$/u;

const DECIMAL_DIGIT = /\p{Nd}/u;
/** Decimal digits other than ASCII's: Arabic-Indic `١٣١٢`, Devanagari `१३१२` (NFKC leaves them as they are). */
const OTHER_DECIMAL_DIGITS = /(?![0-9])\p{Nd}/gu;

/**
 * The value of a decimal digit of any script. Unicode encodes every script's decimal digits (category Nd) as a run
 * of ten, 0 to 9 in order, and runs that touch are whole (the mathematical digits are five in a row): the value is
 * the digit's distance from the start of its run, modulo ten. A test checks this against every Nd character.
 */
function digitValue(digit: string): number {
  const code = digit.codePointAt(0) ?? 0;
  let start = code;
  while (start > 0 && DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start -= 1;
  return (code - start) % 10;
}

/**
 * A word as a number or a filter is read: its compatibility form (NFKC: full-width `１３１２` is `1312`,
 * `ｓｔａｔｕｓ：１` is `status:1`) with the decimal digits of any script in ASCII (`١٣١٢` is `1312`).
 */
function plainForm(word: string): string {
  return word.normalize('NFKC').replace(OTHER_DECIMAL_DIGITS, (digit) => String(digitValue(digit)));
}

/**
 * A word in its plain form when that form is a filter, a number (a request's number as people write one too:
 * `(１３１２)`, `１.３１２`) or a time of day (`٠٧:٣٠`, `０７：３０`); any other word as it was typed: the answer
 * repeats the search as typed (`2,5mm²`), and the search itself folds the text and the names alike (lib/text's
 * fold: `mm²` and `mm2`, full-width letters and plain ones, match either way).
 */
function readWord(word: string): string {
  const plain = plainForm(word);
  return FILTER.test(plain) ||
    looksLikeNumber(plain) ||
    isRequestNumberWord(plain) ||
    parseTimeOfDay(plain) !== null
    ? plain
    : word;
}

/**
 * The command text with its format characters gone, numbers and filters in plain form, and the look-alikes answers
 * show for upstream's `*`, `_`, `~` and backticks back to those (a name copied from an answer searches as upstream
 * wrote it), as tokenize reads it.
 */
export function normalizeCommandText(text: string): string {
  return restoreMrkdwnMarkers(text.replace(FORMAT_CHARACTERS, '')).replace(/\S+/g, readWord);
}

/**
 * Splits on whitespace; `key:value` with a known-looking key becomes a filter (key folded), the rest are words.
 * `key: value` (phones add a space after a colon) is `key:value`: a `key:` with nothing after its colon takes the
 * next word, unless that word is a filter itself or there is none (then the filter has no value). A value is a
 * list when a comma joins its pieces, with or without spaces beside it (`status:1, 2`, `1 ,2`, `1 , 2`: phones
 * add a space after a comma): a word after a value that ends with a comma, or a word that starts with one, is
 * part of the value; any other word after it is free text (`status:1 cimento`), a filter is a filter.
 */
export function tokenize(text: string): Tokens {
  const words: string[] = [];
  const filters = new Map<string, string>();
  const problems: string[] = [];
  // Slack turns some characters into entities; undo the three it escapes.
  const clean = normalizeCommandText(text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'));
  const parts = clean.split(/\s+/).filter((part) => part !== '');
  for (let i = 0; i < parts.length; i += 1) {
    const raw = parts[i] ?? '';
    const match = FILTER.exec(raw);
    if (match) {
      const key = fold(match[1] ?? '');
      let value = match[2] ?? '';
      const next = parts[i + 1];
      if (value === '' && next !== undefined && !FILTER.test(next)) {
        // A value is never searched: always read in its plain form (`almox: ２`, `de: ٠١/١٠/٢٠٢٦`).
        value = plainForm(next);
        i += 1;
      }
      for (let piece = parts[i + 1]; value !== '' && piece !== undefined; piece = parts[i + 1]) {
        const plain = plainForm(piece);
        if (FILTER.test(plain) || !(value.endsWith(',') || plain.startsWith(','))) break;
        value += plain;
        i += 1;
      }
      if (value === '') problems.push(`o filtro \`${key}:\` está sem valor`);
      else if (filters.has(key)) problems.push(`o filtro \`${key}:\` aparece mais de uma vez`);
      else filters.set(key, value);
    } else {
      words.push(raw);
    }
  }
  return { words, filters, problems };
}

export function unknownFilters(tokens: Tokens, allowed: readonly string[]): string[] {
  return [...tokens.filters.keys()].filter((key) => !allowed.includes(key));
}

export function parseId(text: string): number | null {
  const cleaned = text.replace(/^#/, '');
  if (!/^\d{1,10}$/.test(cleaned)) return null;
  const value = Number(cleaned);
  return value >= 1 && value <= MAX_ID ? value : null;
}

export function parseIdList(text: string, allowZero = false): number[] | null {
  const parts = text.split(',').filter((p) => p !== '');
  if (parts.length === 0) return null;
  const values: number[] = [];
  for (const part of parts) {
    if (allowZero && part === '0') {
      values.push(0);
      continue;
    }
    const id = parseId(part);
    if (id === null) return null;
    values.push(id);
  }
  return values;
}

/** `dd/mm/aaaa` (also `dd/mm/aa`, `dd-mm-aaaa`) or ISO `aaaa-mm-dd`; only dates that exist. */
export function parseLocalDate(text: string): LocalDate | null {
  let year: number;
  let month: number;
  let day: number;
  const br = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{2}|\d{4})$/.exec(text);
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (iso) {
    year = Number(iso[1]);
    month = Number(iso[2]);
    day = Number(iso[3]);
  } else if (br) {
    day = Number(br[1]);
    month = Number(br[2]);
    year = Number(br[3]);
    if ((br[3] ?? '').length === 2) year += 2000;
  } else {
    return null;
  }
  if (year < MIN_YEAR || year > MAX_YEAR || month < 1 || month > 12 || day < 1) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > daysInMonth) return null;
  return { year, month, day };
}

/** `HH:MM` or `HHhMM` or `HHh`, 24-hour. */
export function parseTimeOfDay(text: string): { hour: number; minute: number } | null {
  const match = /^(\d{1,2})(?:[:h](\d{2})?)?$/i.exec(text);
  if (!match || (match[2] === undefined && !/[:h]/i.test(text))) return null;
  const hour = Number(match[1]);
  const minute = match[2] === undefined ? 0 : Number(match[2]);
  if (hour > 23 || minute > 59) return null;
  return { hour, minute };
}
