import { describe, expect, it } from 'vitest';
import { SandboxControl } from '../../src/sandbox/control.js';
import { buildDemoData } from '../../src/sandbox/data.js';
import { companyProblems } from './invariants.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-02-17T15:42:11.123Z');
const DATE_FIELDS = new Set(['data', 'dataCompra', 'dataEntrada', 'dataCadastro', 'prazoDevolucao']);

/** The data as JSON, without dates (which move with the clock) nor timestamps. */
function withoutDates(now: number): string {
  const data = buildDemoData(now);
  const companies = [...data.companies.values()].map((c) => ({
    ...c,
    stock: [...c.stock.entries()],
    stockrooms: c.stockrooms.map((s) => ({ ...s, materials: [...s.materials] })),
    requests: c.requests.map(({ createdAt: _c, ...r }) => r),
    purchases: c.purchases.map(({ at: _a, ...p }) => p),
    receipts: c.receipts.map(({ at: _a, purchaseAt: _p, ...r }) => r),
  }));
  return JSON.stringify({ companies, accounts: data.accounts }, (key, value) =>
    DATE_FIELDS.has(key) ? '<date>' : value,
  );
}

describe('demo data', () => {
  it('is the same whatever the clock, except for dates that keep their distance to it', () => {
    const later = NOW + 40 * DAY + 7 * 3_600_000 + 13_457;
    expect(withoutDates(later)).toBe(withoutDates(NOW));
    const a = buildDemoData(NOW).companies.get(1);
    const b = buildDemoData(later).companies.get(1);
    a?.requests.forEach((request, i) => {
      const shift = (b?.requests[i]?.createdAt ?? 0) - request.createdAt;
      expect(Math.abs(shift - (later - NOW))).toBeLessThan(60_000);
    });
  });

  it('spreads company 1 requests over about 13 months, most in the last 60 days, none in the future', () => {
    const company = buildDemoData(NOW).companies.get(1);
    const ages = (company?.requests ?? []).map((r) => (NOW - r.createdAt) / DAY);
    expect(ages.length).toBeGreaterThanOrEqual(100);
    expect(Math.min(...ages)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...ages)).toBeGreaterThan(365);
    expect(Math.max(...ages)).toBeLessThan(400);
    expect(ages.filter((a) => a <= 60).length / ages.length).toBeGreaterThan(0.6);
    expect(ages.filter((a) => a <= 30).length).toBeGreaterThan(30);
  });

  it('keeps requests, history, purchases and receipts consistent', () => {
    const data = buildDemoData(NOW);
    for (const company of data.companies.values()) {
      const purchases = new Map(company.purchases.map((p) => [p.record.compraMaterialId, p]));
      const ids = company.requests.map((r) => r.record.solicitacaoMaterialId);
      expect(new Set(ids).size).toBe(ids.length);
      for (const request of company.requests) {
        expect(request.items.length).toBeGreaterThanOrEqual(1);
        expect(request.items.length).toBeLessThanOrEqual(7);
        expect(request.history.length).toBeGreaterThanOrEqual(1);
        expect(request.history.length).toBeLessThanOrEqual(5);
        expect(request.history[0]?.status).toBe(1);
        expect(request.history.at(-1)?.status).toBe(request.record.statusAndamentoSolicitacao);
        const times = request.history.map((h) => Date.parse(h.data));
        expect(times).toEqual([...times].sort((x, y) => x - y));
        expect(Math.max(...times)).toBeLessThanOrEqual(NOW);
        for (const id of request.purchaseIds)
          expect(purchases.get(id)?.requestIds).toContain(request.record.solicitacaoMaterialId);
      }
      for (const purchase of company.purchases) {
        const { record } = purchase;
        expect(record.quantidadeRecebida).toBeLessThanOrEqual(record.quantidadeComprada);
        if (record.status === 5)
          expect(purchases.get(record.compraAgrupadora ?? 0)?.record.status).not.toBe(5);
        const received = company.receipts
          .filter((r) => r.record.compraMaterialId === record.compraMaterialId)
          .reduce((sum, r) => sum + r.record.valorTotal, 0);
        if (record.quantidadeRecebida === 0) expect(received).toBe(0);
        else expect(received).toBeGreaterThan(0);
      }
      for (const receipt of company.receipts) {
        expect(receipt.at).toBeGreaterThanOrEqual(receipt.purchaseAt);
        expect(receipt.at).toBeLessThanOrEqual(NOW);
      }
    }
  });

  it('gives the two companies disjoint ids', () => {
    const [one, two] = [...buildDemoData(NOW).companies.values()];
    if (!one || !two) throw new Error('two companies expected');
    const keys = (c: typeof one) => [
      ...c.users.map((u) => `u${u.record.usuario}`),
      ...c.stockrooms.map((s) => `s${s.record.almoxarifado}`),
      ...c.materials.map((m) => `m${m.material}`),
      ...c.requests.map((r) => `r${r.record.solicitacaoMaterialId}`),
      ...c.purchases.map((p) => `p${p.record.compraMaterialId}`),
      ...c.receipts.map((r) => `e${r.record.entradaMaterialId}`),
    ];
    const first = new Set(keys(one));
    expect(keys(two).filter((k) => first.has(k))).toEqual([]);
  });

  it('keeps every invariant in the demo companies', () => {
    for (const company of buildDemoData(NOW).companies.values())
      expect(companyProblems(company, NOW)).toEqual([]);
  });
});

describe('generated companies', () => {
  it('leave the demo companies exactly as they are', () => {
    const plain = buildDemoData(NOW);
    const many = buildDemoData(NOW, { extraCompanies: 50 });
    for (const empresa of [3, 17, 52]) many.company(empresa);
    expect(JSON.stringify(many.companies.get(1))).toBe(JSON.stringify(plain.companies.get(1)));
    expect(JSON.stringify(many.companies.get(2))).toBe(JSON.stringify(plain.companies.get(2)));
    expect(many.accounts.slice(0, plain.accounts.length)).toEqual(plain.accounts);
  });

  it('are built on first use, each the same whatever else was built first', () => {
    const one = buildDemoData(NOW, { extraCompanies: 1000 });
    expect([...one.companies.keys()]).toEqual([1, 2]);
    expect(one.empresaIds).toHaveLength(1002);
    expect(one.accounts.find((a) => a.login === 'empresa1002')).toMatchObject({
      empresa: 1002,
      password: 'empresa1002',
    });
    const other = buildDemoData(NOW, { extraCompanies: 1000 });
    other.company(400);
    other.company(3);
    expect(JSON.stringify(one.company(3))).toBe(JSON.stringify(other.company(3)));
    expect([...one.companies.keys()]).toEqual([1, 2, 3]);
    expect(one.company(1003)).toBeUndefined();
    expect(one.companies.has(1003)).toBe(false);
  });

  it('have the login user the account names, consistent data and ids of their own', () => {
    const data = buildDemoData(NOW, { extraCompanies: 300 });
    const seen = new Map<string, number>();
    for (const empresa of [1, 2, 3, 4, 150, 301, 302]) {
      const company = data.company(empresa);
      if (!company) throw new Error(`company ${empresa} missing`);
      expect(companyProblems(company, NOW), `company ${empresa}`).toEqual([]);
      const account = data.accounts.find((a) => a.empresa === empresa && a.login !== 'sessao');
      const user = company.users.find((u) => u.record.usuario === account?.usuario);
      expect(user?.record.login).toBe(account?.login);
      if (empresa > 2) {
        expect(company.requests.length).toBeGreaterThanOrEqual(18);
        expect(company.stockrooms.some((s) => s.record.status === 1)).toBe(true);
      }
      const keys = [
        ...company.users.map((u) => `u${u.record.usuario}`),
        ...company.stockrooms.map((s) => `s${s.record.almoxarifado}`),
        ...company.materials.map((m) => `m${m.material}`),
        ...company.requests.map((r) => `r${r.record.solicitacaoMaterialId}`),
        ...company.requests.flatMap((r) => r.items.map((i) => `i${i.solicitacaoMaterialItemId}`)),
        ...company.requests.flatMap((r) => r.history.map((h) => `h${h.andamentoSolicitacao}`)),
        ...company.purchases.map((p) => `p${p.record.compraMaterialId}`),
        ...company.receipts.map((r) => `e${r.record.entradaMaterialId}`),
      ];
      for (const key of keys) {
        expect(seen.get(key) ?? empresa, key).toBe(empresa);
        seen.set(key, empresa);
      }
    }
    // Like the demo companies, nearly all have grouped purchases and purchases pending for requests.
    const companies = Array.from({ length: 50 }, (_, i) => data.company(i + 3));
    const grouped = companies.filter((c) => c?.purchases.some((p) => p.record.status === 5));
    const pending = companies.filter((c) =>
      c?.purchases.some(
        (p) =>
          p.requestIds.length > 0 &&
          p.record.status !== 5 &&
          p.record.quantidadeRecebida < p.record.quantidadeComprada,
      ),
    );
    expect(grouped.length).toBeGreaterThan(40);
    expect(pending.length).toBeGreaterThan(40);
  });
});

describe('advances', () => {
  it('keep every invariant over many changes of every kind, in demo and generated companies', () => {
    let now = NOW;
    const data = buildDemoData(NOW, { extraCompanies: 3 });
    const control = new SandboxControl(data, 99, () => now);
    const kinds = new Set<string>();
    const transitions = new Set<string>();
    for (let round = 0; round < 1500; round++) {
      now += 45_000;
      for (const change of control.advance({ empresaId: data.empresaIds[round % 5], changes: 3 })) {
        kinds.add(change.kind);
        if (change.kind === 'status') transitions.add(`${change.from}>${change.to}`);
      }
    }
    expect([...kinds].sort()).toEqual(['novas', 'recebimentos', 'status']);
    for (const t of ['1>2', '1>6', '2>3', '2>4', '2>5', '2>6', '3>4', '5>3'])
      expect(transitions).toContain(t);
    for (const empresa of data.empresaIds) {
      const company = data.company(empresa);
      if (!company) throw new Error(`company ${empresa} missing`);
      expect(companyProblems(company, now), `company ${empresa}`).toEqual([]);
    }
  });

  it('never take an id of the next company, and stop when the block is used up', () => {
    const data = buildDemoData(NOW, { extraCompanies: 2 });
    const company = data.company(3);
    if (!company) throw new Error('company 3 missing');
    // Brings the company near the end of its block of request ids: the next company's first request.
    const first = data.company(4)?.requests[0]?.record.solicitacaoMaterialId ?? 0;
    const moved = company.requests.at(-1);
    if (!moved) throw new Error('no request');
    moved.record.solicitacaoMaterialId = first - 70;
    const control = new SandboxControl(data, 5, () => NOW + 60_000);
    const made = control.advance({ empresaId: 3, changes: 100, kinds: ['novas'] });
    expect(made.length).toBeGreaterThan(0);
    expect(made.length).toBeLessThan(100);
    expect(Math.max(...company.requests.map((r) => r.record.solicitacaoMaterialId))).toBeLessThan(first);
    expect(control.advance({ empresaId: 3, kinds: ['novas'] })).toEqual([]);
  });
});
