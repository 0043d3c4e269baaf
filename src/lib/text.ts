/**
 * Lower case, no accents, in compatibility form, for comparing words: `Histórico` -> `historico`, full-width
 * `ｃｉｍｅｎｔｏ` -> `cimento`, `ﬁo` -> `fio`, `mm²` -> `mm2`. Both sides of a comparison pass through it (a typed
 * word and a name), so a compatibility form matches its plain one whichever side has it. NFKD, not NFKC: the
 * accents must stay apart from their letters to be dropped (NFKC would compose them back). Until 2026-11-27 this
 * was NFD only (foldAccents), and a word typed in full-width letters matched nothing.
 */
export function fold(text: string): string {
  return dropAccents(text.normalize('NFKD'));
}

/**
 * Lower case, no accents, compatibility characters kept as typed: for reading numbers out of free text, where
 * `4105²` is not 41052 and `nª` keeps its `ª`.
 */
export function foldAccents(text: string): string {
  return dropAccents(text.normalize('NFD'));
}

function dropAccents(decomposed: string): string {
  return decomposed.replace(/\p{Diacritic}/gu, '').toLowerCase();
}
