import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, MockAgent, FormData as UndiciFormData } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  UpstreamError,
  UpstreamNetworkError,
  UpstreamSchemaError,
  UpstreamTimeoutError,
} from '../../src/upstream/errors.js';
import { ACCEPT, type HttpCall, sendOnce } from '../../src/upstream/http.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

let server: Server;
let base: string;
let agent: Agent;
let handler: Handler = (_req, res) => res.end();
const received: Received[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  agent = new Agent();
});

afterEach(() => {
  received.length = 0;
  handler = (_req, res) => res.end();
});

afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function call(overrides: Partial<HttpCall> = {}): HttpCall {
  return {
    method: 'GET',
    url: `${base}/v1/almoxarifados`,
    timeoutMs: 2_000,
    endpoint: 'GET /v1/almoxarifados',
    ...overrides,
  };
}

function reply(status: number, contentType: string | null, body: string): Handler {
  return (_req, res) => {
    if (contentType !== null) res.setHeader('content-type', contentType);
    res.statusCode = status;
    res.end(body);
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

describe('sendOnce: response bodies', () => {
  it.each(['application/json; charset=utf-8', 'text/json; charset=utf-8', 'text/plain; charset=utf-8'])(
    'parses JSON served as %s',
    async (type) => {
      handler = reply(200, type, '[{"almoxarifado":3,"nome":"Central"}]');
      const result = await sendOnce(agent, call());
      expect(result.status).toBe(200);
      expect(result.body).toEqual([{ almoxarifado: 3, nome: 'Central' }]);
      expect(result.headers['content-type']).toBe(type);
    },
  );

  it('sends the Accept header and the caller headers', async () => {
    handler = reply(200, 'application/json', '[]');
    await sendOnce(agent, call({ headers: { Authorization: 'Bearer t', EmpresaId: '9' } }));
    expect(received[0]?.headers.accept).toBe(ACCEPT);
    expect(received[0]?.headers.authorization).toBe('Bearer t');
    expect(received[0]?.headers.empresaid).toBe('9');
    expect(received[0]?.method).toBe('GET');
  });

  it('an empty body is undefined', async () => {
    handler = reply(200, 'application/json', '');
    expect((await sendOnce(agent, call())).body).toBeUndefined();
    handler = reply(204, null, '');
    expect(await sendOnce(agent, call())).toMatchObject({ status: 204, body: undefined });
  });

  it('a 2xx body that is not JSON is a schema error', async () => {
    handler = reply(200, 'text/plain', 'OK, tudo certo');
    const error = await rejection(sendOnce(agent, call()));
    expect(error).toBeInstanceOf(UpstreamSchemaError);
    expect((error as UpstreamSchemaError).message).not.toContain('tudo certo');
    handler = reply(200, 'text/html', '<html></html>');
    expect(await rejection(sendOnce(agent, call()))).toBeInstanceOf(UpstreamSchemaError);
  });

  it('returns non-2xx answers instead of throwing, with problem+json parsed', async () => {
    handler = reply(
      400,
      'application/problem+json',
      '{"title":"Bad Request","status":400,"detail":"período"}',
    );
    const result = await sendOnce(agent, call());
    expect(result).toMatchObject({ status: 400, body: { detail: 'período' } });
  });

  it('a non-JSON error body becomes undefined', async () => {
    handler = reply(500, 'text/html', '<html>Internal Server Error</html>');
    expect(await sendOnce(agent, call())).toMatchObject({ status: 500, body: undefined });
    handler = reply(502, 'text/plain', 'Bad Gateway');
    expect(await sendOnce(agent, call())).toMatchObject({ status: 502, body: undefined });
  });

  it('releases the socket after every answer (one connection per origin is enough)', async () => {
    const single = new Agent({ connections: 1 });
    handler = reply(500, 'text/html', `<html>${'x'.repeat(200_000)}</html>`);
    for (let i = 0; i < 3; i += 1) {
      expect(await sendOnce(single, call({ timeoutMs: 1_000 }))).toMatchObject({ status: 500 });
    }
    handler = reply(200, 'application/json', '[]');
    expect(await sendOnce(single, call({ timeoutMs: 1_000 }))).toMatchObject({ status: 200, body: [] });
    await single.close();
  });
});

describe('sendOnce: request bodies', () => {
  it('sends FormData as multipart with unquoted values', async () => {
    handler = reply(200, 'application/json', '{"success":true}');
    const form = new FormData();
    form.append('login', 'demo');
    form.append('Password', 'p@ss word');
    form.append('Plataform', '6');
    form.append('ExpireCurrentSession', 'true');
    await sendOnce(
      agent,
      call({ method: 'POST', url: `${base}/v1/auth/`, body: form, endpoint: 'POST /v1/auth/' }),
    );
    const request = received[0];
    expect(request?.method).toBe('POST');
    expect(request?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const boundary = request?.headers['content-type']?.split('boundary=')[1] ?? '';
    const fields = Object.fromEntries(
      (request?.body ?? '')
        .split(`--${boundary}`)
        .map((part) => /name="([^"]+)"\r\n\r\n([\s\S]*)\r\n$/.exec(part))
        .filter((match) => match !== null)
        .map((match) => [match[1], match[2]]),
    );
    expect(fields).toEqual({
      login: 'demo',
      Password: 'p@ss word',
      Plataform: '6',
      ExpireCurrentSession: 'true',
    });
    expect(request?.body).toContain('\r\n\r\ndemo\r\n');
    expect(request?.body).not.toContain('"demo"');
  });

  it("also sends undici's own FormData", async () => {
    handler = reply(200, 'application/json', '{}');
    const form = new UndiciFormData();
    form.append('login', 'demo');
    await sendOnce(agent, call({ method: 'POST', body: form as unknown as FormData }));
    expect(received[0]?.body).toContain('name="login"\r\n\r\ndemo\r\n');
  });

  it('sends URLSearchParams as application/x-www-form-urlencoded', async () => {
    handler = reply(200, 'application/json', '{}');
    const body = new URLSearchParams({ Token: 'a.b.c', RefreshToken: 'r+/=' });
    await sendOnce(agent, call({ method: 'POST', url: `${base}/v1/auth/refresh`, body }));
    expect(received[0]?.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(new URLSearchParams(received[0]?.body)).toEqual(body);
    expect(received[0]?.body).toBe('Token=a.b.c&RefreshToken=r%2B%2F%3D');
  });
});

describe('sendOnce: failures', () => {
  it('a server that never answers times out', async () => {
    handler = () => {};
    const error = await rejection(sendOnce(agent, call({ timeoutMs: 150 })));
    expect(error).toBeInstanceOf(UpstreamTimeoutError);
    expect(error).toMatchObject({ retryable: true, endpoint: 'GET /v1/almoxarifados', timeoutMs: 150 });
  });

  it('a body that never ends times out too: the bound covers headers and body', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[{"almoxarifado":');
    };
    const error = await rejection(sendOnce(agent, call({ timeoutMs: 200 })));
    expect(error).toBeInstanceOf(UpstreamTimeoutError);
  });

  it('the bound holds for a call queued behind a busy connection', async () => {
    handler = () => {};
    const single = new Agent({ connections: 1 });
    const settled: string[] = [];
    const first = rejection(sendOnce(single, call({ timeoutMs: 600 }))).finally(() => settled.push('first'));
    // Queued behind the first, which holds the only connection until its own, longer bound.
    const queued = rejection(sendOnce(single, call({ timeoutMs: 60 }))).finally(() => settled.push('queued'));
    expect(await queued).toMatchObject({ name: 'UpstreamTimeoutError', timeoutMs: 60 });
    expect(await first).toMatchObject({ name: 'UpstreamTimeoutError', timeoutMs: 600 });
    expect(settled).toEqual(['queued', 'first']);
    await single.close();
  });

  it('connection refused is a network error keeping the cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await rejection(
      sendOnce(agent, call({ url: `http://127.0.0.1:${port}/v1/almoxarifados` })),
    );
    expect(error).toBeInstanceOf(UpstreamNetworkError);
    expect(error).toMatchObject({ retryable: true, networkCode: 'ECONNREFUSED' });
    expect((error as UpstreamNetworkError).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('a bad URL is a programming error, not a retryable network failure', async () => {
    const error = await rejection(sendOnce(agent, call({ url: 'not a url' })));
    expect(error).not.toBeInstanceOf(UpstreamError);
  });
});

describe('sendOnce with an injected MockAgent', () => {
  it('a reset connection becomes a network error, and a 503 is returned as a status', async () => {
    const mock = new MockAgent();
    mock.disableNetConnect();
    const pool = mock.get('https://api.example.test');
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    pool.intercept({ path: '/v1/materiais', method: 'GET' }).replyWithError(reset);
    pool.intercept({ path: '/v1/materiais', method: 'GET' }).reply(503, '');
    const target = call({ url: 'https://api.example.test/v1/materiais', endpoint: 'GET /v1/materiais' });

    const error = await rejection(sendOnce(mock, target));
    expect(error).toBeInstanceOf(UpstreamNetworkError);
    expect((error as UpstreamNetworkError).cause).toBe(reset);
    expect(await sendOnce(mock, target)).toMatchObject({ status: 503, body: undefined });
    mock.assertNoPendingInterceptors();
    await mock.close();
  });
});
