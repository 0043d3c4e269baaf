import type { FeedEvent, FeedTarget } from '../domain/feed/types.js';
import { finalizeMessage } from './blocks.js';
import { joinAnd } from './format.js';
import type { Message } from './types.js';

/**
 * What goes out in place of a digest or an alert that Slack refused for what it holds (`invalid_blocks`,
 * `msg_too_long`...: slack/post-refusals.ts). Plain text, no blocks, a few hundred characters at most, made of
 * numbers and fixed words only (no upstream text): nothing in it can be refused the way the message was.
 */

/** Numbers one fallback names per kind; the rest are counted ("e mais 3"). */
export const FALLBACK_NAMED = 20;

const LOGGED = 'O problema ficou registrado para quem mantém o bot.';

/** In place of a channel's digest: where to see what it would have shown. */
export function renderDigestFallback(stockroomId: number | null): Message {
  const almox = stockroomId === null ? '' : ` almox:${stockroomId}`;
  const text =
    'O resumo do estoque de hoje não pôde ser mostrado aqui (o Slack recusou a mensagem). ' +
    `Veja as solicitações com \`/solicitacao${almox}\` e as compras a receber com \`/compras pendentes${almox}\`. ` +
    LOGGED;
  return finalizeMessage({ text, blocks: [] });
}

/** "4105, 4221 e 4222", at most FALLBACK_NAMED of them, then "e mais N". */
function numbers(ids: Iterable<number>): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const named = sorted.slice(0, FALLBACK_NAMED).map(String);
  const left = sorted.length - named.length;
  return left > 0 ? `${named.join(', ')} e mais ${left}` : joinAnd(named);
}

/** "novas solicitações 4221 e 4222", "nova solicitação 4221"; null for none. */
function named(ids: readonly number[], one: string, many: string): string | null {
  if (ids.length === 0) return null;
  return `${new Set(ids).size === 1 ? one : many} ${numbers(ids)}`;
}

/** In place of one round's alert to a channel or a person: the events, by number and kind only. */
export function renderFeedFallback(target: FeedTarget, events: readonly FeedEvent[]): Message {
  const title = target.kind === 'channel' ? 'Novidades do estoque' : 'Novidades do que você acompanha';
  const created = events.flatMap((event) => (event.kind === 'novas' ? [event.requestId] : []));
  const moved = events.flatMap((event) => (event.kind === 'status' ? [event.requestId] : []));
  const received = events.flatMap((event) => (event.kind === 'recebimentos' ? [event.purchaseId] : []));
  const parts = [
    named(created, 'nova solicitação', 'novas solicitações'),
    named(moved, 'mudança de status na solicitação', 'mudança de status nas solicitações'),
    named(received, 'compra recebida', 'compras recebidas'),
  ].filter((part): part is string => part !== null);
  const see =
    received.length > 0
      ? 'Veja cada uma com `/solicitacao <número>` (as compras, com `/compras <número>`).'
      : 'Veja cada uma com `/solicitacao <número>`.';
  const text =
    `${title}: o Slack recusou a mensagem com os detalhes, então vão só os números: ${parts.join('; ')}. ` +
    `${see} ${LOGGED}`;
  return finalizeMessage({ text, blocks: [] });
}
