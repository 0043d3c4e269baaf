import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { expectProblem, get, login } from './helpers.js';

type Row = Record<string, unknown>;

const C1 = DEMO_FACTS.company1;
const C2 = DEMO_FACTS.company2;

let sandbox: Sandbox;
let demo: string;
let demo2: string;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  demo = (await login(sandbox.authUrl, C1.login, C1.password)).token;
  demo2 = (await login(sandbox.authUrl, C2.login, C2.password)).token;
});

afterAll(async () => {
  await sandbox.close();
});

const list = async (path: string, token = demo) => {
  const result = await get<Row[]>(sandbox.baseUrl, path, token);
  expect(result.status, path).toBe(200);
  return result.body;
};

describe('DEMO_FACTS hold against the running sandbox', () => {
  it('users and stockrooms', async () => {
    const users = await list('/v1/usuarios');
    expect(users).toContainEqual(expect.objectContaining({ usuario: C1.user.usuario, email: C1.user.email }));
    expect(users).toContainEqual(expect.objectContaining({ usuario: C1.demoUser.usuario, login: 'demo' }));
    expect(
      (await list('/v1/almoxarifados')).map((s) => ({ almoxarifado: s.almoxarifado, nome: s.nome })),
    ).toEqual(C1.activeStockrooms);
    expect(
      (await list(`/v1/almoxarifados?unidadeId=${C1.unitServedOnlyBy3}`)).map((s) => s.almoxarifado),
    ).toEqual([3]);
    const users2 = await list('/v1/usuarios', demo2);
    expect(users2).toContainEqual(
      expect.objectContaining({ usuario: C2.demoUser.usuario, email: C2.demoUser.email }),
    );
    expect(
      (await list('/v1/almoxarifados', demo2)).map((s) => ({ almoxarifado: s.almoxarifado, nome: s.nome })),
    ).toEqual(C2.activeStockrooms);
  });

  it('requests', async () => {
    for (const [facts, token] of [
      [C1, demo],
      [C2, demo2],
    ] as const) {
      const rows = await list('/v1/solicitacoes-materiais?PageSize=100&Page=1', token);
      expect(rows[0]?.totalRows).toBe(facts.requestIds.count);
      expect(rows[0]?.solicitacaoMaterialId).toBe(facts.requestIds.last);
      const lastPage = Math.ceil(facts.requestIds.count / 100);
      const tail = await list(`/v1/solicitacoes-materiais?PageSize=100&Page=${lastPage}`, token);
      expect(tail.at(-1)?.solicitacaoMaterialId).toBe(facts.requestIds.first);
    }
    for (const id of C1.requestsWithItemsBelowMinimum) {
      const items = await list(`/v1/solicitacoes-materiais/${id}/itens`);
      expect(
        items.some(
          (i) => i.estoqueMinimo !== null && (i.estoqueAtual as number) < (i.estoqueMinimo as number),
        ),
        `request ${id}`,
      ).toBe(true);
      const history = await list(`/v1/solicitacoes-materiais/${id}/historico`);
      expect([1, 2, 5]).toContain(history.at(-1)?.status);
    }
    const company = sandbox.data.companies.get(1);
    const hidden = company?.requests.find((r) => r.record.solicitacaoMaterialId === C1.requestWithHiddenItem);
    const items = await list(`/v1/solicitacoes-materiais/${C1.requestWithHiddenItem}/itens`);
    expect(items.length).toBe((hidden?.items.length ?? 0) - 1);
    expectProblem(
      await get(sandbox.baseUrl, `/v1/solicitacoes-materiais/${C1.unknownRequestId}/itens`, demo),
      404,
    );
  });

  it('purchases', async () => {
    for (const [facts, token] of [
      [C1, demo],
      [C2, demo2],
    ] as const) {
      const { compraMaterialId, requestIds } = facts.purchaseWithRequests;
      const linked = await list(`/v1/compras-materiais/${compraMaterialId}/solicitacoes`, token);
      expect(linked.map((r) => r.solicitacaoMaterialId)).toEqual(requestIds);
      const listed = (await list('/v1/compras-materiais?PageSize=100', token)).map((p) => p.compraMaterialId);
      for (const grouped of facts.groupedPurchases) {
        expect(listed).not.toContain(grouped.compraMaterialId);
        expect(listed).toContain(grouped.groupedInto);
        const linkedToGrouped = await list(
          `/v1/compras-materiais/${grouped.compraMaterialId}/solicitacoes`,
          token,
        );
        expect(linkedToGrouped.length).toBeGreaterThan(0);
      }
    }
    for (const [stockroom, ids] of Object.entries(C1.pendingPurchases)) {
      const pending = await list(`/v1/entradas-materiais/compras?almoxarifadoId=${stockroom}`);
      expect(pending.map((p) => p.compraMaterialId)).toEqual(ids);
    }
    const cancelled = await list(`/v1/compras-materiais?Status=6`);
    expect(cancelled.map((p) => p.compraMaterialId)).toEqual([C1.cancelledPurchase]);
  });

  it('materials', async () => {
    const byCode = await list(`/v1/materiais?codigo=${C1.material.codigo}`);
    expect(byCode.map((m) => m.nome)).toEqual([C1.material.nome]);
    const codes = (await list('/v1/materiais')).map((m) => m.codigo);
    for (const code of C1.unlistedMaterialCodes) expect(codes).not.toContain(code);
  });

  it('the active-session login', async () => {
    const form = new FormData();
    form.set('login', DEMO_FACTS.activeSessionLogin.login);
    form.set('Password', DEMO_FACTS.activeSessionLogin.password);
    form.set('Plataform', '6');
    const response = await fetch(`${sandbox.authUrl}/v1/auth/`, { method: 'POST', body: form });
    expect(await response.json()).toMatchObject({ success: false, hasActiveSession: true });
  });
});
