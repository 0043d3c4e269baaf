import { fold } from '../../lib/text.js';

/** Text past this is not read: a message shortcut on a huge message still answers at once. */
const MAX_TEXT_CHARS = 20_000;
/** At most this many numbers are offered; a message that names more is a list, not a reference. */
export const MAX_REQUEST_REFS = 10;
const MAX_INT32 = 2_147_483_647;

// Every pattern is linear: a fixed word, bounded separators, a bounded run of digits, a bounded list.
/**
 * More numbers after the first, in a list (`SM 4105, 4106`, `SM 4105/4106`; after the plural `solicitações` also
 * `4105, 4106 e 4107`): of 3 digits or more, so a count after the number (`solicitação 4105 e 2 itens`) is none of
 * them, and `e` only where the plural word announced a list (`SM 1312 e 2026` is a request and a year).
 */
const listTail = (and: boolean) =>
  String.raw`(?:\s{0,3}(?:,|/${and ? String.raw`|\be\b` : ''})\s{0,3}#?\d{3,10}(?!\d)){0,20}`;
/** The words that name a request's number, and whether a list after them may go on with `e`. */
const NAMED: readonly { word: string; and: boolean }[] = [
  // solicitações 4105 (a list announced)
  {
    word: String.raw`\bsolicitacoes\s{0,3}(?:n\s{0,1}[o.]?s?\s{0,3}|numeros\s{0,3})?[-#:]?\s{0,3}`,
    and: true,
  },
  // solicitação 4105, solicitacao nº 4105, solicitação n. 4105, solicitação #4105, solicitacao-4105
  { word: String.raw`\bsolicitacao\s{0,3}(?:n\s{0,1}[o.]?\s{0,3}|numero\s{0,3})?[-#:]?\s{0,3}`, and: false },
  // SM 4105, SM-4105, SM4105, sm #4105
  { word: String.raw`\bsm\s{0,3}[-#:]?\s{0,3}`, and: false },
];
const EXPLICIT = [
  ...NAMED.map(({ word, and }) => new RegExp(`${word}(\\d{1,10}(?!\\d)${listTail(and)})`, 'g')),
  // #4105 (not inside a word, a channel or a URL fragment)
  /(?:^|[^\w&/])#(\d{1,10})(?!\d)/g,
];
/** The words that name a request's number (`solicitação 4105`, `SM 4105`), at the start of a text: one number. */
const LEADING = NAMED.map(({ word }) => new RegExp(`^\\s*${word}(\\d{1,10})(?!\\d)`));
// A bare number of 4 to 9 digits, not part of a date, time, decimal, id, URL or another number.
const BARE = /(?:^|[^\w./:,-])(\d{4,9})(?![\w]|[./:,-]\d)/g;

/**
 * Request numbers named in a message, in the order they appear, each once: `solicitação 4105`, `SM 4105`,
 * `#4105`; a bare number of 4 to 9 digits only when none of those is there. Accents and case are ignored (`nº`,
 * `SOLICITAÇÃO`). Slack's own markup is dropped first (`<@U123>`, `<#C123|canal>`, `<https://…|texto>` keeps
 * its label), so ids and links give no numbers. Only ASCII digits count; other scripts' digits are not numbers
 * here. Never throws; any text (empty, huge, hostile) gives at most MAX_REQUEST_REFS positive int32 numbers.
 */
export function findRequestNumbers(text: unknown): number[] {
  if (typeof text !== 'string' || text === '') return [];
  const plain = fold(stripSlackMarkup(text.slice(0, MAX_TEXT_CHARS))).replace(/º|°|ª/g, 'o');
  const explicit = collect(plain, EXPLICIT);
  if (explicit.length > 0) return explicit;
  return collect(plain, [BARE]);
}

/**
 * A text that starts by naming a request's number as findRequestNumbers reads it (`SM 4105`, `SM-4105`,
 * `solicitação nº 4105`; `#4105` is a number already): the number, and the rest of the text (folded: accents and
 * case gone). Null otherwise.
 */
export function leadingRequestNumber(text: string): { id: number; rest: string } | null {
  const plain = fold(text.slice(0, MAX_TEXT_CHARS)).replace(/º|°|ª/g, 'o');
  for (const pattern of LEADING) {
    const match = pattern.exec(plain);
    const id = Number(match?.[1]);
    if (match && Number.isSafeInteger(id) && id >= 1 && id <= MAX_INT32)
      return { id, rest: plain.slice(match[0].length) };
  }
  return null;
}

function collect(text: string, patterns: RegExp[]): number[] {
  const found: { at: number; id: number }[] = [];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const numbers = match[1];
      if (numbers === undefined) continue;
      // The captured number, or list of numbers (LIST_TAIL): each, at its place in the text.
      const start = (match.index ?? 0) + match[0].indexOf(numbers);
      for (const digits of numbers.matchAll(/\d+/g)) {
        const id = Number(digits[0]);
        if (Number.isSafeInteger(id) && id >= 1 && id <= MAX_INT32)
          found.push({ at: start + (digits.index ?? 0), id });
      }
    }
  }
  const out: number[] = [];
  for (const { id } of found.sort((a, b) => a.at - b.at)) {
    if (!out.includes(id)) out.push(id);
    if (out.length === MAX_REQUEST_REFS) break;
  }
  return out;
}

/** `<…>` markup of a Slack message: mentions and channels vanish, links keep their label (or nothing). */
function stripSlackMarkup(text: string): string {
  return (
    text
      .replace(/<([^<>]{0,2000})>/g, (_, inner: string) => {
        const bar = inner.indexOf('|');
        if (/^[@#!]/.test(inner)) return ' ';
        return bar >= 0 ? ` ${inner.slice(bar + 1)} ` : ' ';
      })
      // mrkdwn emphasis around a number (`solicitação *4105*`, `~SM 4105~`, `` `#4105` ``, `_4105_`); an
      // underscore inside a word (`abc_4105`) is left, so it stays part of that word.
      .replace(/[*~`]/g, ' ')
      .replace(/(^|[^\p{L}\p{N}])_|_(?=[^\p{L}\p{N}]|$)/gu, '$1 ')
  );
}
