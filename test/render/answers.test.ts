import { describe, expect, it } from 'vitest';
import type { MaterialMatch } from '../../src/domain/views.js';
import { renderMaterialShared } from '../../src/render/home-modals.js';
import {
  renderCatalog,
  renderFollowList,
  renderHelp,
  renderMaterialSearch,
  renderPendingPurchases,
  renderPurchaseList,
  renderPurchaseRequests,
  renderReceiptList,
  renderRequestDetail,
  renderRequestHistory,
  renderRequestList,
  renderStockrooms,
  renderUsage,
} from '../../src/render/index.js';
import {
  allText,
  answer,
  budgetDegraded,
  buttonNamed,
  buttonsOf,
  cached,
  ctx,
  fresh,
  historyEntry,
  item,
  material,
  NOW,
  purchase,
  receipt,
  request,
  sharedCtx,
  stockroom,
  stockrooms,
  upstreamDegraded,
} from './fixtures.js';

function match(overrides: Partial<MaterialMatch> = {}): MaterialMatch {
  return {
    material: material(),
    typeName: 'Elétrico',
    categoryName: 'Iluminação',
    lastKnown: null,
    knownName: null,
    ...overrides,
  };
}

const detail = (
  items = [item()],
  page = 1,
  freshness = fresh,
  knownNames: ReadonlyMap<number, string> = new Map(),
) => renderRequestDetail(answer({ id: 1234, header: null, items, knownNames, page }, freshness), ctx);

describe('every answer', () => {
  it('offers `Compartilhar no canal` carrying its own route', () => {
    const share = buttonNamed(detail([item()], 1), 'Compartilhar no canal');
    expect(share?.actionId).toMatch(/^share:\d+$/);
    expect(share?.route).toEqual({ view: 'request', id: 1234, page: 1 });
  });

  it('names who shared it instead of offering the share button when shared', () => {
    const message = renderStockrooms(
      answer({ stockrooms: [stockroom()], company: { empresaId: 1, unidadeId: null } }),
      sharedCtx,
    );
    expect(buttonNamed(message, 'Compartilhar no canal')).toBeUndefined();
    expect(buttonsOf(message).some((b) => b.actionId.startsWith('share:'))).toBe(false);
    expect(allText(message)).toContain('Compartilhado por <@U0SHARER>');
  });

  it('says when the data comes from the cache, and how old it is', () => {
    expect(allText(detail([item()], 1, cached))).toContain('Dados de 22/11/2026 10:31 (cache, há 5 min)');
    expect(allText(detail([item()], 1, fresh))).not.toContain('cache');
  });

  it('warns clearly when upstream could not be asked', () => {
    const budget = allText(detail([item()], 1, budgetDegraded));
    expect(budget).toContain(
      'Limite de consultas ao sistema atingido: mostrando dados salvos de 22/11/2026 08:36 (há 2 h)',
    );
    const down = allText(detail([item()], 1, upstreamDegraded));
    expect(down).toContain(
      'O sistema de estoque não respondeu: mostrando dados salvos de 21/11/2026 08:36 (há 1 dia)',
    );
  });

  it('escapes mentions and links hidden in upstream names', () => {
    const message = renderRequestList(
      answer({
        filters: {},
        mine: null,
        defaultPeriod: true,
        list: {
          rows: [
            request({
              solicitante_Nome: '<@U123> & <!channel>',
              almoxarifado_Nome: '<https://evil.example|clique>',
            }),
          ],
          page: 1,
          pageSize: 10,
          totalRows: 1,
          totalPages: 1,
        },
      }),
      ctx,
    );
    const text = allText(message);
    expect(text).toContain('&lt;@U123&gt; &amp; &lt;!channel&gt;');
    expect(text).not.toContain('<@U123>');
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<https://');
  });

  it('escapes a material code in the fallback text of a material shared in a channel', () => {
    const shared = renderMaterialShared(
      {
        material: material({ codigo: '<!channel> <@U123>' }),
        typeName: null,
        categoryName: null,
        lastKnown: null,
        knownName: null,
      },
      'U0SHARER',
      ctx,
    );
    // The fallback text is what Slack's notifications read: no mention may hide in it.
    expect(shared.text).not.toContain('<!channel>');
    expect(shared.text).not.toContain('<@U123>');
    expect(allText(shared)).not.toContain('<!channel>');
  });
});

describe('help and usage', () => {
  it('names `/estoque sandbox avancar` in local mode only, after the other `/estoque` lines', () => {
    expect(allText(renderHelp())).not.toContain('sandbox avancar');
    const local = allText(renderHelp(undefined, { localMode: true }));
    expect(local).toContain('`/estoque sandbox avancar` · `/estoque sandbox avancar 5`');
    expect(local.indexOf('/estoque ajuda')).toBeLessThan(local.indexOf('/estoque sandbox avancar'));
    expect(local.indexOf('/estoque sandbox avancar')).toBeLessThan(local.indexOf('/solicitacao 1234'));
  });

  it('lists every command with a concrete example', () => {
    const text = allText(renderHelp());
    for (const example of [
      '/estoque lâmpada almox:2',
      '/estoque almoxarifados',
      '/estoque tipos',
      '/estoque categorias',
      '/estoque vincular',
      '/estoque desvincular',
      '/estoque status',
      '/estoque resumo assinar 07:30',
      '/estoque resumo cancelar',
      '/estoque resumo listar',
      '/estoque resumo agora',
      '/estoque alertas assinar almox:2 eventos:novas,status',
      '/estoque alertas listar',
      '/estoque alertas cancelar',
      '/solicitacao 1234 acompanhar',
      '/solicitacao 1234 parar',
      '/solicitacao acompanhando',
      '/solicitacao minhas acompanhar',
      '/solicitacao 1234',
      '/solicitacao 1234 historico',
      '/solicitacao status:1,2 de:01/10/2026',
      '/solicitacao minhas',
      '/compras pendentes',
      '/compras 5678',
      '/compras entradas',
      'fornecedor:12',
    ]) {
      expect(text).toContain(example);
    }
    expect(text).toContain('`chave:valor`');
    expect(text).toContain('`dd/mm/aaaa`');
  });

  it('shows the problem first, then only that command’s usage', () => {
    const message = renderUsage('compras', 'filtro desconhecido `cor:`');
    const text = allText(message);
    expect(text.indexOf('filtro desconhecido')).toBeLessThan(text.indexOf('/compras pendentes'));
    expect(text).not.toContain('/solicitacao 1234');
  });
});

describe('material search', () => {
  it('writes the last known stock with its source and date, never as a live figure', () => {
    const lastKnown = {
      materialId: 101,
      current: 12,
      minimum: 5,
      maximum: 40,
      requestId: 1234,
      seenAt: Date.UTC(2026, 10, 20, 17, 30),
    };
    const text = allText(
      renderMaterialSearch(
        answer({ text: 'lâmpada', stockroomId: null, page: 1, matches: [match({ lastKnown })] }),
        ctx,
      ),
    );
    expect(text).toContain(
      'Último saldo conhecido: 12 (mín. 5, máx. 40) — visto na solicitação 1234 em 20/11/2026 14:30',
    );
    expect(text).toContain('Custo: R$ 12,50');
    expect(text).toContain('Marca/modelo: Philips / LEDBulb 9W');
    const none = allText(
      renderMaterialSearch(answer({ text: 'x', stockroomId: null, page: 1, matches: [match()] }), ctx),
    );
    expect(none).toContain('Sem saldo conhecido');
  });

  it("names a balance's stockroom; with `almox:N` and none of N, another stockroom's, named, never as N's", () => {
    const names = new Map([
      [1, 'Central'],
      [2, 'Torre Norte'],
    ]);
    const central = {
      materialId: 101,
      current: 10,
      minimum: 6,
      maximum: 18,
      requestId: 1319,
      stockroomId: 1,
      seenAt: NOW,
    };
    const unplaced = { ...central, current: 4, requestId: 1330, stockroomId: null, seenAt: NOW + 60_000 };
    const search = (stockroomId: number | null, overrides: Partial<MaterialMatch>) =>
      allText(
        renderMaterialSearch(
          answer({
            text: 'x',
            stockroomId,
            page: 1,
            matches: [match({ stockroomNames: names, ...overrides })],
          }),
          ctx,
        ),
      );
    expect(search(2, { stockroomAsked: 2, lastKnown: null, otherStock: [central] })).toContain(
      'Sem saldo conhecido em Torre Norte (2); o último conhecido, em Central (1): 10 (mín. 6, máx. 18) — visto na solicitação 1319',
    );
    // A stockroom not in the saved list shows its number.
    expect(search(3, { stockroomAsked: 3, lastKnown: null, otherStock: [central] })).toContain(
      'Sem saldo conhecido no almoxarifado 3; o último conhecido, em Central (1): 10',
    );
    // The newest whose stockroom is not known says nothing of one, as the headline or elsewhere.
    expect(search(2, { stockroomAsked: 2, lastKnown: null, otherStock: [unplaced] })).toContain(
      'Sem saldo conhecido em Torre Norte (2); o último conhecido, de almoxarifado não identificado: 4',
    );
    const all = search(null, { stockroomAsked: null, lastKnown: unplaced, otherStock: [central] });
    expect(all).toContain('Último saldo conhecido: 4 (mín. 6, máx. 18) — visto na solicitação 1330');
    expect(all).toContain(
      'Outros saldos conhecidos:\n• Central (1): 10 (mín. 6, máx. 18) — solicitação 1319',
    );
  });

  it('flags a last known stock below its minimum', () => {
    const lastKnown = { materialId: 101, current: 2, minimum: 5, maximum: null, requestId: 9, seenAt: NOW };
    const text = allText(
      renderMaterialSearch(
        answer({ text: 'x', stockroomId: null, page: 1, matches: [match({ lastKnown })] }),
        ctx,
      ),
    );
    expect(text).toContain('abaixo do mínimo');
  });

  it('pages 8 matches at a time with buttons carrying the search', () => {
    const matches = Array.from({ length: 20 }, (_, i) =>
      match({ material: material({ material: i + 1, nome: `Lâmpada ${i + 1}` }) }),
    );
    const page2 = renderMaterialSearch(answer({ text: 'lâmpada', stockroomId: 2, page: 2, matches }), ctx);
    expect(
      page2.blocks.filter((b) => b.type === 'section' && b.text?.text.includes('Lâmpada ')),
    ).toHaveLength(8);
    expect(buttonNamed(page2, 'Anterior')?.route).toEqual({
      view: 'materials',
      text: 'lâmpada',
      stockroomId: 2,
      page: 1,
    });
    expect(buttonNamed(page2, 'Próxima')?.route).toEqual({
      view: 'materials',
      text: 'lâmpada',
      stockroomId: 2,
      page: 3,
    });
    expect(allText(page2)).toContain('Página 2 de 3 · 20 materiais');
    const last = renderMaterialSearch(answer({ text: 'lâmpada', stockroomId: null, page: 3, matches }), ctx);
    expect(buttonNamed(last, 'Próxima')).toBeUndefined();
  });

  it('names a material listed without a name by the last name the bot saw for it, else by its id', () => {
    const unnamed = material({ material: 1014, codigo: 'MAT-01014', nome: null, nomeFormatted: null });
    const named = allText(
      renderMaterialSearch(
        answer({
          text: 'MAT-01014',
          stockroomId: null,
          page: 1,
          matches: [match({ material: unnamed, knownName: 'Luva nitrílica M' })],
        }),
        ctx,
      ),
    );
    expect(named).toContain('Luva nitrílica M');
    expect(named).not.toContain('Material 1014');
    const bare = allText(
      renderMaterialSearch(
        answer({ text: 'MAT-01014', stockroomId: null, page: 1, matches: [match({ material: unnamed })] }),
        ctx,
      ),
    );
    expect(bare).toContain('Material 1014');
    // The material's own name wins over one seen elsewhere.
    const own = allText(
      renderMaterialSearch(
        answer({ text: 'x', stockroomId: null, page: 1, matches: [match({ knownName: 'Nome antigo' })] }),
        ctx,
      ),
    );
    expect(own).not.toContain('Nome antigo');
  });

  it('suggests another spelling or the exact code when nothing matches', () => {
    const text = allText(
      renderMaterialSearch(answer({ text: 'parafuzo', stockroomId: null, page: 1, matches: [] }), ctx),
    );
    expect(text).toContain('Nenhum material encontrado para “parafuzo”');
    expect(text).toContain('código exato');
    // The material list leaves EPIs out (upstream-api.md): said, so that a search for one is not a spelling issue.
    expect(text).toContain('EPIs');
  });
});

describe('request detail', () => {
  it('shows stock with its bounds and flags items below the minimum', () => {
    const text = allText(detail([item({ estoqueAtual: 3, estoqueMinimo: 10, estoqueMaximo: 50 })]));
    expect(text).toContain('Estoque: 3 (mín. 10, máx. 50) · :warning: *abaixo do mínimo*');
    expect(allText(detail([item({ estoqueAtual: 10, estoqueMinimo: 10 })]))).not.toContain(
      'abaixo do mínimo',
    );
    expect(allText(detail([item({ estoqueAtual: 0, estoqueMinimo: null })]))).not.toContain(
      'abaixo do mínimo',
    );
  });

  it('shows quantities, delivered, purchase status and values in pt-BR', () => {
    const text = allText(
      detail([
        item({ quantidade: 1500, quantidadeEntregue: 2.5, valorUnitario: 1234.5, valorTotal: 1851750 }),
      ]),
    );
    expect(text).toContain('Qtd.: 1.500 · Entregue: 2,5');
    expect(text).toContain('Compra: Aguardando entrega');
    expect(text).toContain('Valor: R$ 1.234,50 un. · R$ 1.851.750,00 total');
  });

  it('has Itens, Histórico, Atualizar and paging buttons with the right routes', () => {
    const items = Array.from({ length: 20 }, (_, i) =>
      item({ solicitacaoMaterialItemId: i, material_Nome: `Item ${i}` }),
    );
    const message = detail(items, 2);
    expect(buttonNamed(message, 'Anterior')?.route).toEqual({ view: 'request', id: 1234, page: 1 });
    expect(buttonNamed(message, 'Próxima')?.route).toEqual({ view: 'request', id: 1234, page: 3 });
    expect(buttonNamed(message, 'Itens')?.route).toEqual({ view: 'request', id: 1234, page: 1 });
    expect(buttonNamed(message, 'Histórico')?.route).toEqual({ view: 'history', id: 1234, page: 1 });
    const refresh = buttonNamed(message, 'Atualizar');
    expect(refresh?.actionId).toMatch(/^refresh:\d+$/);
    expect(refresh?.route).toEqual({ view: 'request', id: 1234, page: 2 });
    const ids = buttonsOf(message).map((b) => b.actionId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names an item that came without a material name by its last known name, else by its id', () => {
    const unnamed = item({ material: 1014, material_Nome: null });
    const known = new Map([[1014, 'Luva nitrílica M']]);
    expect(allText(detail([unnamed], 1, fresh, known))).toContain('*Luva nitrílica M*');
    expect(allText(detail([unnamed]))).toContain('*Material 1014*');
    expect(allText(detail([item({ material: 1014, material_Nome: 'Luva G' })], 1, fresh, known))).toContain(
      '*Luva G*',
    );
  });

  it('explains an empty request: only items registered in its stockroom appear', () => {
    expect(allText(detail([]))).toContain('não tem itens com material cadastrado no almoxarifado dela');
  });

  it('says that grouped purchases (status 5) never appear, when the list is empty or status 5 is asked for', () => {
    const list = (status: number[] | undefined, rows = [purchase()]) =>
      allText(
        renderPurchaseList(
          answer({
            filters: status ? { status } : {},
            list: { rows, page: 1, pageSize: 10, totalRows: rows.length, totalPages: 1 },
          }),
          ctx,
        ),
      );
    const note = 'Compras agrupadas (status 5) não aparecem';
    expect(list(undefined, [])).toContain(note);
    expect(list([5], [])).toContain(note);
    expect(list([1, 5])).toContain(note);
    expect(list([1])).not.toContain(note);
  });

  it('says under a list of items, count and total, that only items registered in the stockroom appear', () => {
    const text = allText(detail([item({ valorTotal: 10 }), item({ material: 1015, valorTotal: 5 })]));
    expect(text).toContain('2 itens');
    expect(text).toContain('só aparecem itens com material cadastrado no almoxarifado da solicitação');
  });

  it('shows the header with the status name and its number, else the status number', () => {
    const header = {
      stockroomName: 'Almoxarifado Central',
      requesterName: 'Maria',
      statusName: null,
      status: 3,
      openedAt: '2026-11-20T14:30:00',
      lastChangeAt: null,
    };
    const text = allText(
      renderRequestDetail(answer({ id: 1234, header, items: [], knownNames: new Map(), page: 1 }), ctx),
    );
    expect(text).toContain('*Status*\nstatus 3');
    const named = allText(
      renderRequestDetail(
        answer({
          id: 1234,
          header: { ...header, statusName: 'Aprovada' },
          items: [],
          knownNames: new Map(),
          page: 1,
        }),
        ctx,
      ),
    );
    // The number beside the name: `/solicitacao status:3` takes it, and nothing else shows it.
    expect(named).toContain('*Status*\nAprovada (3)');
    expect(text).toContain('*Aberta em*\n20/11/2026 14:30');
  });
});

describe('request history', () => {
  it('lists oldest first with date, status and who handed out or picked up; never credits the requester', () => {
    const rows = [
      historyEntry({
        data: '2026-11-21T09:00:00',
        statusAndamentoSolicitacao_Nome: 'Entregue',
        responsavelRetirada_Nome: 'Ana Técnica',
      }),
      historyEntry({ data: '2026-11-20T14:30:00', statusAndamentoSolicitacao_Nome: 'Aberta' }),
    ];
    const text = allText(
      renderRequestHistory(
        answer({ id: 1234, history: { rows, page: 1, pageSize: 10, totalRows: 2, totalPages: 1 } }),
        ctx,
      ),
    );
    expect(text.indexOf('20/11/2026 14:30')).toBeLessThan(text.indexOf('21/11/2026 09:00'));
    // The entry has no field for who made the change: the requester (solicitante_Nome) is not shown as its author.
    expect(text).toContain('— Aberta (1)\n');
    expect(text).not.toContain('Maria Conceição Souza');
    expect(text).toContain('— Entregue (1) — retirada: Ana Técnica');
  });

  it('pages through the history and goes back to the items', () => {
    const message = renderRequestHistory(
      answer({
        id: 1234,
        history: { rows: [historyEntry()], page: 2, pageSize: 10, totalRows: 25, totalPages: 3 },
      }),
      ctx,
    );
    expect(buttonNamed(message, 'Anterior')?.route).toEqual({ view: 'history', id: 1234, page: 1 });
    expect(buttonNamed(message, 'Próxima')?.route).toEqual({ view: 'history', id: 1234, page: 3 });
    expect(buttonNamed(message, 'Itens')?.route).toEqual({ view: 'request', id: 1234, page: 1 });
    expect(allText(message)).toContain('Página 2 de 3 · 25 registros');
  });
});

describe('request list', () => {
  const filters = {
    stockroomId: 2,
    status: [1, 2],
    from: { year: 2026, month: 10, day: 1 },
    to: { year: 2026, month: 10, day: 31 },
    text: 'torre',
  };

  it('says the filters in words and pages with the same route', () => {
    const message = renderRequestList(
      answer({
        filters,
        mine: null,
        defaultPeriod: false,
        list: { rows: [request()], page: 2, pageSize: 10, totalRows: 63, totalPages: 7 },
      }),
      ctx,
    );
    const text = allText(message);
    expect(text).toContain('almoxarifado 2, status 1 e 2, de 01/10/2026 a 31/10/2026, texto “torre”');
    expect(text).toContain('Página 2 de 7 · 63 solicitações');
    expect(buttonNamed(message, 'Próxima')?.route).toEqual({ view: 'requests', filters, page: 3 });
    expect(buttonNamed(message, 'Anterior')?.route).toEqual({ view: 'requests', filters, page: 1 });
    const view = buttonNamed(message, 'Ver');
    expect(view?.actionId).toMatch(/^nav:\d+$/);
    expect(view?.route).toEqual({ view: 'request', id: 1234, page: 1 });
  });

  it('titles the default period and the user’s own requests, and keeps `mine` in the route', () => {
    const message = renderRequestList(
      answer({
        filters: {},
        mine: { upstreamUserName: null },
        defaultPeriod: true,
        list: { rows: [request()], page: 1, pageSize: 10, totalRows: 11, totalPages: 2 },
      }),
      ctx,
    );
    expect(allText(message)).toContain('Suas solicitações dos últimos 30 dias');
    expect(buttonNamed(message, 'Próxima')?.route).toEqual({
      view: 'requests',
      filters: {},
      page: 2,
      mine: true,
    });
  });

  it('answers an empty list in one short line', () => {
    const message = renderRequestList(
      answer({
        filters: {},
        mine: null,
        defaultPeriod: true,
        list: { rows: [], page: 1, pageSize: 10, totalRows: 0, totalPages: 1 },
      }),
      ctx,
    );
    expect(allText(message)).toContain('Nenhuma solicitação nos últimos 30 dias.');
    expect(buttonNamed(message, 'Próxima')).toBeUndefined();
  });
});

describe('stockrooms, types and categories', () => {
  const categories = Array.from({ length: 700 }, (_, i) => ({
    id: i + 1,
    name: `Categoria ${String(i + 1).padStart(3, '0')}`,
  }));

  it('pages a list longer than one message holds (600 short names a page), each page with its neighbours', () => {
    const first = renderCatalog('categories', answer(categories), ctx);
    expect(allText(first)).toContain('Página 1 de 2 · 700 categorias.');
    expect(allText(first)).toContain('`600` Categoria 600');
    expect(allText(first)).not.toContain('`601`');
    expect(buttonNamed(first, 'Anterior')).toBeUndefined();
    expect(buttonNamed(first, 'Próxima')?.route).toEqual({ view: 'categories', page: 2 });
    expect(buttonNamed(first, 'Compartilhar no canal')?.route).toEqual({ view: 'categories', page: 1 });

    const second = renderCatalog('categories', answer(categories), ctx, 2);
    expect(allText(second)).toContain('Página 2 de 2 · 700 categorias.');
    expect(allText(second)).toContain('`601` Categoria 601');
    expect(allText(second)).toContain('`700` Categoria 700');
    expect(allText(second)).not.toContain('`600`');
    expect(buttonNamed(second, 'Anterior')?.route).toEqual({ view: 'categories', page: 1 });
    expect(buttonNamed(second, 'Próxima')).toBeUndefined();
    expect(second.text).toBe('Categorias de material: 700 categorias (página 2)');
  });

  it('an empty stockroom list says the linked company shows none, names it, and sends an admin to check the link', () => {
    const text = allText(
      renderStockrooms(answer({ stockrooms: [], company: { empresaId: 7, unidadeId: null } }), ctx),
    );
    // Until 2026-11-27: "Nenhum almoxarifado ativo nesta empresa.", no company named, nothing to do.
    expect(text).toContain('A empresa vinculada (empresa 7) não mostra nenhum almoxarifado ativo');
    expect(text).toContain('`/estoque status`');
    expect(text).not.toContain('Use o número com `almox:`');
  });

  it('shows the last page for a page past the end, and a short list whole, without page buttons', () => {
    const past = renderCatalog('types', answer(categories), ctx, 9);
    expect(allText(past)).toContain('Página 2 de 2 · 700 tipos.');
    expect(buttonNamed(past, 'Compartilhar no canal')?.route).toEqual({ view: 'types', page: 2 });
    const short = renderStockrooms(answer({ stockrooms, company: { empresaId: 1, unidadeId: null } }), ctx);
    expect(allText(short)).toContain('4 almoxarifados.');
    expect(buttonNamed(short, 'Próxima')).toBeUndefined();
    expect(buttonNamed(short, 'Anterior')).toBeUndefined();
  });
});

describe('purchases and receipts', () => {
  it('groups pending purchases by stockroom, each with a button to its linked requests', () => {
    const message = renderPendingPurchases(
      answer({
        stockroomId: null,
        page: 1,
        groups: [
          { stockroom: { almoxarifado: 2, nome: 'Almoxarifado Central' }, purchases: [purchase()] },
          {
            stockroom: { almoxarifado: 3, nome: 'Torre B' },
            purchases: [purchase({ compraMaterialId: 6001 })],
          },
        ],
      }),
      ctx,
    );
    const text = allText(message);
    expect(text.indexOf('Almoxarifado Central (2)')).toBeLessThan(text.indexOf('Compra 5678'));
    expect(text.indexOf('Torre B (3)')).toBeLessThan(text.indexOf('Compra 6001'));
    expect(text).toContain('*Fornecedor*\nElétrica Paulista Ltda.');
    expect(text).not.toMatch(/\*Fornecedor\*\n12/);
    const linked = buttonsOf(message).filter((b) => b.text === 'Solicitações vinculadas');
    expect(linked.map((b) => b.route)).toEqual([
      { view: 'purchase', id: 5678, page: 1 },
      { view: 'purchase', id: 6001, page: 1 },
    ]);
  });

  it('pages pending purchases across stockrooms, 8 per page', () => {
    const purchases = Array.from({ length: 12 }, (_, i) => purchase({ compraMaterialId: 100 + i }));
    const message = renderPendingPurchases(
      answer({
        stockroomId: 2,
        page: 2,
        groups: [{ stockroom: { almoxarifado: 2, nome: 'Central' }, purchases }],
      }),
      ctx,
    );
    expect(buttonsOf(message).filter((b) => b.text === 'Solicitações vinculadas')).toHaveLength(4);
    expect(buttonNamed(message, 'Anterior')?.route).toEqual({ view: 'pending', stockroomId: 2, page: 1 });
  });

  it('an empty stockroom list says the linked company shows none and who should check what, never "none pending"', () => {
    const message = renderPendingPurchases(
      answer({
        stockroomId: null,
        page: 1,
        groups: [],
        noActiveStockrooms: { empresaId: 12, unidadeId: 3 },
      }),
      ctx,
    );
    const text = allText(message);
    // Until 2026-11-27: "Nenhuma compra com saldo a receber.", as if every stockroom had been read.
    expect(text).not.toContain('Nenhuma compra');
    expect(text).toContain(
      'A empresa vinculada (empresa 12, unidade 3) não mostra nenhum almoxarifado ativo',
    );
    expect(text).toContain(
      'um administrador deve conferir a empresa e a unidade do vínculo (`/estoque status`)',
    );
    expect(message.text).toContain('nenhum almoxarifado ativo');
  });

  it('names each stockroom it could not read, and why: no permission is not "try again later"', () => {
    const view = (unread: { stockroom: { almoxarifado: number; nome: string | null }; reason: string }[]) =>
      allText(
        renderPendingPurchases(
          answer({
            stockroomId: null,
            page: 1,
            groups: [{ stockroom: { almoxarifado: 1, nome: 'Central' }, purchases: [purchase()] }],
            unread: unread as never,
          }),
          ctx,
        ),
      );
    const forbidden = view([
      { stockroom: { almoxarifado: 2, nome: 'Almoxarifado Torre Norte' }, reason: 'forbidden' },
    ]);
    // Until 2026-11-27: "1 almoxarifado não pôde ser consultado agora (limite de consultas ou falha…) Tente de novo
    // mais tarde.", for a 403 that no wait mends, and without naming it.
    expect(forbidden).toContain('Sem permissão para o almoxarifado Torre Norte (2)');
    expect(forbidden).not.toContain('Tente de novo');
    expect(forbidden).not.toContain('limite de consultas');
    const later = view([
      { stockroom: { almoxarifado: 2, nome: null }, reason: 'later' },
      { stockroom: { almoxarifado: 3, nome: 'Torre B' }, reason: 'later' },
    ]);
    expect(later).toContain(
      '2 almoxarifados não puderam ser consultados agora (limite de consultas ou falha do sistema de estoque): 2 e Torre B (3).',
    );
    expect(later).toContain('Tente de novo mais tarde.');
    const both = view([
      { stockroom: { almoxarifado: 2, nome: 'Norte' }, reason: 'forbidden' },
      { stockroom: { almoxarifado: 4, nome: 'Sul' }, reason: 'forbidden' },
      { stockroom: { almoxarifado: 3, nome: 'Torre B' }, reason: 'later' },
      { stockroom: { almoxarifado: 5, nome: 'Leste' }, reason: 'refused' },
    ]);
    expect(both).toContain('Sem permissão para os almoxarifados Norte (2) e Sul (4)');
    expect(both).toContain('1 almoxarifado não pôde ser consultado agora');
    expect(both).toContain('recusou a consulta do almoxarifado Leste (5)');
  });

  it('lists the requests of a purchase 10 per page, each opening its detail', () => {
    const requests = Array.from({ length: 50 }, (_, i) => request({ solicitacaoMaterialId: 2000 + i }));
    const message = renderPurchaseRequests(answer({ purchaseId: 5678, page: 5, requests }), ctx);
    expect(buttonsOf(message).filter((b) => b.text === 'Ver')).toHaveLength(10);
    expect(buttonNamed(message, 'Ver')?.route).toEqual({ view: 'request', id: 2040, page: 1 });
    expect(buttonNamed(message, 'Próxima')).toBeUndefined();
    expect(buttonNamed(message, 'Anterior')?.route).toEqual({ view: 'purchase', id: 5678, page: 4 });
    expect(
      allText(renderPurchaseRequests(answer({ purchaseId: 5678, page: 1, requests: [] }), ctx)),
    ).toContain('Nenhuma solicitação vinculada à compra 5678');
  });

  it('says that receipt dates filter by the purchase date', () => {
    const list = { rows: [receipt()], page: 1, pageSize: 10, totalRows: 1, totalPages: 1 };
    const dated = allText(
      renderReceiptList(answer({ filters: { from: { year: 2026, month: 11, day: 1 } }, list }), ctx),
    );
    expect(dated).toContain('As datas filtram pela data da *compra*, não pela data da entrada');
    const undated = allText(renderReceiptList(answer({ filters: {}, list }), ctx));
    expect(undated).not.toContain('As datas filtram');
    expect(undated).toContain('*Entrada 901*');
    expect(undated).toContain('*Data da entrada*\n18/11/2026 09:15');
  });

  it('a receipt that names its purchase only as ordemCompra (the filter’s name) still opens its requests', () => {
    const row: Record<string, unknown> = { ...receipt(), ordemCompra: 5678 };
    delete row.compraMaterialId;
    const list = { rows: [row], page: 1, pageSize: 10, totalRows: 1, totalPages: 1 };
    const message = renderReceiptList(answer({ filters: {}, list }), ctx);
    expect(buttonNamed(message, 'Solicitações vinculadas')?.route).toEqual({
      view: 'purchase',
      id: 5678,
      page: 1,
    });
  });

  it('shows upstream fields named like Object’s own members (toString, constructor…) in every list of purchases', () => {
    const odd = {
      toString: 'texto',
      constructor: 'Construtora Alfa',
      valueOf: 7,
      hasOwnProperty: true,
      dataConstructor: '2026-11-18T09:15:00',
    };
    const page = <T>(rows: T[]) => ({ rows, page: 1, pageSize: 10, totalRows: rows.length, totalPages: 1 });
    const texts = [
      allText(renderPurchaseList(answer({ filters: {}, list: page([purchase(odd)]) }), ctx)),
      allText(renderReceiptList(answer({ filters: {}, list: page([receipt(odd)]) }), ctx)),
      allText(
        renderPendingPurchases(
          answer({
            stockroomId: null,
            page: 1,
            groups: [{ stockroom: { almoxarifado: 2, nome: 'Central' }, purchases: [purchase(odd)] }],
          }),
          ctx,
        ),
      ),
    ];
    for (const text of texts) {
      expect(text).toMatch(/To string\W+texto/);
      expect(text).toMatch(/Constructor\W+Construtora Alfa/);
      expect(text).toMatch(/Has own property\W+Sim/);
      expect(text).toMatch(/Data constructor\W+18\/11\/2026 09:15/);
      expect(text).not.toContain('native code');
    }
  });

  it('renders a receipt without a recognisable id or with odd fields without failing', () => {
    const odd = { totalRows: 1, foo: { bar: 1 }, lista: [1, 2], vazio: '', nulo: null, flag: false };
    const list = { rows: [odd], page: 1, pageSize: 10, totalRows: 1, totalPages: 1 };
    const text = allText(renderReceiptList(answer({ filters: {}, list }), ctx));
    expect(text).toContain('*Entrada*');
    expect(text).toContain('*Flag*\nNão');
  });
});

describe('/solicitacao acompanhando', () => {
  it('says since when the person follows, not as the status’s time (until 2026-11-27 "Em separação · desde 13:28")', () => {
    const follows = [
      {
        workspaceId: 'T1',
        userId: 'U1',
        requestId: 1316,
        lastSeenStatus: 'Em separação',
        createdAt: NOW - 60_000,
      },
      { workspaceId: 'T1', userId: 'U1', requestId: 1312, lastSeenStatus: null, createdAt: NOW - 60_000 },
    ];
    const text = allText(renderFollowList(follows, null, ctx));
    expect(text).toContain('*1316* — Em separação · acompanhando desde 22/11/2026 10:35');
    expect(text).toContain('*1312* — status ainda não visto · acompanhando desde 22/11/2026 10:35');
    expect(text).not.toMatch(/— [^·\n]* · desde/);
  });
});
