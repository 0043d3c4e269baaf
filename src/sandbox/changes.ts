/**
 * What an advance of the sandbox's data changed, described so that a test or a benchmark can compute the
 * events a poller should see. Kinds are named after the change feed's events (PRODUCT.md, "Alerts"):
 * `novas` a request appeared, `status` a request's statusAndamentoSolicitacao changed, `recebimentos` a
 * pending purchase received goods.
 */

export const CHANGE_KINDS = ['novas', 'status', 'recebimentos'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export interface AdvanceRequest {
  /** The company of this login (demo, demo2, sessao, empresaN). */
  login?: string;
  /** The company; with `login` as well, both must name the same company. Default: company 1 (`demo`). */
  empresaId?: number;
  /** Changes to make, 1 to 100 (default 1). Fewer when nothing is left to change. */
  changes?: number;
  /** Kinds to choose from (default all); the choice among them is seeded. */
  kinds?: readonly ChangeKind[];
  /**
   * Requests to move first, one step each, when `status` is among the kinds and they can move by themselves (the
   * playground moves the requests someone follows, so the follower sees a DM); the rest of `changes` as usual.
   */
  requestIds?: readonly number[];
}

interface ChangeBase {
  /** Position in the sandbox's change log, from 1. */
  seq: number;
  /** When the change was made (epoch ms, the sandbox's clock). */
  at: number;
  empresa: number;
}

/** A new request: list row first in the list (highest id), status 1, one history entry dated `at`. */
export interface NewRequestChange extends ChangeBase {
  kind: 'novas';
  solicitacaoMaterialId: number;
  almoxarifado: number;
  solicitante: number;
  status: number;
  andamentoSolicitacao: number;
  /** Its items, every one of a material registered in the stockroom (so /itens lists them all). */
  itemIds: number[];
}

/** A request moved one step: a history entry dated `at`, the list row and the items follow. */
export interface StatusChange extends ChangeBase {
  kind: 'status';
  solicitacaoMaterialId: number;
  almoxarifado: number;
  solicitante: number;
  from: number;
  to: number;
  fromNome: string;
  toNome: string;
  andamentoSolicitacao: number;
  /** The request's creation (its first history entry): the feed's 30-day list window applies to it. */
  createdAt: number;
  /** The receipt that moved it, or null when it moved by itself. */
  causedBy: { compraMaterialId: number; entradaMaterialId: number } | null;
  /** The purchase raised for it when it moved to 5 (Aguardando compra), or null. */
  compraRaised: number | null;
}

/** A pending purchase received goods: a receipt (entrada) dated `at`, its pending balance fell. */
export interface ReceiptChange extends ChangeBase {
  kind: 'recebimentos';
  compraMaterialId: number;
  almoxarifado: number;
  entradaMaterialId: number;
  /** Quantity of this receipt. */
  quantidade: number;
  pendingBefore: number;
  /** 0 when fully received. */
  pendingAfter: number;
  statusFrom: number;
  statusTo: number;
  /** Fully received: it left GET /v1/entradas-materiais/compras. */
  leftPendingList: boolean;
  /** The requests linked to it, as GET /v1/compras-materiais/{id}/solicitacoes lists them. */
  solicitacaoMaterialIds: number[];
}

export type SandboxChange = NewRequestChange | StatusChange | ReceiptChange;

/** A change before the sandbox numbers it in its log. */
export type UnloggedChange =
  | Omit<NewRequestChange, 'seq'>
  | Omit<StatusChange, 'seq'>
  | Omit<ReceiptChange, 'seq'>;
