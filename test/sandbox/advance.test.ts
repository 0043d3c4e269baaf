import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { formatLocal } from '../../src/sandbox/query.js';
import {
  type ReceiptChange,
  type Sandbox,
  type SandboxChange,
  type StatusChange,
  startSandbox,
} from '../../src/sandbox/server.js';
import { expectShape, get, HISTORY_SHAPE, ITEM_SHAPE, listAll, login, REQUEST_SHAPE } from './helpers.js';

/** Every change an advance describes is what the endpoints show afterwards, over HTTP. */

type Row = Record<string, unknown> & { rowNumber: number; totalRows: number };

const DAY = 86_400_000;
let clock = Date.parse('2026-03-09T14:20:37.250Z');
let sandbox: Sandbox;
let demo: string;
let demo2: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, now: () => clock, seed: 4242 });
  demo = (await login(sandbox.authUrl)).token;
  demo2 = (await login(sandbox.authUrl, 'demo2')).token;
});

afterAll(async () => {
  await sandbox.close();
});

async function rows(path: string, token = demo): Promise<Row[]> {
  const result = await get<Row[]>(sandbox.baseUrl, path, token);
  expect(result.status, path).toBe(200);
  return result.body;
}

async function requestRow(id: number, token = demo): Promise<Row> {
  const found = (await rows(`/v1/solicitacoes-materiais?Search=${id}&PageSize=100`, token)).find(
    (r) => r.solicitacaoMaterialId === id,
  );
  if (!found) throw new Error(`request ${id} not listed`);
  return found;
}

/** One advance a minute later, of one kind; the changes it describes. */
function advance(kind: SandboxChange['kind']): SandboxChange[] {
  clock += 60_000;
  return sandbox.advance({ kinds: [kind] });
}

/** What the list row's listaStatusAndamentoSolicitacao should say: the statuses of all its items, hidden ones too. */
function itemNames(requestId: number): string | null {
  const request = sandbox.data.companies
    .get(1)
    ?.requests.find((r) => r.record.solicitacaoMaterialId === requestId);
  if (!request) throw new Error(`request ${requestId} not stored`);
  const names = [...new Set(request.items.map((i) => i.statusAndamentoSolicitacao_Nome).filter(Boolean))];
  return names.length > 0 ? names.join(', ') : null;
}

/** The list row, the history and the items of a request that just moved agree with the change. */
async function expectMoved(change: StatusChange): Promise<Row[]> {
  const id = change.solicitacaoMaterialId;
  const row = await requestRow(id);
  expect(row).toMatchObject({
    statusAndamentoSolicitacao: change.to,
    statusAndamentoSolicitacao_Nome: change.toNome,
    almoxarifado: change.almoxarifado,
    solicitante: change.solicitante,
  });
  const history = await rows(`/v1/solicitacoes-materiais/${id}/historico`);
  for (const entry of history) expectShape(entry, HISTORY_SHAPE);
  expect(history.at(-1)).toMatchObject({
    andamentoSolicitacao: change.andamentoSolicitacao,
    status: change.to,
    statusAndamentoSolicitacao_Nome: change.toNome,
    data: formatLocal(change.at),
    rowNumber: history.length,
  });
  expect(history.at(-2)?.status).toBe(change.from);
  expect(Date.parse(history[0]?.data as string)).toBe(change.createdAt);
  const items = await rows(`/v1/solicitacoes-materiais/${id}/itens`);
  for (const item of items) expectShape(item, ITEM_SHAPE);
  expect(row.listaStatusAndamentoSolicitacao).toBe(itemNames(id));
  const delivered = (i: Row) => (i.quantidadeEntregue as number | null) ?? 0;
  if (change.to === 4) expect(items.every((i) => delivered(i) >= (i.quantidade as number))).toBe(true);
  if (change.to === 3) expect(items.some((i) => delivered(i) < (i.quantidade as number))).toBe(true);
  if (change.to === 6)
    expect(items.every((i) => i.quantidadeEntregue === null && i.statusAndamentoSolicitacao === 6)).toBe(
      true,
    );
  if (change.to === 2 || change.to === 5) {
    expect(items.every((i) => i.quantidadeEntregue === 0 && i.statusAndamentoSolicitacao === change.to)).toBe(
      true,
    );
  }
  return items;
}

describe('an advance that adds a request', () => {
  it('puts it first in the list, with one history entry dated now, its items and a requester of the company', async () => {
    const before = (await rows('/v1/solicitacoes-materiais?PageSize=2'))[0];
    const changes = advance('novas');
    expect(changes).toHaveLength(1);
    const change = changes[0];
    if (change?.kind !== 'novas') throw new Error('expected a new request');
    expect(change).toMatchObject({ empresa: 1, status: 1, at: Math.floor(clock / 1000) * 1000 });
    const id = change.solicitacaoMaterialId;
    expect(id).toBeGreaterThan(before?.solicitacaoMaterialId as number);

    const page = await rows('/v1/solicitacoes-materiais?PageSize=2');
    for (const row of page) expectShape(row, REQUEST_SHAPE);
    expect(page.map((r) => [r.solicitacaoMaterialId, r.rowNumber, r.totalRows])).toEqual([
      [id, 1, (before?.totalRows ?? 0) + 1],
      [before?.solicitacaoMaterialId, 2, (before?.totalRows ?? 0) + 1],
    ]);
    expect(page[0]).toMatchObject({
      almoxarifado: change.almoxarifado,
      solicitante: change.solicitante,
      statusAndamentoSolicitacao: 1,
      statusAndamentoSolicitacao_Nome: 'Aberta',
    });
    // The bot's window: the last 30 days include it; a period that ended before it does not.
    const window = await rows(
      `/v1/solicitacoes-materiais?DataInicial=${new Date(clock - 30 * DAY).toISOString()}`,
    );
    expect(window[0]?.solicitacaoMaterialId).toBe(id);
    const earlier = await rows(
      `/v1/solicitacoes-materiais?DataFinal=${new Date(clock - 120_000).toISOString()}`,
    );
    expect(earlier[0]?.solicitacaoMaterialId).toBe(before?.solicitacaoMaterialId);

    expect(await rows(`/v1/solicitacoes-materiais/${id}/historico`)).toEqual([
      expect.objectContaining({
        andamentoSolicitacao: change.andamentoSolicitacao,
        status: 1,
        data: formatLocal(change.at),
        solicitante: change.solicitante,
        rowNumber: 1,
        totalRows: 1,
      }),
    ]);
    // Every item is of a material registered in the stockroom: /itens hides none of them.
    const items = await rows(`/v1/solicitacoes-materiais/${id}/itens`);
    expect(items.map((i) => i.solicitacaoMaterialItemId)).toEqual(change.itemIds);
    expect(items.every((i) => i.statusAndamentoSolicitacao === 1 && i.quantidadeEntregue === null)).toBe(
      true,
    );
    const [requester] = await rows(`/v1/usuarios?UsuarioId=${change.solicitante}`);
    expect(requester).toMatchObject({ usuario: change.solicitante, inativo: false });
  });
});

describe('an advance that moves a request by itself', () => {
  it('adds a history entry dated now; the list row and the items follow; Aguardando compra raises a purchase', async () => {
    const seen = new Set<number>();
    for (let n = 0; n < 80 && !(seen.has(2) && seen.has(3) && seen.has(4) && seen.has(5)); n++) {
      const [change, ...rest] = advance('status');
      expect(rest).toEqual([]);
      if (change?.kind !== 'status') throw new Error('expected a status change');
      expect(change.causedBy).toBeNull();
      seen.add(change.to);
      const items = await expectMoved(change);
      if (change.to !== 5) {
        expect(change.compraRaised).toBeNull();
        continue;
      }
      const raised = change.compraRaised;
      if (raised === null) throw new Error('no purchase raised');
      const pending = await rows(`/v1/entradas-materiais/compras?almoxarifadoId=${change.almoxarifado}`);
      expect(pending.at(-1)).toMatchObject({ compraMaterialId: raised, status: 2, quantidadeRecebida: 0 });
      expect(pending.at(-1)?.quantidadePendente).toBeGreaterThan(0);
      const linked = await rows(`/v1/compras-materiais/${raised}/solicitacoes`);
      expect(linked.map((r) => r.solicitacaoMaterialId)).toEqual([change.solicitacaoMaterialId]);
      const byPurchase = await rows(`/v1/solicitacoes-materiais?CompraMaterialId=${raised}`);
      expect(byPurchase.map((r) => r.solicitacaoMaterialId)).toEqual([change.solicitacaoMaterialId]);
      expect((await rows('/v1/compras-materiais?PageSize=1'))[0]?.compraMaterialId).toBe(raised);
      const bought = items.filter((i) => i.statusCompra === 3 && i.compraMaterialItem !== null);
      expect(bought.length).toBeGreaterThan(0);
      expect(bought.every((i) => i.statusCompraMaterial_Nome === 'Comprado')).toBe(true);
    }
    expect([...seen].sort()).toEqual(expect.arrayContaining([2, 3, 4, 5]));
  });
});

describe('an advance asked to move some requests first', () => {
  it('moves those that can move, one step each, before its other changes; the list row shows it', async () => {
    // Two requests still Aberta (status 1, which can always move by itself), the newest last.
    const open = (sandbox.data.companies.get(1)?.requests ?? [])
      .filter((r) => r.record.statusAndamentoSolicitacao === 1)
      .map((r) => r.record.solicitacaoMaterialId)
      .sort((a, b) => a - b)
      .slice(-2);
    expect(open).toHaveLength(2);
    const before = await Promise.all(open.map((id) => requestRow(id)));
    clock += 60_000;
    // 999 is no request: asked for, nothing happens to it.
    const made = sandbox.advance({ changes: 3, requestIds: [...open, 999] });
    const moved = made.filter((c): c is StatusChange => c.kind === 'status' && c.causedBy === null);
    expect(moved.slice(0, 2).map((c) => c.solicitacaoMaterialId)).toEqual(open);
    for (const [i, id] of open.entries()) {
      const row = await requestRow(id);
      expect(row.statusAndamentoSolicitacao).toBe(moved[i]?.to);
      expect(row.statusAndamentoSolicitacao).not.toBe(before[i]?.statusAndamentoSolicitacao);
    }
    expect(made.length).toBeGreaterThanOrEqual(3);
  });

  it('an advance without status moves none of them', () => {
    clock += 60_000;
    const made = sandbox.advance({
      changes: 2,
      kinds: ['novas'],
      requestIds: [DEMO_FACTS.company1.requestsWithItemsBelowMinimum[2]],
    });
    expect(made.map((c) => c.kind)).toEqual(['novas', 'novas']);
  });
});

describe('an advance that receives goods', () => {
  it('lowers or clears the pending balance, records a receipt, and serves the linked requests', async () => {
    let partial = false;
    let fullWithRequests = false;
    let moved = 0;
    for (let n = 0; n < 60 && !(partial && fullWithRequests && moved > 0); n++) {
      const [change, ...caused] = advance('recebimentos');
      if (change?.kind !== 'recebimentos') throw new Error('expected a receipt');
      await expectReceived(change);
      partial ||= !change.leftPendingList;
      fullWithRequests ||= change.leftPendingList && change.solicitacaoMaterialIds.length > 0;
      for (const status of caused) {
        if (status.kind !== 'status') throw new Error('a receipt brings only status changes');
        expect(status.causedBy).toEqual({
          compraMaterialId: change.compraMaterialId,
          entradaMaterialId: change.entradaMaterialId,
        });
        expect(change.solicitacaoMaterialIds).toContain(status.solicitacaoMaterialId);
        expect([2, 3, 5]).toContain(status.from);
        expect([3, 4]).toContain(status.to);
        await expectMoved(status);
        moved++;
      }
    }
    expect({ partial, fullWithRequests, moved: moved > 0 }).toEqual({
      partial: true,
      fullWithRequests: true,
      moved: true,
    });
  });
});

async function expectReceived(change: ReceiptChange): Promise<void> {
  const id = change.compraMaterialId;
  expect(change.pendingAfter).toBe(change.pendingBefore - change.quantidade);
  expect(change.leftPendingList).toBe(change.pendingAfter === 0);
  const pending = await rows(`/v1/entradas-materiais/compras?almoxarifadoId=${change.almoxarifado}`);
  const row = pending.find((p) => p.compraMaterialId === id);
  if (change.leftPendingList) expect(row).toBeUndefined();
  else expect(row).toMatchObject({ quantidadePendente: change.pendingAfter, status: 3 });

  const purchase = (await rows(`/v1/compras-materiais?Search=${id}&PageSize=100`)).find(
    (p) => p.compraMaterialId === id,
  );
  expect(purchase).toMatchObject({
    status: change.statusTo,
    status_Nome: change.leftPendingList ? 'Recebida' : 'Recebida parcialmente',
  });

  // The newest receipt, dated now; the list's date filter applies to the purchase's date.
  const [newest] = await rows('/v1/entradas-materiais?PageSize=1');
  expect(newest).toMatchObject({
    entradaMaterialId: change.entradaMaterialId,
    compraMaterialId: id,
    ordemCompra: id,
    almoxarifado: change.almoxarifado,
    dataEntrada: formatLocal(change.at),
    dataCompra: purchase?.dataCompra,
  });
  const around = (ms: number) =>
    `DataInicial=${new Date(ms - 30_000).toISOString()}&DataFinal=${new Date(ms + 30_000).toISOString()}`;
  const purchasedAt = Date.parse(purchase?.dataCompra as string);
  const byPurchaseDate = await rows(`/v1/entradas-materiais?${around(purchasedAt)}&PageSize=100`);
  expect(byPurchaseDate.map((r) => r.entradaMaterialId)).toContain(change.entradaMaterialId);
  if (change.at - purchasedAt > 60_000) {
    const byReceiptDate = await rows(`/v1/entradas-materiais?${around(change.at)}&PageSize=100`);
    expect(byReceiptDate.map((r) => r.entradaMaterialId)).not.toContain(change.entradaMaterialId);
  }

  const linked = await rows(`/v1/compras-materiais/${id}/solicitacoes`);
  expect(linked.map((r) => r.solicitacaoMaterialId)).toEqual(change.solicitacaoMaterialIds);
  const bought = new Set(
    sandbox.data.companies.get(1)?.purchases.find((p) => p.record.compraMaterialId === id)?.itemIds ?? [],
  );
  for (const request of linked) {
    expect(request.listaStatusAndamentoSolicitacao).toBe(itemNames(request.solicitacaoMaterialId as number));
    const items = await rows(`/v1/solicitacoes-materiais/${request.solicitacaoMaterialId}/itens`);
    for (const item of items.filter((i) => bought.has(i.solicitacaoMaterialItemId as number))) {
      if (!change.leftPendingList) {
        expect(item).toMatchObject({ statusCompra: 3, statusCompraMaterial_Nome: 'Comprado' });
        continue;
      }
      expect(item).toMatchObject({ statusCompra: 4, statusCompraMaterial_Nome: 'Recebido' });
      if (request.statusAndamentoSolicitacao !== 6) expect(item.quantidadeEntregue).toBe(item.quantidade);
    }
  }
}

describe('companies move independently', () => {
  async function snapshot(token: string): Promise<unknown> {
    const stockrooms = await rows('/v1/almoxarifados', token);
    const pending = [];
    for (const s of stockrooms)
      pending.push(await rows(`/v1/entradas-materiais/compras?almoxarifadoId=${s.almoxarifado}`, token));
    return {
      requests: await listAll(sandbox.baseUrl, '/v1/solicitacoes-materiais', token),
      purchases: await listAll(sandbox.baseUrl, '/v1/compras-materiais', token),
      receipts: await listAll(sandbox.baseUrl, '/v1/entradas-materiais', token),
      pending,
    };
  }

  it('an advance of one company leaves every list of the other as it was', async () => {
    const other = await snapshot(demo2);
    clock += 60_000;
    expect(sandbox.advance({ login: 'demo', changes: 12 }).every((c) => c.empresa === 1)).toBe(true);
    expect(await snapshot(demo2)).toEqual(other);

    const mine = await snapshot(demo);
    clock += 60_000;
    const made = sandbox.advance({ empresaId: 2, changes: 6 });
    expect(made.length).toBeGreaterThan(0);
    expect(made.every((c) => c.empresa === 2)).toBe(true);
    expect(await snapshot(demo)).toEqual(mine);
    expect(await snapshot(demo2)).not.toEqual(other);
  });
});
