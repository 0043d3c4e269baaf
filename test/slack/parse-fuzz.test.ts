import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCompras, parseEstoque, parseSolicitacao } from '../../src/slack/parse/commands.js';
import { didYouMean, nearMiss, SUBCOMMAND_WORDS } from '../../src/slack/parse/did-you-mean.js';
import { tokenize } from '../../src/slack/parse/tokens.js';

/**
 * Property-based tests of the command parsers: whatever Slack sends as a command's text, a parser returns a
 * well-formed result (a known kind, or a failure with a problem to show), never throws, and never takes a word
 * for a subcommand because an object happens to have a property of that name.
 */

/** The names every plain object answers to, in the cases a person could type them. */
const PROTOTYPE_WORDS = [
  'constructor',
  '__proto__',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupSetter__',
  'CONSTRUCTOR',
  'Constructor',
];

const ESTOQUE_KINDS = new Set([
  'help',
  'stockrooms',
  'types',
  'categories',
  'link',
  'unlink',
  'status',
  'material-search',
  'digest-subscribe',
  'digest-cancel',
  'digest-list',
  'digest-now',
  'feed-subscribe',
  'feed-cancel',
  'feed-list',
  'sandbox-advance',
]);
const SOLICITACAO_KINDS = new Set([
  'request-detail',
  'request-history',
  'request-list',
  'request-mine',
  'request-follow',
  'request-unfollow',
  'request-following',
  'request-own-follow',
  'request-own-unfollow',
]);
const COMPRAS_KINDS = new Set(['purchases-pending', 'purchase-requests', 'purchase-list', 'receipt-list']);

const PARSERS = [
  { name: 'parseEstoque', parse: parseEstoque, kinds: ESTOQUE_KINDS },
  { name: 'parseSolicitacao', parse: parseSolicitacao, kinds: SOLICITACAO_KINDS },
  { name: 'parseCompras', parse: parseCompras, kinds: COMPRAS_KINDS },
] as const;

/** A result a handler can act on: a known kind, or a failure with a non-empty problem. */
function wellFormed(result: unknown, kinds: ReadonlySet<string>): boolean {
  if (typeof result !== 'object' || result === null) return false;
  const r = result as { ok?: unknown; problem?: unknown; command?: { kind?: unknown } };
  if (r.ok === false) return typeof r.problem === 'string' && r.problem.length > 0;
  return r.ok === true && typeof r.command?.kind === 'string' && kinds.has(r.command.kind);
}

const word = fc.oneof(
  fc.constantFrom(...PROTOTYPE_WORDS),
  fc.constantFrom(...SUBCOMMAND_WORDS.estoque, ...SUBCOMMAND_WORDS.solicitacao, ...SUBCOMMAND_WORDS.compras),
  fc.constantFrom('resumo', 'assinar', 'cancelar', 'historico', 'itens', '#12', '4105', '07:30'),
  fc.constantFrom(...PROTOTYPE_WORDS).map((w) => `${w}:1`),
  fc.constantFrom('almox', 'status', 'de', 'ate', 'pagina', 'dias').map((k) => `${k}:${k}`),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
);
/** Control characters, entity-looking text, zero-width and RTL marks, emoji. */
const noise = fc.constantFrom(
  '\u0000',
  '\u0007',
  '\u001b[31m',
  '\r\n',
  '\t',
  '\u200b',
  '\u202e',
  '&lt;',
  '&amp;',
  '🧰',
);
const commandText = fc
  .array(fc.oneof(word, noise), { maxLength: 8 })
  .chain((parts) => fc.constantFrom(' ', '  ', '\t', '\n').map((sep) => parts.join(sep)));

describe('command parsers under fuzzing', () => {
  for (const { name, parse, kinds } of PARSERS) {
    it(`${name}: any text gives a known kind or a failure, never a throw`, () => {
      fc.assert(
        fc.property(commandText, (text) => wellFormed(parse(text), kinds)),
        { numRuns: 400 },
      );
    });

    it(`${name}: prototype words are searched or refused, never taken for a subcommand`, () => {
      for (const w of PROTOTYPE_WORDS) {
        for (const text of [w, `${w} x`, ` ${w} `, `resumo ${w}`]) {
          const result = parse(text);
          expect(wellFormed(result, kinds), `${name}(${JSON.stringify(text)})`).toBe(true);
        }
      }
    });

    it(`${name}: a 100 KB text is parsed in one go, without a throw`, () => {
      fc.assert(
        fc.property(fc.constantFrom(...PROTOTYPE_WORDS, 'cabo', 'almox:1', '\u0000', '🧰'), (w) => {
          const text = `${w} `.repeat(Math.ceil(100_000 / (w.length + 1)));
          return wellFormed(parse(text), kinds);
        }),
        { numRuns: 8 },
      );
    });
  }

  it('/estoque constructor and __proto__ are material searches, as any other word', () => {
    for (const text of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const result = parseEstoque(text);
      expect(result).toMatchObject({ ok: true, command: { kind: 'material-search', text } });
    }
  });

  it('tokenize keeps prototype words as plain filter keys and words', () => {
    const tokens = tokenize('__proto__:1 constructor:2 toString');
    expect([...tokens.filters]).toEqual([
      ['__proto__', '1'],
      ['constructor', '2'],
    ]);
    expect(tokens.words).toEqual(['toString']);
  });

  it('did-you-mean never offers a prototype word', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PROTOTYPE_WORDS), (w) => {
        expect(nearMiss(w, SUBCOMMAND_WORDS.estoque)).toBeNull();
        expect(didYouMean(w, SUBCOMMAND_WORDS.estoque, parseEstoque, 'material-search')).toBeNull();
      }),
    );
  });
});
