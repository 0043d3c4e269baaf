import { TZDate } from '@date-fns/tz';
import type { FakeMessage } from '../src/fake-slack/index.js';
import type { SandboxCall } from '../src/sandbox/server.js';

/**
 * What a person got, read from the message the fake Slack received (the only thing a user sees):
 *
 * - `fresh`: data read from upstream for this answer (no cache line, no warning);
 * - `cached`: data from the cache within its TTL (footer "Dados de dd/MM/yyyy HH:mm (cache, …)");
 * - `stale`: saved data shown because upstream could not be asked (":warning: Limite de consultas … mostrando
 *   dados salvos de …" or "O sistema de estoque não respondeu: mostrando dados salvos de …");
 * - `budget`: no data, the budget message (":hourglass: Limite de N consultas … atingido; tente de novo às …");
 * - `error`: any other failure message (timeout, 5xx, not found…).
 */
export type AnswerKind = 'fresh' | 'cached' | 'stale' | 'budget' | 'error';

export interface Classified {
  kind: AnswerKind;
  /** The "Dados de …" / "dados salvos de …" instant shown, start of its minute (epoch ms); null when none. */
  shownMinute: number | null;
}

const CACHE_LINE = /Dados de (\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2}) \(cache,/;
const STALE_LINE = /mostrando dados salvos de (\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2})/;
const BUDGET_LINE = /Limite de .*consultas.* atingido; tente de novo/;

/** Every text of a message (its fallback text and every text of its blocks). */
export function messageText(message: Pick<FakeMessage, 'text' | 'blocks'>): string {
  const parts: string[] = [message.text];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'text' && typeof value === 'string') parts.push(value);
        else if (typeof value === 'object') walk(value);
      }
    }
  };
  walk(message.blocks);
  return parts.join('\n');
}

export function classifyAnswer(message: Pick<FakeMessage, 'text' | 'blocks'>, timeZone: string): Classified {
  const text = messageText(message);
  const stale = STALE_LINE.exec(text);
  if (stale) return { kind: 'stale', shownMinute: minuteOf(stale, timeZone) };
  if (BUDGET_LINE.test(text)) return { kind: 'budget', shownMinute: null };
  const cached = CACHE_LINE.exec(text);
  if (cached) return { kind: 'cached', shownMinute: minuteOf(cached, timeZone) };
  if (/^:(warning|hourglass|no_entry):|não encontrad|demorou demais/m.test(message.text)) {
    return { kind: 'error', shownMinute: null };
  }
  return { kind: 'fresh', shownMinute: null };
}

function minuteOf(match: RegExpExecArray, timeZone: string): number {
  const [, dd, mm, yyyy, hh, min] = match.map(Number);
  return new TZDate(yyyy ?? 0, (mm ?? 1) - 1, dd ?? 1, hh ?? 0, min ?? 0, timeZone).getTime();
}

/**
 * When the data an answer shows was read from upstream, to the millisecond where the sandbox's call log allows:
 * the newest successful call of the answer's endpoint inside the minute the message shows (a fresh answer: inside
 * the command's own lifetime), no later than the answer. The message alone only gives the minute; when no call
 * matches (the data was read before the bench's log began, or the minute holds none) the minute's middle is
 * used and `exact` is false.
 */
export interface FetchTime {
  at: number;
  exact: boolean;
}

export class UpstreamLog {
  /** Successful data calls, oldest first, with their parsed URL. */
  private readonly calls: { at: number; path: string; query: URLSearchParams }[] = [];
  private seen = 0;

  constructor(private readonly source: readonly SandboxCall[]) {}

  /** Takes in the calls logged since the last look (the sandbox appends; statuses settle within ms). */
  private refresh(): void {
    for (; this.seen < this.source.length; this.seen += 1) {
      const call = this.source[this.seen] as SandboxCall;
      if (call.kind !== 'data' || call.status !== 200) continue;
      const url = new URL(call.url, 'http://sandbox.local');
      this.calls.push({ at: call.at, path: url.pathname.replace(/\/+$/, ''), query: url.searchParams });
    }
  }

  /** The newest matching call in [from, to]. */
  newest(
    from: number,
    to: number,
    matches: (path: string, query: URLSearchParams) => boolean,
  ): number | null {
    this.refresh();
    for (let i = this.calls.length - 1; i >= 0; i -= 1) {
      const call = this.calls[i];
      if (!call || call.at < from) return null;
      if (call.at <= to && matches(call.path, call.query)) return call.at;
    }
    return null;
  }

  fetchTime(
    classified: Classified,
    window: { sentAt: number; answeredAt: number },
    matches: (path: string, query: URLSearchParams) => boolean,
  ): FetchTime {
    if (classified.shownMinute === null) {
      const at = this.newest(window.sentAt, window.answeredAt, matches);
      return at === null ? { at: window.answeredAt, exact: false } : { at, exact: true };
    }
    // The sandbox logs a call when it arrives; the bot stamps the data when the answer is back (ms later).
    const from = classified.shownMinute - 1_000;
    const to = Math.min(classified.shownMinute + 60_000, window.answeredAt);
    const at = this.newest(from, to, matches);
    return at === null
      ? { at: Math.min(classified.shownMinute + 30_000, window.answeredAt), exact: false }
      : { at, exact: true };
  }
}
