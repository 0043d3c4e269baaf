import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DigestView } from '../../../src/domain/digest/digest-view.js';
import type { NewRequestEvent, ReceiptEvent } from '../../../src/domain/feed/types.js';
import { findRequestNumbers } from '../../../src/domain/requests/request-refs.js';
import { buildViewSubmissionPayload, interaction } from '../../../src/fake-slack/index.js';
import { renderDigest } from '../../../src/render/digest.js';
import { renderFeedPost } from '../../../src/render/feed.js';
import { DEMO_FACTS } from '../../../src/sandbox/facts.js';
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
  chooseInView,
  clickInView,
  globalShortcut,
  messageShortcut,
  nextView,
  openHome,
  publishedHome,
  shareInStockroom,
  submitView,
  suggest,
  viewText,
} from '../../helpers/shortcuts.js';

const C1 = DEMO_FACTS.company1;

/** A material whose last known stock the bot keeps (once a read of request items recorded it). */
function knownStock() {
  return eventually(
    async () =>
      [
        ...(
          await h.container.domain.stock.all({ workspaceId: TEAM, empresaId: DEMO_FACTS.company1.empresa })
        ).values(),
      ][0],
  );
}

/** Request 1312's items teach the bot some last known stock: one of those materials. */
async function learnStock() {
  await h.command('/solicitacao', '1312');
  return knownStock();
}

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

const materialCalls = () => h.sandbox.calls.filter((c) => c.path === '/v1/materiais').length;
const updatesOf = (viewId: string, since: number) =>
  h.slack.views.slice(since).filter((v) => v.viewId === viewId && v.via === 'views.update');

/** The first update of the picker after `since` that is an answer (not the picker waiting for the list or a choice). */
const answerShown = (viewId: string, since: number) =>
  eventually(() =>
    updatesOf(viewId, since).find(
      (v) => !/Buscando o material|Lendo a lista|A busca usa a lista de materiais já lida/.test(viewText(v)),
    ),
  );

describe('global shortcut buscar_material', () => {
  it('opens the picker at once; options from 2 characters, from the cached list, no upstream call per keystroke', async () => {
    const since = h.slack.views.length;
    const result = await globalShortcut(h, 'buscar_material');
    expect(result.status).toBe(200);
    const modal = await nextView(h, since, 'views.open');
    expect(modal.view.callback_id).toBe('material-search');
    expect(JSON.stringify(modal.view.blocks)).toContain('"type":"external_select"');
    // Opening reads the list once (not cached yet), at interactive priority.
    await eventually(() => materialCalls() === 1);

    expect((await suggest(h, modal, 'material:pick', 'l')).options).toEqual([]);
    const byName = await suggest(h, modal, 'material:pick', 'LAMPADA led');
    expect(byName.options.map((o) => o.text.text)).toContain(`${C1.material.codigo} · ${C1.material.nome}`);
    expect(byName.options.every((o) => /l[aâ]mpada/i.test(o.text.text) && /led/i.test(o.text.text))).toBe(
      true,
    );
    const byCode = await suggest(h, modal, 'material:pick', C1.material.codigo.toLowerCase());
    expect(byCode.options).toHaveLength(1);
    const wide = await suggest(h, modal, 'material:pick', 'ma');
    expect(wide.options.length).toBeGreaterThan(0);
    expect(wide.options.length).toBeLessThanOrEqual(100);
    expect(wide.options.every((o) => o.text.text.length <= 75)).toBe(true);
    expect(materialCalls()).toBe(1);
  });

  it('in a workspace not linked, the modal says how to link instead of suggesting nothing', async () => {
    await h.container.linkService.unlink(TEAM);
    const since = h.slack.views.length;
    await globalShortcut(h, 'buscar_material', USERS.member);
    const modal = await nextView(h, since, 'views.open');
    const told = await eventually(() => updatesOf(modal.viewId, since)[0]);
    expect(viewText(told)).toContain('/estoque vincular');
    expect((await suggest(h, modal, 'material:pick', 'cabo', USERS.member)).options).toEqual([]);
  });

  it('with nothing saved, a keystroke answers no options and asks upstream nothing', async () => {
    const since = h.slack.views.length;
    await globalShortcut(h, 'buscar_material');
    const modal = await nextView(h, since, 'views.open');
    // The warm-up read has landed in the cache: forget it.
    const cached = () => h.redis.redis.keys(`${h.redis.keys.cachePrefix(TEAM)}materials:*`);
    await eventually(async () => (await cached()).length === 1);
    await h.container.cache.clear(TEAM);
    expect(await cached()).toEqual([]);
    for (const typed of ['cabo', 'cabo f', 'torneira'])
      expect((await suggest(h, modal, 'material:pick', typed)).options).toEqual([]);
    expect(materialCalls()).toBe(1);
  });

  it('with the list unreadable (upstream 500), keystrokes ask upstream nothing, the warm-up is bounded and the modal says so; once readable, the picker works', async () => {
    await h.container.cache.clear(TEAM);
    h.sandbox.faults.next({ path: '/v1/materiais', status: 500, times: 50 });
    let since = h.slack.views.length;
    await globalShortcut(h, 'buscar_material');
    const modal = await nextView(h, since, 'views.open');
    // The warm-up ends saying the list could not be read.
    const failed = await eventually(() =>
      updatesOf(modal.viewId, since).find((v) => viewText(v).includes('erro interno')),
    );
    const warmUpCalls = materialCalls();
    expect(warmUpCalls).toBeGreaterThan(0);

    for (const typed of ['ca', 'cab', 'cabo', 'cabo ', 'cabo f'])
      expect((await suggest(h, modal, 'material:pick', typed)).options).toEqual([]);
    expect(materialCalls()).toBe(warmUpCalls);
    // Before that, while it read, the modal said so.
    expect(updatesOf(modal.viewId, since).map(viewText)).toEqual([
      expect.stringContaining('Lendo a lista de materiais'),
      viewText(failed),
    ]);

    // Opened again while the failure is recent (another person, another replica): no read, and it says why.
    since = h.slack.views.length;
    await globalShortcut(h, 'buscar_material', USERS.member);
    const again = await nextView(h, since, 'views.open');
    const told = await eventually(() => updatesOf(again.viewId, since)[0]);
    expect(viewText(told)).toContain('Não consegui ler a lista de materiais');
    expect(materialCalls()).toBe(warmUpCalls);

    // The marker is short (it expires on its own); here upstream recovers and the marker has expired.
    const marker = h.redis.keys.materialListRead(TEAM);
    const ttl = await h.redis.redis.pttl(marker);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5 * 60_000);
    h.sandbox.faults.clear();
    await h.redis.redis.del(marker);
    since = h.slack.views.length;
    await globalShortcut(h, 'buscar_material');
    const recovered = await nextView(h, since, 'views.open');
    const ready = await eventually(() => updatesOf(recovered.viewId, since)[1]);
    expect(viewText(ready)).not.toContain('Lendo a lista de materiais');
    expect(materialCalls()).toBe(warmUpCalls + 1);
    const options = (await suggest(h, recovered, 'material:pick', 'LAMPADA led')).options;
    expect(options.map((o) => o.text.text)).toContain(`${C1.material.codigo} · ${C1.material.nome}`);
    expect(materialCalls()).toBe(warmUpCalls + 1);
  });

  it('two modals opened at once with nothing saved read the list once', async () => {
    await h.container.cache.clear(TEAM);
    let release: () => void = () => undefined;
    h.sandbox.faults.next({
      path: '/v1/materiais',
      release: new Promise<void>((resolve) => {
        release = resolve;
      }),
    });
    const since = h.slack.views.length;
    await globalShortcut(h, 'buscar_material');
    await globalShortcut(h, 'buscar_material', USERS.member);
    const opened = await eventually(() => {
      const found = h.slack.views.slice(since).filter((v) => v.via === 'views.open');
      return found.length === 2 ? found : null;
    });
    // Both say the list is being read.
    for (const modal of opened) {
      const first = await eventually(() => updatesOf(modal.viewId, since)[0]);
      expect(viewText(first)).toContain('Lendo a lista de materiais');
    }
    release();
    // Each then shows the picker ready: the second shared the first one's read, and hears how it ended.
    for (const modal of opened) {
      await eventually(() => {
        const last = updatesOf(modal.viewId, since).at(-1);
        return last && !viewText(last).includes('Lendo a lista de materiais') ? last : null;
      });
    }
    const [mine] = opened;
    if (!mine) return;
    await eventually(async () => (await suggest(h, mine, 'material:pick', 'LAMPADA led')).options.length > 0);
    expect(materialCalls()).toBe(1);
  });

  it('choosing a material shows it with its last known stock (views.update), then Compartilhar posts it in the channel', async () => {
    // Request 1312's items teach the bot some last known stock.
    await h.command('/solicitacao', '1312');
    const items = await eventually(() => h.sandbox.calls.find((c) => c.path.endsWith('/1312/itens')));
    expect(items).toBeDefined();
    const known = await knownStock();

    let since = h.slack.views.length;
    await globalShortcut(h, 'buscar_material');
    const modal = await nextView(h, since, 'views.open');
    since = h.slack.views.length;
    await chooseInView(h, modal, 'material:pick', { text: 'x', value: String(known.materialId) });
    const detail = await answerShown(modal.viewId, since);
    expect(detail).toBeDefined();
    if (!detail) return;
    const text = viewText(detail);
    expect(text).toMatch(/Último saldo conhecido|último saldo conhecido/i);
    expect(text).toContain('1312');
    expect(JSON.stringify(detail.view.blocks)).toContain('"response_url_enabled":true');
    expect(detail.view.submit).toMatchObject({ text: 'Compartilhar' });
    // The workspace rides in the modal: an org-wide install's share names only the enterprise.
    expect(JSON.parse(detail.view.private_metadata)).toMatchObject({
      materialId: known.materialId,
      workspaceId: TEAM,
    });

    // No channel chosen: the modal says so.
    const none = await submitView(h, detail, {});
    expect(JSON.parse(none.body)).toMatchObject({
      response_action: 'errors',
      errors: { share_channel: 'Escolha um canal.' },
    });

    const sentAt = Date.now();
    const responseUrl = h.slack.newResponseUrl({
      teamId: TEAM,
      channelId: CHANNELS.stockroom,
      userId: USERS.admin,
    });
    const shared = await shareInStockroom(h, detail, responseUrl);
    expect(shared.body).toBe('');
    const posted = await h.nextMessage(sentAt, { channel: CHANNELS.stockroom, ephemeral: false });
    expect(textOf(posted)).toContain('Compartilhado por <@U00ADMIN1>');
    expect(textOf(posted)).toContain('1312');
  });
});

describe('Buscar material: last known stock per stockroom', () => {
  it('shows what `/estoque` shows: the newest balance under its stockroom, and the other stockroom known', async () => {
    const [central, torreNorte] = C1.activeStockrooms;
    // The stockroom list saved; request 1316 (Torre Norte) shows the pliers at 18, then 1319 (Central) at 10.
    for (const [command, text] of [
      ['/estoque', 'almoxarifados'],
      ['/solicitacao', '1316'],
      ['/solicitacao', '1319'],
    ] as const) {
      const result = await h.command(command, text);
      await h.nextMessage(result.sentAt, { userId: USERS.member });
    }
    let since = h.slack.views.length;
    await globalShortcut(h, 'buscar_material');
    const modal = await nextView(h, since, 'views.open');
    since = h.slack.views.length;
    await chooseInView(h, modal, 'material:pick', { text: 'x', value: '1058' });
    const detail = await answerShown(modal.viewId, since);
    const text = detail ? viewText(detail) : '';
    // Until 2026-11-27: "Último saldo conhecido: 10 (mín. 6, máx. 18) — visto na solicitação 1319", no stockroom.
    expect(text).toContain(`Último saldo conhecido em ${central.nome} (${central.almoxarifado}): 10 (mín. 6`);
    expect(text).toContain(`• ${torreNorte.nome} (${torreNorte.almoxarifado}): 18 (mín. 12`);
  });
});

describe('Buscar material when something fails after the click', () => {
  async function pickedDetail() {
    const known = await learnStock();
    let since = h.slack.views.length;
    await globalShortcut(h, 'buscar_material');
    const modal = await nextView(h, since, 'views.open');
    since = h.slack.views.length;
    await chooseInView(h, modal, 'material:pick', { text: 'x', value: String(known.materialId) });
    const detail = await answerShown(modal.viewId, since);
    if (!detail) throw new Error('no detail');
    return { modal, detail, materialId: known.materialId };
  }

  it('Compartilhar whose channel post is refused: who shared is told, nothing is in the channel', async () => {
    const { detail } = await pickedDetail();
    const responseUrl = h.slack.newResponseUrl({
      teamId: TEAM,
      channelId: CHANNELS.stockroom,
      userId: USERS.admin,
    });
    h.slack.failNext('response_url', { error: 'expired_url' }, 1);
    const sentAt = Date.now();
    await shareInStockroom(h, detail, responseUrl);
    const told = await h.nextMessage(sentAt, { userId: USERS.admin });
    expect(textOf(told)).toContain('Não consegui publicar o material no canal escolhido');
    expect(
      h.slack.messages.filter((m) => m.at >= sentAt && !m.ephemeral && m.channel === CHANNELS.stockroom),
    ).toEqual([]);
  });

  it('a material chosen whose modal Slack will not update (429, 5xx): the person is told by DM', async () => {
    const known = await learnStock();
    const since = h.slack.views.length;
    await globalShortcut(h, 'buscar_material');
    const modal = await nextView(h, since, 'views.open');
    // The warm-up read has landed and the modal says so: the next views.update is the one of the choice.
    await eventually(() => materialCalls() === 1 && updatesOf(modal.viewId, since).length === 2);
    // Each choice updates the modal twice (it says it is loading, then the material): both refused.
    for (const failure of [
      { failure: { status: 429, retryAfterSec: 1 }, times: 2 },
      // The listeners' client tries a 5xx three times.
      { failure: { status: 502 }, times: 6 },
    ] as const) {
      h.slack.failNext('views.update', failure.failure, failure.times);
      const sent = Date.now();
      await chooseInView(h, modal, 'material:pick', { text: 'x', value: String(known.materialId) });
      const told = await h.nextMessage(sent, { userId: USERS.admin });
      expect(textOf(told)).toContain('Não consegui mostrar o material na janela');
      expect(told.channel).toMatch(/^D/);
    }
    expect(h.logs.some((line) => line.includes('background task failed'))).toBe(false);
    // A modal the person closed meanwhile (Slack: not_found) is not a reason to DM them.
    h.slack.failNext('views.update', { error: 'not_found' }, 1);
    const closedAt = Date.now();
    await chooseInView(h, modal, 'material:pick', { text: 'x', value: String(known.materialId) });
    await eventually(() => h.logs.some((line) => line.includes('modal closed before this update')));
    expect(h.slack.messages.filter((m) => m.at >= closedAt)).toEqual([]);
  });

  it('two materials chosen in turn: the modal ends on the later one, however late the earlier one answers', async () => {
    // Nothing cached: the warm-up reads the list only, so the first choice reads the type names upstream.
    await h.container.cache.clear(TEAM);
    const since = h.slack.views.length;
    await globalShortcut(h, 'buscar_material');
    const modal = await nextView(h, since, 'views.open');
    await eventually(() => updatesOf(modal.viewId, since).length === 2);
    const [listed] = (await suggest(h, modal, 'material:pick', C1.material.codigo)).options;
    expect(listed).toBeDefined();
    if (!listed) return;
    // The first choice's type names are held upstream until the second choice is on screen.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.sandbox.faults.next({ path: '/v1/materiais/tipos', release: released });
    const at = h.slack.views.length;
    const shown = () =>
      updatesOf(modal.viewId, at)
        .map(viewText)
        .filter((text) => text.includes(C1.material.nome) || text.includes('999999'));
    await chooseInView(h, modal, 'material:pick', { text: listed.text.text, value: listed.value });
    await eventually(() => h.sandbox.faults.pending === 0);
    // A material no longer listed answers at once (no names to read).
    await chooseInView(h, modal, 'material:pick', { text: 'x', value: '999999' });
    await eventually(() => shown().some((text) => text.includes('999999')) || null);
    release();
    await eventually(() => h.container.tasks.size === 0 || null);
    const last = updatesOf(modal.viewId, at).at(-1);
    expect(last && viewText(last)).toContain('O material 999999 não está mais na lista');
    expect(shown().filter((text) => text.includes(C1.material.nome))).toEqual([]);
  });

  it('a material chosen after the link went away: the modal says so instead of staying as it was', async () => {
    const known = await learnStock();
    let since = h.slack.views.length;
    await globalShortcut(h, 'buscar_material');
    const modal = await nextView(h, since, 'views.open');
    await h.container.linkService.unlink(TEAM);
    since = h.slack.views.length;
    await chooseInView(h, modal, 'material:pick', { text: 'x', value: String(known.materialId) });
    const shown = await eventually(() =>
      updatesOf(modal.viewId, since).find((v) => viewText(v).includes('vincul')),
    );
    expect(viewText(shown)).toMatch(/não está vinculado/);
  });
});

describe('message shortcut abrir_solicitacao', () => {
  it('one number: a modal opens at once (before any upstream read), then shows the request', async () => {
    const since = h.slack.views.length;
    const callsBefore = h.sandbox.calls.length;
    await messageShortcut(h, 'abrir_solicitacao', 'Pessoal, a *solicitação 1312* chegou?', {
      channel: CHANNELS.stockroom,
    });
    const opened = await nextView(h, since, 'views.open');
    expect(viewText(opened)).toContain('Buscando a solicitação 1312');
    const shown = await eventually(() => updatesOf(opened.viewId, since)[0]);
    expect(shown.view.title).toMatchObject({ text: 'Solicitação 1312' });
    expect(viewText(shown)).toMatch(/Itens|itens/);
    // The modal was opened with the trigger before the bot asked upstream (the trigger lasts 3 s).
    const firstRead = h.sandbox.calls.slice(callsBefore).find((c) => c.path.includes('/1312/'));
    expect(firstRead).toBeDefined();
    expect(opened.at).toBeLessThanOrEqual(firstRead?.at ?? 0);
    // Buttons that answer through a message's response_url are not in the modal.
    expect(buttonsOfView(shown)).toEqual([]);
  });

  it('a request of several pages: Anterior/Próxima stay in the modal and page it with views.update', async () => {
    // 1312 with 20 items (3 pages of 8); the items are read once and cached, so every page shows these.
    const request = h.sandbox.data.company(1)?.requests.find((r) => r.record.solicitacaoMaterialId === 1312);
    const item = request!.items[0]!;
    const items = Array.from({ length: 20 }, (_, i) => ({
      ...item,
      solicitacaoMaterialItemId: 90_001 + i,
      material_Nome: `Material de teste ${i + 1}`,
      rowNumber: i + 1,
    }));
    h.sandbox.faults.next({
      path: '/v1/solicitacoes-materiais/1312/itens',
      status: 200,
      body: items,
      times: 5,
    });
    const since = h.slack.views.length;
    await messageShortcut(h, 'abrir_solicitacao', 'a solicitação 1312', { channel: CHANNELS.stockroom });
    const opened = await nextView(h, since, 'views.open');
    const first = await eventually(() =>
      updatesOf(opened.viewId, since).find((v) => viewText(v).includes('Página 1 de 3')),
    );
    // Only the page buttons: the others answer through a message's response_url.
    expect(buttonsOfView(first).map((b) => b.text?.text)).toEqual(['Próxima']);
    expect(viewText(first)).toContain('Material de teste 1');

    let at = h.slack.views.length;
    await clickInView(h, first, 'request:page:', USERS.member);
    const second = await eventually(() =>
      updatesOf(opened.viewId, at).find((v) => viewText(v).includes('Página 2 de 3')),
    );
    expect(viewText(second)).toContain('Material de teste 9');
    expect(viewText(second)).not.toContain('Material de teste 1\n');
    expect(buttonsOfView(second).map((b) => b.text?.text)).toEqual(['Anterior', 'Próxima']);
    // The answer updates the modal with the hash its click left (a later click wins).
    expect(second.via).toBe('views.update');

    at = h.slack.views.length;
    const next = buttonsOfView(second).find((b) => b.text?.text === 'Próxima');
    await clickInView(h, second, next!.action_id, USERS.member);
    const third = await eventually(() =>
      updatesOf(opened.viewId, at).find((v) => viewText(v).includes('Página 3 de 3')),
    );
    expect(viewText(third)).toContain('Material de teste 20');
    expect(buttonsOfView(third).map((b) => b.text?.text)).toEqual(['Anterior']);
    expect(h.slack.limitViolations).toEqual([]);
  });

  it('several numbers: a choice; a click replaces the modal with that request', async () => {
    const since = h.slack.views.length;
    await messageShortcut(h, 'abrir_solicitacao', 'SM 1312, #1316 e 2026 (ano)', {
      channel: CHANNELS.stockroom,
    });
    const choice = await nextView(h, since, 'views.open');
    expect(buttonsOfView(choice).map((b) => b.text?.text)).toEqual(['Solicitação 1312', 'Solicitação 1316']);
    const at = h.slack.views.length;
    await clickInView(h, choice, 'request:open:1316', USERS.member);
    const shown = await eventually(() =>
      updatesOf(choice.viewId, at).find(
        (v) =>
          (v.view.title as { text: string }).text === 'Solicitação 1316' && !viewText(v).includes('Buscando'),
      ),
    );
    expect(viewText(shown)).toContain('1316');
  });

  it('two choices clicked in turn: the modal ends on the later one, however late the earlier one answers', async () => {
    const since = h.slack.views.length;
    await messageShortcut(h, 'abrir_solicitacao', 'SM 1312, #1316', { channel: CHANNELS.stockroom });
    const choice = await nextView(h, since, 'views.open');
    // 1312's reads are held upstream until 1316 is on screen.
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.sandbox.faults.next({ path: /solicitacoes-materiais\/1312\//, release: released, times: 2 });
    const at = h.slack.views.length;
    const shownTitles = () =>
      updatesOf(choice.viewId, at)
        .filter((v) => !viewText(v).includes('Buscando'))
        .map((v) => (v.view.title as { text: string }).text);
    await clickInView(h, choice, 'request:open:1312', USERS.member);
    await clickInView(h, choice, 'request:open:1316', USERS.member);
    await eventually(() => shownTitles().includes('Solicitação 1316') || null);
    release();
    // 1312's answer is done (and gave way): nothing is left running.
    await eventually(() => h.container.tasks.size === 0 || null);
    expect(shownTitles()).toEqual(['Solicitação 1316']);
  });

  it('on the bot’s own alert, reads the numbers in its blocks, not only the summary in its text', async () => {
    const novas = (requestId: number): NewRequestEvent => ({
      kind: 'novas',
      id: `${TEAM}:novas:${requestId}`,
      workspaceId: TEAM,
      detectedAt: Date.now(),
      stockroomId: 1,
      requestId,
      stockroomName: 'Almoxarifado Central',
      requesterName: 'Márcia',
      requesterEmail: null,
      statusName: null,
    });
    const alert = renderFeedPost(
      { kind: 'channel', channelId: CHANNELS.stockroom },
      [novas(1312), novas(1316)],
      {
        timeZone: 'America/Sao_Paulo',
        now: Date.now(),
      },
    );
    // Slack's notification text names the first change only.
    expect(findRequestNumbers(alert?.text)).toEqual([1312]);
    const since = h.slack.views.length;
    await messageShortcut(h, 'abrir_solicitacao', alert?.text ?? '', {
      channel: CHANNELS.stockroom,
      blocks: alert?.blocks ?? [],
      fromBot: true,
    });
    const choice = await nextView(h, since, 'views.open');
    expect(buttonsOfView(choice).map((b) => b.text?.text)).toEqual(['Solicitação 1312', 'Solicitação 1316']);
  });

  it('on the bot’s digest, offers every new request, though a low-stock line names one with its label', async () => {
    const now = Date.now();
    const request = (id: number) => ({
      solicitacaoMaterialId: id,
      almoxarifado: 1,
      site: 1,
      solicitante: 42,
      almoxarifado_Nome: 'Almoxarifado Central',
      solicitante_Nome: 'Márcia',
      listaStatusAndamentoSolicitacao: null,
      statusAndamentoSolicitacao: 1,
      statusAndamentoSolicitacao_Nome: 'Aberta',
      ocorrencias: null,
      concluidoComRessalvas: false,
      rowNumber: 1,
      totalRows: 4,
    });
    const view: DigestView = {
      workspaceId: TEAM,
      stockroomId: null,
      stockroomName: null,
      since: now - 86_400_000,
      coveredUntil: now,
      opened: {
        total: 4,
        rows: [1324, 1323, 1322, 1321].map(request),
        fromDay: { year: 2026, month: 11, day: 26 },
      },
      inProgress: {
        total: 3,
        statuses: [{ status: 2, name: 'Em separação', count: 3 }],
        fromDay: { year: 2026, month: 10, day: 28 },
        complete: true,
      },
      pending: {
        total: 1,
        stockrooms: 1,
        rows: [
          {
            purchase: {
              compraMaterialId: 7012,
              almoxarifado: 1,
              almoxarifado_Nome: 'Almoxarifado Central',
              fornecedor: 12,
              fornecedor_Nome: 'Hidráulica São Jorge Ltda',
            },
            stockroom: { almoxarifado: 1, nome: 'Almoxarifado Central' },
          },
        ],
      },
      belowMinimum: {
        total: 1,
        rows: [
          {
            // A number in the material's name, in the block that names its request: no request.
            stock: { materialId: 101, current: 0, minimum: 10, maximum: 40, requestId: 1321, seenAt: now },
            name: 'Lâmpada LED 1500 lm',
          },
        ],
        itemListsRead: 4,
        newRequests: 4,
      },
      freshness: { fetchedAt: now, fromCache: false, degraded: null },
    };
    const digest = renderDigest(view, { timeZone: 'America/Sao_Paulo', now });
    const since = h.slack.views.length;
    await messageShortcut(h, 'abrir_solicitacao', digest.text ?? '', {
      channel: CHANNELS.stockroom,
      blocks: digest.blocks ?? [],
      fromBot: true,
    });
    const choice = await nextView(h, since, 'views.open');
    // Until 2026-11-27 only 1321: "visto na solicitação 1321" hid the rows' plain numbers of the whole message.
    expect(buttonsOfView(choice).map((b) => b.text?.text)).toEqual([
      'Solicitação 1324',
      'Solicitação 1323',
      'Solicitação 1322',
      'Solicitação 1321',
    ]);
  });

  it('on the bot’s receipt alert, the purchase’s number is no request: its linked requests are', async () => {
    const receipt = (requestIds: number[]): ReceiptEvent => ({
      kind: 'recebimentos',
      id: `${TEAM}:recebimentos:7012:${requestIds.length}`,
      workspaceId: TEAM,
      detectedAt: Date.now(),
      stockroomId: 1,
      purchaseId: 7012,
      supplierName: 'Hidráulica São Jorge Ltda',
      complete: true,
      requestIds,
    });
    const ctx = { timeZone: 'America/Sao_Paulo', now: Date.now() };
    // No linked request: nothing to open (until 2026-11-27 it opened "Solicitação 7012").
    const alone = renderFeedPost({ kind: 'channel', channelId: CHANNELS.stockroom }, [receipt([])], ctx);
    let since = h.slack.views.length;
    await messageShortcut(h, 'abrir_solicitacao', alone?.text ?? '', {
      channel: CHANNELS.stockroom,
      blocks: alone?.blocks ?? [],
      fromBot: true,
    });
    const none = await nextView(h, since, 'views.open');
    expect(viewText(none)).toContain('Não encontrei número de solicitação nesta mensagem');

    // One linked request: that one opens.
    const linked = renderFeedPost({ kind: 'channel', channelId: CHANNELS.stockroom }, [receipt([1312])], ctx);
    since = h.slack.views.length;
    await messageShortcut(h, 'abrir_solicitacao', linked?.text ?? '', {
      channel: CHANNELS.stockroom,
      blocks: linked?.blocks ?? [],
      fromBot: true,
    });
    const opened = await nextView(h, since, 'views.open');
    expect(viewText(opened)).toContain('Buscando a solicitação 1312');
  });

  it('no number: says so; an unknown number: says it was not found', async () => {
    let since = h.slack.views.length;
    await messageShortcut(h, 'abrir_solicitacao', 'bom dia <@U00ADMIN1>, em 10/11/2026 às 10:30', {
      channel: CHANNELS.stockroom,
    });
    const none = await nextView(h, since, 'views.open');
    expect(viewText(none)).toContain('Não encontrei número de solicitação nesta mensagem');

    since = h.slack.views.length;
    await messageShortcut(h, 'abrir_solicitacao', `solicitação ${C1.unknownRequestId}`, {
      channel: CHANNELS.stockroom,
    });
    const opened = await nextView(h, since, 'views.open');
    const shown = await eventually(() => updatesOf(opened.viewId, since)[0]);
    expect(viewText(shown)).toContain(`Solicitação ${C1.unknownRequestId} não encontrada`);
  });

  it('a trigger_id Slack refuses (used up, as one older than 3 s is) opens nothing and breaks nothing', async () => {
    const since = h.slack.views.length;
    const expired = h.slack.newTriggerId({ userId: USERS.member, teamId: TEAM });
    const first = await messageShortcut(h, 'abrir_solicitacao', '#1312', {
      channel: CHANNELS.stockroom,
      triggerId: expired,
    });
    expect(first.status).toBe(200);
    await nextView(h, since, 'views.open');
    const again = await messageShortcut(h, 'abrir_solicitacao', '#1312', {
      channel: CHANNELS.stockroom,
      triggerId: expired,
    });
    expect(again.status).toBe(200);
    await eventually(() => h.slack.calls.some((c) => c.method === 'views.open' && !c.ok));
    expect(h.slack.views.slice(since).filter((v) => v.via === 'views.open')).toHaveLength(1);
  });
});

describe('a modal Slack will not open: the person is told, never left with nothing', () => {
  const NOT_OPENED = 'Não consegui abrir a janela no Slack';

  it('Abrir solicitação (one number, several): an ephemeral message in the channel, through its response_url', async () => {
    for (const [text, failure] of [
      ['#1312', { error: 'expired_trigger_id' }],
      ['SM 1312 e #1316', { status: 429, retryAfterSec: 1 }],
    ] as const) {
      h.slack.failNext('views.open', failure, 1);
      const sent = Date.now();
      await messageShortcut(h, 'abrir_solicitacao', text, { channel: CHANNELS.stockroom });
      const told = await h.nextMessage(sent, { userId: USERS.member });
      expect(textOf(told)).toContain(NOT_OPENED);
      expect(told).toMatchObject({ channel: CHANNELS.stockroom, ephemeral: true, visibleTo: USERS.member });
    }
  });

  it('Buscar material (global shortcut): no response_url, so a DM', async () => {
    // The trigger's client tries a 5xx twice.
    h.slack.failNext('views.open', { status: 500 }, 2);
    const sent = Date.now();
    await globalShortcut(h, 'buscar_material', USERS.member);
    const told = await h.nextMessage(sent, { userId: USERS.member });
    expect(textOf(told)).toContain(NOT_OPENED);
    expect(told.channel).toMatch(/^D/);
  });

  it('the Home’s Buscar material, Consultar solicitação, Ajuda and a request row: a DM each', async () => {
    const first = await openHome(h, USERS.admin);
    const since = h.slack.views.length;
    await clickInView(h, first, 'home:refresh');
    const home = await publishedHome(h, USERS.admin, since);
    const row = buttonsOfView(home).find((b) => b.action_id.startsWith('request:open:'));
    expect(row).toBeDefined();
    for (const button of ['home:search', 'home:lookup', 'home:help', row?.action_id ?? '']) {
      h.slack.failNext('views.open', { error: 'expired_trigger_id' }, 1);
      const sent = Date.now();
      await clickInView(h, home, button);
      const told = await h.nextMessage(sent, { userId: USERS.admin });
      expect(textOf(told)).toContain(NOT_OPENED);
      expect(told.channel).toMatch(/^D/);
    }
  });
});

/**
 * Slack opens the modal but its reply to views.open is lost (a connection cut, a timeout): the retry with the same
 * trigger_id is refused (`exchanged_trigger_id`, or `duplicate_external_id` for the same external_id). The modal
 * that really opened gets the answer, and nobody is told it never opened (until 2026-11-27 the bot said "Não
 * consegui abrir a janela" while the real modal stayed on "Buscando…" forever).
 */
describe('a views.open whose reply is lost: the modal that opened is used, and nobody is told otherwise', () => {
  const NOT_OPENED = 'Não consegui abrir a janela';
  const opens = () => h.slack.calls.filter((c) => c.method === 'views.open');

  /** Once the retry was refused and the work after it is done: what was said to anybody since `sent`. */
  async function toldSince(sent: number, opensBefore: number) {
    await eventually(() => opens().length >= opensBefore + 2 || null);
    await eventually(() => h.container.tasks.size === 0 || null);
    return h.slack.messages.filter((m) => m.at >= sent).map(textOf);
  }

  it('Abrir solicitação (one number): the request shows in the modal that opened', async () => {
    h.slack.failNext('views.open', { dropReply: true }, 1);
    const since = h.slack.views.length;
    const opensBefore = opens().length;
    const sent = Date.now();
    await messageShortcut(h, 'abrir_solicitacao', 'a SM 1312 chegou?', { channel: CHANNELS.stockroom });
    const opened = await nextView(h, since, 'views.open');
    expect(viewText(opened)).toContain('Buscando a solicitação 1312');
    const shown = await eventually(() => updatesOf(opened.viewId, since)[0]);
    expect(shown.view.title).toMatchObject({ text: 'Solicitação 1312' });
    expect(viewText(shown)).not.toContain('Buscando');
    expect(await toldSince(sent, opensBefore)).toEqual([]);
    // One modal: the retry opened none.
    expect(h.slack.views.slice(since).filter((v) => v.via === 'views.open')).toHaveLength(1);
  });

  it('a Home request row: the request shows in the modal that opened', async () => {
    await h.link(TEAM);
    const first = await openHome(h, USERS.admin);
    let since = h.slack.views.length;
    await clickInView(h, first, 'home:refresh');
    const home = await publishedHome(h, USERS.admin, since);
    const row = buttonsOfView(home).find((b) => b.action_id.startsWith('request:open:'));
    if (!row) throw new Error('no request row on the Home');
    h.slack.failNext('views.open', { dropReply: true }, 1);
    since = h.slack.views.length;
    const opensBefore = opens().length;
    const sent = Date.now();
    await clickInView(h, home, row.action_id);
    const opened = await nextView(h, since, 'views.open');
    const shown = await eventually(() => updatesOf(opened.viewId, since)[0]);
    expect((shown.view.title as { text: string }).text).toBe(`Solicitação ${row.value}`);
    expect(await toldSince(sent, opensBefore)).toEqual([]);
  });

  it('Buscar material with no saved list: the list is read and the modal that opened shows the picker ready', async () => {
    await h.container.cache.clear(TEAM);
    h.slack.failNext('views.open', { dropReply: true }, 1);
    const since = h.slack.views.length;
    const opensBefore = opens().length;
    const sent = Date.now();
    await globalShortcut(h, 'buscar_material', USERS.member);
    const opened = await nextView(h, since, 'views.open');
    // The warm-up ran: the list read once, the modal said so, then showed the picker ready.
    await eventually(() => updatesOf(opened.viewId, since).length === 2 || null);
    expect(materialCalls()).toBe(1);
    expect(updatesOf(opened.viewId, since).map(viewText)).toEqual([
      expect.stringContaining('Lendo a lista de materiais'),
      expect.not.stringContaining('Lendo a lista de materiais'),
    ]);
    expect(await toldSince(sent, opensBefore)).toEqual([]);
    const options = (await suggest(h, opened, 'material:pick', 'LAMPADA led', USERS.member)).options;
    expect(options.map((o) => o.text.text)).toContain(`${C1.material.codigo} · ${C1.material.nome}`);
  });

  it('modals that only show (several numbers, Consultar solicitação, Ajuda, Vincular): nobody is told they did not open', async () => {
    const first = await openHome(h, USERS.admin);
    const opening: [string, () => Promise<unknown>][] = [
      [
        'Abrir solicitação, several numbers',
        () => messageShortcut(h, 'abrir_solicitacao', 'SM 1312 e #1316', { channel: CHANNELS.stockroom }),
      ],
      ['Consultar solicitação', () => clickInView(h, first, 'home:lookup')],
      ['Ajuda', () => clickInView(h, first, 'home:help')],
      ['Vincular on the Home', () => clickInView(h, first, 'link:open')],
      ['/estoque vincular', () => h.command('/estoque', 'vincular', { user: USERS.admin })],
    ];
    for (const [name, open] of opening) {
      h.slack.failNext('views.open', { dropReply: true }, 1);
      const since = h.slack.views.length;
      const opensBefore = opens().length;
      const sent = Date.now();
      await open();
      expect(await toldSince(sent, opensBefore), name).toEqual([]);
      expect(
        h.slack.views.slice(since).filter((v) => v.via === 'views.open'),
        name,
      ).toHaveLength(1);
    }
    expect(h.logs.some((line) => line.includes(NOT_OPENED))).toBe(false);
  });
});

describe('Consultar solicitação (Home button)', () => {
  it('asks the number, refuses what is not one, then turns into the request', async () => {
    const home = await openHome(h, USERS.member);
    let since = h.slack.views.length;
    await clickInView(h, home, 'home:lookup', USERS.member);
    const lookup = await nextView(h, since, 'views.open');
    expect(lookup.view.callback_id).toBe('request-lookup');

    const bad = await submitView(
      h,
      lookup,
      { request_number: { number: { type: 'plain_text_input', value: '12a' } } },
      { user: USERS.member },
    );
    expect(JSON.parse(bad.body)).toMatchObject({ response_action: 'errors' });

    since = h.slack.views.length;
    const good = await submitView(
      h,
      lookup,
      { request_number: { number: { type: 'plain_text_input', value: ' #1321 ' } } },
      { user: USERS.member },
    );
    expect(JSON.parse(good.body)).toMatchObject({ response_action: 'update' });
    const shown = await eventually(() => updatesOf(lookup.viewId, since)[0]);
    expect(shown.view.title).toMatchObject({ text: 'Solicitação 1321' });
  });

  it('reads the number as /solicitacao reads it: full-width, SM, solicitação, a zero-width space, Arabic-Indic digits', async () => {
    // Until 2026-11-27 the field took only ASCII digits and a `#`, and refused numbers `/solicitacao` accepts.
    const home = await openHome(h, USERS.member);
    let since = h.slack.views.length;
    await clickInView(h, home, 'home:lookup', USERS.member);
    const lookup = await nextView(h, since, 'views.open');
    for (const value of [
      '１３２１',
      'SM 1321',
      'solicitação 1321',
      '1321\u200b',
      '١٣٢١',
      '1.321',
      'Nº 1321',
    ]) {
      since = h.slack.views.length;
      const answer = await submitView(
        h,
        lookup,
        { request_number: { number: { type: 'plain_text_input', value } } },
        { user: USERS.member },
      );
      expect(JSON.parse(answer.body), JSON.stringify(value)).toMatchObject({ response_action: 'update' });
      const shown = await eventually(() => updatesOf(lookup.viewId, since)[0]);
      expect(shown.view.title, JSON.stringify(value)).toMatchObject({ text: 'Solicitação 1321' });
    }
    // Still only a number: a number with more words, or a search, is refused.
    for (const value of ['1321 historico', 'torre', '12a']) {
      const refused = await submitView(
        h,
        lookup,
        { request_number: { number: { type: 'plain_text_input', value } } },
        { user: USERS.member },
      );
      expect(JSON.parse(refused.body), value).toMatchObject({ response_action: 'errors' });
    }
  });

  it('a submission whose form state is missing asks for the number again, not a silent close', async () => {
    const home = await openHome(h, USERS.member);
    const since = h.slack.views.length;
    await clickInView(h, home, 'home:lookup', USERS.member);
    const lookup = await nextView(h, since, 'views.open');
    const payload = buildViewSubmissionPayload({
      teamId: TEAM,
      userId: USERS.member,
      callbackId: 'request-lookup',
      viewId: lookup.viewId,
      privateMetadata: lookup.view.private_metadata,
      values: {} as never,
    }) as unknown as { view: Record<string, unknown> };
    delete payload.view.state;
    const answer = await interaction(h.target, payload);
    expect(JSON.parse(answer.body)).toMatchObject({ response_action: 'errors' });
  });

  it("an org-wide install's submission (naming only the enterprise) answers for the workspace the modal was opened in", async () => {
    await installOrgWide(h, 'E0ORG0001');
    const home = await openHome(h, USERS.member);
    let since = h.slack.views.length;
    await clickInView(h, home, 'home:lookup', USERS.member);
    const lookup = await nextView(h, since, 'views.open');
    since = h.slack.views.length;
    const good = await submitView(
      h,
      lookup,
      { request_number: { number: { type: 'plain_text_input', value: '1321' } } },
      { user: USERS.member, orgInstall: 'E0ORG0001' },
    );
    expect(JSON.parse(good.body)).toMatchObject({ response_action: 'update' });
    const shown = await eventually(() => {
      const last = updatesOf(lookup.viewId, since).at(-1);
      return last && !viewText(last).includes('Buscando') ? last : null;
    });
    // The workspace's link answered: not the organisation's id, which no link names.
    expect(shown.view.title).toMatchObject({ text: 'Solicitação 1321' });
    expect(viewText(shown)).not.toMatch(/não está vinculado|vincular/i);
  });

  it('a Home row opens its request in a new modal', async () => {
    const first = await openHome(h, USERS.admin);
    let since = h.slack.views.length;
    await clickInView(h, first, 'home:refresh');
    const home = await publishedHome(h, USERS.admin, since);
    const row = buttonsOfView(home).find((b) => b.action_id.startsWith('request:open:'));
    expect(row).toBeDefined();
    since = h.slack.views.length;
    await clickInView(h, home, row?.action_id ?? '');
    const opened = await nextView(h, since, 'views.open');
    const shown = await eventually(() => updatesOf(opened.viewId, since)[0]);
    expect((shown.view.title as { text: string }).text).toBe(`Solicitação ${row?.value}`);
  });
});

describe('a button or form of an older version, whose value no longer reads: the person is told, never nothing', () => {
  const STALE = 'Este botão não funciona mais';

  it('a request button (Home row, a choice in Abrir solicitação) whose value is not a number: a DM, no modal', async () => {
    const first = await openHome(h, USERS.admin);
    let since = h.slack.views.length;
    await clickInView(h, first, 'home:refresh');
    const home = await publishedHome(h, USERS.admin, since);
    since = h.slack.views.length;
    await messageShortcut(h, 'abrir_solicitacao', 'SM 1312 e #1316', { channel: CHANNELS.stockroom });
    const choice = await nextView(h, since, 'views.open');
    for (const view of [home, choice]) {
      const row = buttonsOfView(view).find((b) => b.action_id.startsWith('request:open:'));
      if (!row) throw new Error(`no request button in ${view.view.type}`);
      row.value = '{"id":1312}';
      const viewsBefore = h.slack.views.length;
      const sent = Date.now();
      await clickInView(h, view, row.action_id);
      const told = await h.nextMessage(sent, { userId: USERS.admin });
      expect(textOf(told), view.view.type).toContain(STALE);
      expect(told.channel).toMatch(/^D/);
      expect(h.slack.views.slice(viewsBefore)).toEqual([]);
    }
  });

  it('a material chosen whose value is not a material id: a DM, the modal as it was', async () => {
    const since = h.slack.views.length;
    await globalShortcut(h, 'buscar_material');
    const modal = await nextView(h, since, 'views.open');
    await eventually(() => materialCalls() === 1);
    // The warm-up said the list was being read, then that it is there.
    await eventually(() => updatesOf(modal.viewId, since).length === 2);
    const picked = h.slack.views.length;
    const sent = Date.now();
    await chooseInView(h, modal, 'material:pick', { text: 'x', value: 'cabo' });
    const told = await h.nextMessage(sent, { userId: USERS.admin });
    expect(textOf(told)).toContain(STALE);
    expect(told.channel).toMatch(/^D/);
    expect(updatesOf(modal.viewId, picked)).toEqual([]);
  });

  it('Compartilhar whose private_metadata does not read: who shared is told through the response_url, nothing in the channel', async () => {
    const since = h.slack.views.length;
    await globalShortcut(h, 'buscar_material');
    const modal = await nextView(h, since, 'views.open');
    const stale = { ...modal, view: { ...modal.view, private_metadata: '{"material":12}' } };
    const sentAt = Date.now();
    const result = await shareInStockroom(h, stale);
    expect(result.body).toBe('');
    const told = await h.nextMessage(sentAt, { userId: USERS.admin });
    expect(textOf(told)).toContain(STALE);
    expect(told).toMatchObject({ ephemeral: true, visibleTo: USERS.admin });
    expect(h.slack.messages.filter((m) => m.at >= sentAt && !m.ephemeral)).toEqual([]);
  });
});
