import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import {
  eventually,
  type Harness,
  type HarnessOptions,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../helpers/bot-harness.js';

/** Upstream faults as the user sees them: signed requests in, the fake Slack and the sandbox's staged faults. */

const C1 = DEMO_FACTS.company1;
const MiB = 1024 * 1024;
let h: Harness;

afterEach(async () => {
  await h?.close();
});

async function start(options: HarnessOptions = {}) {
  h = await startHarness(options);
  await h.link(TEAM);
}

describe('a huge upstream answer', () => {
  it('is cut while it streams, told to the user in pt-BR, never cached; another user meanwhile gets acked and answered', async () => {
    await start({ env: { UPSTREAM_MAX_RESPONSE_BYTES: '1MiB' } });
    h.sandbox.faults.next({ path: '/v1/materiais', huge: { bytes: 64 * MiB } });
    const [huge, other] = await Promise.all([
      h.command('/estoque', 'parafuso'),
      h.command('/estoque', 'almoxarifados', { user: USERS.admin }),
    ]);
    expect([huge.status, other.status]).toEqual([200, 200]);

    const refused = await h.nextMessage(huge.sentAt, { userId: USERS.member });
    expect(textOf(refused)).toContain('grande demais');
    expect(textOf(refused)).toContain('almox:');
    const answered = await h.nextMessage(other.sentAt, { userId: USERS.admin });
    expect(textOf(answered)).toContain(C1.activeStockrooms[0]?.nome ?? '?');

    const call = h.sandbox.calls.find((c) => c.path === '/v1/materiais');
    await eventually(() => call?.streamed?.complete === false);
    expect(call?.streamed?.bytes).toBeLessThan(32 * MiB);
    // Nothing of the materials list was cached, under any parameters.
    expect(await h.redis.redis.keys(`${h.redis.keys.cachePrefix(TEAM)}materials:*`)).toEqual([]);
    // Not retried: the same question gets the same answer.
    expect(h.sandbox.calls.filter((c) => c.path === '/v1/materiais')).toHaveLength(1);
  });
});

describe('smaller upstream faults', () => {
  it('a 401 that renewing does not cure gets its own message, not the generic one; the next command too, one call and no renewal', async () => {
    await start();
    h.sandbox.faults.next({ path: '/v1/almoxarifados', status: 401, times: 3 });
    const { sentAt } = await h.command('/estoque', 'almoxarifados');
    const text = textOf(await h.nextMessage(sentAt, { userId: USERS.member }));
    expect(text).toContain('recusou o login vinculado');
    expect(text).not.toContain('Algo deu errado');
    expect(h.sandbox.calls.filter((c) => c.at >= sentAt).map((c) => `${c.kind}:${c.status}`)).toEqual([
      'data:401',
      'refresh:200',
      'data:401',
    ]);
    // Within the cooldown (REFUSAL_COOLDOWN_MS) the next command sends the token held once, renews nothing, and is
    // told the same.
    const again = await h.command('/estoque', 'almoxarifados');
    expect(textOf(await h.nextMessage(again.sentAt, { userId: USERS.member }))).toContain(
      'recusou o login vinculado',
    );
    expect(h.sandbox.calls.filter((c) => c.at >= again.sentAt).map((c) => `${c.kind}:${c.status}`)).toEqual([
      'data:401',
    ]);
  });

  it('a 400 with an ASP.NET validation body shows the field and its message, not the generic title', async () => {
    await start();
    h.sandbox.faults.next({
      path: '/v1/almoxarifados',
      status: 400,
      body: {
        type: 'https://tools.ietf.org/html/rfc9110#section-15.5.1',
        title: 'One or more validation errors occurred.',
        status: 400,
        errors: { unidadeId: ["The value 'x' is not valid."] },
        traceId: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00',
      },
    });
    const { sentAt } = await h.command('/estoque', 'almoxarifados');
    const text = textOf(await h.nextMessage(sentAt, { userId: USERS.member }));
    expect(text).toContain('recusou a consulta');
    expect(text).toContain("unidadeId: The value 'x' is not valid.");
    expect(text).not.toContain('One or more validation errors');
  });

  it('a request list refused with a 400 that states another cause than the page size is asked once, its cause shown', async () => {
    // upstream-api.md Errors rule 6: do not automatically retry a 400; the message states the cause.
    await start();
    h.sandbox.faults.next({
      path: '/v1/solicitacoes-materiais',
      status: 400,
      body: { title: 'Bad Request', status: 400, detail: 'Filtro de status inválido.' },
    });
    const { sentAt } = await h.command('/solicitacao', '');
    const text = textOf(await h.nextMessage(sentAt, { userId: USERS.member }));
    expect(text).toContain('recusou a consulta');
    expect(text).toContain('Filtro de status inválido.');
    const asked = h.sandbox.calls.filter((c) => c.at >= sentAt && c.path === '/v1/solicitacoes-materiais');
    expect(asked.map((c) => new URL(c.url, 'http://x').searchParams.get('PageSize'))).toEqual(['100']);
    // Nothing learnt: the next list is asked at the size it asks for.
    const again = await h.command('/solicitacao', '');
    await h.nextMessage(again.sentAt, { userId: USERS.member });
    const next = h.sandbox.calls.filter(
      (c) => c.at >= again.sentAt && c.path === '/v1/solicitacoes-materiais',
    );
    expect(next[0] && new URL(next[0].url, 'http://x').searchParams.get('PageSize')).toBe('100');
  });

  it('a request list refused with a 400 naming PageSize is asked again at 50 and answered', async () => {
    await start();
    h.sandbox.faults.next({
      path: '/v1/solicitacoes-materiais',
      status: 400,
      body: {
        title: 'One or more validation errors occurred.',
        status: 400,
        errors: { PageSize: ['PageSize deve estar entre 1 e 50.'] },
      },
    });
    const { sentAt } = await h.command('/solicitacao', '');
    const text = textOf(await h.nextMessage(sentAt, { userId: USERS.member }));
    expect(text).not.toContain('recusou a consulta');
    const asked = h.sandbox.calls.filter((c) => c.at >= sentAt && c.path === '/v1/solicitacoes-materiais');
    expect(asked.slice(0, 2).map((c) => new URL(c.url, 'http://x').searchParams.get('PageSize'))).toEqual([
      '100',
      '50',
    ]);
  });

  it('a null list is bad upstream data, not an empty answer', async () => {
    await start();
    h.sandbox.faults.next({
      path: '/v1/almoxarifados',
      status: 200,
      body: 'null',
      contentType: 'application/json',
    });
    const { sentAt } = await h.command('/estoque', 'almoxarifados');
    const text = textOf(await h.nextMessage(sentAt, { userId: USERS.member }));
    expect(text).toContain('formato inesperado');
  });

  it('a 20 KB search is refused with the usage before any upstream call', async () => {
    await start();
    const before = h.sandbox.calls.length;
    const result = await h.command('/estoque', 'parafuso '.repeat(2_300));
    expect(result.status).toBe(200);
    const body = JSON.parse(result.body) as { text: string; response_type: string };
    expect(body.response_type).toBe('ephemeral');
    expect(body.text).toContain('texto longo demais');
    expect(h.sandbox.calls.length).toBe(before);
  });
});
