import { context, finalizeMessage, section } from './blocks.js';
import { formatNumber } from './format.js';
import type { Message } from './types.js';

/**
 * First messages of an answer that takes a while: shown at once, then replaced in place by the answer (the saved
 * data shown meanwhile is rendered by the answer's own renderer, marked "atualizando…").
 */

const REPLACED = 'Esta mensagem será substituída pela resposta.';

const PENDING_MARK = ':hourglass_flowing_sand:';
/** The mark of saved data shown while the answer waits (render/answer.ts). */
export const REFRESHING_MARK = ':arrows_counterclockwise: Atualizando…';

/** Whether a message is a first message (to be replaced by the answer): for tools that watch messages go by. */
export function isFirstMessage(message: { text: string; blocks: readonly unknown[] }): boolean {
  return message.text.startsWith(PENDING_MARK) || JSON.stringify(message.blocks).includes(REFRESHING_MARK);
}

/** The answer is slow to come from upstream. */
export function renderPending(): Message {
  const text = `${PENDING_MARK} Consultando o sistema de estoque…`;
  return finalizeMessage({ text, blocks: [section(text), context(REPLACED)] });
}

/** The answer waits for a budget slot and nothing is saved to show meanwhile. */
export function renderQueued(position: number): Message {
  const where =
    position <= 1
      ? 'Sua consulta é a próxima da fila'
      : `Sua consulta está na fila: posição ${formatNumber(position)}`;
  const text = `${PENDING_MARK} ${where} (limite de consultas ao sistema de estoque em uso).`;
  return finalizeMessage({ text, blocks: [section(text), context(REPLACED)] });
}

/**
 * The answer of a command was a post in the channel (a subscription's confirmation): what replaces the first
 * message that was on screen while it was being made.
 */
export function renderDoneInChannel(): Message {
  const text = ':white_check_mark: Pronto: a confirmação foi postada no canal.';
  return finalizeMessage({ text, blocks: [section(text)] });
}
