/** Lower case, no accents, for comparing words: `Histórico` -> `historico`. */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase();
}
