import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
const C2 = DEMO_FACTS.company2;
let h: Harness;
const other = { team: OTHER_TEAM, user: USERS.otherTeamMember, channel: CHANNELS.otherTeamGeneral };

beforeEach(async () => {
  h = await startHarness();
  await h.link(TEAM);
  await h.link(OTHER_TEAM, C2.login, C2.password, C2.empresa);
});
afterEach(async () => {
  await h.close();
});

async function ask(
  command: string,
  text: string,
  who: { team?: string; user?: string; channel?: string } = {},
) {
  const result = await h.command(command, text, who);
  return textOf(await h.nextMessage(result.sentAt, { userId: who.user ?? USERS.member }));
}

describe('two workspaces', () => {
  it('each sees only its own company, even for the same command and cache key', async () => {
    const mine = await ask('/estoque', 'almoxarifados');
    const theirs = await ask('/estoque', 'almoxarifados', other);
    for (const s of C1.activeStockrooms) {
      expect(mine).toContain(s.nome);
      expect(theirs).not.toContain(s.nome);
    }
    for (const s of C2.activeStockrooms) {
      expect(theirs).toContain(s.nome);
      expect(mine).not.toContain(s.nome);
    }
    expect(await ask('/solicitacao', String(C2.requestIds.first))).toMatch(/não encontrada/);
    expect(await ask('/solicitacao', String(C2.requestIds.first), other)).toContain(
      `Solicitação ${C2.requestIds.first}`,
    );
    const cacheKeys = await h.redis.redis.keys(`${h.redis.prefix}cache:*`);
    expect(cacheKeys.some((k) => k.includes(`:${TEAM}:`))).toBe(true);
    expect(cacheKeys.some((k) => k.includes(`:${OTHER_TEAM}:`))).toBe(true);
  });

  it('uses the workspace of the signed payload, whatever a button value says', async () => {
    const result = await h.command('/solicitacao', String(C2.requestIds.first), other);
    const detail = await h.nextMessage(result.sentAt, { userId: USERS.otherTeamMember });
    // The same button clicked by someone of the first workspace reads the first workspace's data.
    const since = Date.now();
    const copy = { ...detail, channel: CHANNELS.stockroom, ephemeral: false, visibleTo: undefined };
    await h.click(copy, { text: 'Atualizar' }, { team: TEAM, user: USERS.member });
    expect(textOf(await h.nextMessage(since, { userId: USERS.member }))).toMatch(/não encontrada/);
  });
});

describe('/solicitacao minhas', () => {
  it('matches the Slack user to an upstream user by e-mail, once', async () => {
    h.slack.addUser({
      id: 'U00MARIA1',
      teamId: TEAM,
      name: 'maria',
      realName: 'Maria Souza',
      email: C1.user.email,
    });
    const text = await ask('/solicitacao', 'minhas', { user: 'U00MARIA1' });
    expect(text).toMatch(/Suas solicitações|Maria Souza/);
    const before = h.sandbox.calls.filter((c) => c.path === '/v1/usuarios').length;
    await ask('/solicitacao', 'minhas status:1', { user: 'U00MARIA1' });
    expect(h.sandbox.calls.filter((c) => c.path === '/v1/usuarios').length).toBe(before);
    const lists = h.sandbox.calls.filter((c) => c.path === '/v1/solicitacoes-materiais');
    expect(lists.at(-1)?.url).toContain(`SolicitanteId=${C1.user.usuario}`);
  });

  it('says so when no upstream user has the e-mail', async () => {
    expect(await ask('/solicitacao', 'minhas')).toMatch(/e-mail/i);
  });
});

describe('last known stock', () => {
  it('is recorded from request items and shown by the material search as such', async () => {
    const [id] = C1.requestsWithItemsBelowMinimum;
    const detail = await ask('/solicitacao', String(id));
    const name = /\*([^*]+)\*\nQtd/.exec(detail)?.[1];
    expect(name).toBeTruthy();
    const search = await ask('/estoque', name ?? '');
    expect(search).toMatch(/[Úú]ltimo saldo conhecido/);
    expect(search).toContain(String(id));
  });
});

describe('last known names', () => {
  it('are kept from the material list the search reads, per workspace', async () => {
    await ask('/estoque', C1.material.nome);
    const names = await h.redis.redis.hgetall(h.redis.keys.materialNames(TEAM, C1.empresa));
    expect(Object.values(names)).toContain(C1.material.nome);
    // The whole list read upstream, not only the matches.
    expect(Object.keys(names).length).toBeGreaterThan(20);
    expect(await h.redis.redis.exists(h.redis.keys.materialNames(OTHER_TEAM, C1.empresa))).toBe(0);
  });
});

describe('last known stock and names across links', () => {
  it('stay for a new link to the same company, and go with an unlink or a link to another company', async () => {
    const [id] = C1.requestsWithItemsBelowMinimum;
    await ask('/solicitacao', String(id));
    const stockKey = h.redis.keys.lastKnownStock(TEAM, C1.empresa);
    const namesKey = h.redis.keys.materialNames(TEAM, C1.empresa);
    const kept = async () => [await h.redis.redis.hlen(stockKey), await h.redis.redis.hlen(namesKey)];
    const [stock, names] = await kept();
    expect(stock).toBeGreaterThan(0);
    expect(names).toBe(stock);
    await h.link(TEAM);
    expect(await kept()).toEqual([stock, names]);
    await h.link(TEAM, C2.login, C2.password, C2.empresa);
    expect(await kept()).toEqual([0, 0]);
    await h.link(TEAM);
    await ask('/solicitacao', String(id));
    expect((await kept())[0]).toBeGreaterThan(0);
    await h.container.linkService.unlink(TEAM);
    expect(await kept()).toEqual([0, 0]);
  });

  it("a new link to another login forgets the old login's tokens; one to the same login keeps its pair", async () => {
    const first = await h.container.links.get(TEAM);
    const oldTokens = h.redis.keys.tokens(first?.credentialId ?? '');
    expect(await h.redis.redis.exists(oldTokens)).toBe(1);
    await h.link(TEAM);
    expect(await h.redis.redis.exists(oldTokens)).toBe(1);
    await h.link(TEAM, C2.login, C2.password, C2.empresa);
    const second = await h.container.links.get(TEAM);
    expect(second?.credentialId).not.toBe(first?.credentialId);
    expect(await h.redis.redis.exists(oldTokens)).toBe(0);
    expect(await h.redis.redis.exists(h.redis.keys.tokens(second?.credentialId ?? ''))).toBe(1);
  });

  it('a detail read under the old link that lands after a relink to another company is not kept for the new one', async () => {
    const [id] = C1.requestsWithItemsBelowMinimum;
    let release = () => {};
    h.sandbox.faults.next({
      path: `/v1/solicitacoes-materiais/${id}/itens`,
      release: new Promise<void>((resolve) => {
        release = resolve;
      }),
    });
    const asked = await h.command('/solicitacao', String(id));
    await eventually(() =>
      h.sandbox.calls.find((c) => c.path === `/v1/solicitacoes-materiais/${id}/itens` && c.status === 0),
    );
    // The admin links the workspace to company 2 while company 1's items are on their way.
    await h.link(TEAM, C2.login, C2.password, C2.empresa);
    release();
    await h.nextMessage(asked.sentAt, { userId: USERS.member });
    const underC2 = { workspaceId: TEAM, empresaId: C2.empresa };
    expect(await h.container.domain.stock.all(underC2)).toEqual(new Map());
    expect(await h.container.domain.stock.names(underC2)).toEqual(new Map());
  });
});

describe('/compras', () => {
  it('lists pending purchases across every active stockroom', async () => {
    const text = await ask('/compras', 'pendentes');
    const total = Object.values(C1.pendingPurchases).flat().length;
    expect(text).toContain(`${total} compras`);
    const pendingCalls = h.sandbox.calls.filter((c) => c.path === '/v1/entradas-materiais/compras');
    for (const s of C1.activeStockrooms)
      expect(pendingCalls.some((c) => c.url.includes(`almoxarifadoId=${s.almoxarifado}`))).toBe(true);
  });

  it('lists purchases without grouped ones, and receipts saying the date is the purchase date', async () => {
    const purchases = await ask('/compras', 'status:0');
    expect(purchases).toMatch(/Página 1/);
    const receipts = await ask('/compras', 'entradas de:01/01/2026');
    expect(receipts).toMatch(/data da compra/i);
  });
});
