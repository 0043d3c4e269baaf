import { CACHE_TTL_MS } from '../src/domain/cached-reader.js';
import { blockOf } from '../src/domain/page-blocks.js';
import {
  HISTORY_BLOCK_SIZE,
  LIST_BLOCK_SIZE,
  LIST_PAGE_SIZE,
} from '../src/domain/requests/request-service.js';
import type { Route } from '../src/domain/routes.js';
import { DEMO_FACTS } from '../src/sandbox/facts.js';

/**
 * What a maintenance team asks, as the bench sends it: a fixed mix of slash commands and button clicks
 * (PRODUCT.md), mostly repeated looks at a hot set of requests and lists, some cold ones. Everything is drawn
 * from a seeded generator, so every configuration of a run (and every run) gets the very same sequence.
 */

export type Action =
  | { kind: 'command'; command: '/estoque' | '/solicitacao' | '/compras'; text: string }
  /** A click on a button that carries `route` (`Histórico`, `Próxima`, a row's detail). */
  | { kind: 'click'; route: Route; label: string };

export interface WorkItem {
  /** How reports name it: the command as typed, or the button. */
  label: string;
  hot: boolean;
  action: Action;
  /** Freshness of the data the answer shows (the TTL of its main endpoint). */
  ttlMs: number;
  /** The upstream calls (path and query as the sandbox saw them) whose data the answer shows. */
  upstream: (path: string, query: URLSearchParams) => boolean;
}

const C1 = DEMO_FACTS.company1;
const REQUESTS = '/v1/solicitacoes-materiais';

const itemsOf = (id: number) => (path: string) => path === `${REQUESTS}/${id}/itens`;
/** The read whose rows a page of 10 shows: the block of HISTORY_BLOCK_SIZE / LIST_BLOCK_SIZE rows that holds it. */
const historyOf = (id: number, page: number) => (path: string, q: URLSearchParams) => {
  const block = blockOf(page, LIST_PAGE_SIZE, HISTORY_BLOCK_SIZE);
  return (
    path === `${REQUESTS}/${id}/historico` &&
    q.get('page') === String(block.page) &&
    q.get('pageSize') === String(block.pageSize)
  );
};
const requestList =
  (page: number, stockroomId: number | null) =>
  (path: string, q: URLSearchParams): boolean =>
    path === REQUESTS &&
    q.get('Page') === String(blockOf(page, LIST_PAGE_SIZE, LIST_BLOCK_SIZE).page) &&
    q.get('PageSize') === String(LIST_BLOCK_SIZE) &&
    q.get('AlmoxarifadoId') === (stockroomId === null ? null : String(stockroomId)) &&
    !q.has('Status') &&
    !q.has('Search');
const pendingOf = (stockroomId: number | null) => (path: string, q: URLSearchParams) =>
  path === '/v1/entradas-materiais/compras' &&
  (stockroomId === null || q.get('almoxarifadoId') === String(stockroomId));

function command(command: '/estoque' | '/solicitacao' | '/compras', text: string): Action {
  return { kind: 'command', command, text };
}

function requestDetail(id: number, hot: boolean): WorkItem {
  return {
    label: `/solicitacao ${id}`,
    hot,
    action: command('/solicitacao', String(id)),
    ttlMs: CACHE_TTL_MS.requestItems,
    upstream: itemsOf(id),
  };
}

function historyClick(id: number, hot: boolean): WorkItem {
  return {
    label: `[Histórico] ${id}`,
    hot,
    action: { kind: 'click', route: { view: 'history', id, page: 1 }, label: 'Histórico' },
    ttlMs: CACHE_TTL_MS.requestHistory,
    upstream: historyOf(id, 1),
  };
}

/** Ten answers most of the traffic asks for, hottest first. */
export const HOT_SET: readonly WorkItem[] = [
  requestDetail(1312, true),
  {
    label: '/solicitacao',
    hot: true,
    action: command('/solicitacao', ''),
    ttlMs: CACHE_TTL_MS.requestList,
    upstream: requestList(1, null),
  },
  requestDetail(1316, true),
  {
    label: '/compras pendentes almox:1',
    hot: true,
    action: command('/compras', 'pendentes almox:1'),
    ttlMs: CACHE_TTL_MS.pendingPurchases,
    upstream: pendingOf(1),
  },
  historyClick(1312, true),
  requestDetail(1319, true),
  {
    label: '/solicitacao almox:1',
    hot: true,
    action: command('/solicitacao', 'almox:1'),
    ttlMs: CACHE_TTL_MS.requestList,
    upstream: requestList(1, 1),
  },
  {
    label: '[Próxima] /solicitacao p.2',
    hot: true,
    action: { kind: 'click', route: { view: 'requests', filters: {}, page: 2 }, label: 'Próxima' },
    ttlMs: CACHE_TTL_MS.requestList,
    upstream: requestList(2, null),
  },
  {
    label: '/estoque almoxarifados',
    hot: true,
    action: command('/estoque', 'almoxarifados'),
    ttlMs: CACHE_TTL_MS.stockrooms,
    upstream: (path) => path === '/v1/almoxarifados',
  },
  {
    label: '/estoque lampada',
    hot: true,
    action: command('/estoque', 'lampada'),
    ttlMs: CACHE_TTL_MS.materials,
    upstream: (path, q) => path === '/v1/materiais' && !q.has('almoxarifadoId'),
  },
];

const MATERIAL_WORDS = ['cabo', 'tinta', 'disjuntor', 'torneira', 'parafuso', 'luva', 'fita', 'tomada'];
const HOT_REQUEST_IDS = new Set([1312, 1316, 1319]);

/** A cold answer: another request, its history, a material search, pending purchases, a list page. */
function coldItem(rng: () => number): WorkItem {
  const pick = rng();
  const anyRequest = () => {
    for (;;) {
      const id = C1.requestIds.first + Math.floor(rng() * C1.requestIds.count);
      if (!HOT_REQUEST_IDS.has(id)) return id;
    }
  };
  if (pick < 0.35) return requestDetail(anyRequest(), false);
  if (pick < 0.45) return historyClick(anyRequest(), false);
  if (pick < 0.6) {
    const word = MATERIAL_WORDS[Math.floor(rng() * MATERIAL_WORDS.length)] ?? 'cabo';
    return {
      label: `/estoque ${word}`,
      hot: false,
      action: command('/estoque', word),
      ttlMs: CACHE_TTL_MS.materials,
      upstream: (path, q) => path === '/v1/materiais' && !q.has('almoxarifadoId'),
    };
  }
  if (pick < 0.72) {
    return {
      label: '/compras pendentes',
      hot: false,
      action: command('/compras', 'pendentes'),
      ttlMs: CACHE_TTL_MS.pendingPurchases,
      upstream: (path, q) => pendingOf(null)(path, q) || path === '/v1/almoxarifados',
    };
  }
  if (pick < 0.84) {
    const stockroom = 2 + Math.floor(rng() * 2);
    const page = 1 + Math.floor(rng() * 3);
    return {
      label: `/solicitacao almox:${stockroom} p.${page}`,
      hot: false,
      action:
        page === 1
          ? command('/solicitacao', `almox:${stockroom}`)
          : {
              kind: 'click',
              route: { view: 'requests', filters: { stockroomId: stockroom }, page },
              label: 'Próxima',
            },
      ttlMs: CACHE_TTL_MS.requestList,
      upstream: requestList(page, stockroom),
    };
  }
  if (pick < 0.94) {
    return {
      label: '/compras',
      hot: false,
      action: command('/compras', ''),
      ttlMs: CACHE_TTL_MS.purchaseList,
      upstream: (path, q) => path === '/v1/compras-materiais' && q.get('Page') === '1',
    };
  }
  return {
    label: '/estoque tipos',
    hot: false,
    action: command('/estoque', 'tipos'),
    ttlMs: CACHE_TTL_MS.types,
    upstream: (path) => path === '/v1/materiais/tipos',
  };
}

export interface WorkloadOptions {
  /** Share of traffic on the hot set (default 0.8). */
  hotShare?: number;
  /** Zipf exponent over the hot set (default 0.8): the first is asked most. */
  zipf?: number;
}

/**
 * The help answer, by command and by button in turns: the whole path of a request (signature, installation,
 * listener, ack, render, response_url) without a call upstream, to warm each process's JIT before measuring.
 */
export function makeHelpMix(): () => WorkItem {
  let turn = 0;
  return () => {
    turn += 1;
    return {
      label: turn % 2 === 0 ? '[Ajuda]' : '/estoque ajuda',
      hot: false,
      action:
        turn % 2 === 0
          ? { kind: 'click', route: { view: 'help' }, label: 'Ajuda' }
          : command('/estoque', 'ajuda'),
      ttlMs: 0,
      upstream: () => false,
    };
  };
}

/** Draws the next item of the mix. */
export function makeMix(rng: () => number, options: WorkloadOptions = {}): () => WorkItem {
  const hotShare = options.hotShare ?? 0.8;
  const weights = HOT_SET.map((_, i) => 1 / (i + 1) ** (options.zipf ?? 0.8));
  const total = weights.reduce((a, b) => a + b, 0);
  return () => {
    if (rng() >= hotShare) return coldItem(rng);
    let x = rng() * total;
    for (let i = 0; i < HOT_SET.length; i += 1) {
      x -= weights[i] as number;
      if (x <= 0) return HOT_SET[i] as WorkItem;
    }
    return HOT_SET[HOT_SET.length - 1] as WorkItem;
  };
}

/** Arrival offsets (ms) of a Poisson process of `perSecond` over `durationMs`. */
export function poissonArrivals(perSecond: number, durationMs: number, rng: () => number): number[] {
  const out: number[] = [];
  if (perSecond <= 0) return out;
  let t = 0;
  for (;;) {
    t += (-Math.log(1 - rng()) / perSecond) * 1_000;
    if (t >= durationMs) return out;
    out.push(t);
  }
}

/** mulberry32: a small seeded generator, enough for a reproducible workload. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The users of the benchmark's workspace. The bot never looks them up for these answers. */
export function benchUsers(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `U0BENCH${String(i + 1).padStart(3, '0')}`);
}
