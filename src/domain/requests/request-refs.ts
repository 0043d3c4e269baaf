import { foldAccents } from '../../lib/text.js';

/** Text past this is not read: a message shortcut on a huge message still answers at once. */
const MAX_TEXT_CHARS = 20_000;
/** At most this many numbers are offered; a message that names more is a list, not a reference. */
export const MAX_REQUEST_REFS = 10;
const MAX_INT32 = 2_147_483_647;

// Every pattern is linear: a fixed word, bounded separators, a bounded run of digits, a bounded list.
/**
 * One number: digits, or digits grouped by the pt-BR thousands separator (`4.105`, `1.234.567`; three digits after
 * each dot, so `4.5` is the number 4 followed by a decimal part, never 45).
 */
const NUMBER = String.raw`(?:\d{1,3}(?:\.\d{3}){1,3}(?![.,]?\d)|\d{1,10}(?!\d))`;
/** A number of a list after the first: 3 digits or more (a count such as `e 2 itens` is none). */
const LISTED_NUMBER = String.raw`(?:\d{1,3}(?:\.\d{3}){1,3}(?![.,]?\d)|\d{3,10}(?!\d))`;
/**
 * The sign of a number, folded (`nº`/`n°` → `no`): `no`, `n.o` (`n.º`), `no.`, `n.`, `n`, and `nos`/`n.os` where
 * `plural`.
 */
const numberSign = (plural: boolean) => String.raw`n\s{0,1}(?:\.\s{0,1}o|o\.|[o.])?${plural ? 's?' : ''}`;
/** A year after a slash (`4105/2025`: Brazilian number/year notation): it ends the list, and is no number of it. */
const SLASH_NOT_YEAR = String.raw`/(?!\s{0,3}(?:19|20)\d\d(?![\d.]))`;
/**
 * More numbers after the first, in a list (`SM 4105, 4106`, `SM 4105/4106`; after the plural `solicitações` also
 * `4105, 4106 e 4107`): of 3 digits or more, so a count after the number (`solicitação 4105 e 2 itens`) is none of
 * them, and `e` only where the plural word announced a list (`SM 1312 e 2026` is a request and a year). Each may
 * carry its own sign (`solicitações nº 4105 e nº 4106`, `n.º`, `no.`, `#`; until 2026-11-27 a repeated `nº` ended
 * the list, so only 4105 was read).
 */
const listTail = (and: boolean) =>
  String.raw`(?:\s{0,3}(?:,|${SLASH_NOT_YEAR}${and ? String.raw`|\be\b` : ''})\s{0,3}` +
  String.raw`(?:${numberSign(false)}\s{0,3})?#?${LISTED_NUMBER}){0,20}`;
/** `/2025` after a number: its year, read and dropped. */
const YEAR_SUFFIX = String.raw`(?:\s{0,3}/\s{0,3}(?:19|20)\d\d(?![\d.]))?`;
/** The words that name a request's number, and whether a list after them may go on with `e`. */
const NAMED: readonly { word: string; and: boolean }[] = [
  // solicitações 4105 (a list announced)
  {
    word: String.raw`\bsolicitacoes\s{0,3}(?:${numberSign(true)}\s{0,3}|numeros\s{0,3})?[-#:]?\s{0,3}`,
    and: true,
  },
  // solicitação 4105, solicitacao nº 4105, solicitação n. 4105, solicitação #4105, solicitacao-4105
  {
    word: String.raw`\bsolicitacao\s{0,3}(?:${numberSign(false)}\s{0,3}|numero\s{0,3})?[-#:]?\s{0,3}`,
    and: false,
  },
  // SM 4105, SM-4105, SM4105, sm #4105
  { word: String.raw`\bsm\s{0,3}[-#:]?\s{0,3}`, and: false },
];
const EXPLICIT = [
  ...NAMED.map(({ word, and }) => new RegExp(`${word}(${NUMBER}${listTail(and)})`, 'g')),
  // #4105 (not inside a word, a channel or a URL fragment)
  new RegExp(String.raw`(?:^|[^\w&/])#(${NUMBER})`, 'g'),
];
/** The words that name a request's number (`solicitação 4105`, `SM 4105`), at the start of a text: one number. */
const LEADING = NAMED.map(({ word }) => new RegExp(`^\\s*${word}(${NUMBER})${YEAR_SUFFIX}`));
/**
 * A number written alone as people write a request's, at the start of a text and ending its first word: `1312`,
 * `#1312`, `1.312`, `1312/2026` (number/year), `(1312)`, `1312.`, `1312,`, after `nº`, `n.º`, `n°` or `n.` (read
 * before `º` becomes `o`, so the word `no` is no such sign). The number itself is NUMBER and YEAR_SUFFIX, as the
 * shortcut reads it.
 */
const LONE = new RegExp(
  String.raw`^\s*(?:n\s{0,1}(?:\.\s{0,1}[º°]?|[º°])\.?\s{0,3})?[([]?\s{0,3}#?(${NUMBER})${YEAR_SUFFIX}[)\]]?[.,;:]?(?=\s|$)`,
);
/**
 * A number labelled as a purchase (`Compra 7012`, `compra:7012`, `OC 7012`, `Pedido de compra 7012`, `Ordem de
 * compra: 7012`, `compras 7012, 7013 e 7014`, `Compra agrupadora: 7001`), as the bot's own receipt alerts, digests
 * and purchase answers write them: never a request's number, whatever else the text holds.
 */
const PURCHASE = new RegExp(
  String.raw`\b(?:(?:ordem|pedido)\s{1,3}de\s{1,3})?(?:compras?(?:\s{1,3}agrupadora)?|oc)\s{0,3}` +
    String.raw`(?:n\s{0,1}[o.]?s?\s{0,3}|numeros?\s{0,3})?[-#:]?\s{0,3}#?${NUMBER}` +
    String.raw`(?:\s{0,3}(?:,|/|\be\b)\s{0,3}#?${NUMBER}){0,20}`,
  'g',
);
// A bare number of 4 to 9 digits, not part of a date, time, decimal, id, URL or another number.
const BARE = /(?:^|[^\w./:,-])(\d{4,9})(?![\w]|[./:,-]\d)/g;

/**
 * Request numbers named in a message, in the order they appear, each once: `solicitação 4105`, `SM 4105`,
 * `#4105` (`4.105` and `4105/2025`, number/year, are 4105 too); a bare number of 4 to 9 digits only when none of
 * those is there. A number labelled as a purchase (`Compra 7012`, `OC 7012`…) is never one, even bare (until
 * 2026-11-27 the receipt alert's `Compra *7012*` read as request 7012, `4.105` as 4 and `4105/2025` as two).
 * Accents and case are ignored (`nº`, `SOLICITAÇÃO`). Slack's own markup is dropped first (`<@U123>`,
 * `<#C123|canal>`, `<https://…|texto>` keeps its label), so ids and links give no numbers. Only ASCII digits
 * count; other scripts' digits are not numbers here. Never throws; any text (empty, huge, hostile) gives at most
 * MAX_REQUEST_REFS positive int32 numbers.
 */
export function findRequestNumbers(text: unknown): number[] {
  if (typeof text !== 'string' || text === '') return [];
  const folded = foldAccents(stripSlackMarkup(text.slice(0, MAX_TEXT_CHARS))).replace(/º|°|ª/g, 'o');
  // Purchases' numbers are blanked out first (same length: the order of what is left stays the text's).
  const plain = folded.replace(PURCHASE, (found) => ' '.repeat(found.length));
  const explicit = collect(plain, EXPLICIT);
  if (explicit.length > 0) return explicit;
  return collect(plain, [BARE]);
}

/**
 * Request numbers named in a message made of parts (a Slack message's text, each of its blocks, each attachment):
 * each part read on its own as findRequestNumbers reads a text, so a bare number counts where nothing of its own
 * part is labelled, then all merged in the order of the parts, each once, at most MAX_REQUEST_REFS. A digest's new
 * requests (`*1324* · Almoxarifado Central`, a block each) are offered beside a low-stock line's "visto na
 * solicitação 1321" (until 2026-11-27 that label, read in the one joined text, hid every bare number of the
 * message). Parts past MAX_TEXT_CHARS in all are not read.
 */
export function findRequestNumbersInParts(parts: readonly unknown[]): number[] {
  const out: number[] = [];
  let chars = 0;
  for (const part of parts) {
    if (typeof part !== 'string') continue;
    if (chars >= MAX_TEXT_CHARS || out.length === MAX_REQUEST_REFS) break;
    const text = part.slice(0, MAX_TEXT_CHARS - chars);
    chars += text.length;
    for (const id of findRequestNumbers(text)) {
      if (!out.includes(id)) out.push(id);
      if (out.length === MAX_REQUEST_REFS) break;
    }
  }
  return out;
}

/**
 * A text that starts by naming a request's number as findRequestNumbers reads it (`SM 4105`, `SM-4105`,
 * `solicitação nº 4105`), or by a number alone written as people write one (LONE: `4105`, `#4105`, `4.105`,
 * `4105/2025`, `(4105)`, `4105.`, `nº 4105`): the number, and the rest of the text (folded: accents and case gone).
 * Null otherwise (`4.5`, `4105abc`, `-4105` and any word that is not such a number).
 */
export function leadingRequestNumber(text: string): { id: number; rest: string } | null {
  const folded = foldAccents(text.slice(0, MAX_TEXT_CHARS));
  const lone = LONE.exec(folded);
  if (lone) {
    const id = numberOf(lone[1] ?? '');
    if (Number.isSafeInteger(id) && id >= 1 && id <= MAX_INT32)
      return { id, rest: folded.slice(lone[0].length).replace(/º|°|ª/g, 'o') };
  }
  const plain = folded.replace(/º|°|ª/g, 'o');
  for (const pattern of LEADING) {
    const match = pattern.exec(plain);
    const id = numberOf(match?.[1] ?? '');
    if (match && Number.isSafeInteger(id) && id >= 1 && id <= MAX_INT32)
      return { id, rest: plain.slice(match[0].length) };
  }
  return null;
}

/** Whether a word, alone, is a request's number as leadingRequestNumber reads one (`1.312`, `(1312)`, `1312/2026`). */
export function isRequestNumberWord(word: string): boolean {
  const read = leadingRequestNumber(word);
  return read !== null && read.rest.trim() === '';
}

function collect(text: string, patterns: RegExp[]): number[] {
  const found: { at: number; id: number }[] = [];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const numbers = match[1];
      if (numbers === undefined) continue;
      // The captured number, or list of numbers (LIST_TAIL): each, at its place in the text.
      const start = (match.index ?? 0) + match[0].indexOf(numbers);
      for (const digits of numbers.matchAll(NUMBER_TOKEN)) {
        const id = numberOf(digits[0]);
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

/** Each number of a captured list, thousands separators included (`4.105, 4106`). */
const NUMBER_TOKEN = /\d{1,3}(?:\.\d{3})+(?!\d)|\d+/g;

/** `4.105` is 4105. */
function numberOf(token: string): number {
  return Number(token.replaceAll('.', ''));
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
