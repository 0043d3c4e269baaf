import { context, finalizeMessage, section } from './blocks.js';
import type { Message } from './types.js';

/**
 * The short answer to an `@estoque-bot` mention or a message in the bot's DM: the bot reads no conversation,
 * so it says what it does answer, with a few commands to start from.
 */
export function renderChatHelp(): Message {
  const text =
    'Oi! Eu respondo a comandos, não a mensagens. Experimente:\n' +
    '• `/estoque lâmpada` — materiais pelo nome ou código, com o último saldo conhecido\n' +
    '• `/solicitacao 1234` — uma solicitação e seus itens\n' +
    '• `/solicitacao minhas` — as suas solicitações\n' +
    '• `/compras pendentes` — compras com saldo a receber';
  return finalizeMessage({
    text: 'Oi! Eu respondo a comandos, não a mensagens: /estoque, /solicitacao e /compras.',
    blocks: [section(text), context('`/estoque ajuda` mostra todos os comandos, com exemplos.')],
  });
}
