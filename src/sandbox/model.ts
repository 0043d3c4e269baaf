import type { Account } from './auth-issuer.js';
import type {
  HistoryRecord,
  MaterialCategoryRecord,
  MaterialRecord,
  MaterialTypeRecord,
  PurchaseRecord,
  ReceiptRecord,
  RequestItemRecord,
  RequestRecord,
  StockroomRecord,
  Unnumbered,
  UserRecord,
} from './records.js';

/**
 * The in-memory model of the sandbox's demo data: the served records plus the links the endpoints filter on
 * (units a stockroom serves, materials registered in it, requests of a purchase, dates of the rows).
 */

export interface Unit {
  id: number;
  nome: string;
  grupo: number;
  subgrupo: number;
  estado: number;
  cidade: number;
}

export interface UserRow {
  record: UserRecord;
  units: number[];
  fornecedor: number | null;
}

export interface StockroomRow {
  record: StockroomRecord;
  /** Units this stockroom serves (the UnidadeId header and the unidadeId filter). */
  serves: number[];
  /** Materials registered in it. */
  materials: Set<number>;
}

export interface StockLevel {
  atual: number;
  minimo: number;
  maximo: number;
}

export interface RequestRow {
  record: Unnumbered<RequestRecord>;
  /** Date of the first history entry: the request list's DataInicial/DataFinal apply to it. */
  createdAt: number;
  purchaseIds: number[];
  items: Omit<RequestItemRecord, 'rowNumber'>[];
  history: Unnumbered<HistoryRecord>[];
}

export interface PurchaseRow {
  record: Unnumbered<PurchaseRecord>;
  at: number;
  requestIds: number[];
  /** Items of the linked requests this purchase buys; none for replenishment and grouped purchases. */
  itemIds: number[];
}

export interface ReceiptRow {
  record: Unnumbered<ReceiptRecord>;
  at: number;
  /** Date of the receipt's purchase: the receipt list's date filter applies to it. */
  purchaseAt: number;
}

export interface Supplier {
  id: number;
  nome: string;
}

export interface CompanyData {
  empresa: number;
  units: Unit[];
  users: UserRow[];
  stockrooms: StockroomRow[];
  materials: MaterialRecord[];
  types: MaterialTypeRecord[];
  categories: MaterialCategoryRecord[];
  suppliers: Supplier[];
  /** Stock per `${almoxarifado}:${material}`. */
  stock: Map<string, StockLevel>;
  requests: RequestRow[];
  purchases: PurchaseRow[];
  receipts: ReceiptRow[];
}

export interface SandboxData {
  /** Companies built so far: the demo ones from the start, generated ones once used. */
  companies: Map<number, CompanyData>;
  accounts: Account[];
  /** Every company the sandbox serves, built or not, in order. */
  empresaIds: readonly number[];
  /** A served company, built on first use; undefined when the sandbox serves no such company. */
  company(empresa: number): CompanyData | undefined;
}

export const REQUEST_STATUS: Record<number, string> = {
  1: 'Aberta',
  2: 'Em separação',
  3: 'Atendida parcialmente',
  4: 'Atendida',
  5: 'Aguardando compra',
  6: 'Cancelada',
};

export const PURCHASE_STATUS: Record<number, string> = {
  1: 'Em cotação',
  2: 'Aprovada',
  3: 'Recebida parcialmente',
  4: 'Recebida',
  5: 'Agrupada',
  6: 'Cancelada',
};

export const ITEM_PURCHASE_STATUS: Record<number, string> = {
  1: 'Sem compra',
  2: 'Em cotação',
  3: 'Comprado',
  4: 'Recebido',
};
