import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { expectProblem, get, login } from './helpers.js';

const DATA_PATHS = [
  '/v1/usuarios',
  '/v1/almoxarifados',
  '/v1/materiais',
  '/v1/materiais/tipos',
  '/v1/materiais/categorias',
  '/v1/solicitacoes-materiais',
  '/v1/solicitacoes-materiais/1250/itens',
  '/v1/solicitacoes-materiais/1250/historico',
  '/v1/compras-materiais',
  '/v1/compras-materiais/321/solicitacoes',
  '/v1/entradas-materiais',
  '/v1/entradas-materiais/compras?almoxarifadoId=1',
];

const BARE_401 = new Set(['/v1/materiais/tipos', '/v1/materiais/categorias']);

let sandbox: Sandbox;
let demo: string;
let demo2: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  demo = (await login(sandbox.authUrl)).token;
  demo2 = (await login(sandbox.authUrl, 'demo2')).token;
});

afterAll(async () => {
  await sandbox.close();
});

describe('authentication of data calls', () => {
  it('answers 200 with a token on every endpoint', async () => {
    for (const path of DATA_PATHS) expect((await get(sandbox.baseUrl, path, demo)).status, path).toBe(200);
  });

  it('answers 401 ProblemDetails without a token, but no body on the type and category lists', async () => {
    for (const path of DATA_PATHS) {
      const result = await get(sandbox.baseUrl, path, null);
      if (BARE_401.has(path)) {
        expect(result.status, path).toBe(401);
        expect(result.text, path).toBe('');
        expect(result.response.headers.get('content-length')).toBe('0');
      } else {
        expectProblem(result, 401);
      }
      expect(result.response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });

  it('refuses a malformed token, a token signed by another server, and the refresh token', async () => {
    const other = await startSandbox({ port: 0 });
    try {
      const foreign = (await login(other.authUrl)).token;
      expectProblem(await get(sandbox.baseUrl, '/v1/almoxarifados', foreign), 401);
    } finally {
      await other.close();
    }
    expectProblem(await get(sandbox.baseUrl, '/v1/almoxarifados', 'not-a-jwt'), 401);
    const pair = await login(sandbox.authUrl);
    expectProblem(await get(sandbox.baseUrl, '/v1/almoxarifados', pair.refreshToken), 401);
    const tampered = `${pair.token.slice(0, -2)}xx`;
    expectProblem(await get(sandbox.baseUrl, '/v1/almoxarifados', tampered), 401);
  });
});

describe('company scoping', () => {
  it('answers 403 for an EmpresaId the user cannot access, header or (users) query', async () => {
    expectProblem(await get(sandbox.baseUrl, '/v1/almoxarifados', demo, { EmpresaId: '2' }), 403);
    expectProblem(await get(sandbox.baseUrl, '/v1/solicitacoes-materiais', demo2, { EmpresaId: '1' }), 403);
    expectProblem(await get(sandbox.baseUrl, '/v1/usuarios?EmpresaId=2', demo), 403);
    expect((await get(sandbox.baseUrl, '/v1/almoxarifados', demo, { EmpresaId: '1' })).status).toBe(200);
    expectProblem(await get(sandbox.baseUrl, '/v1/almoxarifados', demo, { EmpresaId: 'um' }), 400);
  });

  it('keeps the two demo companies apart', async () => {
    type Row = Record<string, unknown>;
    const rooms = await get<Row[]>(sandbox.baseUrl, '/v1/almoxarifados', demo2);
    expect(rooms.body.map((s) => s.almoxarifado)).toEqual([21, 22]);

    const list1 = (await get<Row[]>(sandbox.baseUrl, '/v1/solicitacoes-materiais?PageSize=100', demo)).body;
    const list2 = (await get<Row[]>(sandbox.baseUrl, '/v1/solicitacoes-materiais?PageSize=100', demo2)).body;
    expect(list2.length).toBeGreaterThanOrEqual(15);
    const ids1 = new Set(list1.map((r) => r.solicitacaoMaterialId));
    expect(list2.some((r) => ids1.has(r.solicitacaoMaterialId))).toBe(false);
    expect(list2.every((r) => r.almoxarifado === 21 || r.almoxarifado === 22)).toBe(true);

    const foreignId = list2[0]?.solicitacaoMaterialId;
    expectProblem(await get(sandbox.baseUrl, `/v1/solicitacoes-materiais/${foreignId}/itens`, demo), 404);
    expectProblem(await get(sandbox.baseUrl, '/v1/solicitacoes-materiais/1250/itens', demo2), 404);

    const materials1 = (await get<Row[]>(sandbox.baseUrl, '/v1/materiais', demo)).body;
    const materials2 = (await get<Row[]>(sandbox.baseUrl, '/v1/materiais', demo2)).body;
    expect(materials2.length).toBeGreaterThanOrEqual(12);
    expect(materials2.every((m) => m.empresa === 2)).toBe(true);
    const codes1 = new Set(materials1.map((m) => m.codigo));
    expect(materials2.some((m) => codes1.has(m.codigo))).toBe(false);

    const users2 = (await get<Row[]>(sandbox.baseUrl, '/v1/usuarios', demo2)).body;
    const userIds1 = new Set(
      (await get<Row[]>(sandbox.baseUrl, '/v1/usuarios', demo)).body.map((u) => u.usuario),
    );
    expect(users2.some((u) => userIds1.has(u.usuario))).toBe(false);

    const purchases2 = (await get<Row[]>(sandbox.baseUrl, '/v1/compras-materiais', demo2)).body;
    expect(purchases2.length).toBeGreaterThan(0);
    expectProblem(
      await get(
        sandbox.baseUrl,
        `/v1/compras-materiais/${purchases2[0]?.compraMaterialId}/solicitacoes`,
        demo,
      ),
      404,
    );
  });

  it('restricts to the stockrooms of the UnidadeId unit', async () => {
    type Row = Record<string, unknown>;
    const purchases = await get<Row[]>(sandbox.baseUrl, '/v1/compras-materiais?PageSize=100', demo, {
      UnidadeId: '103',
    });
    expect(purchases.body.length).toBeGreaterThan(0);
    expect(purchases.body.every((p) => p.almoxarifado === 3)).toBe(true);
    const request = sandbox.data.companies.get(1)?.requests.find((r) => r.record.almoxarifado === 1);
    const path = `/v1/solicitacoes-materiais/${request?.record.solicitacaoMaterialId}/itens`;
    expect((await get(sandbox.baseUrl, path, demo, { UnidadeId: '101' })).status).toBe(200);
    expectProblem(await get(sandbox.baseUrl, path, demo, { UnidadeId: '103' }), 404);
  });
});

describe('routing and content negotiation', () => {
  it('answers 404 ProblemDetails on unknown paths and 405 on other methods', async () => {
    expectProblem(await get(sandbox.baseUrl, '/v1/ocorrencias', demo), 404);
    expectProblem(await get(sandbox.baseUrl, '/v2/almoxarifados', demo), 404);
    const post = await fetch(`${sandbox.baseUrl}/v1/almoxarifados`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${demo}` },
    });
    expect(post.status).toBe(405);
  });

  it('answers application/json by default and text/json or text/plain renditions on request', async () => {
    const json = await get(sandbox.baseUrl, '/v1/almoxarifados', demo);
    expect(json.response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    for (const type of ['text/plain', 'text/json']) {
      const text = await get(sandbox.baseUrl, '/v1/almoxarifados', demo, { Accept: type });
      expect(text.status).toBe(200);
      expect(text.response.headers.get('content-type')).toBe(`${type}; charset=utf-8`);
      expect(text.text).toBe(json.text);
    }
    const preferred = await get(sandbox.baseUrl, '/v1/almoxarifados', demo, {
      Accept: 'text/plain;q=0.5, application/json',
    });
    expect(preferred.response.headers.get('content-type')).toMatch(/^application\/json/);
    const weighted = await get(sandbox.baseUrl, '/v1/almoxarifados', demo, {
      Accept: 'application/json;q=0.2, text/plain',
    });
    expect(weighted.response.headers.get('content-type')).toMatch(/^text\/plain/);
  });
});
