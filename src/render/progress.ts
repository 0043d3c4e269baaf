import { context, finalizeMessage, section } from './blocks.js';
import { formatNumber } from './format.js';
import type { Message } from './types.js';

/**
 * First messages of an answer that takes a while: shown at once, then replaced in place by the answer (the saved
 * data shown meanwhile is rendered by the answer's own renderer, marked "atualizando…").
 */

const REPLACED = 'Esta mensagem será substituída pela resposta.';

/** The answer is slow to come from upstream. */
export function renderPending(): Message {
  const text = ':hourglass_flowing_sand: Consultando o sistema de estoque…';
  return finalizeMessage({ text, blocks: [section(text), context(REPLACED)] });
}

/** The answer waits for a budget slot and nothing is saved to show meanwhile. */
export function renderQueued(position: number): Message {
  const where =
    position <= 1
      ? 'Sua consulta é a próxima da fila'
      : `Sua consulta está na fila: posição ${formatNumber(position)}`;
  const text = `:hourglass_flowing_sand: ${where} (limite de consultas ao sistema de estoque em uso).`;
  return finalizeMessage({ text, blocks: [section(text), context(REPLACED)] });
}
