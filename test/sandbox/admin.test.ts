import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type Sandbox,
  type SandboxChange,
  SandboxControlError,
  startSandbox,
} from '../../src/sandbox/server.js';
import { expectProblem, get, listAll, login, postAdvance } from './helpers.js';

/** The sandbox-only controls: POST /_sandbox/advance, GET /_sandbox/changes, the timer, and the seed. */

const START = Date.parse('2026-04-21T11:05:00Z');
const open: Sandbox[] = [];

afterEach(async () => {
  vi.useRealTimers();
  for (const sandbox of open.splice(0)) await sandbox.close();
});

async function start(
  options: Parameters<typeof startSandbox>[0] = {},
): Promise<Sandbox & { clock: { at: number } }> {
  const clock = { at: START };
  const sandbox = await startSandbox({ port: 0, now: () => clock.at, ...options });
  open.push(sandbox);
  return Object.assign(sandbox, { clock });
}

function withoutSeq(changes: readonly SandboxChange[]) {
  return changes.map(({ seq: _seq, ...change }) => change);
}

describe('POST /_sandbox/advance', () => {
  it('makes the changes over HTTP, answers them, and logs them like an in-process advance', async () => {
    const sandbox = await start();
    const { status, body, response } = await postAdvance(sandbox.adminUrl, { login: 'demo2', changes: 3 });
    expect(status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const { changes } = body as { changes: SandboxChange[] };
    expect(changes.length).toBeGreaterThanOrEqual(3);
    expect(changes.every((c) => c.empresa === 2)).toBe(true);
    expect(changes.map((c) => c.seq)).toEqual(changes.map((_, i) => i + 1));
    expect(sandbox.changes).toEqual(changes);

    const empty = await postAdvance(sandbox.adminUrl, '');
    expect(empty.status).toBe(200);
    expect((empty.body as { changes: SandboxChange[] }).changes[0]).toMatchObject({
      empresa: 1,
      seq: changes.length + 1,
    });

    const { token } = await login(sandbox.authUrl, 'demo2');
    const first = changes.find((c) => c.kind === 'novas');
    if (first) {
      const [row] = (
        await get<{ solicitacaoMaterialId: number }[]>(
          sandbox.baseUrl,
          '/v1/solicitacoes-materiais?PageSize=1',
          token,
        )
      ).body;
      expect(row?.solicitacaoMaterialId).toBeGreaterThanOrEqual(first.solicitacaoMaterialId);
    }
  });

  it('refuses what is not a valid advance, with a ProblemDetails naming the cause', async () => {
    const sandbox = await start();
    const cases: [unknown, number, RegExp][] = [
      ['{not json', 400, /JSON/],
      [[1, 2], 400, /object/],
      [{ changes: 0 }, 400, /changes/],
      [{ changes: 101 }, 400, /changes/],
      [{ changes: 1.5 }, 400, /changes/],
      [{ kinds: ['entregas'] }, 400, /kinds/],
      [{ kinds: [] }, 400, /kinds/],
      [{ empresaId: '1' }, 400, /empresaId/],
      [{ login: 'demo', password: 'demo' }, 400, /password/],
      [{ login: 'demo', empresaId: 2 }, 400, /company 1/],
      [{ login: 'ninguem' }, 404, /ninguem/],
      [{ empresaId: 3 }, 404, /company 3/],
    ];
    for (const [body, status, detail] of cases) {
      const result = await postAdvance(sandbox.adminUrl, body);
      expectProblem(result, status, detail);
    }
    expectProblem(await postAdvance(sandbox.adminUrl, { changes: 1 }, 'text/plain'), 415);
    const big = await postAdvance(sandbox.adminUrl, { login: 'x'.repeat(20_000) });
    expect(big.status).toBe(413);
    const wrongMethod = await fetch(`${sandbox.adminUrl}/advance`);
    expect(wrongMethod.status).toBe(405);
    expect((await fetch(`${sandbox.adminUrl}/nada`)).status).toBe(404);
    expect(sandbox.changes).toEqual([]);
    expect(() => sandbox.advance({ changes: 0 })).toThrow(SandboxControlError);
  });

  it('needs no token, ignores the rate limit and staged faults, and stays out of the call log', async () => {
    const sandbox = await start({ rateLimit: { count: 2, windowMs: 60_000 } });
    const { token } = await login(sandbox.authUrl);
    expect((await get(sandbox.baseUrl, '/v1/almoxarifados', token)).status).toBe(200);
    expect((await get(sandbox.baseUrl, '/v1/almoxarifados', token)).status).toBe(429);
    sandbox.faults.next({ status: 503, times: 5 });
    for (let i = 0; i < 3; i++)
      expect((await postAdvance(sandbox.adminUrl, { login: 'demo' })).status).toBe(200);
    expect((await fetch(`${sandbox.adminUrl}/changes`)).status).toBe(200);
    expect(sandbox.faults.pending).toBe(5);
    expect(sandbox.calls.map((c) => c.path)).toEqual([
      '/auth/v1/auth/',
      '/v1/almoxarifados',
      '/v1/almoxarifados',
    ]);
  });
});

describe('GET /_sandbox/changes', () => {
  it('returns the changes after a seq, optionally of one company, and the last seq', async () => {
    const sandbox = await start();
    sandbox.advance({ empresaId: 1, changes: 2 });
    sandbox.advance({ empresaId: 2, changes: 2 });
    const all = sandbox.changes.length;
    const read = async (query: string) => {
      const response = await fetch(`${sandbox.adminUrl}/changes${query}`);
      expect(response.status).toBe(200);
      return (await response.json()) as { changes: SandboxChange[]; last: number };
    };
    expect(await read('')).toEqual({ changes: sandbox.changes, last: all });
    expect(await read('?since=2')).toEqual({ changes: sandbox.changes.slice(2), last: all });
    expect((await read('?empresaId=2')).changes).toEqual(sandbox.changes.filter((c) => c.empresa === 2));
    expect((await read(`?since=${all}`)).changes).toEqual([]);
    const refused = await fetch(`${sandbox.adminUrl}/changes?since=-1`);
    expectProblem({ status: refused.status, body: await refused.json(), response: refused }, 400, /since/);
  });
});

describe('determinism', () => {
  async function run(seed: number, interleave: boolean) {
    const sandbox = await start({ seed, extraCompanies: 2 });
    for (let round = 0; round < 8; round++) {
      sandbox.clock.at += 90_000;
      await postAdvance(sandbox.adminUrl, { empresaId: 1, changes: 3 });
      if (interleave) await postAdvance(sandbox.adminUrl, { login: 'demo2', changes: 2 });
      await postAdvance(sandbox.adminUrl, { login: 'empresa4', changes: 2 });
    }
    const { token } = await login(sandbox.authUrl);
    const requests = await listAll(sandbox.baseUrl, '/v1/solicitacoes-materiais', token);
    return { sandbox, requests, mine: withoutSeq(sandbox.changes.filter((c) => c.empresa !== 2)) };
  }

  it('the same seed and the same advances give the same changes and data, whatever other companies do', async () => {
    const a = await run(31, false);
    const b = await run(31, true);
    expect(b.mine).toEqual(a.mine);
    expect(b.requests).toEqual(a.requests);
    expect(b.sandbox.changes.length).toBeGreaterThan(a.sandbox.changes.length);
    const c = await run(32, false);
    expect(c.mine).not.toEqual(a.mine);
  });
});

describe('advanceEveryMs', () => {
  it('advances a seeded choice among the given companies at each tick, until closed', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const a = await start({
      advanceEveryMs: 30_000,
      seed: 8,
      extraCompanies: 5,
      autoAdvance: { empresaIds: [2, 4, 6] },
    });
    const b = await start({
      advanceEveryMs: 30_000,
      seed: 8,
      extraCompanies: 5,
      autoAdvance: { empresaIds: [2, 4, 6] },
    });
    vi.advanceTimersByTime(29_999);
    expect(a.changes).toEqual([]);
    vi.advanceTimersByTime(1 + 9 * 30_000);
    const ticks = a.changes.filter((c) => c.kind !== 'status' || c.causedBy === null);
    expect(ticks).toHaveLength(10);
    expect(new Set(a.changes.map((c) => c.empresa))).toEqual(new Set([2, 4, 6]));
    expect(b.changes).toEqual(a.changes);
    await a.close();
    open.splice(open.indexOf(a), 1);
    const made = a.changes.length;
    vi.advanceTimersByTime(120_000);
    expect(a.changes).toHaveLength(made);
    expect(b.changes.length).toBeGreaterThan(made);
  });

  it('refuses a period below 1 ms or companies it does not serve', async () => {
    await expect(startSandbox({ port: 0, advanceEveryMs: 0 })).rejects.toThrow(RangeError);
    await expect(
      startSandbox({ port: 0, advanceEveryMs: 1000, autoAdvance: { empresaIds: [9] } }),
    ).rejects.toThrow(/9/);
  });
});
