import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { DEMO_FORM, expectProblem, get, login, postLogin, postRefresh } from './helpers.js';

let sandbox: Sandbox | undefined;
let clock = Date.parse('2026-05-04T13:00:00Z');

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

async function start(options: Parameters<typeof startSandbox>[0] = {}): Promise<Sandbox> {
  clock = Date.parse('2026-05-04T13:00:00Z');
  sandbox = await startSandbox({ port: 0, now: () => clock, ...options });
  return sandbox;
}

describe('rate limit per credential', () => {
  it('answers 429 ProblemDetails past the limit, with no Retry-After, counting token calls too', async () => {
    const sb = await start({ rateLimit: { count: 5, windowMs: 1_000 } });
    const pair = await login(sb.authUrl);
    const renewed = await postRefresh(sb.authUrl, pair.token, pair.refreshToken);
    const token = renewed.body.authToken?.token ?? '';
    for (let i = 0; i < 3; i++) expect((await get(sb.baseUrl, '/v1/almoxarifados', token)).status).toBe(200);

    const refused = await get(sb.baseUrl, '/v1/almoxarifados', token);
    expectProblem(refused, 429);
    expect((refused.body as { title: string }).title).toBe('Too Many Requests');
    expect(refused.response.headers.get('retry-after')).toBeNull();
    const refusedLogin = await postLogin(sb.authUrl, DEMO_FORM);
    expect(refusedLogin.status).toBe(429);

    // Another credential has its own budget.
    expect(
      (await get(sb.baseUrl, '/v1/almoxarifados', (await login(sb.authUrl, 'demo2')).token)).status,
    ).toBe(200);

    const demoCalls = sb.calls.filter((c) => c.login === 'demo');
    expect(demoCalls.map((c) => c.kind)).toEqual([
      'login',
      'refresh',
      'data',
      'data',
      'data',
      'data',
      'login',
    ]);
    expect(demoCalls.map((c) => c.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);

    clock += 1_000;
    expect((await get(sb.baseUrl, '/v1/almoxarifados', token)).status).toBe(200);
  });

  it('slides: calls leave the window one by one, however it is aligned', async () => {
    const sb = await start({ rateLimit: { count: 4, windowMs: 10_000 } });
    const { token } = await login(sb.authUrl); // t=0
    clock += 6_000;
    for (let i = 0; i < 3; i++) expect((await get(sb.baseUrl, '/v1/almoxarifados', token)).status).toBe(200);
    expect((await get(sb.baseUrl, '/v1/almoxarifados', token)).status).toBe(429);
    clock += 4_000; // the login leaves the window, the three calls at t=6s stay
    expect((await get(sb.baseUrl, '/v1/almoxarifados', token)).status).toBe(200);
    expect((await get(sb.baseUrl, '/v1/almoxarifados', token)).status).toBe(429);
    clock += 6_000;
    expect((await get(sb.baseUrl, '/v1/almoxarifados', token)).status).toBe(200);
  });

  it('attributes wrong-password logins to the login and token-less calls to nobody', async () => {
    const sb = await start({ rateLimit: { count: 2, windowMs: 60_000 } });
    expect((await postLogin(sb.authUrl, { ...DEMO_FORM, Password: 'x' })).status).toBe(401);
    expect((await postLogin(sb.authUrl, { ...DEMO_FORM, Password: 'y' })).status).toBe(401);
    expect((await postLogin(sb.authUrl, DEMO_FORM)).status).toBe(429);
    for (let i = 0; i < 3; i++) expect((await get(sb.baseUrl, '/v1/almoxarifados', null)).status).toBe(401);
    expect(sb.calls.map((c) => c.login)).toEqual(['demo', 'demo', 'demo', null, null, null]);
    expect(sb.calls[3]).toMatchObject({
      method: 'GET',
      path: '/v1/almoxarifados',
      kind: 'data',
      status: 401,
    });
  });
});

describe('faults', () => {
  it('serves a queued status a number of times, then recovers', async () => {
    const sb = await start();
    const { token } = await login(sb.authUrl);
    sb.faults.next({ path: '/v1/almoxarifados', status: 503, times: 2 });
    expect(sb.faults.pending).toBe(2);
    expect((await get(sb.baseUrl, '/v1/materiais', token)).status).toBe(200);
    expectProblem(await get(sb.baseUrl, '/v1/almoxarifados', token), 503);
    expectProblem(await get(sb.baseUrl, '/v1/almoxarifados', token), 503);
    expect((await get(sb.baseUrl, '/v1/almoxarifados', token)).status).toBe(200);
    expect(sb.faults.pending).toBe(0);
    expect(sb.calls.map((c) => c.status)).toEqual([200, 200, 503, 503, 200]);
  });

  it('answers a staged 500 with an ErrorCommandResult, or the given body and content type', async () => {
    const sb = await start();
    const { token } = await login(sb.authUrl);
    sb.faults.next({ path: /solicitacoes-materiais\/\d+\/itens/, status: 500 });
    const failed = await get<Record<string, unknown>>(
      sb.baseUrl,
      '/v1/solicitacoes-materiais/1250/itens',
      token,
    );
    expect(failed.status).toBe(500);
    expect(Object.keys(failed.body).sort()).toEqual(['hash', 'type']);

    sb.faults.next({ status: 502, body: '<html>Bad Gateway</html>', contentType: 'text/html' });
    const html = await fetch(`${sb.baseUrl}/v1/almoxarifados`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(html.status).toBe(502);
    expect(html.headers.get('content-type')).toBe('text/html');
    expect(await html.text()).toBe('<html>Bad Gateway</html>');
    sb.faults.next({ status: 429, headers: { 'Retry-After': '7' } });
    const limited = await fetch(`${sb.baseUrl}/v1/almoxarifados`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
  });

  it('applies to the token issuer too, and clear() removes pending faults', async () => {
    const sb = await start();
    sb.faults.next({ path: '/auth/v1/auth/refresh', status: 500 });
    sb.faults.next({ path: '/auth/v1/auth', method: 'POST', status: 503 });
    expect((await postLogin(sb.authUrl, DEMO_FORM)).status).toBe(503);
    sb.faults.next({ path: '/auth/v1/auth/', status: 503, times: 3 });
    sb.faults.clear();
    expect(sb.faults.pending).toBe(0);
    const pair = await login(sb.authUrl);
    sb.faults.next({ path: '/auth/v1/auth/refresh', status: 500 });
    const failed = await fetch(`${sb.authUrl}/v1/auth/refresh`, {
      method: 'POST',
      body: new URLSearchParams({ Token: pair.token, RefreshToken: pair.refreshToken }),
    });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ type: 'Unexpected Error' });
    expect((await postRefresh(sb.authUrl, pair.token, pair.refreshToken)).status).toBe(200);
  });

  it('drops the connection, or delays the answer', async () => {
    const sb = await start();
    const { token } = await login(sb.authUrl);
    sb.faults.next({ path: '/v1/almoxarifados', dropConnection: true });
    await expect(get(sb.baseUrl, '/v1/almoxarifados', token)).rejects.toThrow();
    expect(sb.calls.at(-1)?.status).toBe(0);

    sb.faults.next({ path: '/v1/almoxarifados', delayMs: 300 });
    const started = performance.now();
    expect((await get(sb.baseUrl, '/v1/almoxarifados', token)).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);

    sb.faults.next({ path: '/v1/almoxarifados', delayMs: 5_000, status: 504 });
    await expect(
      fetch(`${sb.baseUrl}/v1/almoxarifados`, {
        headers: { Authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(200),
      }),
    ).rejects.toThrow();
  });

  it('refuses a fault that does nothing', async () => {
    const sb = await start();
    expect(() => sb.faults.next({ path: '/v1/almoxarifados' })).toThrow(TypeError);
    expect(() => sb.faults.next({ status: 500, times: 0 })).toThrow(RangeError);
  });
});

describe('latency', () => {
  it('delays every data call by latencyMs', async () => {
    const sb = await start({ latencyMs: 150 });
    const { token } = await login(sb.authUrl);
    const started = performance.now();
    await get(sb.baseUrl, '/v1/materiais/tipos', token);
    expect(performance.now() - started).toBeGreaterThanOrEqual(120);
  });
});
