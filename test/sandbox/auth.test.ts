import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { DEMO_FORM, expectProblem, get, login, loginForm, postLogin, postRefresh } from './helpers.js';

const HOUR = 3_600_000;
const START = Date.parse('2026-03-10T12:00:00Z');

let clock = START;
let sandbox: Sandbox;

beforeEach(async () => {
  clock = START;
  sandbox = await startSandbox({ port: 0, now: () => clock });
});

afterEach(async () => {
  await sandbox.close();
});

function decodePayload(token: string): Record<string, unknown> {
  const parts = token.split('.');
  expect(parts).toHaveLength(3);
  for (const part of parts) expect(part).toMatch(/^[A-Za-z0-9_-]+$/);
  return JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8'));
}

describe('POST /auth/v1/auth/ (login)', () => {
  it('issues a JWT-looking token, a refresh token and UTC expiries about 2 h and 7 days ahead', async () => {
    const { status, body, response } = await postLogin(sandbox.authUrl, DEMO_FORM);
    expect(status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(body).toMatchObject({ success: true, message: null, hasActiveSession: false });
    const auth = body.authToken;
    if (!auth) throw new Error('authToken missing');
    expect(Object.keys(auth).sort()).toEqual([
      'expiresIn',
      'jti',
      'refreshExpiresIn',
      'refreshToken',
      'token',
    ]);
    expect(auth.expiresIn).toMatch(/Z$/);
    expect(Date.parse(auth.expiresIn)).toBe(START + 2 * HOUR);
    expect(Date.parse(auth.refreshExpiresIn)).toBe(START + 7 * 24 * HOUR);
    const header = JSON.parse(Buffer.from(auth.token.split('.')[0] ?? '', 'base64url').toString('utf8'));
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    const payload = decodePayload(auth.token);
    expect(payload).toMatchObject({
      login: 'demo',
      empresa: 1,
      jti: auth.jti,
      exp: (START + 2 * HOUR) / 1000,
    });
    expect(payload.sub).toBe(String(sandbox.data.accounts.find((a) => a.login === 'demo')?.usuario));
    expect(auth.refreshToken).not.toBe(auth.token);
  });

  it('takes values literally: a quoted login or Plataform fails', async () => {
    const quotedLogin = await postLogin(sandbox.authUrl, { ...DEMO_FORM, login: '"demo"' });
    expect(quotedLogin.status).toBe(401);
    expect(quotedLogin.body).toEqual({
      success: false,
      message: 'Usuário ou senha inválidos.',
      hasActiveSession: false,
      authToken: null,
    });
    const quotedPlatform = await fetch(`${sandbox.authUrl}/v1/auth/`, {
      method: 'POST',
      body: loginForm({ ...DEMO_FORM, Plataform: '"6"' }),
    });
    expect(quotedPlatform.status).toBe(400);
  });

  it('answers 401 with the auth shape on a wrong password', async () => {
    const { status, body } = await postLogin(sandbox.authUrl, { ...DEMO_FORM, Password: 'errada' });
    expect(status).toBe(401);
    expect(body).toEqual({
      success: false,
      message: 'Usuário ou senha inválidos.',
      hasActiveSession: false,
      authToken: null,
    });
  });

  it('refuses a Plataform other than 6 and a missing one with ProblemDetails', async () => {
    for (const fields of [
      { ...DEMO_FORM, Plataform: '1' },
      { login: 'demo', Password: 'demo' },
    ]) {
      const response = await fetch(`${sandbox.authUrl}/v1/auth/`, {
        method: 'POST',
        body: loginForm(fields),
      });
      const body = await response.json();
      expectProblem({ status: response.status, body, response }, 400, /Plataform/);
    }
  });

  it('takes multipart only: urlencoded and JSON bodies are a parsing error', async () => {
    const urlencoded = await fetch(`${sandbox.authUrl}/v1/auth/`, {
      method: 'POST',
      body: new URLSearchParams(DEMO_FORM),
    });
    expectProblem(
      { status: urlencoded.status, body: await urlencoded.json(), response: urlencoded },
      400,
      /multipart/,
    );
    const json = await fetch(`${sandbox.authUrl}/v1/auth/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(DEMO_FORM),
    });
    expect(json.status).toBe(400);
  });

  it('reports an active session for "sessao" until ExpireCurrentSession=true', async () => {
    const refused = await postLogin(sandbox.authUrl, { ...DEMO_FORM, login: 'sessao', Password: 'sessao' });
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({
      success: false,
      message:
        'Já existe uma sessão ativa para este usuário. Envie ExpireCurrentSession=true para encerrá-la.',
      hasActiveSession: true,
      authToken: null,
    });
    const accepted = await postLogin(sandbox.authUrl, {
      ...DEMO_FORM,
      login: 'sessao',
      Password: 'sessao',
      ExpireCurrentSession: 'true',
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.success).toBe(true);
    expect(accepted.body.hasActiveSession).toBe(true);
    const token = accepted.body.authToken?.token ?? '';
    expect((await get(sandbox.baseUrl, '/v1/almoxarifados', token)).status).toBe(200);
  });

  it('says when a session already existed, and ExpireCurrentSession=true ends it', async () => {
    const first = await login(sandbox.authUrl);
    const second = await postLogin(sandbox.authUrl, DEMO_FORM);
    expect(second.body.hasActiveSession).toBe(true);
    expect((await get(sandbox.baseUrl, '/v1/almoxarifados', first.token)).status).toBe(200);

    const third = await postLogin(sandbox.authUrl, { ...DEMO_FORM, ExpireCurrentSession: 'true' });
    expect(third.body.success).toBe(true);
    expectProblem(await get(sandbox.baseUrl, '/v1/almoxarifados', first.token), 401);
    expect((await postRefresh(sandbox.authUrl, first.token, first.refreshToken)).status).toBe(401);
    expect((await get(sandbox.baseUrl, '/v1/almoxarifados', third.body.authToken?.token ?? '')).status).toBe(
      200,
    );
  });

  it('answers 405 to a GET on the login path', async () => {
    const response = await fetch(`${sandbox.authUrl}/v1/auth/`);
    expect(response.status).toBe(405);
  });
});

describe('POST /auth/v1/auth/refresh', () => {
  it('rotates: a new token and refresh token, the old refresh token stops working', async () => {
    const first = await login(sandbox.authUrl);
    clock += HOUR;
    const renewed = await postRefresh(sandbox.authUrl, first.token, first.refreshToken);
    expect(renewed.status).toBe(200);
    expect(renewed.body.success).toBe(true);
    const second = renewed.body.authToken;
    if (!second) throw new Error('authToken missing');
    expect(second.token).not.toBe(first.token);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(second.jti).not.toBe(first.jti);
    expect(Date.parse(second.expiresIn)).toBe(START + 3 * HOUR);
    expect((await get(sandbox.baseUrl, '/v1/almoxarifados', second.token)).status).toBe(200);

    const replay = await postRefresh(sandbox.authUrl, first.token, first.refreshToken);
    expect(replay.status).toBe(401);
    expect(replay.body.success).toBe(false);
    expect(replay.body.authToken).toBeNull();

    const chained = await postRefresh(sandbox.authUrl, second.token, second.refreshToken);
    expect(chained.status).toBe(200);
  });

  it('accepts an expired access token of the same session', async () => {
    const pair = await login(sandbox.authUrl);
    clock += 3 * HOUR;
    expectProblem(await get(sandbox.baseUrl, '/v1/almoxarifados', pair.token), 401, /expirado/);
    const renewed = await postRefresh(sandbox.authUrl, pair.token, pair.refreshToken);
    expect(renewed.status).toBe(200);
    expect(
      (await get(sandbox.baseUrl, '/v1/almoxarifados', renewed.body.authToken?.token ?? '')).status,
    ).toBe(200);
  });

  it('refuses a token of another session', async () => {
    const one = await login(sandbox.authUrl);
    const other = await login(sandbox.authUrl);
    const mixed = await postRefresh(sandbox.authUrl, other.token, one.refreshToken);
    expect(mixed.status).toBe(401);
    expect(mixed.body.success).toBe(false);
  });

  it('answers 401 "Refresh token expirado" after 7 days and after expireRefreshTokens', async () => {
    const pair = await login(sandbox.authUrl);
    clock += 7 * 24 * HOUR + 1;
    const late = await postRefresh(sandbox.authUrl, pair.token, pair.refreshToken);
    expect(late.status).toBe(401);
    expect(late.body).toEqual({
      success: false,
      message: 'Refresh token expirado. Faça login novamente.',
      hasActiveSession: false,
      authToken: null,
    });

    const fresh = await login(sandbox.authUrl);
    sandbox.expireRefreshTokens('demo');
    const forced = await postRefresh(sandbox.authUrl, fresh.token, fresh.refreshToken);
    expect(forced.status).toBe(401);
    expect(forced.body.message).toBe('Refresh token expirado. Faça login novamente.');
    // The access token itself still works until it expires.
    expect((await get(sandbox.baseUrl, '/v1/almoxarifados', fresh.token)).status).toBe(200);
  });

  it('takes urlencoded only: multipart is a parsing error', async () => {
    const pair = await login(sandbox.authUrl);
    const response = await fetch(`${sandbox.authUrl}/v1/auth/refresh`, {
      method: 'POST',
      body: loginForm({ Token: pair.token, RefreshToken: pair.refreshToken }),
    });
    expectProblem({ status: response.status, body: await response.json(), response }, 400, /urlencoded/);
  });

  it('requires both fields', async () => {
    const response = await fetch(`${sandbox.authUrl}/v1/auth/refresh`, {
      method: 'POST',
      body: new URLSearchParams({ Token: 'x' }),
    });
    expectProblem({ status: response.status, body: await response.json(), response }, 400, /RefreshToken/);
  });
});

describe('test controls', () => {
  it('expireAccessTokens makes the current tokens of one login expired, not the others', async () => {
    const demo = await login(sandbox.authUrl);
    const demo2 = await login(sandbox.authUrl, 'demo2');
    sandbox.expireAccessTokens('demo');
    expectProblem(await get(sandbox.baseUrl, '/v1/almoxarifados', demo.token), 401);
    expect((await get(sandbox.baseUrl, '/v1/almoxarifados', demo2.token)).status).toBe(200);
    const renewed = await postRefresh(sandbox.authUrl, demo.token, demo.refreshToken);
    expect(renewed.status).toBe(200);
    expect(
      (await get(sandbox.baseUrl, '/v1/almoxarifados', renewed.body.authToken?.token ?? '')).status,
    ).toBe(200);
  });

  it('endSessions revokes tokens and refresh tokens until a new login', async () => {
    const pair = await login(sandbox.authUrl);
    sandbox.endSessions();
    expectProblem(await get(sandbox.baseUrl, '/v1/almoxarifados', pair.token), 401);
    expect((await postRefresh(sandbox.authUrl, pair.token, pair.refreshToken)).status).toBe(401);
    const again = await login(sandbox.authUrl);
    expect((await get(sandbox.baseUrl, '/v1/almoxarifados', again.token)).status).toBe(200);
  });
});
