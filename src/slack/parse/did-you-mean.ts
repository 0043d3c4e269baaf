import { fold } from '../../lib/text.js';
import type { Parsed } from './tokens.js';

/**
 * "Você quis dizer `/estoque almoxarifados`?" A command's free text (a material search, a request or purchase
 * search) whose first word is a near miss of a subcommand word is still searched, and the answer also offers
 * the subcommand. Pure: the parsers call it where they choose the search.
 */

/** The words that start a subcommand, per command (folded). */
export const SUBCOMMAND_WORDS = {
  estoque: [
    'ajuda',
    'help',
    'almoxarifados',
    'tipos',
    'categorias',
    'status',
    'vincular',
    'desvincular',
    'resumo',
    'alertas',
  ],
  solicitacao: ['minhas', 'acompanhando'],
  compras: ['pendentes', 'entradas'],
} as const satisfies Record<string, readonly string[]>;

export interface Suggestion<C> {
  /** The text as it was probably meant (after the command name): `almoxarifados`, `minhas status:1`. */
  text: string;
  /** What that text parses to; null when it names a subcommand that needs more (`resumo` needs what to do). */
  command: C | null;
}

/** Words shorter than this are never taken for a near miss: too many words are one letter from them. */
const MIN_WORD_LENGTH = 3;

/**
 * How far a typed word may be from a subcommand word and still be taken for it: one typo (a letter missing,
 * added, changed, or two swapped) in words of up to 7 letters, two from 8 letters on. A typed word that is a
 * real word one step away ("tipo" for "tipos") is suggested too: the search still answers below.
 */
export function allowedDistance(subcommand: string): number {
  return subcommand.length >= 8 ? 2 : 1;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps cost 1. */
export function editDistance(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  const rows: number[][] = Array.from({ length: x.length + 1 }, (_, i) =>
    Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return at(x.length, y.length);
}

/** The one subcommand word the typed word is a near miss of; null when none, or when two are equally near. */
export function nearMiss(typed: string, words: readonly string[]): string | null {
  const word = fold(typed);
  if ([...word].length < MIN_WORD_LENGTH || words.includes(word)) return null;
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  let tied = false;
  for (const candidate of words) {
    const distance = editDistance(word, candidate);
    if (distance > allowedDistance(candidate)) continue;
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
      tied = false;
    } else if (distance === bestDistance) {
      tied = true;
    }
  }
  return tied ? null : best;
}

/**
 * The subcommand the text probably meant, when its first word is a near miss of one and the text with that word
 * corrected is a command other than the search (`almoxarifado` → `almoxarifados`; `minha status:1` →
 * `minhas status:1`). A lone word whose subcommand needs more (`resumos`) is suggested without a command. Words
 * after the first are kept as typed, and must fit the subcommand: `tipo de cabo` stays a search, nothing more.
 */
export function didYouMean<C extends { kind: string }>(
  text: string,
  words: readonly string[],
  parse: (text: string) => Parsed<{ command: C }>,
  searchKind: C['kind'],
): Suggestion<C> | null {
  const parts = text.trim().split(/\s+/);
  const [first, ...rest] = parts;
  if (first === undefined || first.includes(':')) return null;
  const meant = nearMiss(first, words);
  if (meant === null) return null;
  const corrected = [meant, ...rest].join(' ');
  const parsed = parse(corrected);
  if (parsed.ok)
    return parsed.command.kind === searchKind ? null : { text: corrected, command: parsed.command };
  return rest.length === 0 ? { text: corrected, command: null } : null;
}
