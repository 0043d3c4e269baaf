import { TZDate } from '@date-fns/tz';
import { format } from 'date-fns';
import { ptBR } from 'date-fns/locale';
import type { LocalDate } from '../domain/dates.js';

/** pt-BR formats of everything the bot shows: dates, numbers, money, ages, and mrkdwn escaping. */

export const EMPTY = '—';
export const ELLIPSIS = '…';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const numberFormat = new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 3 });
const moneyFormat = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/**
 * The Unicode bidirectional controls: embeddings and overrides (U+202A–U+202E), isolates (U+2066–U+2069) and the
 * marks (U+200E, U+200F, U+061C). In a value from outside the bot they reorder what follows it on the line, the
 * bot's own text included: a name ending in U+202E (RIGHT-TO-LEFT OVERRIDE) shows the rest of a list row, the
 * status with it, reversed. They are removed rather than each value isolated (U+2068…U+2069): pt-BR data needs
 * none (a right-to-left name still shows right-to-left by its own letters), removal adds no characters to count
 * against Slack's limits, and what a person copies into a command is what they saw.
 */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Text from outside the bot without bidirectional controls (BIDI_CONTROLS): it cannot reorder the bot's own text. */
export function dropBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}

/**
 * Only characters that show nothing: white space, format characters (zero-width space U+200B, word joiner U+2060,
 * Mongolian vowel separator U+180E, BOM U+FEFF, soft hyphen…), other default-ignorable ones (Hangul filler U+3164)
 * and control characters.
 */
const NOTHING_VISIBLE = /^[\p{White_Space}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cc}]*$/u;

/**
 * A value from outside the bot as it may be shown (plain_text, or before escapeMrkdwn): bidirectional controls
 * removed, white space runs made one space, trimmed; '' when nothing visible is left, so that the caller's
 * "empty → —" or fallback applies to a value made only of invisible characters (trim() keeps U+200B, U+2060,
 * U+180E). A value with anything visible keeps its format characters: the zero-width joiners of an emoji sequence
 * (👩‍🔧) are part of what it shows.
 */
export function visibleText(text: string | null | undefined): string {
  const cleaned = dropBidiControls(text ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return NOTHING_VISIBLE.test(cleaned) ? '' : cleaned;
}

/**
 * Escapes the three characters Slack mrkdwn treats as control characters, so text can never become a mention
 * (`<@U123>`, `<!channel>`) or a link, and removes the bidirectional controls (dropBidiControls). Alone, only for
 * text that goes inside a code span (`code`), where Slack reads no formatting and what is shown must be what a
 * person copies and types.
 */
export function escapeMrkdwnEntities(text: string): string {
  return dropBidiControls(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Look-alikes of the characters Slack mrkdwn reads as formatting: `*bold*`, `_italic_`, `~strike~`, `` `code` ``,
 * and the full-width forms Slack reads the same way. Slack has no escape for them (a backslash shows as a
 * backslash), and a zero-width space beside a marker does not help: Slack takes it as a word boundary, which is what
 * lets a marker format in the middle of a word. A look-alike is not a marker, whatever surrounds it. Each is one
 * UTF-16 unit, like the marker it replaces, so a text is never made longer (truncation, Slack's limits).
 */
const MARKER_LOOKALIKES: Readonly<Record<string, string>> = {
  '*': '\u2217', // ∗ ASTERISK OPERATOR
  _: '\u02cd', // ˍ MODIFIER LETTER LOW MACRON
  '~': '\u223c', // ∼ TILDE OPERATOR
  '`': '\u02cb', // ˋ MODIFIER LETTER GRAVE ACCENT
  '\uff0a': '\ufe61', // full-width asterisk → ﹡ SMALL ASTERISK
  '\uff3f': '\u2e0f', // full-width low line → ⸏ PARAGRAPHOS
  '\uff40': '\u02cb', // full-width grave accent → ˋ
};
const MARKERS = /[*_~`\uff0a\uff3f\uff40]/g;
/** Each look-alike back to the ASCII (or full-width) marker it stands for; ˋ to the ASCII backtick. */
const MARKER_OF: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(MARKER_LOOKALIKES)
    .filter(([marker]) => marker !== '\uff40')
    .map(([marker, lookalike]) => [lookalike, marker]),
);
const LOOKALIKES = new RegExp(`[${Object.keys(MARKER_OF).join('')}]`, 'g');

/**
 * Text from outside the bot (upstream names and fields, a user's own words) made safe for mrkdwn: it can neither
 * mention nor link (escapeMrkdwnEntities), nor format, nor open a bold or code span that swallows the bot's own
 * formatting after it on the line: its formatting markers become look-alikes (MARKER_LOOKALIKES). A person who
 * copies it gets the look-alikes; restoreMrkdwnMarkers turns them back when it is pasted into a command.
 */
export function escapeMrkdwn(text: string): string {
  return escapeMrkdwnEntities(text).replace(MARKERS, (marker) => MARKER_LOOKALIKES[marker] ?? marker);
}

/** The formatting markers escapeMrkdwn replaced, back: what a person copied from an answer reads as upstream wrote it. */
export function restoreMrkdwnMarkers(text: string): string {
  return text.replace(LOOKALIKES, (lookalike) => MARKER_OF[lookalike] ?? lookalike);
}

/** Cuts to at most `max` UTF-16 units, ending with "…", without splitting a surrogate pair. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 0) return '';
  let end = max - ELLIPSIS.length;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, Math.max(0, end))}${ELLIPSIS}`;
}

/**
 * `truncate` for mrkdwn text, never cutting inside an escape (`&amp;`) or a link or mention (`<…|…>`): a cut there
 * would show its broken half (`&am…`) or swallow the rest of the text. The cut moves back before it.
 */
export function truncateMrkdwn(text: string, max: number): string {
  const cut = truncate(text, max);
  if (cut === text) return cut;
  let kept = cut.slice(0, cut.length - ELLIPSIS.length);
  const open = kept.lastIndexOf('<');
  if (open > kept.lastIndexOf('>')) kept = kept.slice(0, open);
  const amp = kept.lastIndexOf('&');
  if (amp !== -1 && amp > kept.lastIndexOf(';') && kept.length - amp <= MAX_ENTITY_LENGTH)
    kept = kept.slice(0, amp);
  return `${kept}${ELLIPSIS}`;
}

/** The longest escape escapeMrkdwn writes (`&amp;`), less its `;`. */
const MAX_ENTITY_LENGTH = 4;

/**
 * An upstream string ready for mrkdwn: its visibleText, cut to `max` characters, escaped; empty, null or nothing
 * visible (until 2026-11-27 a value of zero-width characters showed as a blank) → "—".
 */
export function safeText(text: string | null | undefined, max = 200): string {
  const visible = visibleText(text);
  return visible === '' ? EMPTY : escapeMrkdwn(truncate(visible, max));
}

/** `1.234,5`: up to three decimals, no trailing zeros. */
export function formatNumber(value: number | null | undefined): string {
  return value == null || !Number.isFinite(value) ? EMPTY : numberFormat.format(value);
}

/** `R$ 1.234,50` with a normal space (Intl uses a non-breaking one). */
export function formatMoney(value: number | null | undefined): string {
  return value == null || !Number.isFinite(value) ? EMPTY : moneyFormat.format(value).replace(/\u00a0/g, ' ');
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `01/10/2026` */
export function formatLocalDate(date: LocalDate): string {
  return `${pad(date.day)}/${pad(date.month)}/${date.year}`;
}

const ISO_WALL_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?$/;
const ISO_WITH_ZONE = /^(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)(Z|[+-]\d{2}:?\d{2})$/i;

/** True for strings that look like an ISO date or date-time (upstream's `2026-11-20T14:30:00`). */
export function looksLikeIsoDate(value: string): boolean {
  return ISO_WALL_TIME.test(value) || ISO_WITH_ZONE.test(value);
}

interface ReadDate {
  /** A date whose own clock (getHours, …) reads the wall time to show. */
  date: TZDate;
  /** False for a date without a time of day. */
  hasTime: boolean;
  /** True when upstream gave no zone (the service's local wall time). */
  zoneless: boolean;
}

/**
 * Reads an upstream date-time. With a zone designator it is an instant, shown in the workspace time zone;
 * without one it is the service's own local wall time, shown as is (never shifted): its fields are kept in a
 * UTC date so no time zone moves them.
 */
function readDate(value: string | number, timeZone: string): ReadDate | null {
  if (typeof value === 'number') {
    return Number.isFinite(value)
      ? { date: new TZDate(value, timeZone), hasTime: true, zoneless: false }
      : null;
  }
  const text = value.trim();
  const zoned = ISO_WITH_ZONE.exec(text);
  if (zoned) {
    const zone = zoned[2] ?? 'Z';
    const offset = zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone.toUpperCase();
    const ms = Date.parse(`${(zoned[1] ?? '').replace(' ', 'T').replace(',', '.')}${offset}`);
    return Number.isNaN(ms) ? null : { date: new TZDate(ms, timeZone), hasTime: true, zoneless: false };
  }
  const wall = ISO_WALL_TIME.exec(text);
  if (!wall) return null;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = wall
    .slice(1, 7)
    .map((part) => (part === undefined ? 0 : Number(part)));
  const date = new TZDate(year, month - 1, day, hour, minute, second, 'UTC');
  // Reject dates that roll over (31/02, 25:00): the parts must come back as they were written.
  const exact =
    date.getFullYear() === year &&
    date.getMonth() === month - 1 &&
    date.getDate() === day &&
    date.getHours() === hour &&
    date.getMinutes() === minute;
  return exact ? { date, hasTime: wall[4] !== undefined, zoneless: true } : null;
}

const DATE_PATTERN = 'dd/MM/yyyy';
const DATE_TIME_PATTERN = 'dd/MM/yyyy HH:mm';

function show(read: ReadDate, pattern: string): string {
  return format(read.date, pattern, { locale: ptBR });
}

/** `dd/MM/yyyy HH:mm` (date only for a date without time); invalid or null → "—". */
export function formatDateTime(value: string | number | null | undefined, timeZone: string): string {
  const read = value == null ? null : readDate(value, timeZone);
  if (!read) return EMPTY;
  return show(read, read.hasTime ? DATE_TIME_PATTERN : DATE_PATTERN);
}

/** `dd/MM/yyyy`; invalid or null → "—". */
export function formatDate(value: string | number | null | undefined, timeZone: string): string {
  const read = value == null ? null : readDate(value, timeZone);
  return read ? show(read, DATE_PATTERN) : EMPTY;
}

/**
 * For undocumented records: a date-time at exactly midnight without a zone is almost certainly a date, so it is
 * shown as a date; anything else as a date-time.
 */
export function formatLooseDate(value: string, timeZone: string): string {
  const read = readDate(value, timeZone);
  if (!read) return EMPTY;
  const { date } = read;
  const midnight = date.getHours() === 0 && date.getMinutes() === 0 && date.getSeconds() === 0;
  return show(read, read.zoneless && midnight ? DATE_PATTERN : DATE_TIME_PATTERN);
}

/** `HH:mm` in the time zone, with the date in front when it is not today: `às 14:32` / `em 23/11/2026 às 00:10`. */
export function formatAt(ms: number, now: number, timeZone: string): string {
  const sameDay = formatDate(ms, timeZone) === formatDate(now, timeZone);
  const time = format(new TZDate(ms, timeZone), 'HH:mm', { locale: ptBR });
  return sameDay ? `às ${time}` : `em ${formatDate(ms, timeZone)} às ${time}`;
}

/** "agora", "há 3 min", "há 2 h", "há 1 dia". */
export function formatAge(then: number, now: number): string {
  const elapsed = now - then;
  if (elapsed < MINUTE) return 'agora';
  if (elapsed < HOUR) return `há ${Math.floor(elapsed / MINUTE)} min`;
  if (elapsed < DAY) return `há ${Math.floor(elapsed / HOUR)} h`;
  const days = Math.floor(elapsed / DAY);
  return `há ${days} ${days === 1 ? 'dia' : 'dias'}`;
}

/**
 * "em instantes", "em 3 min", "em 1 h 59 min", "em 2 h", "em 5 dias": how long until `then` (minutes rounded up;
 * until 2026-11-27 hours were rounded down alone, and 1 h 59 min read "em 1 h").
 */
export function formatIn(then: number, now: number): string {
  const remaining = then - now;
  if (remaining < MINUTE) return 'em instantes';
  if (remaining < DAY) {
    const minutes = Math.ceil(remaining / MINUTE);
    if (minutes < 60) return `em ${minutes} min`;
    const rest = minutes % 60;
    return rest === 0 ? `em ${minutes / 60} h` : `em ${Math.floor(minutes / 60)} h ${rest} min`;
  }
  const days = Math.floor(remaining / DAY);
  return `em ${days} ${days === 1 ? 'dia' : 'dias'}`;
}

/**
 * A duration in pt-BR words, for people (config's `2m`, `288s` are for operators): "45 s", "2 min", "4 min 48 s",
 * "1 h", "1 h 30 min" (seconds rounded; under an hour they show, from an hour on only minutes do).
 */
export function formatSpan(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) {
    const rest = seconds % 60;
    return rest === 0 ? `${seconds / 60} min` : `${Math.floor(seconds / 60)} min ${rest} s`;
  }
  const minutes = Math.round(seconds / 60);
  const rest = minutes % 60;
  return rest === 0 ? `${minutes / 60} h` : `${Math.floor(minutes / 60)} h ${rest} min`;
}

/** A rate window in words: "na última hora", "nos últimos 36 s", "nas últimas 2 horas". */
export function formatWindow(windowMs: number): string {
  if (windowMs > 0 && windowMs % DAY === 0) {
    const days = windowMs / DAY;
    return days === 1 ? 'no último dia' : `nos últimos ${days} dias`;
  }
  if (windowMs > 0 && windowMs % HOUR === 0) {
    const hours = windowMs / HOUR;
    return hours === 1 ? 'na última hora' : `nas últimas ${hours} horas`;
  }
  if (windowMs > 0 && windowMs % MINUTE === 0) {
    const minutes = windowMs / MINUTE;
    return minutes === 1 ? 'no último minuto' : `nos últimos ${minutes} min`;
  }
  const seconds = Math.max(1, Math.round(windowMs / 1000));
  return seconds === 1 ? 'no último segundo' : `nos últimos ${seconds} s`;
}

/** A rate as in "250 consultas por hora" / "25 consultas a cada 36 s". */
export function formatRatePeriod(windowMs: number): string {
  if (windowMs === HOUR) return 'por hora';
  if (windowMs === DAY) return 'por dia';
  if (windowMs === MINUTE) return 'por minuto';
  if (windowMs % HOUR === 0) return `a cada ${windowMs / HOUR} horas`;
  if (windowMs % MINUTE === 0) return `a cada ${windowMs / MINUTE} min`;
  return `a cada ${Math.max(1, Math.round(windowMs / 1000))} s`;
}

/** "1 solicitação" / "63 solicitações" with pt-BR grouping. */
export function plural(count: number, singular: string, pluralForm: string): string {
  return `${formatNumber(count)} ${count === 1 ? singular : pluralForm}`;
}

/** "1 e 2", "1, 2 e 3". */
export function joinAnd(parts: readonly string[]): string {
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.slice(0, -1).join(', ')} e ${parts.at(-1)}`;
}

/** A Slack channel mention when the id looks like one, escaped text otherwise. */
export function mentionChannel(channelId: string): string {
  return /^[CGD][A-Z0-9]{2,}$/.test(channelId) ? `<#${channelId}>` : escapeMrkdwn(channelId);
}

/** A Slack user mention when the id looks like one, escaped text otherwise. */
export function mentionUser(userId: string): string {
  return /^[UW][A-Z0-9]{2,}$/.test(userId) ? `<@${userId}>` : escapeMrkdwn(userId);
}

/** Inline code for an id or a value the user can type, as it is (Slack formats nothing in it); backticks become `'`. */
export function code(text: string | number): string {
  const value = String(text).replace(/`/g, "'");
  return `\`${escapeMrkdwnEntities(value)}\``;
}
