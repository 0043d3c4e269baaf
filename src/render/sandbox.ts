import { context, finalizeMessage, section } from './blocks.js';
import { formatNumber, plural, safeText } from './format.js';
import type { Message } from './types.js';

/** `/estoque sandbox avancar` (local mode only): what the sandbox just changed. */

export type SandboxChangeView =
  | { kind: 'novas'; requestId: number; stockroomId: number }
  | { kind: 'status'; requestId: number; from: string; to: string }
  | {
      kind: 'recebimentos';
      purchaseId: number;
      quantity: number;
      pendingAfter: number;
      requestIds: number[];
    };

function line(change: SandboxChangeView): string {
  switch (change.kind) {
    case 'novas':
      return `• Nova solicitação *${change.requestId}* (almoxarifado ${change.stockroomId})`;
    case 'status':
      return `• Solicitação *${change.requestId}*: ${safeText(change.from, 80)} → ${safeText(change.to, 80)}`;
    case 'recebimentos': {
      const rest =
        change.pendingAfter === 0
          ? 'recebida por inteiro'
          : `ainda falta ${formatNumber(change.pendingAfter)}`;
      const linked =
        change.requestIds.length > 0 ? ` · solicitações ${change.requestIds.slice(0, 20).join(', ')}` : '';
      return `• Compra *${change.purchaseId}*: entrada de ${formatNumber(change.quantity)}, ${rest}${linked}`;
    }
  }
}

export function renderSandboxAdvanced(changes: readonly SandboxChangeView[]): Message {
  if (changes.length === 0) {
    const text = 'O sandbox não tinha mais nada para mudar.';
    return finalizeMessage({ text, blocks: [section(text)] });
  }
  const title = `O sandbox fez ${plural(changes.length, 'mudança', 'mudanças')}:`;
  return finalizeMessage({
    text: title,
    blocks: [
      section([title, ...changes.map(line)].join('\n')),
      context(
        'Os canais com `/estoque alertas assinar` e quem acompanha essas solicitações recebem o aviso em seguida: o bot verifica agora.',
      ),
    ],
  });
}

/** Outside local mode there is no sandbox to move. */
export function renderSandboxUnavailable(): Message {
  const text = '`/estoque sandbox avancar` só existe no modo local, onde o sandbox roda junto com o bot.';
  return finalizeMessage({ text, blocks: [section(text)] });
}
