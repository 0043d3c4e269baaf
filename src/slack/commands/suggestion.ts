import type { RespondArguments, RespondFn } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import type { Route } from '../../domain/routes.js';
import { type SuggestionView, withSuggestion } from '../../render/index.js';
import type { ComprasCommand, EstoqueCommand, SolicitacaoCommand } from '../parse/commands.js';
import type { Suggestion } from '../parse/did-you-mean.js';
import { routeOfCompras, routeOfEstoque, routeOfSolicitacao } from './routes-of.js';

/** A near-miss subcommand, as the answer shows it: what was typed, what was meant, and the button that runs it. */

/** Command text as the person typed it: Slack sends `<`, `>` and `&` as entities, and the renderer escapes. */
const asTyped = (text: string) =>
  text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&').trim();

/**
 * The view of a suggestion; `button` gets the command as meant (`/estoque almoxarifados`), which labels the button
 * that runs it.
 */
const view = (
  name: string,
  typed: string,
  suggestion: Suggestion<unknown>,
  button: (meant: string) => SuggestionView['button'],
): SuggestionView => {
  const meant = `${name} ${asTyped(suggestion.text)}`;
  return { typed: `${name} ${asTyped(typed)}`, meant, button: button(meant) };
};

const runs = (label: string, route: Route | null): SuggestionView['button'] =>
  route ? { label, route } : null;

export function estoqueSuggestion(typed: string, suggestion: Suggestion<EstoqueCommand>): SuggestionView {
  const { command } = suggestion;
  return view('/estoque', typed, suggestion, (meant) => {
    // `resumo` alone is not a command: the help shows what it takes.
    if (command === null) return runs('/estoque ajuda', { view: 'help' });
    if (command.kind === 'link') return { label: meant, opensLinkModal: true };
    // Unlinking asks for a confirmation and the digest commands act on the channel: no route runs them, the
    // person types them.
    return runs(meant, routeOfEstoque(command));
  });
}

export function solicitacaoSuggestion(
  typed: string,
  suggestion: Suggestion<SolicitacaoCommand>,
): SuggestionView {
  const { command } = suggestion;
  return view('/solicitacao', typed, suggestion, (meant) =>
    runs(meant, command ? routeOfSolicitacao(command) : null),
  );
}

export function comprasSuggestion(typed: string, suggestion: Suggestion<ComprasCommand>): SuggestionView {
  const { command } = suggestion;
  return view('/compras', typed, suggestion, (meant) =>
    runs(meant, command ? routeOfCompras(command) : null),
  );
}

/**
 * The command's answer, whatever it turns out to be (results, nothing found, a failure), goes out through
 * response_url with the suggestion on top: the answer is built elsewhere, so the suggestion joins it on its way.
 */
export function respondWithSuggestion(respond: RespondFn, suggestion: SuggestionView): RespondFn {
  return (message) => {
    const args: RespondArguments = typeof message === 'string' ? { text: message } : message;
    const blocks = 'blocks' in args && Array.isArray(args.blocks) ? (args.blocks as KnownBlock[]) : [];
    const led = withSuggestion({ text: args.text ?? '', blocks }, suggestion);
    return respond({ ...args, text: led.text, blocks: led.blocks });
  };
}
