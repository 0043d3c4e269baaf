import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type AnswerReader, NoSavedDataError, type ReadOptions } from '../../../src/domain/cached-reader.js';
import type { DomainDeps } from '../../../src/domain/deps.js';
import { RequestService } from '../../../src/domain/requests/request-service.js';
import type { Answer } from '../../../src/domain/views.js';
import type { WorkspaceContext } from '../../../src/domain/workspace.js';
import { BudgetExhaustedError } from '../../../src/upstream/budget-errors.js';
import type { CallObserver } from '../../../src/upstream/client.js';

/**
 * When a request's detail asks for its history page: once the items' call has gone out (it had a budget slot) or
 * the items are there, never while the items still wait for a slot. A reader the test drives stands for the
 * cache and the budget.
 */

const FRESH = { fetchedAt: 0, fromCache: false, degraded: null } as const;

function answer<T>(data: T): Answer<T> {
  return { data, freshness: FRESH };
}

const ITEM = {
  solicitacaoMaterialId: 7,
  material: 1,
  material_Nome: 'Luva',
  quantidade: 1,
  quantidadeEntregue: 0,
  estoqueAtual: 3,
  estoqueMinimo: 5,
  estoqueMaximo: 10,
};
const HISTORY_PAGE = {
  // With its names: a history without them is completed from the list (a read of its own, not these tests').
  rows: [
    {
      status: 1,
      data: '2026-11-20T10:00:00',
      statusAndamentoSolicitacao_Nome: 'Aberta',
      almoxarifado_Nome: 'Central',
      solicitante_Nome: 'Ana',
    },
  ],
  page: 1,
  pageSize: 50,
  totalRows: 1,
  totalPages: 1,
};

function harness() {
  const reads: string[] = [];
  let itemsObserver: CallObserver | undefined;
  let settleItems: { resolve: (a: Answer<unknown>) => void; reject: (e: unknown) => void } | null = null;
  const reader: AnswerReader = {
    read<T>(
      ws: WorkspaceContext,
      endpoint: string,
      _params: unknown,
      _fetch: unknown,
      options?: ReadOptions,
    ) {
      reads.push(options?.savedOnly ? `${endpoint} (saved)` : endpoint);
      // The saved stockroom list, where the detail looks up its stockroom's name (no call): none saved here.
      if (endpoint === 'stockrooms') return Promise.resolve(answer([] as T));
      if (endpoint === 'requestItems') {
        itemsObserver = ws.call.observer;
        return new Promise<Answer<T>>((resolve, reject) => {
          settleItems = { resolve: resolve as (a: Answer<unknown>) => void, reject };
        });
      }
      return Promise.resolve(answer(HISTORY_PAGE as T));
    },
  };
  const outer: string[] = [];
  const ws = {
    workspaceId: 'T1',
    link: {},
    call: {
      priority: 'interactive',
      observer: {
        queued: (position: number) => outer.push(`queued ${position}`),
        started: () => outer.push('started'),
        showingData: () => true,
      },
    },
  } as unknown as WorkspaceContext;
  const deps = {
    reader,
    logger: pino({ level: 'silent' }),
    now: () => 0,
    stock: {
      names: async () => new Map(),
      // Every entry recorded without its stockroom: each asks for it.
      place: async (
        _scope: unknown,
        placements: { requestId: number }[],
        stockroomOf: (requestId: number) => unknown,
      ) => {
        for (const placement of placements) await stockroomOf(placement.requestId);
      },
    },
  } as unknown as DomainDeps;
  const detail = new RequestService(deps).detail(ws, 7, 1);
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return {
    detail,
    reads,
    outer,
    turn,
    items: () => itemsObserver as CallObserver,
    settle: () => settleItems as NonNullable<typeof settleItems>,
  };
}

describe("a request's detail asks for its history", () => {
  it('not while the items wait for a slot; as soon as their call goes out, before it answers', async () => {
    const h = harness();
    await h.turn();
    h.items().queued?.(3);
    await h.turn();
    expect(h.reads).toEqual(['requestItems']);
    h.items().started?.();
    await h.turn();
    expect(h.reads).toEqual(['requestItems', 'requestHistory']);
    // The answer's own observer still hears where the items' call stands.
    expect(h.outer).toEqual(['queued 3', 'started']);
    expect(h.items().showingData?.()).toBe(true);
    h.settle().resolve(answer([ITEM]));
    const view = await h.detail;
    expect(view.data.header?.statusName).toBe('Aberta');
    expect(view.data.items).toHaveLength(1);
  });

  it('once the items are there when they came without a call (the cache)', async () => {
    const h = harness();
    await h.turn();
    h.settle().resolve(answer([ITEM]));
    const view = await h.detail;
    // Then the saved stockroom list, for the stockroom of the stock its items showed: no upstream call.
    expect(h.reads).toEqual(['requestItems', 'requestHistory', 'stockrooms (saved)']);
    expect(view.data.header?.status).toBe(1);
  });

  it('never, when the items found no slot: the history takes no slot for an answer that is the budget message', async () => {
    const h = harness();
    await h.turn();
    h.items().queued?.(1);
    h.settle().reject(new BudgetExhaustedError(Date.now() + 30_000, 'interactive'));
    await expect(h.detail).rejects.toBeInstanceOf(BudgetExhaustedError);
    await h.turn();
    expect(h.reads).toEqual(['requestItems']);
  });
});

describe("a request's header whose history left its names null", () => {
  const UNNAMED = {
    ...HISTORY_PAGE,
    rows: [{ status: 1, data: '2026-11-20T10:00:00', statusAndamentoSolicitacao_Nome: null }],
  };

  it("searches the list at background priority, cut to the answer's deadline, and answers without the names when the search does not end in time", async () => {
    const searches: WorkspaceContext['call'][] = [];
    const reader: AnswerReader = {
      read<T>(
        ws: WorkspaceContext,
        endpoint: string,
        _params: unknown,
        _fetch: unknown,
        options?: ReadOptions,
      ) {
        if (options?.savedOnly) return Promise.reject(new NoSavedDataError('requestList'));
        if (endpoint === 'requestItems') return Promise.resolve(answer([ITEM] as T));
        if (endpoint === 'requestHistory') return Promise.resolve(answer(UNNAMED as T));
        searches.push(ws.call);
        // A search that never ends (a refresh of the same page elsewhere, at its own pace).
        return new Promise<Answer<T>>(() => {});
      },
    };
    const deadline = Date.now() + 300;
    const ws = {
      workspaceId: 'T1',
      link: {},
      call: { priority: 'interactive', deadline, correlationId: 'c1' },
    } as unknown as WorkspaceContext;
    const deps = {
      reader,
      logger: pino({ level: 'silent' }),
      now: Date.now,
      timeZone: 'America/Sao_Paulo',
      stock: { names: async () => new Map() },
    } as unknown as DomainDeps;
    const view = await new RequestService(deps).detail(ws, 7, 1);
    expect(view.data.items).toHaveLength(1);
    expect(view.data.header).toMatchObject({ status: 1, statusName: null, stockroomName: null });
    expect(searches).toHaveLength(1);
    expect(searches[0]?.priority).toBe('background');
    expect(searches[0]?.deadline).toBeLessThanOrEqual(deadline);
  });
});
