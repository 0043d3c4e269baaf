import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PENDING_PAGE_SIZE } from '../../src/render/purchases.js';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import {
  CHANNELS,
  eventually,
  type Harness,
  OTHER_TEAM,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../helpers/bot-harness.js';

const C1 = DEMO_FACTS.company1;
let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});
beforeEach(() => {
  h.sandbox.faults.clear();
});

async function ask(command: string, text: string, who = {}) {
  const result = await h.command(command, text, who);
  expect(result.status).toBe(200);
  const message = await h.nextMessage(result.sentAt, { userId: USERS.member });
  return { result, message, text: textOf(message) };
}

describe('/solicitacao', () => {
  it('acks at once and answers a request with its header and items through response_url', async () => {
    const [id] = C1.requestsWithItemsBelowMinimum;
    const { result, message, text } = await ask('/solicitacao', String(id));
    expect(result.body).toBe('');
    expect(message.ephemeral).toBe(true);
    expect(message.via).toBe('response_url');
    expect(text).toContain(`Solicitação ${id}`);
    expect(text).toMatch(/abaixo do mínimo/i);
    expect(h.slack.limitViolations).toEqual([]);
  });

  it('opens a request typed in full-width digits or followed by an invisible character', async () => {
    const [id] = C1.requestsWithItemsBelowMinimum;
    const wide = String(id).replace(/\d/g, (d) => String.fromCharCode(0xff10 + Number(d)));
    for (const typed of [wide, `${id}\u200b`, `\u2068${id}\u2069`]) {
      const { text } = await ask('/solicitacao', typed);
      expect(text, JSON.stringify(typed)).toContain(`Solicitação ${id}`);
    }
  });

  it('opens a request typed in Arabic-Indic or Devanagari digits', async () => {
    const [id] = C1.requestsWithItemsBelowMinimum;
    for (const zero of [0x0660, 0x0966]) {
      const typed = String(id).replace(/\d/g, (d) => String.fromCodePoint(zero + Number(d)));
      const { text } = await ask('/solicitacao', typed);
      expect(text, typed).toContain(`Solicitação ${id}`);
      expect(text, typed).not.toContain('Nenhuma solicitação');
    }
  });

  it('answers a negative number as an invalid request number, as 0, not as a search', async () => {
    const before = h.sandbox.calls.length;
    for (const typed of ['-5', '0']) {
      const result = await h.command('/solicitacao', typed);
      const body = JSON.parse(result.body) as { text: string };
      expect(body.text).toContain(`\`${typed}\` não é um número de solicitação válido`);
    }
    expect(h.sandbox.calls.length).toBe(before);
  });

  it('answers an unknown request with a clear message', async () => {
    const { text } = await ask('/solicitacao', String(C1.unknownRequestId));
    expect(text).toContain(`Solicitação ${C1.unknownRequestId} não encontrada`);
  });

  it('answers bad arguments with the usage and spends no upstream call', async () => {
    const before = h.sandbox.calls.length;
    const result = await h.command('/solicitacao', 'status:abc');
    expect(result.status).toBe(200);
    const body = JSON.parse(result.body) as { text: string; response_type: string };
    expect(body.response_type).toBe('ephemeral');
    expect(body.text).toContain('status:abc');
    expect(h.sandbox.calls.length).toBe(before);
  });

  it('refuses more statuses than a page button can carry with the usage, before any call', async () => {
    const before = h.sandbox.calls.length;
    const statuses = Array.from({ length: 21 }, (_, i) => i + 1).join(',');
    const result = await h.command('/solicitacao', `status:${statuses} de:01/01/2026`);
    const body = JSON.parse(result.body) as { text: string };
    expect(body.text).toContain('`status:` aceita no máximo 20 valores diferentes (foram 21)');
    expect(h.sandbox.calls.length).toBe(before);
  });

  it('lists `status: 1, 2` (spaces a phone adds) with both statuses and no search text', async () => {
    // Until the fix, the usage in the ack: "o detalhe de uma solicitação não aceita filtros" (2 read as a number).
    const result = await h.command('/solicitacao', 'status: 1, 2');
    expect(result.body).toBe('');
    const text = textOf(await h.nextMessage(result.sentAt, { userId: USERS.member }));
    expect(text).toContain('Solicitações');
    const call = h.sandbox.calls.find((c) => c.path === '/v1/solicitacoes-materiais');
    const query = new URL(call?.url ?? '', 'http://x').searchParams;
    expect(query.get('Status')).toBe('1,2');
    expect(query.get('Search')).toBeNull();
  });

  it('lists recent requests with paging buttons', async () => {
    const { message, text } = await ask('/solicitacao', '');
    expect(text).toMatch(/Página 1 de \d+/);
    const since = Date.now();
    const click = await h.click(message, { text: 'Próxima' });
    expect(click.status).toBe(200);
    const next = await h.nextMessage(since, { userId: USERS.member });
    expect(textOf(next)).toMatch(/Página 2 de \d+/);
    // The ephemeral list was replaced, not stacked.
    expect(h.slack.messages.find((m) => m.ts === message.ts && m.replaced)).toBeTruthy();
  });

  it('minhas with an e-mail no upstream user has says so, the second time too (from the saved no-match)', async () => {
    const first = await ask('/solicitacao', 'minhas');
    expect(first.text).toMatch(/Nenhum usuário do sistema de estoque tem o seu e-mail \(.+@.+\)/);
    const again = await ask('/solicitacao', 'minhas');
    expect(again.text).toBe(first.text);
  });

  it('minhas when the users list answers 404 (documented): no user has the e-mail, not “nothing found”', async () => {
    h.sandbox.faults.next({ path: '/v1/usuarios', status: 404 });
    const { text } = await ask('/solicitacao', 'minhas');
    expect(text).toMatch(/Nenhum usuário do sistema de estoque tem o seu e-mail/);
  });

  it('with ate: alone, asks the 12 months the API allows up to that day, and says so', async () => {
    const { text } = await ask('/solicitacao', 'ate:15/03/2026');
    const call = h.sandbox.calls.find((c) => c.path === '/v1/solicitacoes-materiais');
    const query = new URL(call?.url ?? '', 'http://x').searchParams;
    expect(query.get('DataInicial')).toBe('2025-03-16T00:00:00');
    expect(query.get('DataFinal')).toBe('2026-03-15T23:59:59');
    expect(call?.status).toBe(200);
    expect(text).toContain('16/03/2025');
    expect(text).toContain('15/03/2026');
  });

  it('with ate: on the 28/02 after a leap year, asks from 01/03 (29/02 plus 12 months falls short of that day)', async () => {
    await ask('/solicitacao', 'ate:28/02/2025');
    const call = h.sandbox.calls.find((c) => c.path === '/v1/solicitacoes-materiais');
    const query = new URL(call?.url ?? '', 'http://x').searchParams;
    expect(query.get('DataInicial')).toBe('2024-03-01T00:00:00');
    expect(call?.status).toBe(200);
  });

  it('refuses de: and ate: more than 12 months apart with the usage, before any call', async () => {
    const before = h.sandbox.calls.length;
    const result = await h.command('/solicitacao', 'de:01/01/2024 ate:28/02/2025');
    const body = JSON.parse(result.body) as { text: string };
    expect(body.text).toContain('passa de 12 meses');
    expect(body.text).toContain('01/03/2024');
    expect(h.sandbox.calls.length).toBe(before);
  });

  it('says de: alone reaching back past 12 months is the bot’s limit, not the stockroom system refusing', async () => {
    const before = h.sandbox.calls.filter((c) => c.kind === 'data').length;
    const { text } = await ask('/solicitacao', 'de:01/01/2020');
    expect(text).toContain('O período pedido passa de 12 meses');
    expect(text).not.toContain('recusou');
    expect(h.sandbox.calls.filter((c) => c.kind === 'data').length).toBe(before);
  });

  it('minhas with de: alone past 12 months gets the period message before any call, users list and users.info included', async () => {
    // Until 2026-11-27 the e-mail was matched first: Slack's users.info and GET /v1/usuarios for a query refused anyway.
    const before = h.sandbox.calls.filter((c) => c.kind === 'data').length;
    const lookups = () => h.slack.calls.filter((c) => c.method === 'users.info').length;
    const slackBefore = lookups();
    const { text } = await ask('/solicitacao', 'minhas de:01/01/2020');
    expect(text).toContain('O período pedido passa de 12 meses');
    expect(h.sandbox.calls.filter((c) => c.kind === 'data').length).toBe(before);
    expect(lookups()).toBe(slackBefore);
  });

  it('minhas when Slack cannot tell the e-mail now says so, and to try again; nothing is saved for the user', async () => {
    h.slack.failNext('users.info', { error: 'internal_error' });
    const { text } = await ask('/solicitacao', 'minhas');
    expect(text).toContain('O Slack não informou o seu e-mail agora');
    expect(text).not.toContain('Algo deu errado');
    // Asked again, the e-mail is read again (no match was saved from the failure).
    const again = await ask('/solicitacao', 'minhas');
    expect(again.text).toMatch(/Nenhum usuário do sistema de estoque tem o seu e-mail/);
  });
});

describe('/estoque', () => {
  it('answers help without any upstream call', async () => {
    const before = h.sandbox.calls.length;
    const result = await h.command('/estoque', 'ajuda');
    const body = JSON.parse(result.body) as { text: string; blocks: unknown[] };
    expect(JSON.stringify(body.blocks)).toContain('/solicitacao');
    expect(h.sandbox.calls.length).toBe(before);
  });

  it('lists stockrooms of the linked company', async () => {
    const { text } = await ask('/estoque', 'almoxarifados');
    for (const stockroom of C1.activeStockrooms) expect(text).toContain(stockroom.nome);
  });

  it('opens another page of a material search with `pagina:`, as the help says', async () => {
    const result = await h.command('/estoque', 'de pagina:2');
    // Until the fix: the usage in the ack, "filtro desconhecido `pagina:`".
    expect(result.body).toBe('');
    const text = textOf(await h.nextMessage(result.sentAt, { userId: USERS.member }));
    expect(text).toMatch(/Página 2 de \d+/);
  });

  it('takes `pagina:` on the stockroom, type and category lists, which page like the others', async () => {
    for (const [text, title] of [
      ['almoxarifados pagina:2', 'Almoxarifados ativos'],
      ['tipos pagina:1', 'Tipos de material'],
      ['categorias pagina:3', 'Categorias de material'],
    ] as const) {
      const result = await h.command('/estoque', text);
      // Until the fix: the usage in the ack, "`almoxarifados` não aceita argumentos".
      expect(result.body, text).toBe('');
      // The sandbox's lists fit one page: a page past the end shows the last one.
      expect(textOf(await h.nextMessage(result.sentAt, { userId: USERS.member })), text).toContain(title);
    }
  });

  it('finds a material by words of its name, accents ignored', async () => {
    const { text } = await ask('/estoque', 'lampada led');
    expect(text).toContain(C1.material.nome);
  });

  it('finds a material typed in full-width letters (until 2026-11-27 nothing matched them)', async () => {
    const typed = 'ＬＡＭＰＡＤＡ ｌｅｄ';
    const { text } = await ask('/estoque', typed);
    expect(text).toContain(C1.material.nome);
    expect(text).not.toContain('Nenhum material encontrado');
  });

  it("shows each stockroom's last known balance under its name; `almox:N` shows N's, never another's as N's", async () => {
    const [central, torreNorte, vilaOlimpia] = C1.activeStockrooms;
    // The stockroom list is saved (names, no call); request 1316 (Torre Norte) shows the pliers at 18, request
    // 1319 (Central), read later, at 10.
    await ask('/estoque', 'almoxarifados');
    await ask('/solicitacao', '1316');
    await ask('/solicitacao', '1319');

    const own = await ask('/estoque', `alicate almox:${torreNorte.almoxarifado}`);
    // Until 2026-11-27: "Último saldo conhecido: 10 (mín. 6, máx. 18) — visto na solicitação 1319", Central's.
    expect(own.text).toContain(
      `Último saldo conhecido em ${torreNorte.nome} (${torreNorte.almoxarifado}): 18 (mín. 12`,
    );
    expect(own.text).toContain('visto na solicitação 1316');
    expect(own.text).not.toContain('solicitação 1319');

    // None known for stockroom 3: Central's, the newest, named as such.
    const elsewhere = await ask('/estoque', `alicate almox:${vilaOlimpia.almoxarifado}`);
    expect(elsewhere.text).toContain(
      `Sem saldo conhecido em ${vilaOlimpia.nome} (${vilaOlimpia.almoxarifado}); o último conhecido, em ` +
        `${central.nome} (${central.almoxarifado}): 10 (mín. 6`,
    );

    // Without `almox:`: the newest, under its stockroom's name, and the other stockroom's below it.
    const all = await ask('/estoque', 'alicate');
    expect(all.text).toContain(
      `Último saldo conhecido em ${central.nome} (${central.almoxarifado}): 10 (mín. 6`,
    );
    expect(all.text).toMatch(
      new RegExp(
        `Outros saldos conhecidos:\\n• ${torreNorte.nome} \\(${torreNorte.almoxarifado}\\): 18 \\(mín\\. 12[^\\n]*solicitação 1316`,
      ),
    );
    expect(h.slack.limitViolations).toEqual([]);
  });

  it('`almox:N` of a stockroom not among the saved active ones answers at once, with no upstream call', async () => {
    await ask('/estoque', 'almoxarifados');
    const calledSince = (at: number) =>
      h.sandbox.calls.filter((c) => c.at >= at && c.kind === 'data').map((c) => `${c.url} ${c.status}`);
    const unknown = await ask('/estoque', 'alicate almox:99');
    // Until 2026-11-27: a /v1/materiais?almoxarifadoId=99 call, then "Nenhum material encontrado … Tente outra grafia".
    expect(calledSince(unknown.result.sentAt)).toEqual([]);
    expect(unknown.text).toContain(
      'O almoxarifado 99 não está entre os ativos desta empresa (veja `/estoque almoxarifados`).',
    );
    expect(unknown.text).not.toContain('Tente outra grafia');
    // A stockroom that is there: the search as before, and the spelling hint when nothing matches.
    const known = await ask('/estoque', 'xyzzy almox:2');
    expect(calledSince(known.result.sentAt)).toEqual(['/v1/materiais?almoxarifadoId=2 200']);
    expect(known.text).toContain('Tente outra grafia');
  });

  it('`almox:N` with no stockroom list saved reads it first (one call, then cached) and refuses an unknown N', async () => {
    const calledSince = (at: number) =>
      h.sandbox.calls.filter((c) => c.at >= at && c.kind === 'data').map((c) => `${c.url} ${c.status}`);
    await h.container.cache.clear(TEAM);
    const cold = await ask('/estoque', 'alicate almox:99');
    expect(calledSince(cold.result.sentAt)).toEqual(['/v1/almoxarifados 200']);
    expect(cold.text).toContain('O almoxarifado 99 não está entre os ativos desta empresa');
    // The list is cached now: a known N reads the materials (and, the cache being cold, their type names).
    const again = await ask('/estoque', 'alicate almox:2');
    expect(calledSince(again.result.sentAt)).toContain('/v1/materiais?almoxarifadoId=2 200');
    expect(calledSince(again.result.sentAt)).not.toContain('/v1/almoxarifados 200');
    // The list unreadable: the search goes on, and a miss names both possible causes.
    await h.container.cache.clear(TEAM);
    h.sandbox.faults.next({ path: '/v1/almoxarifados', status: 500, times: 20 });
    const blind = await ask('/estoque', 'xyzzy almox:99');
    expect(calledSince(blind.result.sentAt)).toContain('/v1/materiais?almoxarifadoId=99 200');
    expect(blind.text).toContain('Confira o número do almoxarifado (`/estoque almoxarifados`)');
  });
});

describe('/compras pendentes', () => {
  it('a stockroom that cannot be read now is left out and said to be missing; the others show', async () => {
    h.sandbox.faults.next({
      path: /\/v1\/entradas-materiais\/compras\?.*almoxarifadoId=2/,
      status: 500,
      times: 10,
    });
    const { text } = await ask('/compras', 'pendentes');
    expect(text).toContain('Compras com saldo a receber');
    expect(text).toContain('1 almoxarifado não pôde ser consultado agora');
    const { pendingPurchases } = DEMO_FACTS.company1;
    expect(text).toContain(`Compra ${pendingPurchases[1][0]}*`);
    for (const id of pendingPurchases[2]) expect(text).not.toContain(`Compra ${id}*`);
  });

  it('opens another page with `pagina:`, as the help says', async () => {
    const result = await h.command('/compras', 'pendentes pagina:2');
    // Until the fix: the usage in the ack, "filtro desconhecido `pagina:`".
    expect(result.body).toBe('');
    const text = textOf(await h.nextMessage(result.sentAt, { userId: USERS.member }));
    const { pendingPurchases } = DEMO_FACTS.company1;
    const total = Object.values(pendingPurchases).flat().length;
    expect(text).toContain(`Página 2 de ${Math.ceil(total / PENDING_PAGE_SIZE)} · ${total} compras`);
  });

  it('`almox:N` takes its stockroom name from saved data only: no call for it, and its failure never fails the answer', async () => {
    const { pendingPurchases, activeStockrooms } = DEMO_FACTS.company1;
    const calledSince = (at: number) =>
      h.sandbox.calls.filter((c) => c.at >= at && c.kind === 'data').map((c) => `${c.url} ${c.status}`);
    // Nothing saved, and the stockroom list failing: its purchases still show, under its number, after one call.
    h.sandbox.faults.next({ path: '/v1/almoxarifados', status: 500, times: 20 });
    const cold = await ask('/compras', 'pendentes almox:2');
    expect(calledSince(cold.result.sentAt)).toEqual(['/v1/entradas-materiais/compras?almoxarifadoId=2 200']);
    expect(cold.text).toContain('*Almoxarifado 2* · 3 compras');
    for (const id of pendingPurchases[2]) expect(cold.text).toContain(`Compra ${id}*`);
    // Once the list is saved (`/estoque almoxarifados`), its name shows, still without asking for the list.
    h.sandbox.faults.clear();
    await ask('/estoque', 'almoxarifados');
    const named = await ask('/compras', 'pendentes almox:2');
    expect(calledSince(named.result.sentAt)).toEqual([]);
    expect(named.text).toContain(activeStockrooms[1]?.nome);
  });

  it('an empty stockroom list: says the linked company shows none, names it, and sends an admin to check the link', async () => {
    h.sandbox.faults.next({ path: '/v1/almoxarifados', status: 200, body: [] });
    const pending = await ask('/compras', 'pendentes');
    // Until 2026-11-27: "Nenhuma compra com saldo a receber." and "Nenhum almoxarifado ativo nesta empresa.", kept 6 h.
    expect(pending.text).not.toContain('Nenhuma compra com saldo a receber');
    expect(pending.text).toContain(
      `A empresa vinculada (empresa ${C1.empresa}) não mostra nenhum almoxarifado ativo`,
    );
    expect(pending.text).toContain('`/estoque status`');
    const stockrooms = await ask('/estoque', 'almoxarifados');
    expect(stockrooms.text).not.toContain('Nenhum almoxarifado ativo nesta empresa');
    expect(stockrooms.text).toContain(
      `A empresa vinculada (empresa ${C1.empresa}) não mostra nenhum almoxarifado ativo`,
    );
  });

  it('a stockroom the login may not read (403) is named, and not asked to be tried later', async () => {
    h.sandbox.faults.next({
      path: /\/v1\/entradas-materiais\/compras\?.*almoxarifadoId=2/,
      status: 403,
      times: 10,
    });
    const { text } = await ask('/compras', 'pendentes');
    // Until 2026-11-27: "1 almoxarifado não pôde ser consultado agora (limite de consultas ou falha do sistema de
    // estoque)… Tente de novo mais tarde.", as for a spent budget.
    expect(text).toContain('Sem permissão para o almoxarifado Torre Norte (2)');
    expect(text).not.toContain('Tente de novo');
    expect(text).toContain(`Compra ${DEMO_FACTS.company1.pendingPurchases[1][0]}*`);
  });

  it('none of them read: the failure itself, not an empty list', async () => {
    h.sandbox.faults.next({ path: /\/v1\/entradas-materiais\/compras/, status: 403, times: 10 });
    const { text } = await ask('/compras', 'pendentes');
    expect(text).not.toContain('Nenhuma compra com saldo a receber');
  });
});

describe('workspaces never see each other', () => {
  it('tells an unlinked workspace how to link, without calling upstream', async () => {
    const before = h.sandbox.calls.length;
    const result = await h.command('/estoque', 'almoxarifados', {
      team: OTHER_TEAM,
      user: USERS.otherTeamMember,
      channel: CHANNELS.otherTeamGeneral,
    });
    expect(result.status).toBe(200);
    const message = await eventually(() =>
      h.slack.messages.find((m) => m.at >= result.sentAt && m.visibleTo === USERS.otherTeamMember),
    );
    expect(textOf(message)).toContain('/estoque vincular');
    expect(h.sandbox.calls.length).toBe(before);
  });
});
