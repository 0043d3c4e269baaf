import type { Route } from '../../domain/routes.js';
import type { ComprasCommand, EstoqueCommand, SolicitacaoCommand } from '../parse/commands.js';

/** The answer a parsed command asks for; commands that are not answers (link, unlink, digest) give null. */
export function routeOfEstoque(command: EstoqueCommand): Route | null {
  switch (command.kind) {
    case 'help':
      return { r: 'help' };
    case 'stockrooms':
      return { r: 'stockrooms' };
    case 'types':
      return { r: 'types' };
    case 'categories':
      return { r: 'categories' };
    case 'status':
      return { r: 'status' };
    case 'material-search':
      return {
        r: 'materials',
        t: command.text.slice(0, 200),
        p: 1,
        ...(command.stockroomId !== undefined && { s: command.stockroomId }),
      };
    default:
      return null;
  }
}

export function routeOfSolicitacao(command: SolicitacaoCommand): Route {
  switch (command.kind) {
    case 'request-detail':
      return { r: 'request', id: command.id, p: 1 };
    case 'request-history':
      return { r: 'history', id: command.id, p: 1 };
    case 'request-list':
      return { r: 'requests', f: command.filters, p: command.page };
    case 'request-mine':
      return { r: 'requests', f: command.filters, p: command.page, mine: true };
  }
}

export function routeOfCompras(command: ComprasCommand): Route {
  switch (command.kind) {
    case 'purchases-pending':
      return { r: 'pending', p: 1, ...(command.stockroomId !== undefined && { s: command.stockroomId }) };
    case 'purchase-requests':
      return { r: 'purchase', id: command.id, p: 1 };
    case 'purchase-list':
      return { r: 'purchases', f: command.filters, p: command.page };
    case 'receipt-list':
      return { r: 'receipts', f: command.filters, p: command.page };
  }
}
