import type { ModalView } from '@slack/types';
import { describe, expect, it } from 'vitest';
import type { LinkStatusView } from '../../src/domain/views.js';
import {
  checkMessageLimits,
  type Message,
  renderCatalog,
  renderHelp,
  renderLinkModal,
  renderLinkStatus,
  renderMaterialSearch,
  renderPendingPurchases,
  renderPurchaseList,
  renderPurchaseRequests,
  renderReceiptList,
  renderRequestDetail,
  renderRequestHistory,
  renderRequestList,
  renderStockrooms,
  renderUnlinkConfirm,
  renderUsage,
} from '../../src/render/index.js';
import {
  answer,
  budgetDegraded,
  cached,
  ctx,
  historyEntry,
  item,
  material,
  NOW,
  purchase,
  receipt,
  request,
  sharedCtx,
  stockrooms,
  upstreamDegraded,
} from './fixtures.js';

const linkedStatus: LinkStatusView = {
  linked: true,
  broken: false,
  checks: null,
  linkedBy: 'U0ADMIN',
  linkedAt: NOW - 3 * 86_400_000,
  login: 'manutencao@predio.com.br',
  empresaId: 12,
  unidadeId: null,
  tokenExpiresAt: NOW + 90 * 60_000,
  refreshExpiresAt: NOW + 6 * 86_400_000,
  budget: { limit: 250, windowMs: 3_600_000, used: 37, remaining: 213, pausedUntil: null },
  cache: { hits: 41, misses: 9 },
  feed: null,
};

/** The answers' layouts: their blocks, buttons and fields as Slack gets them. The one-line notices are in notices.test.ts. */
const cases: Record<string, () => Message | ModalView> = {
  help: () => renderHelp(),
  'help shared': () => renderHelp(sharedCtx),
  'usage solicitacao': () =>
    renderUsage(
      'solicitacao',
      '`status:abc` não é válido (use números separados por vírgula, como `status:1,2`)',
    ),
  stockrooms: () =>
    renderStockrooms(answer({ stockrooms, company: { empresaId: 1, unidadeId: null } }, cached), ctx),
  'stockrooms empty': () =>
    renderStockrooms(answer({ stockrooms: [], company: { empresaId: 1, unidadeId: 2 } }), ctx),
  types: () =>
    renderCatalog(
      'types',
      answer([
        { id: 1, name: 'Elétrico' },
        { id: 2, name: 'Hidráulico' },
        { id: 3, name: null },
      ]),
      ctx,
    ),
  categories: () => renderCatalog('categories', answer([{ id: 4, name: 'Iluminação' }]), sharedCtx),
  'material search': () =>
    renderMaterialSearch(
      answer({
        text: 'lâmpada',
        stockroomId: 2,
        page: 1,
        matches: [
          {
            material: material(),
            typeName: 'Elétrico',
            categoryName: 'Iluminação',
            lastKnown: {
              materialId: 101,
              current: 12,
              minimum: 5,
              maximum: 40,
              requestId: 1234,
              seenAt: Date.UTC(2026, 10, 20, 17, 30),
            },
            knownName: null,
          },
          {
            material: material({
              material: 102,
              codigo: null,
              nome: 'Lâmpada fluorescente 20W',
              marca: null,
              modelo: null,
              fabricante: null,
              custo: null,
              unidadeConsumo: 'UN',
            }),
            typeName: null,
            categoryName: null,
            lastKnown: null,
            knownName: null,
          },
          {
            material: material({ material: 103, codigo: 'LAMP-T8', nome: 'Lâmpada tubular T8 18W' }),
            typeName: 'Elétrico',
            categoryName: 'Iluminação',
            lastKnown: {
              materialId: 103,
              current: 2,
              minimum: 10,
              maximum: null,
              requestId: 1200,
              seenAt: NOW - 86_400_000,
            },
            knownName: null,
          },
        ],
      }),
      ctx,
    ),
  'material search empty': () =>
    renderMaterialSearch(answer({ text: 'parafuzo', stockroomId: null, page: 1, matches: [] }), ctx),
  'request detail': () =>
    renderRequestDetail(
      answer(
        {
          id: 1234,
          header: {
            stockroomName: 'Almoxarifado Central',
            requesterName: 'Maria Conceição Souza',
            statusName: 'Aprovada',
            status: 2,
            openedAt: '2026-11-20T14:30:00',
            lastChangeAt: '2026-11-21T09:00:00',
          },
          items: [
            item(),
            item({
              solicitacaoMaterialItemId: 9002,
              material: 102,
              material_Nome: 'Disjuntor bipolar 32A',
              quantidade: 2,
              estoqueAtual: 1,
              estoqueMinimo: 4,
              estoqueMaximo: null,
              quantidadeEntregue: null,
              statusCompra: null,
              statusCompraMaterial_Nome: null,
              valorUnitario: null,
              valorTotal: null,
              prazoDevolucao: '2026-12-01T00:00:00',
            }),
          ],
          knownNames: new Map(),
          page: 1,
        },
        cached,
      ),
      ctx,
    ),
  'request detail without header nor items': () =>
    renderRequestDetail(answer({ id: 77, header: null, items: [], knownNames: new Map(), page: 1 }), ctx),
  'request history': () =>
    renderRequestHistory(
      answer(
        {
          id: 1234,
          history: {
            rows: [
              historyEntry(),
              historyEntry({
                andamentoSolicitacao: 2,
                status: 2,
                data: '2026-11-20T16:00:00',
                statusAndamentoSolicitacao_Nome: 'Aprovada',
                responsavelSaidaMaterial_Nome: 'João Almoxarife',
              }),
              historyEntry({
                andamentoSolicitacao: 3,
                status: 4,
                data: '2026-11-21T09:00:00',
                statusAndamentoSolicitacao_Nome: null,
                responsavelSaidaMaterial_Nome: 'João Almoxarife',
                responsavelRetirada_Nome: 'Ana Técnica',
              }),
            ],
            page: 1,
            pageSize: 10,
            totalRows: 3,
            totalPages: 1,
          },
        },
        upstreamDegraded,
      ),
      ctx,
    ),
  'request list default period': () =>
    renderRequestList(
      answer({
        filters: {},
        mine: null,
        defaultPeriod: true,
        list: {
          rows: [
            request(),
            request({
              solicitacaoMaterialId: 1235,
              statusAndamentoSolicitacao_Nome: null,
              statusAndamentoSolicitacao: 5,
              concluidoComRessalvas: true,
            }),
          ],
          page: 2,
          pageSize: 10,
          totalRows: 63,
          totalPages: 7,
        },
      }),
      ctx,
    ),
  'request list filtered': () =>
    renderRequestList(
      answer({
        filters: {
          stockroomId: 2,
          status: [1, 2],
          from: { year: 2026, month: 10, day: 1 },
          to: { year: 2026, month: 10, day: 31 },
          text: 'torre',
        },
        mine: null,
        defaultPeriod: false,
        list: { rows: [], page: 1, pageSize: 10, totalRows: 0, totalPages: 1 },
      }),
      ctx,
    ),
  'request list mine': () =>
    renderRequestList(
      answer({
        filters: {},
        mine: { upstreamUserName: 'Maria Conceição Souza' },
        defaultPeriod: true,
        list: { rows: [request()], page: 1, pageSize: 10, totalRows: 1, totalPages: 1 },
      }),
      sharedCtx,
    ),
  'pending purchases': () =>
    renderPendingPurchases(
      answer(
        {
          stockroomId: null,
          page: 1,
          groups: [
            {
              stockroom: { almoxarifado: 2, nome: 'Almoxarifado Central' },
              purchases: [
                purchase(),
                purchase({ compraMaterialId: 5679, status_Nome: 'Parcialmente recebida' }),
              ],
            },
            {
              stockroom: { almoxarifado: 3, nome: 'Almoxarifado Torre B — Subsolo' },
              purchases: [purchase({ compraMaterialId: 6001, almoxarifado: 3 })],
            },
          ],
        },
        budgetDegraded,
      ),
      ctx,
    ),
  'pending purchases empty for a stockroom': () =>
    renderPendingPurchases(
      answer({
        stockroomId: 3,
        page: 1,
        groups: [{ stockroom: { almoxarifado: 3, nome: 'Torre B' }, purchases: [] }],
      }),
      ctx,
    ),
  'purchase list': () =>
    renderPurchaseList(
      answer({
        filters: { supplierId: 12, status: [1], from: { year: 2026, month: 10, day: 1 } },
        list: {
          rows: [purchase(), purchase({ compraMaterialId: 5680, observacao: null, urgente: false })],
          page: 1,
          pageSize: 10,
          totalRows: 25,
          totalPages: 3,
        },
      }),
      ctx,
    ),
  'purchase requests': () =>
    renderPurchaseRequests(
      answer({ purchaseId: 5678, page: 1, requests: [request(), request({ solicitacaoMaterialId: 1300 })] }),
      ctx,
    ),
  'purchase requests empty': () =>
    renderPurchaseRequests(answer({ purchaseId: 5678, page: 1, requests: [] }), ctx),
  receipts: () =>
    renderReceiptList(
      answer({
        filters: {
          purchaseId: 5678,
          from: { year: 2026, month: 11, day: 1 },
          to: { year: 2026, month: 11, day: 30 },
        },
        list: {
          rows: [receipt(), receipt({ entradaMaterialId: undefined, id: 902, numeroNotaFiscal: null })],
          page: 1,
          pageSize: 10,
          totalRows: 2,
          totalPages: 1,
        },
      }),
      ctx,
    ),
  'link status linked': () => renderLinkStatus(linkedStatus, ctx),
  'link status broken and paused': () =>
    renderLinkStatus(
      {
        ...linkedStatus,
        broken: true,
        checks: { nextAt: NOW + 40 * 60_000 },
        unidadeId: 4,
        tokenExpiresAt: NOW - 60_000,
        budget: { limit: 25, windowMs: 36_000, used: 25, remaining: 0, pausedUntil: NOW + 20 * 60_000 },
        cache: { hits: 0, misses: 0 },
      },
      ctx,
    ),
  'link status not linked': () =>
    renderLinkStatus(
      {
        linked: false,
        broken: false,
        checks: null,
        linkedBy: null,
        linkedAt: null,
        login: null,
        empresaId: null,
        unidadeId: null,
        tokenExpiresAt: null,
        refreshExpiresAt: null,
        budget: null,
        cache: null,
        feed: null,
      },
      ctx,
    ),
  'link modal': () => renderLinkModal(),
  'unlink confirm': () => renderUnlinkConfirm(),
};

describe('every renderer', () => {
  for (const [name, render] of Object.entries(cases)) {
    it(`${name}: matches its snapshot and Slack's limits`, () => {
      const message = render();
      expect(checkMessageLimits(message)).toEqual([]);
      expect(message).toMatchSnapshot();
    });
  }
});
