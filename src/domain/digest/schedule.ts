import { TZDate } from '@date-fns/tz';

/**
 * Wall-clock arithmetic of the digest, by IANA time zone name. Days are local days (`yyyy-MM-dd` in the
 * subscription's zone): a digest belongs to one local day whatever the offset does that day.
 */

const DAY_MS = 86_400_000;
const pad = (n: number) => String(n).padStart(2, '0');

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export function wallTimeOf(instant: number, timeZone: string): WallTime {
  const date = new TZDate(instant, timeZone);
  return {
    year: date.getFullYear(),
    month: date.getMonth() + 1,
    day: date.getDate(),
    hour: date.getHours(),
    minute: date.getMinutes(),
    second: date.getSeconds(),
  };
}

/** The wall time at `instant`, written as if it were UTC (milliseconds kept): comparable with Date.UTC values. */
function wallAsUtc(instant: number, timeZone: string): number {
  const date = new TZDate(instant, timeZone);
  return Date.UTC(
    date.getFullYear(),
    date.getMonth(),
    date.getDate(),
    date.getHours(),
    date.getMinutes(),
    date.getSeconds(),
    date.getMilliseconds(),
  );
}

/** `yyyy-MM-dd` of the instant in the zone. */
export function localDayOf(instant: number, timeZone: string): string {
  const wall = wallTimeOf(instant, timeZone);
  return `${wall.year}-${pad(wall.month)}-${pad(wall.day)}`;
}

function parseDay(day: string): { year: number; month: number; day: number } {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) throw new RangeError(`not a yyyy-MM-dd day: ${day}`);
  return { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) };
}

/** Saturday or Sunday (the calendar day, whatever the zone). */
export function isWeekend(day: string): boolean {
  const { year, month, day: date } = parseDay(day);
  const weekday = new Date(Date.UTC(year, month - 1, date)).getUTCDay();
  return weekday === 0 || weekday === 6;
}

/**
 * The instant a wall time of a local day happens in the zone:
 * - a wall time that happens once: that instant;
 * - one that happens twice (the repeated hour when clocks go back): the first of the two;
 * - one that never happens (the hour skipped when clocks go forward): the first valid instant after it, which
 *   is the instant of the change (02:30 on a day New York jumps from 02:00 to 03:00 gives 03:00).
 * Offsets are found by probing a day either side, which holds as long as a zone changes its offset at most
 * once in 48 hours (every IANA zone does).
 */
export function zonedInstant(day: string, hour: number, minute: number, timeZone: string): number {
  const { year, month, day: date } = parseDay(day);
  const wanted = Date.UTC(year, month - 1, date, hour, minute);
  const offsets = [
    ...new Set([wanted - DAY_MS, wanted, wanted + DAY_MS].map((t) => wallAsUtc(t, timeZone) - t)),
  ];
  const exact = offsets
    .map((offset) => wanted - offset)
    .filter((instant) => wallAsUtc(instant, timeZone) === wanted)
    .sort((a, b) => a - b);
  if (exact[0] !== undefined) return exact[0];
  // In a gap: the wall clock jumps over `wanted` somewhere between these two instants; find the jump.
  let before = wanted - Math.max(...offsets);
  let after = wanted - Math.min(...offsets);
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2);
    if (wallAsUtc(middle, timeZone) >= wanted) after = middle;
    else before = middle;
  }
  return after;
}

/**
 * Upstream date-time parameters are local wall time without a zone (see domain/dates.ts): the instant as
 * `yyyy-MM-ddTHH:mm:00` in the zone, seconds dropped (so channels whose digests start from nearly the same
 * instant send the same query and share it).
 */
export function upstreamWallTime(instant: number, timeZone: string): string {
  const wall = wallTimeOf(instant, timeZone);
  return `${wall.year}-${pad(wall.month)}-${pad(wall.day)}T${pad(wall.hour)}:${pad(wall.minute)}:00`;
}
