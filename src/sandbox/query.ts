import { ReplyError, validationProblem } from './http-util.js';

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;
const INTEGER = /^\s*[+-]?\d+\s*$/;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const HAS_ZONE = /([zZ]|[+-]\d\d:?\d\d)$/;
/** The demo company lives in São Paulo (UTC-3, no daylight saving since 2019). */
export const LOCAL_OFFSET = '-03:00';

export function parseInt32(text: string): number | null {
  if (!INTEGER.test(text)) return null;
  const value = Number(text.trim());
  return value >= INT32_MIN && value <= INT32_MAX ? value : null;
}

/**
 * Query string parameters read the way ASP.NET model binding reads them: names are case-insensitive, an
 * empty value counts as absent, a scalar takes the first value, an array takes every repeated key, and a
 * value that does not convert is a 400 naming the parameter.
 */
export class QueryParams {
  private readonly values = new Map<string, { name: string; values: string[] }>();

  constructor(
    params: URLSearchParams,
    private readonly instance: string,
  ) {
    for (const [name, value] of params) {
      const key = name.toLowerCase();
      const entry = this.values.get(key) ?? { name, values: [] };
      if (value.trim() !== '') entry.values.push(value);
      this.values.set(key, entry);
    }
  }

  text(name: string): string | undefined {
    return this.values.get(name.toLowerCase())?.values[0];
  }

  int(name: string): number | undefined {
    const raw = this.text(name);
    if (raw === undefined) return undefined;
    return this.convert(name, raw);
  }

  ints(name: string): number[] {
    return (this.values.get(name.toLowerCase())?.values ?? []).map((raw) => this.convert(name, raw));
  }

  bool(name: string): boolean | undefined {
    const raw = this.text(name);
    if (raw === undefined) return undefined;
    const value = parseBool(raw);
    if (value === null) throw this.invalid(name, raw);
    return value;
  }

  /**
   * A date-time. A value without a zone is local time of the service; a bare date used as an upper bound
   * (DataFinal) covers that whole day.
   */
  date(name: string, bound: 'start' | 'end'): number | undefined {
    const raw = this.text(name)?.trim();
    if (raw === undefined) return undefined;
    let ms: number;
    if (DATE_ONLY.test(raw)) {
      ms = Date.parse(`${raw}T00:00:00${LOCAL_OFFSET}`);
      if (bound === 'end') ms += 86_400_000 - 1;
    } else {
      ms = Date.parse(HAS_ZONE.test(raw) ? raw : `${raw}${LOCAL_OFFSET}`);
    }
    if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}/.test(raw)) throw this.invalid(name, raw);
    return ms;
  }

  private convert(name: string, raw: string): number {
    const value = parseInt32(raw);
    if (value === null) throw this.invalid(name, raw);
    return value;
  }

  private invalid(name: string, raw: string): ReplyError {
    const shown = this.values.get(name.toLowerCase())?.name ?? name;
    return new ReplyError(
      validationProblem(shown, `The value '${raw}' is not valid for ${shown}.`, this.instance),
    );
  }
}

export function parseBool(raw: string): boolean | null {
  const text = raw.trim().toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  return null;
}

/**
 * Sandbox.servePagesOf: the most rows a page serves; a larger PageSize is served at that size (`serve`) or refused
 * with a 400 naming PageSize (`refuse`).
 */
export interface PageLimit {
  rows: number;
  over: 'serve' | 'refuse';
}

/** Page/PageSize (or page/pageSize): defaults 1 and 50; Page below 1 or PageSize outside 1..100 is a 400. */
export function readPaging(
  query: QueryParams,
  instance: string,
  limit: PageLimit | null = null,
): { page: number; pageSize: number } {
  const page = query.int('Page') ?? 1;
  const pageSize = query.int('PageSize') ?? 50;
  if (page < 1) {
    throw new ReplyError(validationProblem('Page', 'Page deve ser maior ou igual a 1.', instance));
  }
  if (pageSize < 1 || pageSize > 100) {
    throw new ReplyError(validationProblem('PageSize', 'PageSize deve estar entre 1 e 100.', instance));
  }
  if (limit === null || pageSize <= limit.rows) return { page, pageSize };
  if (limit.over === 'refuse') {
    throw new ReplyError(
      validationProblem('PageSize', `PageSize deve estar entre 1 e ${limit.rows}.`, instance),
    );
  }
  return { page, pageSize: limit.rows };
}

/**
 * The comma-separated Status list. 0 (or nothing) means every status. A value that is not a number fails
 * deep in the service and comes back as a 500 ErrorCommandResult, like the documented StatusIds quirk.
 */
export function readStatusList(query: QueryParams): number[] | 'all' | 'invalid' {
  const raw = query.text('Status');
  if (raw === undefined) return 'all';
  const parts = raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const values: number[] = [];
  for (const part of parts) {
    const value = parseInt32(part);
    if (value === null) return 'invalid';
    values.push(value);
  }
  return values.length === 0 || values.includes(0) ? 'all' : values;
}

/** The service's date-times: local São Paulo time with its offset, seconds precision. */
export function formatLocal(ms: number): string {
  const shifted = new Date(ms - 3 * 3_600_000);
  return `${shifted.toISOString().slice(0, 19)}${LOCAL_OFFSET}`;
}

/** Adds calendar months (UTC), clamping the day like .NET's DateTime.AddMonths. */
export function addMonths(ms: number, months: number): number {
  const date = new Date(ms);
  const day = date.getUTCDate();
  date.setUTCDate(1);
  date.setUTCMonth(date.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
  date.setUTCDate(Math.min(day, lastDay));
  return date.getTime();
}
