import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StatusEvent } from '../../../src/domain/feed/types.js';
import { Limits } from '../../../src/render/limits.js';
import { DEMO_FACTS } from '../../../src/sandbox/facts.js';
import { clientFor } from '../../fake-slack/helpers.js';
import {
  CHANNELS,
  eventually,
  type Harness,
  installOrgWide,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../../helpers/bot-harness.js';
import {
  buttonsOfView,
  clickInView,
  homeOpened,
  nextView,
  openHome,
  publishedHome,
  submitView,
  viewText,
} from '../../helpers/shortcuts.js';

/** The feed's event for request 1312 going from "Em separação" to "Entregue parcialmente", detected now. */
function moved1312(workspaceId: string, id: string): StatusEvent {
  return {
    kind: 'status',
    id,
    workspaceId,
    detectedAt: Date.now(),
    stockroomId: 1,
    requestId: 1312,
    fromStatus: 'Em separação',
    toStatus: 'Entregue parcialmente',
    requesterEmail: null,
  };
}

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

/** A member of this workspace who administers its organisation (Enterprise Grid), not the workspace itself. */
const addOrgAdmin = (enterpriseId: string) =>
  h.slack.addUser({
    id: 'U0ORGADM1',
    teamId: TEAM,
    name: 'carla.org',
    realName: 'Carla Org',
    email: 'carla.org@manutencao.example.com',
    enterpriseId,
    isOrgAdmin: true,
  });
const dataCalls = () => h.sandbox.calls.filter((c) => c.path.startsWith('/v1/')).length;
const slackCalls = (method: string) => h.slack.calls.filter((c) => c.method === method).length;
const homePublishes = (since: number) =>
  h.slack.views.slice(since).filter((v) => v.via === 'views.publish').length;
const logged = (text: string) => h.logs.filter((line) => line.includes(text)).length;

/** An upstream answer held until the test opens it. */
function gate() {
  let open: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { released, open: () => open() };
}

describe('App Home (app_home_opened -> views.publish)', () => {
  it('not linked: explains how to link; only admins get the Vincular button', async () => {
    let since = h.slack.views.length;
    const result = await homeOpened(h, USERS.admin);
    expect(result.status).toBe(200);
    const admin = await publishedHome(h, USERS.admin, since);
    expect(admin.view.type).toBe('home');
    expect(viewText(admin)).toContain('não está vinculado');
    expect(buttonsOfView(admin).map((b) => b.text?.text)).toContain('Vincular');

    since = h.slack.views.length;
    await homeOpened(h, USERS.member);
    const member = await publishedHome(h, USERS.member, since);
    expect(viewText(member)).toContain('Um administrador do workspace vincula com `/estoque vincular`');
    expect(buttonsOfView(member).map((b) => b.text?.text)).not.toContain('Vincular');
    expect(buttonsOfView(member).map((b) => b.text?.text)).toEqual(
      expect.arrayContaining(['Buscar material', 'Consultar solicitação', 'Ajuda']),
    );
  });

  it('Vincular on the Home opens the linking modal; once linked, the Home is published again, linked', async () => {
    const home = await openHome(h, USERS.admin);
    let since = h.slack.views.length;
    await clickInView(h, home, 'link:open');
    const modal = await nextView(h, since, 'views.open');
    expect(modal.view.callback_id).toBe('link-credentials');
    expect(JSON.parse(modal.view.private_metadata)).toEqual({ home: true, workspaceId: TEAM });
    since = h.slack.views.length;
    const { login, password } = DEMO_FACTS.company1;
    const result = await submitView(h, modal, {
      link_login: { login: { type: 'plain_text_input', value: login } },
      link_password: { password: { type: 'plain_text_input', value: password } },
      link_company: { company: { type: 'number_input', value: '1' } },
      link_unit: { unit: { type: 'number_input', value: null } },
      link_end_session: { end_session: { type: 'checkboxes', selected_options: [] } },
    } as never);
    expect(JSON.parse(result.body)).toEqual({ response_action: 'clear' });
    const after = await publishedHome(h, USERS.admin, since);
    expect(viewText(after)).toMatch(/Vinculado\* à empresa 1 por <@U00ADMIN1>/);
    expect(h.logs.some((line) => line.includes('nowhere to go'))).toBe(false);
  });

  it('Vincular on the Home, refused (the lookup fails), tells the person by DM: a Home click has no response_url', async () => {
    const home = await openHome(h, USERS.admin);
    const since = h.slack.views.length;
    h.slack.failNext('users.info', { error: 'user_not_found' }, 2);
    const sent = Date.now();
    await clickInView(h, home, 'link:open');
    const answer = await h.nextMessage(sent, { userId: USERS.admin });
    expect(textOf(answer)).toMatch(/Não consegui confirmar no Slack quem você é|administradores/);
    expect(h.slack.views.slice(since).some((v) => v.via === 'views.open')).toBe(false);
  });

  it('Vincular on the Home, a slow login that then fails: the modal closes and the admin is told why by DM', async () => {
    const home = await openHome(h, USERS.admin);
    const since = h.slack.views.length;
    await clickInView(h, home, 'link:open');
    const modal = await nextView(h, since, 'views.open');
    // Past the modal's answer budget (about 2.3 s of Slack's 3 s): the modal closes before the outcome is known.
    h.sandbox.faults.next({ path: /\/auth\/v1\/auth\/?$/, delayMs: 3_000 });
    const sent = Date.now();
    const result = await submitView(h, modal, {
      link_login: { login: { type: 'plain_text_input', value: DEMO_FACTS.company1.login } },
      link_password: { password: { type: 'plain_text_input', value: 'errada' } },
      link_company: { company: { type: 'number_input', value: '1' } },
      link_unit: { unit: { type: 'number_input', value: null } },
      link_end_session: { end_session: { type: 'checkboxes', selected_options: [] } },
    } as never);
    expect(JSON.parse(result.body)).toEqual({ response_action: 'clear' });
    const told = await h.nextMessage(sent, { userId: USERS.admin });
    expect(textOf(told)).toMatch(/Nada foi vinculado/);
    expect(told.channel).toMatch(/^D/);
  });

  it('the Messages tab opening publishes nothing', async () => {
    const since = h.slack.views.length;
    await homeOpened(h, USERS.admin, 'messages');
    // A Home tab opened afterwards is the first view published: the Messages tab one published none.
    await homeOpened(h, USERS.member);
    const first = await nextView(h, since, 'views.publish');
    expect(first.userId).toBe(USERS.member);
  });

  it('linked: company, who linked and when, budget for admins; opening spends no upstream call', async () => {
    await h.link(TEAM);
    const before = dataCalls();
    const home = await openHome(h, USERS.admin);
    const text = viewText(home);
    expect(text).toMatch(/Vinculado\* à empresa 1 por <@U00ADMIN1> em \d\d\/\d\d\/\d{4} \d\d:\d\d/);
    expect(text).toMatch(/consultas usadas/);
    // The change feed's state, as `/estoque status` shows it (no listener yet: it asks nothing).
    expect(text).toMatch(/Alertas: sem assinantes \(nenhuma consulta\)/);
    expect(buttonsOfView(home).map((b) => b.text?.text)).toEqual(
      expect.arrayContaining(['Vincular de novo', 'Desvincular']),
    );
    // Never matched, users list not cached: says so, asks nothing upstream.
    expect(text).toContain('Ainda não sei qual usuário do sistema é você');
    expect(dataCalls()).toBe(before);

    const memberSince = h.slack.views.length;
    await homeOpened(h, USERS.member);
    const member = await publishedHome(h, USERS.member, memberSince);
    expect(viewText(member)).not.toMatch(/consultas usadas/);
    expect(viewText(member)).not.toMatch(/Alertas:/);
    expect(buttonsOfView(member).map((b) => b.text?.text)).not.toContain('Desvincular');
  });

  it('an admin whose admin check cannot be made (users.info 429, 5xx) keeps the admin controls', async () => {
    await h.link(TEAM);
    const adminButtons = ['Vincular de novo', 'Desvincular'];
    // Found to be an admin once: the Home remembers it through a check that cannot be made.
    const checked = h.slack.views.length;
    await homeOpened(h, USERS.admin);
    await publishedHome(h, USERS.admin, checked);
    for (const failure of [
      { status: 429, retryAfterSec: 1 },
      // The listeners' client tries a 5xx three times.
      { status: 503, times: 3 },
    ] as const) {
      const since = h.slack.views.length;
      if (failure.status === 429) h.slack.failNext('users.info', failure, 1);
      else h.slack.failNext('users.info', { status: failure.status }, failure.times);
      await homeOpened(h, USERS.admin);
      const home = await publishedHome(h, USERS.admin, since);
      expect(buttonsOfView(home).map((b) => b.text?.text)).toEqual(expect.arrayContaining(adminButtons));
      expect(viewText(home)).toMatch(/consultas usadas/);
    }
    expect(h.logs.some((line) => line.includes('home not published'))).toBe(false);
  });

  it('anyone else whose check cannot be made gets no admin controls (nor an admin never checked before)', async () => {
    await h.link(TEAM);
    for (const user of [USERS.member, USERS.admin]) {
      const since = h.slack.views.length;
      h.slack.failNext('users.info', { status: 429, retryAfterSec: 1 }, 1);
      await homeOpened(h, user);
      const home = await publishedHome(h, user, since);
      expect(buttonsOfView(home).map((b) => b.text?.text)).not.toContain('Desvincular');
      expect(viewText(home)).not.toMatch(/consultas usadas/);
    }
  });

  it('Atualizar reads the user’s open requests (e-mail match); the next opening shows them from the cache', async () => {
    await h.link(TEAM);
    const first = await openHome(h, USERS.admin);

    let since = h.slack.views.length;
    const before = dataCalls();
    await clickInView(h, first, 'home:refresh');
    const refreshed = await publishedHome(h, USERS.admin, since);
    const text = viewText(refreshed);
    expect(text).toMatch(/em andamento/);
    expect(text).toMatch(/Dados salvos agora/);
    const rows = buttonsOfView(refreshed).filter((b) => b.action_id.startsWith('request:open:'));
    expect(rows.length).toBeGreaterThan(0);
    expect(dataCalls()).toBeGreaterThan(before);
    const listCalls = h.sandbox.calls.filter((c) => c.path === '/v1/solicitacoes-materiais');
    expect(listCalls.at(-1)?.url).toMatch(/SolicitanteId=\d+/);

    // Opened again: the same rows, from the cache, no upstream call.
    const after = dataCalls();
    since = h.slack.views.length;
    await homeOpened(h, USERS.admin);
    const again = await publishedHome(h, USERS.admin, since);
    expect(buttonsOfView(again).filter((b) => b.action_id.startsWith('request:open:'))).toEqual(rows);
    expect(dataCalls()).toBe(after);
  });

  it('Atualizar clicked again at once spends no second upstream call: what was just read is shown', async () => {
    await h.link(TEAM);
    const first = await openHome(h, USERS.admin);
    let since = h.slack.views.length;
    await clickInView(h, first, 'home:refresh');
    const refreshed = await publishedHome(h, USERS.admin, since);
    const lists = () => h.sandbox.calls.filter((c) => c.path === '/v1/solicitacoes-materiais').length;
    const afterFirst = lists();
    since = h.slack.views.length;
    await clickInView(h, refreshed, 'home:refresh');
    const again = await publishedHome(h, USERS.admin, since);
    expect(lists()).toBe(afterFirst);
    expect(viewText(again)).toMatch(/Dados salvos agora/);
  });

  /** Rows of the user's request list as a service may serve them: `closed` Atendida ones, then `open` ones. */
  function userRows(closed: readonly number[], open: readonly number[], totalRows?: number) {
    const template = (h.sandbox.data.company(1)?.requests ?? [])[0]!.record;
    const row = (id: number, name: string) => ({
      ...template,
      solicitacaoMaterialId: id,
      statusAndamentoSolicitacao_Nome: name,
      concluidoComRessalvas: false,
    });
    const rows = [...closed.map((id) => row(id, 'Atendida')), ...open.map((id) => row(id, 'Em separação'))];
    return rows.map((r, i) => ({ ...r, rowNumber: i + 1, totalRows: totalRows ?? rows.length }));
  }
  const userList = /\/v1\/solicitacoes-materiais\?.*SolicitanteId=/;
  const openButtons = (view: Parameters<typeof buttonsOfView>[0]) =>
    buttonsOfView(view)
      .filter((b) => b.action_id.startsWith('request:open:'))
      .map((b) => Number(b.value));

  it('Minhas solicitações: the open ones among every row read, newest first, whatever 10 newer closed ones come first', async () => {
    await h.link(TEAM);
    const first = await openHome(h, USERS.admin);
    // 12 newer Atendida requests served first, then the open ones in no order, then 3 older closed ones: 19 rows,
    // one block (until 2026-11-27 only the first 10 rows were looked at, and the Home said there were none open).
    const closedNewer = Array.from({ length: 12 }, (_, i) => 1341 - i);
    h.sandbox.faults.next({
      path: userList,
      status: 200,
      body: userRows([...closedNewer], [1271, 1318, 1283, 1315]).concat(
        userRows([1250, 1251, 1252], []).map((r, i) => ({ ...r, rowNumber: 17 + i, totalRows: 19 })),
      ),
    });
    const lists = () => h.sandbox.calls.filter((c) => userList.test(c.url)).length;
    const before = lists();
    const since = h.slack.views.length;
    await clickInView(h, first, 'home:refresh');
    const home = await publishedHome(h, USERS.admin, since);
    expect(lists()).toBe(before + 1);
    expect(openButtons(home)).toEqual([1318, 1315, 1283, 1271]);
    const text = viewText(home);
    expect(text).not.toContain('Nenhuma solicitação sua');
    expect(text).toMatch(/4 em andamento .*nos últimos 30 dias/);
    expect(text).not.toContain('lista todas');
  });

  it('Minhas solicitações: more open ones than the Home shows: the 10 newest, and the footer says so', async () => {
    await h.link(TEAM);
    let home = await openHome(h, USERS.admin);
    // 12 open, served oldest first.
    const open = Array.from({ length: 12 }, (_, i) => 1301 + i);
    h.sandbox.faults.next({ path: userList, status: 200, body: userRows([1341, 1340], open) });
    const since = h.slack.views.length;
    await clickInView(h, home, 'home:refresh');
    home = await publishedHome(h, USERS.admin, since);
    expect(openButtons(home)).toEqual(open.slice(2).reverse());
    expect(viewText(home)).toMatch(
      /12 em andamento .*nos últimos 30 dias · aqui as 10 mais novas: `\/solicitacao minhas` lista todas/,
    );
  });

  it('Minhas solicitações: a list longer than the rows read, none open among them, is not said to have none', async () => {
    await h.link(TEAM);
    let home = await openHome(h, USERS.admin);
    // 150 rows, one block of 100 read.
    const closed = Array.from({ length: 100 }, (_, i) => 1500 - i);
    h.sandbox.faults.next({ path: userList, status: 200, body: userRows(closed, [], 150) });
    const since = h.slack.views.length;
    await clickInView(h, home, 'home:refresh');
    home = await publishedHome(h, USERS.admin, since);
    expect(openButtons(home)).toEqual([]);
    const text = viewText(home);
    expect(text).toContain('Nenhuma solicitação sua');
    expect(text).toContain('em andamento entre as 100 lidas de 150 dos últimos 30 dias.');
    expect(text).toContain('`/solicitacao minhas` lista todas');
  });

  it('a user without an upstream e-mail match is told why there are no requests', async () => {
    await h.link(TEAM);
    const first = await openHome(h, USERS.member);
    const since = h.slack.views.length;
    await clickInView(h, first, 'home:refresh', USERS.member);
    const refreshed = await publishedHome(h, USERS.member, since);
    expect(viewText(refreshed)).toContain(
      'Nenhum usuário ativo do sistema tem o e-mail bruno.lima@manutencao.example.com',
    );
  });

  it('lists the workspace’s digests (channel, time, filters) and stays within 100 blocks with 150 of them', async () => {
    await h.link(TEAM);
    for (let i = 0; i < 150; i++) {
      await h.container.subscriptions.upsert({
        workspaceId: TEAM,
        channelId: i === 0 ? CHANNELS.stockroom : `C${String(i).padStart(8, '0')}`,
        hour: 7,
        minute: 30,
        timeZone: 'America/Sao_Paulo',
        weekdaysOnly: i === 0,
        stockroomId: i === 0 ? 2 : null,
        subscribedBy: USERS.admin,
      });
    }
    const home = await openHome(h, USERS.admin);
    expect(home.view.blocks.length).toBeLessThanOrEqual(Limits.modalBlocks);
    const text = viewText(home);
    expect(text).toContain(
      `<#${CHANNELS.stockroom}> · de segunda a sexta às 07:30 (America/Sao_Paulo) · almoxarifado 2`,
    );
    expect(text).toContain('e mais 130 canais');
    expect(h.slack.limitViolations).toEqual([]);
  });

  it('Desvincular (admins): unlinks and publishes the Home again; a member’s click unlinks nothing', async () => {
    await h.link(TEAM);
    const home = await openHome(h, USERS.admin);

    let since = h.slack.views.length;
    const clicked = Date.now();
    await clickInView(h, home, 'home:unlink', USERS.member);
    await publishedHome(h, USERS.member, since);
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(1);
    // The member is told why, by DM (a Home click has no response_url).
    const told = await h.nextMessage(clicked, { userId: USERS.member });
    expect(told.channel).toMatch(/^D/);
    expect(textOf(told)).toMatch(/administrador/i);

    since = h.slack.views.length;
    await clickInView(h, home, 'home:unlink', USERS.admin);
    const after = await publishedHome(h, USERS.admin, since);
    expect(viewText(after)).toContain('não está vinculado');
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(0);
  });

  it('Ajuda opens the help in a modal, with the trigger of the click', async () => {
    const home = await openHome(h, USERS.member);
    const since = h.slack.views.length;
    await clickInView(h, home, 'home:help', USERS.member);
    const help = await nextView(h, since, 'views.open');
    expect(help.view.type).toBe('modal');
    expect(viewText(help)).toContain('/solicitacao');
    await eventually(() => h.slack.limitViolations.length === 0);
  });

  it('Acompanhando: followed requests with the status last seen, Deixar de acompanhar stops one; the workspace’s alerts', async () => {
    await h.link(TEAM);
    const store = h.container.feedListeners;
    await store.follow(TEAM, USERS.admin, 1312, 'Em separação');
    await store.follow(TEAM, USERS.admin, 1316, null);
    await store.follow(TEAM, USERS.member, 1321, 'Aberta');
    await store.upsertChannel({
      workspaceId: TEAM,
      channelId: CHANNELS.stockroom,
      stockroomId: 2,
      kinds: ['novas', 'recebimentos'],
      subscribedBy: USERS.member,
    });
    const home = await openHome(h, USERS.admin);
    const text = viewText(home);
    expect(text).toContain('*1312* · último status visto: Em separação');
    expect(text).toContain('*1316* · último status visto: status ainda não visto');
    expect(text).not.toContain('1321 · último');
    expect(text).toContain(`<#${CHANNELS.stockroom}> · novas, recebimentos · almoxarifado 2`);

    const since = h.slack.views.length;
    await clickInView(h, home, 'home:unfollow:1312');
    const after = await publishedHome(h, USERS.admin, since);
    expect(viewText(after)).not.toContain('*1312* · último');
    expect(viewText(after)).toContain('*1316* · último');
    expect(await store.getFollow(TEAM, USERS.admin, 1312)).toBeNull();
  });

  it('openings while Atualizar reads upstream publish at once from what is saved; the refresh publishes when it has read', async () => {
    await h.link(TEAM);
    const first = await openHome(h, USERS.admin);
    // Atualizar reads the user's requests upstream: held there.
    const hold = gate();
    h.sandbox.faults.next({ path: '/v1/solicitacoes-materiais', release: hold.released });
    const since = h.slack.views.length;
    await clickInView(h, first, 'home:refresh');
    await eventually(() => h.sandbox.faults.pending === 0);

    const infoBefore = slackCalls('users.info');
    const results = await Promise.all(Array.from({ length: 30 }, () => homeOpened(h, USERS.admin)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    // Published while the refresh still waits on upstream (until 2026-11-27 every opening waited for it): each
    // opening published, or merged into a publish built after it.
    await eventually(() => logged('home publish merged into the next one') + homePublishes(since) >= 30);
    await eventually(() => homePublishes(since) >= 1);
    // One users.info per build (the admin check and the e-mail share it), not one per opening: at most one build
    // is under way beside those published.
    const lookups = slackCalls('users.info') - infoBefore;
    expect(lookups).toBeLessThanOrEqual(homePublishes(since) + 1);
    expect(viewText(await publishedHome(h, USERS.admin, since))).not.toMatch(/Dados salvos agora/);

    hold.open();
    // The refresh, done, publishes what it read.
    const refreshed = await eventually(() =>
      h.slack.views
        .slice(since)
        .find((v) => v.via === 'views.publish' && /Dados salvos agora/.test(viewText(v))),
    );
    expect(buttonsOfView(refreshed).some((b) => b.action_id.startsWith('request:open:'))).toBe(true);
  });

  it('Deixar de acompanhar clicked while Atualizar reads upstream: the Home published last shows it unfollowed', async () => {
    await h.link(TEAM);
    await h.container.feedListeners.follow(TEAM, USERS.admin, 1312, 'Em separação');
    const home = await openHome(h, USERS.admin);
    expect(viewText(home)).toContain('*1312* · último');

    const hold = gate();
    h.sandbox.faults.next({ path: '/v1/solicitacoes-materiais', release: hold.released });
    const since = h.slack.views.length;
    await clickInView(h, home, 'home:refresh');
    // The refresh has read the follows and waits on upstream.
    await eventually(() => h.sandbox.faults.pending === 0);
    await clickInView(h, home, 'home:unfollow:1312');
    await eventually(
      async () => (await h.container.feedListeners.getFollow(TEAM, USERS.admin, 1312)) === null,
    );
    // The unfollow's Home is published at once (the refresh's upstream read holds no opening or click).
    await eventually(() => homePublishes(since) >= 1);
    expect(viewText(await publishedHome(h, USERS.admin, since))).not.toContain('*1312* · último');
    hold.open();
    await eventually(() => homePublishes(since) >= 2);
    const last = await publishedHome(h, USERS.admin, since);
    expect(viewText(last)).not.toContain('*1312* · último');
  });

  it('a followed request that changes (its DM is posted) publishes the follower’s Home again', async () => {
    await h.link(TEAM);
    await h.container.feedListeners.follow(TEAM, USERS.member, 1312, 'Entregue parcialmente');
    const since = h.slack.views.length;
    const result = await h.container.feedPoster.post(TEAM, { kind: 'dm', userId: USERS.member }, [
      moved1312(TEAM, 'ev-1'),
    ]);
    expect(result).toEqual({ ok: true });
    const home = await publishedHome(h, USERS.member, since);
    expect(viewText(home)).toContain('*1312* · último status visto: Entregue parcialmente');
  });

  it('an org-wide install (workspace E…): the Home published after a feed DM knows the org’s admin as one', async () => {
    // The organisation's own install, so the feed has a client for the organisation's id.
    const ORG = 'E0ORG0001';
    await installOrgWide(h, ORG);
    const orgAdmin = addOrgAdmin(ORG);
    await h.container.feedListeners.follow(ORG, orgAdmin.id, 1312, 'Entregue parcialmente');
    const since = h.slack.views.length;
    const result = await h.container.feedPoster.post(ORG, { kind: 'dm', userId: orgAdmin.id }, [
      moved1312(ORG, 'ev-org-1'),
    ]);
    expect(result).toEqual({ ok: true });
    const home = await publishedHome(h, orgAdmin.id, since);
    expect(viewText(home)).toContain('*1312* · último status visto: Entregue parcialmente');
    expect(buttonsOfView(home).map((b) => b.text?.text)).toContain('Vincular');
  });

  it('a workspace an org-wide install serves: the Home published after a feed DM shows what it showed when opened', async () => {
    // Enterprise Grid: the workspace has no install of its own; a request of it named the organisation's install.
    const ORG = 'E0ORG0001';
    await installOrgWide(h, ORG);
    await h.installations.deleteInstallation({
      teamId: TEAM,
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    await h.installations.fetchInstallation({ teamId: TEAM, enterpriseId: ORG, isEnterpriseInstall: true });
    const orgAdmin = addOrgAdmin(ORG);
    await h.container.feedListeners.follow(TEAM, orgAdmin.id, 1312, 'Entregue parcialmente');
    const since = h.slack.views.length;
    const result = await h.container.feedPoster.post(TEAM, { kind: 'dm', userId: orgAdmin.id }, [
      moved1312(TEAM, 'ev-grid-1'),
    ]);
    expect(result).toEqual({ ok: true });
    const home = await publishedHome(h, orgAdmin.id, since);
    expect(viewText(home)).toContain('*1312* · último status visto: Entregue parcialmente');
    // The organisation's admin links for the organisation's install, as when the Home was opened (until 2026-11-27
    // the republished Home judged by the workspace alone, and took those controls away).
    expect(buttonsOfView(home).map((b) => b.text?.text)).toContain('Vincular');
  });

  it('a views.publish answered 429 (Retry-After 1 s): the Home is built again after the wait, from what is saved then, and published', async () => {
    await h.link(TEAM);
    h.slack.failNext('views.publish', { status: 429, retryAfterSec: 1 }, 1);
    const since = h.slack.views.length;
    await homeOpened(h, USERS.admin);
    // Refused once; followed meanwhile, the Home published after the wait shows it: built again, not resent.
    await eventually(() => h.slack.calls.some((c) => c.method === 'views.publish' && c.status === 429));
    await h.container.feedListeners.follow(TEAM, USERS.admin, 1312, 'Em separação');
    const home = await publishedHome(h, USERS.admin, since);
    expect(viewText(home)).toContain('*1312* · último status visto: Em separação');
    expect(slackCalls('views.publish')).toBe(2);
    expect(logged('home not published')).toBe(0);
  });

  it('the Home published after a feed DM, answered 429, is published after the wait too', async () => {
    await h.link(TEAM);
    await h.container.feedListeners.follow(TEAM, USERS.member, 1312, 'Entregue parcialmente');
    h.slack.failNext('views.publish', { status: 429, retryAfterSec: 1 }, 1);
    const since = h.slack.views.length;
    const result = await h.container.feedPoster.post(TEAM, { kind: 'dm', userId: USERS.member }, [
      moved1312(TEAM, 'ev-429'),
    ]);
    expect(result).toEqual({ ok: true });
    const home = await publishedHome(h, USERS.member, since);
    expect(viewText(home)).toContain('*1312* · último status visto: Entregue parcialmente');
    expect(h.slack.calls.filter((c) => c.method === 'views.publish').map((c) => c.status)).toEqual([
      429, 200,
    ]);
  });

  it('a 429 whose Retry-After is longer than a person waits on the Home is not waited for: logged, published at the next opening', async () => {
    await h.link(TEAM);
    h.slack.failNext('views.publish', { status: 429, retryAfterSec: 60 }, 1);
    await homeOpened(h, USERS.admin);
    await eventually(() => logged('home not published') === 1);
    expect(slackCalls('views.publish')).toBe(1);
    const home = await openHome(h, USERS.admin);
    expect(home.view.type).toBe('home');
  });

  it('a slow users.info does not hold the Home: published before it answers, then again once the admin check has', async () => {
    await h.link(TEAM);
    // users.info answers only when the test says: the Home's 1 s wait for it always runs out first.
    const slow = h.slack.holdNext('users.info');
    const since = h.slack.views.length;
    const callsBefore = h.slack.calls.length;
    await homeOpened(h, USERS.admin);
    const lookup = await slow.arrived;
    const first = await publishedHome(h, USERS.admin, since);
    // Published while users.info had not answered (until 2026-11-27, published only after the check, and the e-mail
    // lookup after it, had answered: 8 s with a 4 s lookup). Never checked before: without the admin controls.
    expect(lookup.answeredAt).toBeUndefined();
    expect(buttonsOfView(first).map((b) => b.text?.text)).not.toContain('Desvincular');
    expect(homePublishes(since)).toBe(1);

    slow.release();
    const answered = await eventually(() => lookup.answeredAt);
    // The check answered "admin": published again, after the answer, with them.
    const again = await eventually(() =>
      h.slack.views.slice(since).find((v) => v.via === 'views.publish' && v !== first),
    );
    expect(again.at).toBeGreaterThanOrEqual(answered);
    expect(buttonsOfView(again).map((b) => b.text?.text)).toEqual(
      expect.arrayContaining(['Vincular de novo', 'Desvincular']),
    );
    // One users.info per build: the admin check and the e-mail share it.
    expect(h.slack.calls.slice(callsBefore).filter((c) => c.method === 'users.info')).toHaveLength(1);
  });

  it('the e-mail lookup answering 429 when the match must be made again: the Home does not say it could not read', async () => {
    await h.link(TEAM);
    const first = await openHome(h, USERS.admin);
    let since = h.slack.views.length;
    await clickInView(h, first, 'home:refresh');
    await publishedHome(h, USERS.admin, since);
    // The day's match is gone (its key expired).
    await h.redis.redis.del(h.redis.keys.userMatch(TEAM, USERS.admin));
    h.slack.failNext('users.info', { status: 429, retryAfterSec: 1 }, 1);
    since = h.slack.views.length;
    await homeOpened(h, USERS.admin);
    const home = await publishedHome(h, USERS.admin, since);
    // Until 2026-11-27: "Não foi possível ler suas solicitações agora".
    expect(viewText(home)).not.toContain('Não foi possível ler');
    expect(viewText(home)).toContain('Ainda não sei qual usuário do sistema é você');
  });

  it('a Home with every section full stays within 100 blocks', async () => {
    await h.link(TEAM);
    const store = h.container.feedListeners;
    for (let i = 0; i < 40; i++) {
      await store.follow(TEAM, USERS.admin, 2000 + i, 'Aberta');
      await store.upsertChannel({
        workspaceId: TEAM,
        channelId: `C${String(i).padStart(8, '0')}`,
        stockroomId: null,
        subscribedBy: USERS.admin,
      });
      await h.container.subscriptions.upsert({
        workspaceId: TEAM,
        channelId: `C${String(i).padStart(8, '0')}`,
        hour: 8,
        minute: 0,
        timeZone: 'America/Sao_Paulo',
        weekdaysOnly: false,
        stockroomId: null,
        subscribedBy: USERS.admin,
      });
    }
    const first = await openHome(h, USERS.admin);
    const since = h.slack.views.length;
    await clickInView(h, first, 'home:refresh');
    const home = await publishedHome(h, USERS.admin, since);
    expect(buttonsOfView(home).some((b) => b.action_id.startsWith('request:open:'))).toBe(true);
    expect(home.view.blocks.length).toBeLessThanOrEqual(Limits.modalBlocks);
    const text = viewText(home);
    expect(text).toContain('e mais 25 solicitações: `/solicitacao acompanhando`');
    expect(text).toContain('e mais 25 canais: `/estoque alertas listar`');
    expect(text).toContain('e mais 20 canais: `/estoque resumo listar`');
    expect(text).not.toContain('Resposta encurtada');
    // The command the Home names lists every follow, paged (until 2026-11-27 it stopped at 40 rows).
    const asked = await h.command('/solicitacao', 'acompanhando pagina:4', { user: USERS.admin });
    const last = await h.nextMessage(asked.sentAt, { userId: USERS.admin, ephemeral: true });
    expect(textOf(last)).toContain('Página 4 de 4 · 40 solicitações');
    expect(textOf(last)).toContain('*2039* — Aberta');
    expect(h.slack.limitViolations).toEqual([]);
  });
});

describe('App Home: a match of the user older than its day', () => {
  it('users.info failing when the match must be made again: the requests saved for the user still show', async () => {
    let offset = 0;
    const later = await startHarness({ now: () => Date.now() + offset });
    try {
      await later.link(TEAM);
      let since = later.slack.views.length;
      await homeOpened(later, USERS.admin);
      const first = await publishedHome(later, USERS.admin, since);
      since = later.slack.views.length;
      await clickInView(later, first, 'home:refresh');
      const refreshed = await publishedHome(later, USERS.admin, since);
      const rows = buttonsOfView(refreshed).filter((b) => b.action_id.startsWith('request:open:'));
      expect(rows.length).toBeGreaterThan(0);

      // A day and an hour later the match is due to be made again, and Slack's users.info answers 429.
      offset = 25 * 3_600_000;
      later.slack.failNext('users.info', { status: 429, retryAfterSec: 1 }, 1);
      const calls = later.slack.calls.length;
      since = later.slack.views.length;
      await homeOpened(later, USERS.admin);
      const home = await publishedHome(later, USERS.admin, since);
      expect(later.slack.calls.slice(calls).filter((c) => c.method === 'users.info')).toHaveLength(1);
      expect(viewText(home)).not.toContain('Não foi possível ler');
      expect(buttonsOfView(home).filter((b) => b.action_id.startsWith('request:open:'))).toEqual(rows);
      expect(later.logs.some((line) => line.includes('user match not renewed now'))).toBe(true);

      // Once users.info answers, the match is made again (the users list is saved), and the Home is the same.
      since = later.slack.views.length;
      await homeOpened(later, USERS.admin);
      const renewed = await publishedHome(later, USERS.admin, since);
      expect(buttonsOfView(renewed).filter((b) => b.action_id.startsWith('request:open:'))).toEqual(rows);
    } finally {
      await later.close();
    }
  });
});

describe('App Home: two publishes that race, the Home built from the newer data stays', () => {
  /** The Home the person sees now: the last publish Slack took (a refused one is not recorded). */
  const homeNow = (since: number) => publishedHome(h, USERS.admin, since);
  const refreshedIn = (since: number) =>
    eventually(() =>
      h.slack.views
        .slice(since)
        .find((v) => v.via === 'views.publish' && /Dados salvos agora/.test(viewText(v))),
    );
  /** The Home opened once and done with (its publish recorded and logged), on this replica. */
  const openedAndDone = async () => {
    const home = await openHome(h, USERS.admin);
    await eventually(() => logged('home published') === 1);
    return home;
  };

  it('an opening built before a refresh on another replica, whose publish reaches Slack last, gives way', async () => {
    await h.link(TEAM);
    const first = await openedAndDone();
    const other = await h.addReplica();
    // This replica: an opening, built from what is saved; its views.publish reaches Slack late.
    const late = h.slack.holdNext('views.publish');
    const since = h.slack.views.length;
    await homeOpened(h, USERS.admin);
    const lateCall = await late.arrived;
    // The other replica: `Atualizar` reads the person's requests upstream, builds and publishes first.
    await clickInView(other, first, 'home:refresh');
    await refreshedIn(since);
    late.release();
    await eventually(() => lateCall.answeredAt);
    // This replica is done with the late publish, one way or the other.
    await eventually(() => logged('home published') > 1 || logged('home publish gave way') > 0);
    // Until 2026-11-27 the late publish landed over the refresh: the Home went back to the older view.
    expect(viewText(await homeNow(since))).toMatch(/Dados salvos agora/);
    expect(lateCall.error).toBe('hash_conflict');
    expect(logged('home publish gave way')).toBe(1);
  });

  it('a refresh whose publish reaches Slack after an older opening’s landed is refused, then published over it', async () => {
    await h.link(TEAM);
    const first = await openedAndDone();
    const other = await h.addReplica();
    const openingPublish = h.slack.holdNext('views.publish');
    const refreshPublish = h.slack.holdNext('views.publish');
    const since = h.slack.views.length;
    // Both read the Home's hash before either publish landed: the opening (this replica), then the refresh.
    await homeOpened(h, USERS.admin);
    const openingCall = await openingPublish.arrived;
    await clickInView(other, first, 'home:refresh');
    const refreshCall = await refreshPublish.arrived;
    // The older build lands first, as it should, and is recorded.
    openingPublish.release();
    await eventually(() => logged('home published') > 1);
    expect(openingCall.ok).toBe(true);
    const opening = await nextView(h, since, 'views.publish');
    expect(viewText(opening)).not.toMatch(/Dados salvos agora/);
    // The newer one, refused as its hash is no longer the Home's, is published again over the older one.
    refreshPublish.release();
    await eventually(() => refreshCall.answeredAt);
    expect(refreshCall.error).toBe('hash_conflict');
    await refreshedIn(since);
    await eventually(() => other.logs.some((line) => line.includes('home published')));
    expect(viewText(await homeNow(since))).toMatch(/Dados salvos agora/);
    expect(other.logs.some((line) => line.includes('home not published'))).toBe(false);
  });

  it('a Home changed by a publish the bot kept no record of: refused once, then published anyway', async () => {
    await h.link(TEAM);
    await openedAndDone();
    // Published by someone else with the app's token (another deployment, a script): its hash is unknown here.
    const elsewhere = clientFor(h.slack, h.slack.tokenFor(TEAM));
    await elsewhere.views.publish({
      user_id: USERS.admin,
      view: { type: 'home', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'outro' } }] },
    });
    const since = h.slack.views.length;
    const callsBefore = h.slack.calls.length;
    await homeOpened(h, USERS.admin);
    const home = await eventually(() =>
      h.slack.views.slice(since).find((v) => v.via === 'views.publish' && /Vinculado/.test(viewText(v))),
    );
    expect(home.userId).toBe(USERS.admin);
    const publishes = h.slack.calls.slice(callsBefore).filter((c) => c.method === 'views.publish');
    expect(publishes.map((c) => c.error ?? 'ok')).toEqual(['hash_conflict', 'ok']);
    expect(logged('home not published')).toBe(0);
  });
});
