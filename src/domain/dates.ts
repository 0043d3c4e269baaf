import { TZDate } from '@date-fns/tz';
import { addDays, addMonths, subDays, subMonths } from 'date-fns';

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

/**
 * The first day of the `months` that end on `to` (15/03/2026 and 12 months: 16/03/2025): the earliest day from
 * which `months` later is not before the end of `to`, as the request list checks its period. Month ends need
 * the extra step: 12 months before 28/02/2025 is 28/02/2024, and from 29/02/2024 12 months fall on 28/02/2025
 * 00:00, before that day ends, so the period starts on 01/03/2024.
 */
export function firstDayOfMonthsEnding(to: LocalDate, months: number): LocalDate {
  // Calendar arithmetic in UTC (TZDate), whatever the process's own time zone.
  const end = new TZDate(to.year, to.month - 1, to.day, 'UTC');
  const dayAfter = addDays(end, 1);
  let date = addDays(subMonths(end, months), 1);
  while (addMonths(date, months) < dayAfter) date = addDays(date, 1);
  return { year: date.getFullYear(), month: date.getMonth() + 1, day: date.getDate() };
}
