import type { KnownBlock } from '@slack/types';
import type { ListenerHold } from '../domain/listener-check.js';
import type { PauseReason } from '../store/subscription-store.js';
import { context, finalizeMessage, header, section } from './blocks.js';
import { plural } from './format.js';
import { stockroomNotActiveText } from './link.js';
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

/** The listener a subscription command confirms, as its notes name it. */
export type ListenerKind = 'alerts' | 'digest';

const LISTENER_WORDS: Record<
  ListenerKind,
  { subject: string; start: string; paused: string; resume: string }
> = {
  alerts: { subject: 'os alertas', start: 'começam', paused: 'estão pausados', resume: 'Voltam' },
  digest: { subject: 'o resumo diário', start: 'começa', paused: 'está pausado', resume: 'Volta' },
};

const LINK_AGAIN = 'quando um administrador do workspace vincular de novo com `/estoque vincular`';

/**
 * A subscription confirmed while it cannot run yet (not linked, a broken link, a pause): what the channel is told
 * beside the confirmation. Until 2026-11-27 it was confirmed as if it ran.
 */
export function listenerHoldText(hold: ListenerHold, kind: ListenerKind): string {
  const w = LISTENER_WORDS[kind];
  const Subject = w.subject.charAt(0).toUpperCase() + w.subject.slice(1);
  const paused = (why: string, resume: string) =>
    `:double_vertical_bar: ${Subject} ${w.paused}: ${why}. ${w.resume} ${resume}.`;
  switch (hold.kind) {
    case 'not_linked':
      return hold.lost
        ? `:hourglass_flowing_sand: O vínculo deste workspace com o sistema de estoque se perdeu no armazenamento do bot: ${w.subject} ${w.start} ${LINK_AGAIN}.`
        : `:hourglass_flowing_sand: Este workspace ainda não está vinculado ao sistema de estoque: ${w.subject} ${w.start} quando um administrador do workspace vincular com \`/estoque vincular\`.`;
    case 'broken':
      return paused('o acesso ao sistema de estoque expirou e não pôde ser renovado', LINK_AGAIN);
    case 'paused':
      return hold.reason === 'unlinked'
        ? paused('o workspace foi desvinculado do sistema de estoque', LINK_AGAIN)
        : paused(
            'o Slack não aceita mais o app neste workspace',
            'quando um administrador do Slack reinstalar o app',
          );
  }
}

/** `almox:N` confirmed although the active stockroom list could not be read now to check it. */
export function stockroomUncheckedText(stockroomId: number): string {
  return (
    `:grey_question: Não consegui conferir agora se o almoxarifado ${stockroomId} está entre os ativos desta ` +
    'empresa; confira com `/estoque almoxarifados`.'
  );
}

/** What a subscription's confirmation says beside it: why it will not run yet, an `almox:N` not checked. */
export interface ListenerNotes {
  hold?: ListenerHold | null;
  /** Set to N when `almox:N` could not be checked (stockroomUncheckedText). */
  stockroomUnchecked?: number | null;
}

/** The confirmation `lead` with its notes: a section, then each note as a context line (the text has them all). */
export function confirmationWithNotes(lead: string, kind: ListenerKind, notes: ListenerNotes): Message {
  const lines = [
    notes.hold ? listenerHoldText(notes.hold, kind) : null,
    notes.stockroomUnchecked != null ? stockroomUncheckedText(notes.stockroomUnchecked) : null,
  ].filter((line): line is string => line !== null);
  return finalizeMessage({
    text: [lead, ...lines].join('\n'),
    blocks: [section(lead), ...lines.map((line) => context(line))],
  });
}

/** A subscription refused because its `almox:N` is not among the active stockrooms. */
export function renderListenerStockroomNotActive(stockroomId: number): Message {
  const text = `${stockroomNotActiveText(stockroomId)} Nada foi assinado.`;
  return finalizeMessage({ text, blocks: [section(text)] });
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
