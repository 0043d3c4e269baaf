import type { KnownBlock } from '@slack/types';
import type { PauseReason } from '../store/subscription-store.js';
import { context, finalizeMessage, header, section } from './blocks.js';
import { plural } from './format.js';
import type { Message } from './types.js';

/** A section's text stays well under Slack's 3,000 characters. */
const LIST_SECTION_CHARS = 2_800;

/** Why a channel's digest or alerts are paused (the same reasons pause both). */
const PAUSE_TEXT: Record<PauseReason, string> = {
  unlinked: 'pausado: o workspace foi desvinculado do sistema de estoque',
  tokens_revoked:
    'pausado: o Slack não aceita mais o app neste workspace; um administrador precisa reinstalá-lo',
};

/** " · ⏸ pausado: …" after a listed channel, or nothing. */
export function pausedNote(reason: PauseReason | null): string {
  return reason ? ` · :double_vertical_bar: ${PAUSE_TEXT[reason]}` : '';
}

/** Entries joined by `separator` into as few sections as fit, a new section when the next entry would not. */
export function packSections(entries: readonly string[], separator: string): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  let chunk = '';
  for (const entry of entries) {
    if (chunk !== '' && chunk.length + entry.length + separator.length > LIST_SECTION_CHARS) {
      blocks.push(section(chunk));
      chunk = '';
    }
    chunk = chunk === '' ? entry : `${chunk}${separator}${entry}`;
  }
  if (chunk !== '') blocks.push(section(chunk));
  return blocks;
}

/**
 * `/estoque resumo listar` and `/estoque alertas listar`: the workspace's subscribed channels, one entry each, the
 * count and how to cancel. `entries` is not empty (each command says "none" its own way).
 */
export function renderChannelList(title: string, entries: readonly string[], cancelCommand: string): Message {
  const channels = plural(entries.length, 'canal', 'canais');
  return finalizeMessage({
    text: `${title}: ${channels}`,
    blocks: [
      header(title),
      ...packSections(entries, '\n\n'),
      context(`${channels} · Para cancelar, use \`${cancelCommand}\` no canal.`),
    ],
  });
}
