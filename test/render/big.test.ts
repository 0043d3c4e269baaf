import { describe, expect, it } from 'vitest';
import { decodeRoute } from '../../src/domain/routes.js';
import {
  checkMessageLimits,
  type Message,
  renderBrokenLinkAdminNotice,
  renderCatalog,
  renderFollowList,
  renderHealedLinkAdminNotice,
  renderLinked,
  renderLinkStatus,
  renderMaterialSearch,
  renderPendingPurchases,
  renderPurchaseList,
  renderPurchaseRequests,
  renderReceiptList,
  renderRequestDetail,
  renderRequestHistory,
  renderRequestList,
  renderServerError,
  renderStockrooms,
  renderUsage,
} from '../../src/render/index.js';
import { MAX_STOCKROOMS_PER_MATERIAL } from '../../src/store/stock-store.js';
import {
  allText,
  answer,
  budgetDegraded,
  buttonNamed,
  buttonsOf,
  ctx,
  historyEntry,
  item,
  material,
  NOW,
  type purchase,
  request,
  sharedCtx,
  stockroom,
} from './fixtures.js';

/** Long results never fail: every message produced from oversized data still fits Slack's limits. */

const huge = (label: string) => `${label} <@U999> ${'Ç'.repeat(3000)}`;

function expectFits(message: Message): void {
  expect(checkMessageLimits(message)).toEqual([]);
  for (const button of buttonsOf(message)) {
    if (
      button.actionId.startsWith('nav:') ||
      button.actionId.startsWith('share:') ||
      button.actionId.startsWith('refresh:')
    ) {
      expect(decodeRoute(button.value)).not.toBeNull();
    }
  }
}

function manyFields(count: number): Record<string, unknown> {
  const record: Record<string, unknown> = { compraMaterialId: 5678, totalRows: 1 };
  for (let i = 0; i < count; i += 1) {
    record[`campoExtra${i}`] = i % 3 === 0 ? huge(`valor ${i}`) : i % 3 === 1 ? i * 1000.5 : i % 2 === 0;
  }
  return record;
}

describe('oversized data still fits', () => {
  it('500 matching materials, shown 8 per page', () => {
    const matches = Array.from({ length: 500 }, (_, i) => ({
      material: material({
        material: i + 1,
        nome: huge(`Lâmpada ${i}`),
        codigo: huge('C'),
        marca: huge('M'),
        modelo: huge('X'),
      }),
      typeName: huge('T'),
      categoryName: huge('K'),
      lastKnown: { materialId: i + 1, current: i, minimum: 10, maximum: 100, requestId: 1234, seenAt: NOW },
      knownName: huge('N'),
    }));
    for (const page of [1, 30, 63, 999]) {
      const message = renderMaterialSearch(
        answer({ text: 'lâmpada', stockroomId: null, page, matches }),
        ctx,
      );
      expectFits(message);
    }
    const last = renderMaterialSearch(
      answer({ text: 'lâmpada', stockroomId: null, page: 999, matches }),
      ctx,
    );
    expect(allText(last)).toContain('Página 63 de 63 · 500 materiais');
    expect(buttonNamed(last, 'Anterior')?.route).toEqual({ view: 'materials', text: 'lâmpada', page: 62 });
  });

  it(`a page of materials each known in ${MAX_STOCKROOMS_PER_MATERIAL} stockrooms with long names`, () => {
    const names = new Map(
      Array.from({ length: MAX_STOCKROOMS_PER_MATERIAL }, (_, i) => [i + 1, huge('Almoxarifado')] as const),
    );
    const matches = Array.from({ length: 8 }, (_, i) => {
      const [newest, ...others] = Array.from({ length: MAX_STOCKROOMS_PER_MATERIAL }, (_, room) => ({
        materialId: i + 1,
        current: -1e12,
        minimum: 1e12,
        maximum: 1e13,
        requestId: 1_000_000_000 + room,
        stockroomId: room + 1,
        seenAt: NOW - room,
      }));
      return {
        material: material({ material: i + 1, nome: huge('Lâmpada'), codigo: huge('C'), marca: huge('M') }),
        typeName: huge('T'),
        categoryName: huge('K'),
        lastKnown: newest ?? null,
        otherStock: others,
        stockroomAsked: null,
        stockroomNames: names,
        knownName: null,
      };
    });
    const message = renderMaterialSearch(
      answer({ text: 'lâmpada', stockroomId: null, page: 1, matches }),
      ctx,
    );
    expectFits(message);
    expect(allText(message).match(/• /g)).toHaveLength(8 * (MAX_STOCKROOMS_PER_MATERIAL - 1));
  });

  it('a search text longer than a route holds gives no broken buttons', () => {
    const text = 'x'.repeat(3000);
    const message = renderMaterialSearch(
      answer({
        text,
        stockroomId: null,
        page: 1,
        matches: Array.from({ length: 20 }, () => ({
          material: material(),
          typeName: null,
          categoryName: null,
          lastKnown: null,
          knownName: null,
        })),
      }),
      ctx,
    );
    expectFits(message);
    expect(buttonNamed(message, 'Próxima')).toBeUndefined();
  });

  it('a request with 300 items and 3,000-character names', () => {
    const items = Array.from({ length: 300 }, (_, i) =>
      item({
        solicitacaoMaterialItemId: i,
        material_Nome: huge(`Item ${i}`),
        statusCompraMaterial_Nome: huge('Status'),
      }),
    );
    const header = {
      stockroomName: huge('A'),
      requesterName: huge('R'),
      statusName: huge('S'),
      status: 1,
      openedAt: 'x',
      lastChangeAt: null,
    };
    for (const page of [1, 20, 38]) {
      const message = renderRequestDetail(
        answer({ id: 1234, header, items, knownNames: new Map(), page }, budgetDegraded),
        ctx,
      );
      expectFits(message);
    }
    const message = renderRequestDetail(
      answer({ id: 1234, header, items, knownNames: new Map(), page: 38 }),
      ctx,
    );
    expect(allText(message)).toContain('Página 38 de 38 · 300 itens');
    expect(allText(message)).not.toContain('<@U999>');
  });

  it('a history page of 50 entries with long names', () => {
    const rows = Array.from({ length: 50 }, (_, i) =>
      historyEntry({
        andamentoSolicitacao: i,
        responsavelSaidaMaterial_Nome: huge('Saída'),
        responsavelRetirada_Nome: huge('Ret'),
        statusAndamentoSolicitacao_Nome: huge('St'),
      }),
    );
    expectFits(
      renderRequestHistory(
        answer({ id: 1, history: { rows, page: 1, pageSize: 50, totalRows: 500, totalPages: 10 } }),
        ctx,
      ),
    );
  });

  it('a request list page of 50 rows and a filter text too long for a button', () => {
    const rows = Array.from({ length: 50 }, (_, i) =>
      request({
        solicitacaoMaterialId: i + 1,
        almoxarifado_Nome: huge('Almox'),
        solicitante_Nome: huge('Nome'),
      }),
    );
    const message = renderRequestList(
      answer({
        filters: { text: huge('texto'), status: Array.from({ length: 20 }, (_, i) => i + 1) },
        mine: { upstreamUserName: huge('Eu') },
        defaultPeriod: true,
        list: { rows, page: 1, pageSize: 50, totalRows: 5000, totalPages: 100 },
      }),
      ctx,
    );
    expectFits(message);
    expect(allText(message)).toContain('que não cabem nesta mensagem');
  });

  it('a purchase with 80 undocumented fields, in every purchase view', () => {
    const big = manyFields(80) as ReturnType<typeof purchase>;
    const rows = Array.from({ length: 50 }, () => big);
    expectFits(
      renderPurchaseList(
        answer({
          filters: { text: huge('t') },
          list: { rows, page: 1, pageSize: 50, totalRows: 50, totalPages: 1 },
        }),
        ctx,
      ),
    );
    const groups = Array.from({ length: 100 }, (_, i) => ({
      stockroom: { almoxarifado: i + 1, nome: huge('Almox') },
      purchases: [big, big, big],
    }));
    for (const page of [1, 20, 38])
      expectFits(renderPendingPurchases(answer({ stockroomId: null, page, groups }), sharedCtx));
    const receipts = Array.from({ length: 50 }, () => ({ ...big, entradaMaterialId: 1 }));
    expectFits(
      renderReceiptList(
        answer({
          filters: { from: { year: 2026, month: 1, day: 1 } },
          list: { rows: receipts, page: 1, pageSize: 50, totalRows: 50, totalPages: 1 },
        }),
        ctx,
      ),
    );
  });

  it('the 50 requests of a purchase', () => {
    const requests = Array.from({ length: 50 }, (_, i) =>
      request({ solicitacaoMaterialId: i + 1, solicitante_Nome: huge('N') }),
    );
    for (const page of [1, 5, 6])
      expectFits(renderPurchaseRequests(answer({ purchaseId: 1, page, requests }), ctx));
    expect(allText(renderPurchaseRequests(answer({ purchaseId: 1, page: 1, requests }), ctx))).toContain(
      'no máximo 50',
    );
  });

  it('2,000 stockrooms, types or categories, paged: every page fits and the pages show each one once', () => {
    const many = Array.from({ length: 2000 }, (_, i) =>
      stockroom({ almoxarifado: i + 1, nome: `Almoxarifado ${i + 1} ${'é'.repeat(i % 200)}` }),
    );
    const shown: number[] = [];
    let message = renderStockrooms(
      answer({ stockrooms: many, company: { empresaId: 1, unidadeId: null } }),
      ctx,
    );
    for (let page = 1; ; page += 1) {
      expectFits(message);
      shown.push(...[...allText(message).matchAll(/`(\d+)`/g)].map((match) => Number(match[1])));
      if (page > 1)
        expect(buttonNamed(message, 'Anterior')?.route).toEqual({ view: 'stockrooms', page: page - 1 });
      const next = buttonNamed(message, 'Próxima');
      if (!next) {
        expect(allText(message)).toContain(`Página ${page} de ${page} · 2.000 almoxarifados`);
        break;
      }
      expect(next.route).toEqual({ view: 'stockrooms', page: page + 1 });
      message = renderStockrooms(
        answer({ stockrooms: many, company: { empresaId: 1, unidadeId: null } }),
        ctx,
        page + 1,
      );
    }
    expect(shown).toHaveLength(2000);
    expect(new Set(shown).size).toBe(2000);
    const types = many.map((s) => ({ id: s.almoxarifado, name: huge('Tipo') }));
    expectFits(renderCatalog('types', answer(types), ctx));
    expectFits(renderCatalog('types', answer(types), ctx, 5));
  });

  it('1,000 follows with long statuses, paged: every page fits, each follow shows once, each row opens it', () => {
    const follows = Array.from({ length: 1000 }, (_, i) => ({
      workspaceId: 'T1',
      userId: 'U1',
      requestId: 100_000 + i,
      lastSeenStatus: i % 7 === 0 ? null : huge('Status'),
      createdAt: NOW - (1000 - i) * 60_000,
    }));
    const own = { email: `${'a'.repeat(3000)}@exemplo.com.br` };
    const shown: number[] = [];
    for (let page = 1; ; page += 1) {
      const message = renderFollowList(follows, own, ctx, page);
      expectFits(message);
      expect(buttonNamed(message, 'Compartilhar no canal')).toBeUndefined();
      shown.push(
        ...buttonsOf(message).flatMap((b) =>
          b.text === 'Ver' && b.route?.view === 'request' ? [b.route.id] : [],
        ),
      );
      if (page > 1)
        expect(buttonNamed(message, 'Anterior')?.route).toEqual({ view: 'following', page: page - 1 });
      const next = buttonNamed(message, 'Próxima');
      if (!next) {
        expect(allText(message)).toContain(`Página ${page} de ${page} · 1.000 solicitações`);
        break;
      }
      expect(next.route).toEqual({ view: 'following', page: page + 1 });
    }
    expect(shown).toEqual(follows.map((follow) => follow.requestId));
  });

  it('errors, status and link messages with oversized inputs', () => {
    expectFits(renderUsage('estoque', huge('problema')));
    expectFits(renderServerError(huge('hash'), huge('corr')));
    expectFits(renderBrokenLinkAdminNotice(huge('ws'), true));
    expectFits(renderHealedLinkAdminNotice(huge('ws')));
    expectFits(renderLinked({ login: huge('login'), empresaId: 1, unidadeId: 2, stockroomCount: 3 }));
    expectFits(
      renderLinkStatus(
        {
          linked: true,
          broken: true,
          checks: { nextAt: NOW + 1e10 },
          linkedBy: huge('U'),
          linkedAt: NOW,
          login: huge('l'),
          empresaId: 1,
          unidadeId: 2,
          tokenExpiresAt: NOW,
          refreshExpiresAt: NOW,
          budget: { limit: 1e9, windowMs: 1, used: 1e9, remaining: 0, pausedUntil: NOW + 1e10 },
          cache: { hits: 1e9, misses: 1 },
          feed: {
            listening: true,
            intervalMs: 1e12,
            stretchedBy: 'load',
            used: 1e9,
            cap: 1e9,
            saturated: true,
            shareCap: 1e9,
          },
        },
        ctx,
      ),
    );
  });
});
