import type { RespondArguments, RespondFn } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import type { Route } from '../../domain/routes.js';
import { type SuggestionView, withSuggestion } from '../../render/index.js';
import type { ComprasCommand, EstoqueCommand, SolicitacaoCommand } from '../parse/commands.js';
import type { Suggestion } from '../parse/did-you-mean.js';
import { routeOfCompras, routeOfEstoque, routeOfSolicitacao } from './routes-of.js';

/** A near-miss subcommand, as the answer shows it: what was typed, what was meant, and the button that runs it. */

const view = (
  name: string,
  typed: string,
  suggestion: Suggestion<unknown>,
  button: SuggestionView['button'],
): SuggestionView => ({ typed: `${name} ${typed.trim()}`, meant: `${name} ${suggestion.text}`, button });

const runs = (label: string, route: Route | null): SuggestionView['button'] =>
  route ? { label, route } : null;

export function estoqueSuggestion(typed: string, suggestion: Suggestion<EstoqueCommand>): SuggestionView {
  const meant = `/estoque ${suggestion.text}`;
  const { command } = suggestion;
  // `resumo` alone is not a command: the help shows what it takes.
  if (command === null) return view('/estoque', typed, suggestion, runs('/estoque ajuda', { view: 'help' }));
  if (command.kind === 'link')
    return view('/estoque', typed, suggestion, { label: meant, opensLinkModal: true });
  // Unlinking asks for a confirmation and the digest commands act on the channel: no route runs them, the person
  // types them.
  return view('/estoque', typed, suggestion, runs(meant, routeOfEstoque(command)));
}

export function solicitacaoSuggestion(
  typed: string,
  suggestion: Suggestion<SolicitacaoCommand>,
): SuggestionView {
  const route = suggestion.command ? routeOfSolicitacao(suggestion.command) : null;
  return view('/solicitacao', typed, suggestion, runs(`/solicitacao ${suggestion.text}`, route));
}

export function comprasSuggestion(typed: string, suggestion: Suggestion<ComprasCommand>): SuggestionView {
  const route = suggestion.command ? routeOfCompras(suggestion.command) : null;
  return view('/compras', typed, suggestion, runs(`/compras ${suggestion.text}`, route));
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
