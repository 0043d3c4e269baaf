import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompanyData } from '../../src/sandbox/model.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import {
  expectProblem,
  expectShape,
  get,
  HISTORY_SHAPE,
  ITEM_SHAPE,
  login,
  MATERIAL_SHAPE,
  REQUEST_SHAPE,
  STOCKROOM_SHAPE,
  USER_SHAPE,
} from './helpers.js';

interface Row {
  [key: string]: unknown;
  rowNumber: number;
  totalRows: number;
}

const DAY = 86_400_000;

let sandbox: Sandbox;
let token: string;
let company: CompanyData;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  token = (await login(sandbox.authUrl)).token;
  const data = sandbox.data.companies.get(1);
  if (!data) throw new Error('company 1 missing');
  company = data;
});

afterAll(async () => {
  await sandbox.close();
});

const fetchJson = <T = Row[]>(path: string, headers: Record<string, string> = {}) =>
  get<T>(sandbox.baseUrl, path, token, headers);

function fold(text: unknown): string {
  return String(text).normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

describe('GET /v1/usuarios', () => {
  it('lists the users of the company with the documented fields', async () => {
    const { status, body } = await fetchJson('/v1/usuarios');
    expect(status).toBe(200);
    expect(body).toHaveLength(company.users.length);
    for (const user of body) expectShape(user, USER_SHAPE);
    expect(body.map((u) => u.email)).toContain('maria.souza@exemplo.com.br');
  });

  it('searches by name, every word, ignoring case and accents', async () => {
    const { body } = await fetchJson('/v1/usuarios?Search=LUIZA');
    expect(body.map((u) => u.nome)).toEqual(['Luíza Fernandes']);
    const { body: two } = await fetchJson('/v1/usuarios?search=maria');
    expect(two.map((u) => u.nome).sort()).toEqual(['Maria Souza', 'Mariana Araújo']);
    const { body: none } = await fetchJson('/v1/usuarios?Search=maria%20pereira');
    expect(none).toEqual([]);
  });

  it('filters by UsuarioId and TipoUsuario, and refuses a TipoUsuario outside 1..4', async () => {
    const { body } = await fetchJson('/v1/usuarios?UsuarioId=11');
    expect(body.map((u) => u.usuario)).toEqual([11]);
    const { body: tickets } = await fetchJson('/v1/usuarios?TipoUsuario=4');
    expect(tickets.length).toBeGreaterThan(0);
    expect(tickets.every((u) => u.tipo === 4)).toBe(true);
    expectProblem(await fetchJson('/v1/usuarios?TipoUsuario=9'), 400);
  });
});

describe('GET /v1/almoxarifados', () => {
  it('lists only the active stockrooms', async () => {
    const { body } = await fetchJson('/v1/almoxarifados');
    for (const row of body) expectShape(row, STOCKROOM_SHAPE);
    expect(body.map((s) => s.almoxarifado)).toEqual([1, 2, 3]);
    expect(body.every((s) => s.status === 1)).toBe(true);
    expect(body.map((s) => s.nome)).toContain('Almoxarifado Central – Sede Paulista');
  });

  it('restricts to the stockrooms serving a unit (unidadeId query or UnidadeId header)', async () => {
    expect((await fetchJson('/v1/almoxarifados?unidadeId=103')).body.map((s) => s.almoxarifado)).toEqual([3]);
    expect(
      (await fetchJson('/v1/almoxarifados', { UnidadeId: '102' })).body.map((s) => s.almoxarifado),
    ).toEqual([1, 2]);
    expectProblem(await fetchJson('/v1/almoxarifados', { UnidadeId: 'abc' }), 400);
  });
});

describe('GET /v1/materiais', () => {
  it('lists active materials without EPIs', async () => {
    const { body } = await fetchJson('/v1/materiais');
    for (const row of body) expectShape(row, MATERIAL_SHAPE);
    const expected = company.materials.filter((m) => m.isAtivo && !m.isEpi);
    expect(body).toHaveLength(expected.length);
    expect(body.length).toBeGreaterThanOrEqual(55);
    expect(body.some((m) => m.isEpi || !m.isAtivo || m.status !== 1)).toBe(false);
    expect(company.materials.some((m) => m.isEpi)).toBe(true);
    expect(body.map((m) => m.nome)).toContain('Lâmpada LED tubular 18W');
  });

  it('filters codigo by exact equality', async () => {
    const exact = await fetchJson('/v1/materiais?codigo=MAT-00123');
    expect(exact.body).toHaveLength(1);
    expect(exact.body[0]?.codigo).toBe('MAT-00123');
    expect((await fetchJson('/v1/materiais?codigo=MAT-0012')).body).toEqual([]);
    expect((await fetchJson('/v1/materiais?codigo=mat-00123')).body).toEqual([]);
  });

  it('filters to the materials registered in a stockroom', async () => {
    const { body } = await fetchJson('/v1/materiais?almoxarifadoId=2');
    const registered = company.stockrooms.find((s) => s.record.almoxarifado === 2)?.materials ?? new Set();
    expect(body.length).toBeGreaterThan(0);
    expect(body.length).toBeLessThan((await fetchJson('/v1/materiais')).body.length);
    expect(body.every((m) => registered.has(m.material as number))).toBe(true);
  });
});

describe('GET /v1/materiais/tipos and /categorias', () => {
  it('lists types and categories', async () => {
    const types = await fetchJson('/v1/materiais/tipos');
    expect(types.body.length).toBeGreaterThanOrEqual(10);
    for (const t of types.body) expectShape(t, { tipoMaterialId: 'int', nome: 'string?' });
    const categories = await fetchJson('/v1/materiais/categorias');
    expect(categories.body.length).toBeGreaterThanOrEqual(10);
    for (const c of categories.body) expectShape(c, { categoriaMaterialId: 'int', nome: 'string?' });
  });
});

describe('GET /v1/solicitacoes-materiais', () => {
  it('defaults to every status, page 1 of 50, with rowNumber and totalRows of the whole result', async () => {
    const { body } = await fetchJson('/v1/solicitacoes-materiais');
    expect(body).toHaveLength(50);
    for (const row of body) expectShape(row, REQUEST_SHAPE);
    expect(body.map((r) => r.rowNumber)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(body.every((r) => r.totalRows === company.requests.length)).toBe(true);
    expect(new Set(body.map((r) => r.statusAndamentoSolicitacao)).size).toBeGreaterThan(2);
  });

  it('pages with Page/PageSize, parameter names in any case', async () => {
    const total = company.requests.length;
    const last = Math.ceil(total / 20);
    const { body } = await fetchJson(`/v1/solicitacoes-materiais?page=${last}&pagesize=20`);
    expect(body).toHaveLength(total - 20 * (last - 1));
    expect(body[0]?.rowNumber).toBe(20 * (last - 1) + 1);
    expect(body.at(-1)?.rowNumber).toBe(total);
    expect((await fetchJson(`/v1/solicitacoes-materiais?Page=${last + 1}&PageSize=20`)).body).toEqual([]);
    expect((await fetchJson('/v1/solicitacoes-materiais?PageSize=100')).body).toHaveLength(100);
  });

  it('refuses PageSize outside 1..100, Page below 1 and non-numeric paging', async () => {
    for (const query of ['PageSize=0', 'PageSize=101', 'Page=0', 'Page=-1', 'Page=abc']) {
      expectProblem(await fetchJson(`/v1/solicitacoes-materiais?${query}`), 400);
    }
  });

  it('filters a comma-separated Status list; 0 means all', async () => {
    const { body } = await fetchJson('/v1/solicitacoes-materiais?Status=1,2&PageSize=100');
    const expected = company.requests.filter((r) =>
      [1, 2].includes(r.record.statusAndamentoSolicitacao ?? 0),
    );
    expect(body).toHaveLength(expected.length);
    expect(body.every((r) => r.statusAndamentoSolicitacao === 1 || r.statusAndamentoSolicitacao === 2)).toBe(
      true,
    );
    expect((await fetchJson('/v1/solicitacoes-materiais?Status=0')).body[0]?.totalRows).toBe(
      company.requests.length,
    );
  });

  it('answers 500 ErrorCommandResult for a non-numeric Status value', async () => {
    const { status, body, response } = await fetchJson<Record<string, unknown>>(
      '/v1/solicitacoes-materiais?Status=1,abc',
    );
    expect(status).toBe(500);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(body).sort()).toEqual(['hash', 'type']);
    expect(body.type).toBe('Unexpected Error');
    expect(body.hash).toMatch(/^[0-9a-f]{16,}$/);
  });

  it('filters by the request date and limits the period to 12 months', async () => {
    const now = Date.now();
    const from = new Date(now - 30 * DAY).toISOString();
    const { body } = await fetchJson(`/v1/solicitacoes-materiais?DataInicial=${from}&PageSize=100`);
    const expected = company.requests.filter((r) => r.createdAt >= now - 30 * DAY);
    expect(expected.length).toBeGreaterThan(20);
    expect(body[0]?.totalRows).toBe(expected.length);

    const tooLong = await fetchJson(
      `/v1/solicitacoes-materiais?DataInicial=2025-01-01T00:00:00Z&DataFinal=2026-01-02T00:00:00Z`,
    );
    expectProblem(tooLong, 400, /12 meses/);
    const twelve = await fetchJson(
      `/v1/solicitacoes-materiais?DataInicial=2025-01-01T00:00:00Z&DataFinal=2026-01-01T00:00:00Z`,
    );
    expect(twelve.status).toBe(200);
    const startOnly = new Date(now - 400 * DAY).toISOString();
    expectProblem(await fetchJson(`/v1/solicitacoes-materiais?DataInicial=${startOnly}`), 400, /12 meses/);
    expectProblem(await fetchJson('/v1/solicitacoes-materiais?DataInicial=ontem'), 400);
  });

  it('searches every word (AND) in number, stockroom, requester and status, ignoring accents', async () => {
    const { body } = await fetchJson('/v1/solicitacoes-materiais?Search=DEPOSITO%20cancelada&PageSize=100');
    expect(body.length).toBeGreaterThan(0);
    for (const row of body) {
      expect(fold(row.almoxarifado_Nome)).toContain('deposito');
      expect(row.statusAndamentoSolicitacao_Nome).toBe('Cancelada');
    }
    const byNumber = await fetchJson('/v1/solicitacoes-materiais?Search=1250');
    expect(byNumber.body.map((r) => r.solicitacaoMaterialId)).toEqual([1250]);
    const requester = company.requests[0]?.record.solicitante_Nome ?? '';
    const byName = await fetchJson(
      `/v1/solicitacoes-materiais?Search=${encodeURIComponent(requester)}&PageSize=100`,
    );
    expect(byName.body.every((r) => r.solicitante_Nome === requester)).toBe(true);
  });

  it('filters by stockroom, requester, purchase and ComCompraMaterial', async () => {
    const byRoom = await fetchJson('/v1/solicitacoes-materiais?AlmoxarifadoId=2&PageSize=100');
    expect(byRoom.body.length).toBeGreaterThan(0);
    expect(byRoom.body.every((r) => r.almoxarifado === 2)).toBe(true);

    const requester = company.requests[5]?.record.solicitante ?? 0;
    const mine = await fetchJson(`/v1/solicitacoes-materiais?SolicitanteId=${requester}&PageSize=100`);
    expect(mine.body.every((r) => r.solicitante === requester)).toBe(true);
    expect(mine.body.length).toBe(company.requests.filter((r) => r.record.solicitante === requester).length);

    const purchase = company.purchases.find((p) => p.requestIds.length >= 2 && p.record.status !== 5);
    if (!purchase) throw new Error('no purchase with linked requests');
    const linked = await fetchJson(
      `/v1/solicitacoes-materiais?CompraMaterialId=${purchase.record.compraMaterialId}`,
    );
    expect(linked.body.map((r) => r.solicitacaoMaterialId).sort()).toEqual([...purchase.requestIds].sort());

    const withPurchase = (await fetchJson('/v1/solicitacoes-materiais?ComCompraMaterial=true&PageSize=1'))
      .body;
    const without = (await fetchJson('/v1/solicitacoes-materiais?ComCompraMaterial=false&PageSize=1')).body;
    expect((withPurchase[0]?.totalRows ?? 0) + (without[0]?.totalRows ?? 0)).toBe(company.requests.length);
    expect(withPurchase[0]?.totalRows).toBeGreaterThan(5);
    expectProblem(await fetchJson('/v1/solicitacoes-materiais?ComCompraMaterial=talvez'), 400);
  });
});

describe('GET /v1/solicitacoes-materiais/{id}/itens and /historico', () => {
  it('lists items of the request, only those whose material is registered in its stockroom', async () => {
    const request = company.requests.find((r) => {
      const registered = company.stockrooms.find(
        (s) => s.record.almoxarifado === r.record.almoxarifado,
      )?.materials;
      return r.items.some((i) => !registered?.has(i.material));
    });
    if (!request) throw new Error('no request with an unregistered material');
    const id = request.record.solicitacaoMaterialId;
    const { body } = await fetchJson(`/v1/solicitacoes-materiais/${id}/itens`);
    for (const item of body) expectShape(item, ITEM_SHAPE);
    expect(body.length).toBe(request.items.length - 1);
    expect(body.map((i) => i.rowNumber)).toEqual(body.map((_, index) => index + 1));
    expect(body.every((i) => i.solicitacaoMaterialId === id)).toBe(true);
  });

  it('has requests with items below their minimum stock', async () => {
    const { body } = await fetchJson('/v1/solicitacoes-materiais?Status=1,2,5&PageSize=20');
    let below = 0;
    for (const request of body) {
      const items = (await fetchJson(`/v1/solicitacoes-materiais/${request.solicitacaoMaterialId}/itens`))
        .body;
      below += items.filter(
        (i) => i.estoqueMinimo !== null && (i.estoqueAtual as number) < (i.estoqueMinimo as number),
      ).length;
    }
    expect(below).toBeGreaterThan(0);
  });

  it('lists the history oldest first, ending in the request status, paginated with page/pageSize', async () => {
    const request = company.requests.find((r) => r.history.length >= 4);
    if (!request) throw new Error('no long history');
    const id = request.record.solicitacaoMaterialId;
    const { body } = await fetchJson(`/v1/solicitacoes-materiais/${id}/historico`);
    for (const entry of body) expectShape(entry, HISTORY_SHAPE);
    const times = body.map((e) => Date.parse(e.data as string));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(body[0]?.status).toBe(1);
    expect(body.at(-1)?.status).toBe(request.record.statusAndamentoSolicitacao);
    expect(body.every((e) => e.totalRows === request.history.length)).toBe(true);

    const second = await fetchJson(`/v1/solicitacoes-materiais/${id}/historico?page=2&pageSize=2`);
    expect(second.body.map((e) => e.rowNumber)).toEqual([3, 4].slice(0, request.history.length - 2));
    expect(second.body[0]?.andamentoSolicitacao).toBe(body[2]?.andamentoSolicitacao);
    expectProblem(await fetchJson(`/v1/solicitacoes-materiais/${id}/historico?pageSize=500`), 400);
  });

  it('answers 404 for an unknown request and 400 for a non-integer id', async () => {
    for (const path of ['itens', 'historico']) {
      expectProblem(
        await fetchJson(`/v1/solicitacoes-materiais/999/${path}`),
        404,
        /^Solicitação de material 999 não encontrada\.$/,
      );
      expectProblem(await fetchJson(`/v1/solicitacoes-materiais/abc/${path}`), 400);
      expectProblem(await fetchJson(`/v1/solicitacoes-materiais/1.5/${path}`), 400);
    }
  });
});

describe('purchases and receipts', () => {
  it('lists purchases without the grouped ones (status 5)', async () => {
    const { body } = await fetchJson('/v1/compras-materiais?PageSize=100');
    const grouped = company.purchases
      .filter((p) => p.record.status === 5)
      .map((p) => p.record.compraMaterialId);
    expect(grouped.length).toBeGreaterThan(0);
    expect(body).toHaveLength(company.purchases.length - grouped.length);
    for (const row of body) {
      expectShape(row, { compraMaterialId: 'int', totalRows: 'int', rowNumber: 'int' }, false);
      expect(row.status).not.toBe(5);
      expect(grouped).not.toContain(row.compraMaterialId);
    }
    expect((await fetchJson('/v1/compras-materiais?Status=5')).body).toEqual([]);
    const received = await fetchJson('/v1/compras-materiais?Status=3,4&PageSize=100');
    expect(received.body.length).toBeGreaterThan(0);
    expect(received.body.every((p) => p.status === 3 || p.status === 4)).toBe(true);
    expect((await fetchJson('/v1/compras-materiais?Status=x')).status).toBe(500);
  });

  it('filters purchases by stockroom and supplier and pages them', async () => {
    const byRoom = await fetchJson('/v1/compras-materiais?AlmoxarifadoId=1&PageSize=100');
    expect(byRoom.body.every((p) => p.almoxarifado === 1)).toBe(true);
    const supplier = company.purchases.find((p) => p.record.fornecedor !== null)?.record.fornecedor;
    const bySupplier = await fetchJson(`/v1/compras-materiais?FornecedorId=${supplier}&PageSize=100`);
    expect(bySupplier.body.length).toBeGreaterThan(0);
    expect(bySupplier.body.every((p) => p.fornecedor === supplier)).toBe(true);
    const page2 = await fetchJson('/v1/compras-materiais?Page=2&PageSize=10');
    expect(page2.body[0]?.rowNumber).toBe(11);
  });

  it('lists the requests of a purchase, grouped ones included; 404 for an unknown purchase', async () => {
    const grouped = company.purchases.find((p) => p.record.status === 5 && p.requestIds.length > 0);
    if (!grouped) throw new Error('no grouped purchase with requests');
    const { body } = await fetchJson(`/v1/compras-materiais/${grouped.record.compraMaterialId}/solicitacoes`);
    for (const row of body) expectShape(row, REQUEST_SHAPE);
    expect(body.map((r) => r.solicitacaoMaterialId)).toEqual(grouped.requestIds);
    expectProblem(await fetchJson('/v1/compras-materiais/999/solicitacoes'), 404, /999/);
    expectProblem(await fetchJson('/v1/compras-materiais/x/solicitacoes'), 400);
  });

  it('lists receipts, the date filter applying to the purchase date', async () => {
    const { body } = await fetchJson('/v1/entradas-materiais?PageSize=100');
    expect(body).toHaveLength(company.receipts.length);
    expect(body.length).toBeGreaterThanOrEqual(15);
    for (const row of body) expectShape(row, { totalRows: 'int', rowNumber: 'int' }, false);

    const receipt = company.receipts.find((r) => r.at - r.purchaseAt > DAY);
    if (!receipt) throw new Error('no receipt a day after its purchase');
    const around = (ms: number) =>
      `DataInicial=${new Date(ms - 60_000).toISOString()}&DataFinal=${new Date(ms + 60_000).toISOString()}`;
    const byPurchase = await fetchJson(`/v1/entradas-materiais?${around(receipt.purchaseAt)}`);
    expect(byPurchase.body.map((r) => r.entradaMaterialId)).toContain(receipt.record.entradaMaterialId);
    const byReceipt = await fetchJson(`/v1/entradas-materiais?${around(receipt.at)}`);
    expect(byReceipt.body.map((r) => r.entradaMaterialId)).not.toContain(receipt.record.entradaMaterialId);

    const byOrder = await fetchJson(`/v1/entradas-materiais?OrdemCompra=${receipt.record.ordemCompra}`);
    expect(byOrder.body.every((r) => r.ordemCompra === receipt.record.ordemCompra)).toBe(true);
    expect(byOrder.body.length).toBeGreaterThan(0);
  });

  it('lists purchases of a stockroom with a pending receivable balance', async () => {
    let total = 0;
    for (const id of [1, 2, 3]) {
      const { body } = await fetchJson(`/v1/entradas-materiais/compras?almoxarifadoId=${id}`);
      for (const row of body) {
        expectShape(row, { compraMaterialId: 'int' }, false);
        expect(row.almoxarifado).toBe(id);
        expect((row.quantidadeComprada as number) - (row.quantidadeRecebida as number)).toBeGreaterThan(0);
        expect(row.status).not.toBe(5);
      }
      total += body.length;
    }
    expect(total).toBeGreaterThan(3);
    expect((await fetchJson('/v1/entradas-materiais/compras')).body).toEqual([]);
  });
});
