import { MAX_ROUTE_TEXT, type Route } from '../../domain/routes.js';
import type { ComprasCommand, EstoqueCommand, SolicitacaoCommand } from '../parse/commands.js';

/** The answer a parsed command asks for; commands that are not answers (link, unlink, digest) give null. */
export function routeOfEstoque(command: EstoqueCommand): Route | null {
  switch (command.kind) {
    case 'help':
      return { view: 'help' };
    case 'stockrooms':
    case 'types':
    case 'categories':
      return { view: command.kind, page: command.page };
    case 'status':
      return { view: 'status' };
    case 'material-search':
      return {
        view: 'materials',
        text: command.text.slice(0, MAX_ROUTE_TEXT),
        page: command.page,
        ...(command.stockroomId !== undefined && { stockroomId: command.stockroomId }),
      };
    default:
      return null;
  }
}

/** The commands that change follows (`acompanhar`, `parar`, `minhas acompanhar|parar`) are not answers: null. */
export function routeOfSolicitacao(command: SolicitacaoCommand): Route | null {
  switch (command.kind) {
    case 'request-detail':
      return { view: 'request', id: command.id, page: command.page };
    case 'request-history':
      return { view: 'history', id: command.id, page: command.page };
    case 'request-list':
      return { view: 'requests', filters: command.filters, page: command.page };
    case 'request-mine':
      return { view: 'requests', filters: command.filters, page: command.page, mine: true };
    case 'request-following':
      return { view: 'following', page: command.page };
    default:
      return null;
  }
}

export function routeOfCompras(command: ComprasCommand): Route {
  switch (command.kind) {
    case 'purchases-pending':
      return {
        view: 'pending',
        page: command.page,
        ...(command.stockroomId !== undefined && { stockroomId: command.stockroomId }),
      };
    case 'purchase-requests':
      return { view: 'purchase', id: command.id, page: command.page };
    case 'purchase-list':
      return { view: 'purchases', filters: command.filters, page: command.page };
    case 'receipt-list':
      return { view: 'receipts', filters: command.filters, page: command.page };
  }
}
