import type { Button, KnownBlock } from '@slack/types';
import { decodeRoute, type Route } from '../../src/domain/routes.js';
import type { Answer, Freshness } from '../../src/domain/views.js';
import type { Message, RenderContext } from '../../src/render/index.js';
import type {
  GoodsReceipt,
  HistoryEntry,
  Material,
  MaterialRequest,
  PurchaseOrder,
  RequestItem,
  Stockroom,
} from '../../src/upstream/schemas.js';

/** pt-BR demo data for the renderer tests: accents, nulls where the document allows them, undocumented fields. */

/** 22/11/2026 10:36 in São Paulo (UTC-3). */
export const NOW = Date.UTC(2026, 10, 22, 13, 36, 0);
export const ctx: RenderContext = { timeZone: 'America/Sao_Paulo', now: NOW };
export const sharedCtx: RenderContext = { ...ctx, shared: { byUserId: 'U0SHARER' } };

export const fresh: Freshness = { fetchedAt: NOW, fromCache: false, degraded: null };
export const cached: Freshness = { fetchedAt: NOW - 5 * 60_000, fromCache: true, degraded: null };
export const budgetDegraded: Freshness = {
  fetchedAt: NOW - 2 * 3_600_000,
  fromCache: true,
  degraded: 'budget',
};
export const upstreamDegraded: Freshness = {
  fetchedAt: NOW - 26 * 3_600_000,
  fromCache: true,
  degraded: 'upstream',
};

export function answer<T>(data: T, freshness: Freshness = fresh): Answer<T> {
  return { data, freshness };
}

export function stockroom(overrides: Partial<Stockroom> = {}): Stockroom {
  return {
    almoxarifado: 2,
    nome: 'Almoxarifado Central',
    site: 1,
    grupoArea: null,
    area: null,
    subgrupoArea: null,
    status: 1,
    ...overrides,
  };
}

export const stockrooms: Stockroom[] = [
  stockroom(),
  stockroom({ almoxarifado: 3, nome: 'Almoxarifado Torre B — Subsolo' }),
  stockroom({ almoxarifado: 7, nome: 'Oficina de Manutenção Elétrica' }),
  stockroom({ almoxarifado: 9, nome: null }),
];

export function material(overrides: Partial<Material> = {}): Material {
  return {
    material: 101,
    empresa: 1,
    site: null,
    tipoMaterial: 1,
    codigo: 'LAMP-009',
    nome: 'Lâmpada LED 9W bivolt',
    status: 1,
    custo: 12.5,
    custoMaoObra: null,
    fabricante: 'Signify',
    modelo: 'LEDBulb 9W',
    marca: 'Philips',
    categoriaMaterial: 4,
    unidadeConsumo: 1,
    ratearMaoObraProporcionalAQuantidade: false,
    classe: null,
    nomeFormatted: null,
    isAtivo: true,
    isEpi: false,
    ...overrides,
  };
}

export function request(overrides: Partial<MaterialRequest> = {}): MaterialRequest {
  return {
    solicitacaoMaterialId: 1234,
    almoxarifado: 2,
    site: 1,
    solicitante: 42,
    almoxarifado_Nome: 'Almoxarifado Central',
    solicitante_Nome: 'Maria Conceição Souza',
    listaStatusAndamentoSolicitacao: null,
    statusAndamentoSolicitacao: 2,
    statusAndamentoSolicitacao_Nome: 'Aprovada',
    ocorrencias: null,
    concluidoComRessalvas: false,
    rowNumber: 1,
    totalRows: 63,
    ...overrides,
  };
}

export function item(overrides: Partial<RequestItem> = {}): RequestItem {
  return {
    solicitacaoMaterialItemId: 9001,
    solicitacaoMaterialId: 1234,
    material: 101,
    material_Nome: 'Cabo flexível 2,5 mm² azul',
    quantidade: 100,
    estoqueAtual: 1234.5,
    estoqueMinimo: 200,
    estoqueMaximo: 2000,
    statusCompra: 3,
    statusCompraMaterial_Nome: 'Aguardando entrega',
    quantidadeEntregue: 50,
    statusAndamentoSolicitacao: 2,
    statusAndamentoSolicitacao_Nome: 'Aprovada',
    ocorrencias: null,
    valorUnitario: 2.3,
    valorTotal: 230,
    prazoDevolucao: null,
    compraMaterialItem: null,
    rowNumber: 1,
    destinacaoTipo: null,
    destinacaoId: null,
    ocorrenciasRelacionadasCount: 0,
    ...overrides,
  };
}

export function historyEntry(overrides: Partial<HistoryEntry> = {}): HistoryEntry {
  return {
    andamentoSolicitacao: 1,
    solicitacaoMaterial: 1234,
    responsavelSaidaMaterial: null,
    responsavelRetirada: null,
    status: 1,
    data: '2026-11-20T14:30:00',
    site_Nome: 'Edifício Paulista',
    almoxarifado_Nome: 'Almoxarifado Central',
    solicitante: 42,
    solicitante_Nome: 'Maria Conceição Souza',
    responsavelSaidaMaterial_Nome: null,
    responsavelRetirada_Nome: null,
    statusAndamentoSolicitacao_Nome: 'Aberta',
    rowNumber: 1,
    totalRows: 3,
    ...overrides,
  };
}

/** A purchase as the sandbox serves it, plus undocumented extras of every kind. */
export function purchase(overrides: Record<string, unknown> = {}): PurchaseOrder {
  return {
    compraMaterialId: 5678,
    almoxarifado: 2,
    almoxarifado_Nome: 'Almoxarifado Central',
    fornecedor: 12,
    fornecedor_Nome: 'Elétrica Paulista Ltda.',
    status: 2,
    status_Nome: 'Aprovada',
    dataCompra: '2026-11-10T00:00:00',
    valorTotal: 1234.5,
    quantidadeComprada: 300,
    quantidadeRecebida: 120,
    observacao: 'Entrega parcial combinada',
    compraAgrupadora: null,
    condicaoPagamento: '30/60 dias',
    urgente: true,
    itens: [{ material: 101 }],
    comprador: { id: 3, nome: 'Carlos' },
    rowNumber: 1,
    totalRows: 25,
    ...overrides,
  };
}

export function receipt(overrides: Record<string, unknown> = {}): GoodsReceipt {
  return {
    entradaMaterialId: 901,
    compraMaterialId: 5678,
    ordemCompra: 5678,
    almoxarifado: 2,
    almoxarifado_Nome: 'Almoxarifado Central',
    dataEntrada: '2026-11-18T09:15:00',
    dataCompra: '2026-11-10T00:00:00',
    fornecedor_Nome: 'Elétrica Paulista Ltda.',
    numeroNotaFiscal: '000123456',
    valorTotal: 740.2,
    observacao: null,
    rowNumber: 1,
    totalRows: 12,
    ...overrides,
  };
}

/** Every text a person can read in a message, joined by newlines. */
export function allText(message: Message): string {
  const texts: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'text' && typeof inner === 'string') texts.push(inner);
        else visit(inner);
      }
    }
  };
  visit(message.blocks);
  return texts.join('\n');
}

export interface FoundButton {
  text: string;
  actionId: string;
  value: string | undefined;
  route: Route | null;
  button: Button;
}

/** Every button of a message (actions blocks and section accessories), with its route decoded. */
export function buttonsOf(message: { blocks: KnownBlock[] }): FoundButton[] {
  const found: Button[] = [];
  for (const block of message.blocks) {
    if (block.type === 'actions')
      for (const element of block.elements) if (element.type === 'button') found.push(element);
    if (block.type === 'section' && block.accessory?.type === 'button') found.push(block.accessory);
  }
  return found.map((button) => ({
    text: button.text.text,
    actionId: button.action_id ?? '',
    value: button.value,
    route: decodeRoute(button.value),
    button,
  }));
}

export function buttonNamed(message: Message, text: string): FoundButton | undefined {
  return buttonsOf(message).find((button) => button.text === text);
}
