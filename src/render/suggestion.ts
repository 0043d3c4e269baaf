import type { KnownBlock } from '@slack/types';
import type { Route } from '../domain/routes.js';
import { actions, button, context, finalizeMessage, routeButton, section } from './blocks.js';
import { code, escapeMrkdwn, truncate } from './format.js';
import { ActionIds } from './ids.js';
import type { Message } from './types.js';

/** "Você quis dizer `/estoque almoxarifados`?" on top of the answer to what was typed. */

export interface SuggestionView {
  /** The command as typed: `/estoque almoxarifado`. */
  typed: string;
  /** The command probably meant: `/estoque almoxarifados`. */
  meant: string;
  /** The button that runs it (or, when no button can, helps with it); none when null. */
  button: { label: string; route: Route } | { label: string; opensLinkModal: true } | null;
}

/** A command as code, cut short: what is shown is what the person types. */
function commandCode(command: string): string {
  return code(truncate(command.trim(), 100));
}

/**
 * The answer with the suggestion on top: a context line and a button. The answer itself is unchanged below
 * (a search that found real materials still shows them).
 */
export function withSuggestion(message: Message, suggestion: SuggestionView): Message {
  const line = `:bulb: Você quis dizer ${commandCode(suggestion.meant)}? Abaixo, a resposta a ${commandCode(suggestion.typed)}.`;
  const choice = suggestion.button;
  const run =
    choice === null
      ? null
      : 'route' in choice
        ? routeButton(choice.label, choice.route)
        : button({ text: choice.label, actionId: ActionIds.openLinkModal });
  const lead: KnownBlock[] = [context(line)];
  const buttons = actions([run]);
  if (buttons) lead.push(buttons);
  // Blocks hide a message's text: an answer of text alone keeps it as a section.
  const body = message.blocks.length > 0 ? message.blocks : [section(message.text)];
  return finalizeMessage({
    text: `Você quis dizer ${escapeMrkdwn(truncate(suggestion.meant, 100))}? ${message.text}`,
    blocks: [...lead, ...body],
  });
}
