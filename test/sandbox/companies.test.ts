import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import {
  DEMO_FORM,
  expectProblem,
  expectShape,
  get,
  listAll,
  login,
  postAdvance,
  postLogin,
  REQUEST_SHAPE,
} from './helpers.js';

/** One sandbox serving the demo companies and 1,000 generated ones. */

type Row = Record<string, unknown> & { rowNumber: number; totalRows: number };

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, extraCompanies: 1000, seed: 12 });
});

afterAll(async () => {
  await sandbox.close();
});

async function rows(path: string, token: string, headers: Record<string, string> = {}): Promise<Row[]> {
  const result = await get<Row[]>(sandbox.baseUrl, path, token, headers);
  expect(result.status, path).toBe(200);
  return result.body;
}

describe('a sandbox with 1,000 generated companies', () => {
  it('builds none of them until used', () => {
    expect(sandbox.data.empresaIds).toHaveLength(1002);
    expect([...sandbox.data.companies.keys()]).toEqual([1, 2]);
  });

  it('lets a generated company log in and answers its data, scoped to it', async () => {
    const { token } = await login(sandbox.authUrl, 'empresa777');
    const stockrooms = await rows('/v1/almoxarifados', token);
    expect(stockrooms.length).toBeGreaterThan(0);
    const requests = await listAll<Row>(sandbox.baseUrl, '/v1/solicitacoes-materiais', token);
    expect(requests.length).toBeGreaterThanOrEqual(18);
    for (const row of requests) expectShape(row, REQUEST_SHAPE);
    const ids = requests.map((r) => r.solicitacaoMaterialId as number);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const users = await rows('/v1/usuarios', token);
    expect(users).toContainEqual(
      expect.objectContaining({ login: 'empresa777', email: 'usuario.empresa@empresa777.exemplo.com.br' }),
    );
    const [newest] = requests;
    const items = await rows(`/v1/solicitacoes-materiais/${newest?.solicitacaoMaterialId}/itens`, token);
    expect(items.length).toBeGreaterThan(0);
    for (const s of stockrooms) {
      const pending = await rows(`/v1/entradas-materiais/compras?almoxarifadoId=${s.almoxarifado}`, token);
      expect(
        pending.every((p) => p.almoxarifado === s.almoxarifado && (p.quantidadePendente as number) > 0),
      ).toBe(true);
    }
    expect((await rows('/v1/materiais', token)).every((m) => (m.codigo as string).startsWith('E777-'))).toBe(
      true,
    );
    expect([...sandbox.data.companies.keys()]).toEqual([1, 2, 777]);
  });

  it('keeps companies apart: no company reads another, ids of one are unknown to the other', async () => {
    const mine = (await login(sandbox.authUrl, 'empresa1002')).token;
    const demo = (await login(sandbox.authUrl)).token;
    expectProblem(await get(sandbox.baseUrl, '/v1/almoxarifados', mine, { EmpresaId: '1' }), 403);
    expectProblem(await get(sandbox.baseUrl, '/v1/almoxarifados', demo, { EmpresaId: '1002' }), 403);
    const [own] = await rows('/v1/solicitacoes-materiais?PageSize=1', mine);
    expectProblem(
      await get(sandbox.baseUrl, `/v1/solicitacoes-materiais/${own?.solicitacaoMaterialId}/itens`, demo),
      404,
    );
    expectProblem(
      await get(
        sandbox.baseUrl,
        `/v1/solicitacoes-materiais/${DEMO_FACTS.company1.requestIds.last}/itens`,
        mine,
      ),
      404,
    );
    const beyond = await postLogin(sandbox.authUrl, {
      ...DEMO_FORM,
      login: 'empresa1003',
      Password: 'empresa1003',
    });
    expect(beyond.status).toBe(401);
    const wrongPassword = await postLogin(sandbox.authUrl, {
      ...DEMO_FORM,
      login: 'empresa5',
      Password: 'empresa6',
    });
    expect(wrongPassword.status).toBe(401);
  });

  it('moves a generated company along without touching the demo data', async () => {
    const demo = (await login(sandbox.authUrl)).token;
    const demoBefore = await listAll<Row>(sandbox.baseUrl, '/v1/solicitacoes-materiais', demo);
    expect(demoBefore[0]?.totalRows).toBe(DEMO_FACTS.company1.requestIds.count);
    const { token } = await login(sandbox.authUrl, 'empresa42');
    const before = await rows('/v1/solicitacoes-materiais?PageSize=1', token);
    const { status, body } = await postAdvance(sandbox.adminUrl, { login: 'empresa42', kinds: ['novas'] });
    expect(status).toBe(200);
    const [change] = (body as { changes: { empresa: number; solicitacaoMaterialId: number }[] }).changes;
    expect(change?.empresa).toBe(42);
    const after = await rows('/v1/solicitacoes-materiais?PageSize=1', token);
    expect(after[0]).toMatchObject({
      solicitacaoMaterialId: change?.solicitacaoMaterialId,
      totalRows: (before[0]?.totalRows ?? 0) + 1,
    });
    expect(await listAll<Row>(sandbox.baseUrl, '/v1/solicitacoes-materiais', demo)).toEqual(demoBefore);
  });
});
