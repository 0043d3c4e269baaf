import { TZDate } from '@date-fns/tz';
import { addDays, subDays, subMonths } from 'date-fns';

/** A calendar day as people type and read it, in the workspace's time zone (no instant, no zone). */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

export function compareLocalDates(a: LocalDate, b: LocalDate): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Upstream date-time parameters are sent as local wall time without a zone (the service is Brazilian and reads
 * them as its own local time): `de:` is the start of that day, `ate:` its end.
 */
export function startOfLocalDay(date: LocalDate): string {
  return `${date.year}-${pad(date.month)}-${pad(date.day)}T00:00:00`;
}

export function endOfLocalDay(date: LocalDate): string {
  return `${date.year}-${pad(date.month)}-${pad(date.day)}T23:59:59`;
}

/** Today's date in the given time zone, minus `days`. */
export function localDateDaysAgo(now: number, timeZone: string, days: number): LocalDate {
  const date = subDays(new TZDate(now, timeZone), days);
  return { year: date.getFullYear(), month: date.getMonth() + 1, day: date.getDate() };
}

/** The first day of the `months` that end on `to` (15/03/2026 and 12 months: 16/03/2025). */
export function firstDayOfMonthsEnding(to: LocalDate, months: number): LocalDate {
  const date = addDays(subMonths(new Date(Date.UTC(to.year, to.month - 1, to.day, 12)), months), 1);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}
