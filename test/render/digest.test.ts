import { describe, expect, it } from 'vitest';
import type { DigestView } from '../../src/domain/digest/digest-view.js';
import { decodeRoute } from '../../src/domain/routes.js';
import {
  checkMessageLimits,
  formatDelay,
  type Message,
  type RenderContext,
  renderDigest,
  renderDigestNothing,
  renderSubscribed,
  renderSubscriptionList,
  renderSubscriptionRemovedDm,
} from '../../src/render/index.js';
import type { Subscription } from '../../src/store/subscription-store.js';
import type { MaterialRequest, PurchaseOrder } from '../../src/upstream/schemas.js';

/** 23/11/2026 08:00 in São Paulo. */
const NOW = Date.UTC(2026, 10, 23, 11, 0);
const ctx: RenderContext = { timeZone: 'America/Sao_Paulo', now: NOW };
const HOUR = 3_600_000;

function request(id: number, overrides: Partial<MaterialRequest> = {}): MaterialRequest {
  return {
    solicitacaoMaterialId: id,
    almoxarifado: 2,
    site: 1,
    solicitante: 42,
    almoxarifado_Nome: 'Almoxarifado Central',
    solicitante_Nome: 'Maria Conceição Souza',
    listaStatusAndamentoSolicitacao: null,
    statusAndamentoSolicitacao: 1,
    statusAndamentoSolicitacao_Nome: 'Aberta',
    ocorrencias: null,
    concluidoComRessalvas: false,
    rowNumber: 1,
    totalRows: 7,
    ...overrides,
  };
}

function purchase(id: number, overrides: Record<string, unknown> = {}): PurchaseOrder {
  return {
    compraMaterialId: id,
    almoxarifado: 2,
    almoxarifado_Nome: 'Almoxarifado Central',
    fornecedor: 12,
    fornecedor_Nome: 'Elétrica Paulista Ltda.',
    status: 2,
    status_Nome: 'Aprovada',
    dataCompra: '2026-11-10T00:00:00',
    valorTotal: 1234.5,
    ...overrides,
  };
}

function view(overrides: Partial<DigestView> = {}): DigestView {
  return {
    workspaceId: 'T1',
    stockroomId: null,
    stockroomName: null,
    since: NOW - 24 * HOUR,
    coveredUntil: NOW,
    opened: {
      total: 7,
      rows: [1330, 1329, 1328, 1327, 1326].map((id) => request(id)),
      fromDay: { year: 2026, month: 11, day: 22 },
    },
    inProgress: {
      total: 23,
      statuses: [
        { status: 2, name: 'Em separação', count: 9 },
        { status: 1, name: 'Aberta', count: 7 },
        { status: 5, name: 'Aguardando compra', count: 4 },
        { status: 3, name: 'Atendida parcialmente', count: 2 },
        { status: null, name: null, count: 1 },
      ],
      fromDay: { year: 2026, month: 10, day: 24 },
      complete: true,
    },
    pending: {
      total: 6,
      stockrooms: 2,
      rows: [316, 321, 323, 326, 328].map((id) => ({
        purchase: purchase(id),
        stockroom: { almoxarifado: 2, nome: 'Almoxarifado Central' },
      })),
    },
    belowMinimum: {
      total: 2,
      rows: [
        {
          stock: {
            materialId: 101,
            current: 0,
            minimum: 10,
            maximum: 40,
            requestId: 1330,
            seenAt: NOW - 2 * HOUR,
          },
          name: 'Lâmpada LED tubular 18W',
        },
        {
          stock: {
            materialId: 207,
            current: 3,
            minimum: 5,
            maximum: null,
            requestId: 1312,
            seenAt: NOW - 30 * HOUR,
          },
          name: null,
        },
      ],
      itemListsRead: 7,
      newRequests: 7,
    },
    freshness: { fetchedAt: NOW, fromCache: false, degraded: null },
    ...overrides,
  };
}

const empty = view({
  opened: { total: 0, rows: [], fromDay: { year: 2026, month: 11, day: 22 } },
  inProgress: { total: 0, statuses: [], fromDay: { year: 2026, month: 10, day: 24 }, complete: true },
  pending: { total: 0, stockrooms: 0, rows: [] },
  belowMinimum: { total: 0, rows: [], itemListsRead: 0, newRequests: 0 },
});

const subscription: Subscription = {
  workspaceId: 'T1',
  channelId: 'C0ALMOX1',
  hour: 8,
  minute: 0,
  timeZone: 'America/Sao_Paulo',
  weekdaysOnly: true,
  stockroomId: 2,
  subscribedBy: 'U0MEMBER',
  createdAt: NOW - 10 * 24 * HOUR,
  updatedAt: NOW - 10 * 24 * HOUR,
  paused: null,
  lastPostedDay: '2026-11-22',
  lastPostedAt: NOW - 24 * HOUR + 20_000,
  lastDigestAt: NOW - 24 * HOUR,
};

function text(message: Message): string {
  return `${message.text}\n${JSON.stringify(message.blocks)}`;
}

function buttonValues(message: Message): string[] {
  const values: string[] = [];
  for (const block of message.blocks) {
    if (block.type === 'actions') {
      for (const element of block.elements)
        if (element.type === 'button' && element.value) values.push(element.value);
    }
    if (block.type === 'section' && block.accessory?.type === 'button' && block.accessory.value) {
      values.push(block.accessory.value);
    }
  }
  return values;
}

const cases: Record<string, () => Message> = {
  'digest with data': () => renderDigest(view(), ctx),
  'digest late, filtered, from cache': () =>
    renderDigest(
      view({
        stockroomId: 2,
        stockroomName: 'Almoxarifado Central',
        freshness: { fetchedAt: NOW - 4 * 60_000, fromCache: true, degraded: null },
      }),
      ctx,
      { delayMs: 2 * HOUR + 5 * 60_000 },
    ),
  'digest degraded (budget)': () =>
    renderDigest(
      view({ freshness: { fetchedAt: NOW - 3 * HOUR, fromCache: true, degraded: 'budget' } }),
      ctx,
    ),
  'digest nothing to report': () => renderDigestNothing(empty, ctx),
  'digest nothing to report, late and cached': () =>
    renderDigest(
      { ...empty, freshness: { fetchedAt: NOW - 10 * 60_000, fromCache: true, degraded: null } },
      ctx,
      { delayMs: 40 * 60_000 },
    ),
  subscribed: () => renderSubscribed(subscription),
  'subscription updated': () =>
    renderSubscribed({ ...subscription, weekdaysOnly: false, stockroomId: null }, { updated: true }),
  'subscription list': () =>
    renderSubscriptionList(
      [
        subscription,
        {
          ...subscription,
          channelId: 'C0GERAL1',
          weekdaysOnly: false,
          stockroomId: null,
          lastPostedAt: null,
          paused: 'unlinked',
        },
      ],
      ctx,
    ),
  'subscription list empty': () => renderSubscriptionList([], ctx),
  'removed DM not_in_channel': () => renderSubscriptionRemovedDm('C0ALMOX1', 'not_in_channel'),
  'removed DM is_archived': () => renderSubscriptionRemovedDm('C0ALMOX1', 'is_archived'),
  'removed DM restricted_action': () => renderSubscriptionRemovedDm('C0ALMOX1', 'restricted_action'),
};

describe('digest messages', () => {
  for (const [name, render] of Object.entries(cases)) {
    it(`${name}: snapshot, within Slack's limits`, () => {
      const message = render();
      expect(checkMessageLimits(message)).toEqual([]);
      expect(message).toMatchSnapshot();
    });
  }

  it('the digest has counts, top rows and buttons that carry routes to the detail views', () => {
    const message = renderDigest(view(), ctx);
    const all = text(message);
    expect(all).toContain('Novas solicitações desde 22/11/2026 08:00:* 7');
    expect(all).toContain('E mais 2 solicitações.');
    expect(all).toContain('23 solicitações');
    expect(all).toContain('6 compras em 2 almoxarifados');
    expect(all).toContain('Lâmpada LED tubular 18W');
    expect(all).toContain('Material 207');
    const routes = buttonValues(message).map((value) => decodeRoute(value));
    expect(routes.every((route) => route !== null)).toBe(true);
    expect(routes).toContainEqual({ view: 'request', id: 1330, page: 1 });
    expect(routes).toContainEqual({ view: 'purchase', id: 316, page: 1 });
    expect(routes).toContainEqual({ view: 'pending', page: 1 });
    expect(routes).toContainEqual({
      view: 'requests',
      filters: { status: [2], from: { year: 2026, month: 10, day: 24 } },
      page: 1,
    });
    expect(routes).toContainEqual({
      view: 'requests',
      filters: { from: { year: 2026, month: 11, day: 22 } },
      page: 1,
    });
    for (const block of message.blocks) {
      if (block.type === 'actions')
        for (const element of block.elements) expect(element.action_id).toMatch(/^nav:\d+$/);
    }
  });

  it("names each below-minimum balance's stockroom in a digest of every stockroom, and counts balances apart from materials", () => {
    const below = (materialId: number, stockroomId: number | null, current: number) => ({
      stock: {
        materialId,
        current,
        minimum: 4,
        maximum: null,
        requestId: 1319,
        stockroomId,
        seenAt: NOW - HOUR,
      },
      name: `Material ${materialId}`,
      stockroomName: stockroomId === 1 ? 'Almoxarifado Central' : null,
    });
    const belowMinimum = {
      total: 3,
      materials: 2,
      rows: [below(1032, 1, 1), below(1032, 3, 2), below(1058, null, 3)],
      itemListsRead: 0,
      newRequests: 0,
    };
    const every = text(renderDigest(view({ belowMinimum }), ctx));
    expect(every).toContain('Materiais abaixo do mínimo:* 3 saldos de 2 materiais');
    expect(every).toContain('Almoxarifado Central (1) · visto na solicitação 1319');
    // A stockroom whose name the digest did not read shows its number; one not known, nothing.
    expect(every).toContain('Almoxarifado 3 · visto na solicitação 1319');
    expect(every).toContain('*Material 1058* — saldo 3 (mín. 4)\\nVisto na solicitação 1319');
    expect(every).toContain('2 materiais abaixo do mínimo');
    // A stockroom's digest is all that stockroom's: nothing to repeat.
    const own = text(
      renderDigest(
        view({
          stockroomId: 1,
          belowMinimum: { ...belowMinimum, total: 1, materials: 1, rows: [below(1032, 1, 1)] },
        }),
        ctx,
      ),
    );
    expect(own).toContain('Materiais abaixo do mínimo:* 1 material');
    expect(own).toContain('*Material 1032* — saldo 1 (mín. 4)\\nVisto na solicitação 1319');
  });

  it('says when it is late and when its data comes from the cache, with its age', () => {
    const late = text(
      renderDigest(
        view({ freshness: { fetchedAt: NOW - 4 * 60_000, fromCache: true, degraded: null } }),
        ctx,
        {
          delayMs: 2 * HOUR,
        },
      ),
    );
    expect(late).toContain('saiu com atraso de 2 h (previsto às 06:00)');
    expect(late).toContain('(cache, há 4 min)');
    // Within the scheduler's 30 s tick (and a build) it is on time; from a minute on it says so.
    expect(text(renderDigest(view(), ctx, { delayMs: 45_000 }))).not.toContain('atraso');
    expect(text(renderDigest(view(), ctx, { delayMs: 60_000 }))).toContain(
      'saiu com atraso de 1 min (previsto às 07:59)',
    );
  });

  it("a purchase's text cut for its row never splits an escape (a supplier's `&` near the cut)", () => {
    const supplier = 'Hidráulica São Jorge Comércio de Materiais Elétricos e Hidráulicos Ltda EPP & Filhos';
    const message = renderDigest(
      view({
        pending: {
          total: 1,
          stockrooms: 1,
          rows: [
            {
              purchase: purchase(316, { fornecedor_Nome: supplier }),
              stockroom: { almoxarifado: 2, nome: 'Central' },
            },
          ],
        },
      }),
      ctx,
    );
    const row = /Fornecedor: [^"]*/.exec(JSON.stringify(message.blocks))?.[0] ?? '';
    expect(row).toContain('Hidráulicos');
    expect(row).not.toMatch(/&(a|am|amp|l|lt|g|gt)?…/);
    // The supplier's number, which `/compras fornecedor:` takes, survives the cut.
    expect(row).toContain('Hidráulicos Ltda EP… (12) · ');
  });

  it('shows a pending purchase whose fields are named like Object’s own members (toString, constructor)', () => {
    const odd: PurchaseOrder = { compraMaterialId: 316, toString: 'texto', constructor: 'Construtora Alfa' };
    const message = renderDigest(
      view({
        pending: {
          total: 1,
          stockrooms: 1,
          rows: [{ purchase: odd, stockroom: { almoxarifado: 2, nome: 'Central' } }],
        },
      }),
      ctx,
    );
    expect(text(message)).toContain('To string: texto · Constructor: Construtora Alfa');
  });

  it('an empty stockroom list is said, not "nada a relatar" nor "nenhuma" compra', () => {
    const message = renderDigest(
      view({
        ...empty,
        pending: { ...empty.pending, noActiveStockrooms: { empresaId: 5, unidadeId: null } },
      }),
      ctx,
    );
    // Until 2026-11-27 this digest was "nada a relatar": the stockrooms were never read, and no one was told.
    expect(message.text).not.toContain('nada a relatar');
    expect(text(message)).toContain('A empresa vinculada (empresa 5) não mostra nenhum almoxarifado ativo');
    expect(text(message)).not.toMatch(/Compras com saldo a receber:\*? nenhuma/);
    expect(message.text).toContain('nenhum almoxarifado ativo');
  });

  it('names the stockrooms whose pending purchases it could not read, and why; never "nada a relatar" then', () => {
    const message = renderDigest(
      view({
        ...empty,
        pending: {
          ...empty.pending,
          unread: [
            { stockroom: { almoxarifado: 2, nome: 'Almoxarifado Torre Norte' }, reason: 'forbidden' },
            { stockroom: { almoxarifado: 3, nome: null }, reason: 'later' },
          ],
        },
      }),
      ctx,
    );
    expect(message.text).not.toContain('nada a relatar');
    expect(text(message)).toContain('nenhuma nos almoxarifados consultados');
    expect(text(message)).toContain('Sem permissão para o almoxarifado Torre Norte (2)');
    expect(text(message)).toContain('1 almoxarifado não pôde ser consultado agora');
    expect(text(message)).toContain('Tente de novo mais tarde.');
  });

  it('nothing to report is one short line', () => {
    const message = renderDigest(empty, ctx);
    expect(message.blocks).toHaveLength(1);
    expect(message.text).toContain('nada a relatar');
  });

  it('stays within the limits with the longest texts', () => {
    const long = 'Nome muito comprido de material com acentuação e <caracteres> & especiais '.repeat(40);
    const big = view({
      stockroomId: 2_147_483_647,
      stockroomName: long,
      opened: {
        total: 99_999,
        rows: Array.from({ length: 5 }, (_, i) =>
          request(2_000_000 + i, {
            almoxarifado_Nome: long,
            solicitante_Nome: long,
            statusAndamentoSolicitacao_Nome: long,
          }),
        ),
        fromDay: { year: 2026, month: 11, day: 22 },
      },
      inProgress: {
        total: 500,
        statuses: Array.from({ length: 12 }, (_, i) => ({ status: i + 1, name: long, count: 40 })),
        fromDay: { year: 2026, month: 10, day: 24 },
        complete: false,
      },
      pending: {
        total: 300,
        stockrooms: 9,
        rows: Array.from({ length: 5 }, (_, i) => ({
          purchase: purchase(i + 1, { fornecedor_Nome: long, status_Nome: long, observacao: long }),
          stockroom: { almoxarifado: 2, nome: long },
        })),
      },
      belowMinimum: {
        total: 120,
        rows: Array.from({ length: 5 }, (_, i) => ({
          stock: { materialId: i, current: -1, minimum: 1e9, maximum: 1e10, requestId: 1, seenAt: NOW },
          name: long,
        })),
        itemListsRead: 10,
        newRequests: 99_999,
      },
      freshness: { fetchedAt: NOW - 30 * HOUR, fromCache: true, degraded: 'upstream' },
    });
    expect(checkMessageLimits(renderDigest(big, ctx, { delayMs: 20 * HOUR }))).toEqual([]);
    const many = Array.from({ length: 300 }, (_, i) => ({
      ...subscription,
      channelId: `C${String(i).padStart(8, '0')}`,
    }));
    expect(checkMessageLimits(renderSubscriptionList(many, ctx))).toEqual([]);
  });

  it('formats delays', () => {
    expect(formatDelay(5 * 60_000)).toBe('5 min');
    expect(formatDelay(2 * HOUR)).toBe('2 h');
    expect(formatDelay(2 * HOUR + 5 * 60_000)).toBe('2 h 5 min');
  });
});
