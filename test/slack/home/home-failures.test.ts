import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CHANNELS,
  eventually,
  type Harness,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../../helpers/bot-harness.js';
import {
  buttonsOfView,
  clickInView,
  messageShortcut,
  nextView,
  openHome,
  submitView,
  viewText,
} from '../../helpers/shortcuts.js';

/**
 * The Home and the shortcuts on their failure paths (PRODUCT.md, "App Home and shortcuts"): whatever Slack, the
 * store or upstream refuses, the person is told in pt-BR, never left looking at "Buscando…" or an empty Home.
 */

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

const updatesOf = (viewId: string, since: number) =>
  h.slack.views.slice(since).filter((v) => v.viewId === viewId && v.via === 'views.update');

describe('a request modal Slack will not update: the person is told, the modal does not stay on "Buscando…"', () => {
  const NOT_SHOWN = 'Não consegui mostrar a solicitação 1312 na janela do Slack';

  it('Abrir solicitação, views.update answered 429: told ephemerally in the channel', async () => {
    // The listeners' client does not retry a 429: one refusal is the answer's update.
    h.slack.failNext('views.update', { status: 429, retryAfterSec: 1 }, 1);
    const sent = Date.now();
    const since = h.slack.views.length;
    await messageShortcut(h, 'abrir_solicitacao', 'a solicitação 1312 chegou?', {
      channel: CHANNELS.stockroom,
    });
    const opened = await nextView(h, since, 'views.open');
    expect(viewText(opened)).toContain('Buscando a solicitação 1312');
    const told = await h.nextMessage(sent, { userId: USERS.member });
    expect(textOf(told)).toContain(NOT_SHOWN);
    expect(told).toMatchObject({ channel: CHANNELS.stockroom, ephemeral: true, visibleTo: USERS.member });
    expect(h.slack.calls.some((c) => c.method === 'views.update' && !c.ok)).toBe(true);
  });

  it('a choice in the several-numbers modal, views.update failing with 5xx: told by DM', async () => {
    const since = h.slack.views.length;
    await messageShortcut(h, 'abrir_solicitacao', 'SM 1312 e #1316', { channel: CHANNELS.stockroom });
    const choice = await nextView(h, since, 'views.open');
    // The loading update and the answer's, each tried three times by the listeners' client.
    h.slack.failNext('views.update', { status: 502 }, 6);
    const sent = Date.now();
    await clickInView(h, choice, 'request:open:1312', USERS.member);
    const told = await h.nextMessage(sent, { userId: USERS.member });
    expect(textOf(told)).toContain(NOT_SHOWN);
    expect(told.channel).toMatch(/^D/);
  });

  it('Consultar solicitação after response_action update, views.update refused: told by DM', async () => {
    const home = await openHome(h, USERS.member);
    const since = h.slack.views.length;
    await clickInView(h, home, 'home:lookup', USERS.member);
    const lookup = await nextView(h, since, 'views.open');
    h.slack.failNext('views.update', { status: 429, retryAfterSec: 1 }, 1);
    const sent = Date.now();
    await submitView(
      h,
      lookup,
      { request_number: { number: { type: 'plain_text_input', value: '1312' } } },
      { user: USERS.member },
    );
    const told = await h.nextMessage(sent, { userId: USERS.member });
    expect(textOf(told)).toContain(NOT_SHOWN);
    expect(told.channel).toMatch(/^D/);
  });

  it('the answer refused for what it holds (invalid_blocks): a plain view in its place, nobody told beside', async () => {
    h.slack.failNext('views.update', { error: 'invalid_blocks' }, 1);
    const sent = Date.now();
    const since = h.slack.views.length;
    await messageShortcut(h, 'abrir_solicitacao', 'a solicitação 1312 chegou?', {
      channel: CHANNELS.stockroom,
    });
    const opened = await nextView(h, since, 'views.open');
    const shown = await eventually(() => updatesOf(opened.viewId, since)[0]);
    expect(viewText(shown)).toContain('O Slack recusou a janela com os detalhes da solicitação 1312');
    expect(viewText(shown)).toContain('/solicitacao 1312');
    await eventually(() => h.container.tasks.size === 0 || null);
    expect(h.slack.messages.filter((m) => m.at >= sent)).toEqual([]);
  });

  it('a modal the person closed meanwhile (not_found) is not a reason to tell them anything', async () => {
    h.slack.failNext('views.update', { error: 'not_found' }, 1);
    const sent = Date.now();
    await messageShortcut(h, 'abrir_solicitacao', 'a solicitação 1312 chegou?', {
      channel: CHANNELS.stockroom,
    });
    await eventually(() => h.logs.some((line) => line.includes('modal closed before this update')));
    await eventually(() => h.container.tasks.size === 0 || null);
    expect(h.slack.messages.filter((m) => m.at >= sent)).toEqual([]);
  });
});

describe('the link modal that will not open from the Home: told like every other modal', () => {
  it('Vincular de novo, views.open expired_trigger_id: a DM saying the window did not open, not /estoque usage', async () => {
    const home = await openHome(h, USERS.admin);
    h.slack.failNext('views.open', { error: 'expired_trigger_id' }, 1);
    const sent = Date.now();
    await clickInView(h, home, 'link:open', USERS.admin);
    const told = await h.nextMessage(sent, { userId: USERS.admin });
    expect(textOf(told)).toContain('Não consegui abrir a janela no Slack; tente de novo em alguns segundos.');
    expect(textOf(told)).not.toContain('/estoque');
    expect(told.channel).toMatch(/^D/);
    expect(h.logs.some((line) => line.includes('link modal not opened'))).toBe(true);
  });
});

describe('Atualizar that cannot read: the Home says why, as /solicitacao minhas does', () => {
  /** The Home published after `Atualizar` (nothing of the user's requests saved, so the failure shows). */
  async function refreshed(): Promise<string> {
    const first = await openHome(h, USERS.admin);
    const since = h.slack.views.length;
    await clickInView(h, first, 'home:refresh');
    const home = await eventually(() =>
      h.slack.views
        .slice(since)
        .findLast(
          (v) => v.via === 'views.publish' && v.userId === USERS.admin && !/ainda não/i.test(viewText(v)),
        ),
    );
    expect(buttonsOfView(home).map((b) => b.action_id)).toContain('home:refresh');
    return viewText(home);
  }

  it('the budget spent (upstream 429): says the limit and when to try again', async () => {
    h.sandbox.faults.next({ path: /^\/v1\//, status: 429, times: 10 });
    const text = await refreshed();
    // Until 2026-11-27: "Não foi possível ler suas solicitações agora. Tente *Atualizar* daqui a pouco."
    expect(text).not.toContain('Não foi possível ler suas solicitações');
    expect(text).toMatch(/Limite de [\d.]+ consultas .+ atingido; tente de novo/);
    const line = h.logs.find((l) => l.includes('home: requests of the user unavailable'));
    expect(line).toMatch(/"correlationId":"[^"]+"/);
  });

  it('an upstream 500: shows the ErrorCommandResult hash for support and the reference of the log line', async () => {
    h.sandbox.faults.next({
      path: /^\/v1\//,
      status: 500,
      times: 20,
      body: { type: 'Unexpected Error', hash: 'abc123def' },
    });
    const text = await refreshed();
    expect(text).toContain('O sistema de estoque teve um erro interno');
    expect(text).toContain('abc123def');
    const line = h.logs.find((l) => l.includes('home: requests of the user unavailable')) ?? '';
    const correlationId = /"correlationId":"([^"]+)"/.exec(line)?.[1];
    expect(correlationId).toBeDefined();
    expect(text).toContain(`Ref. \`${correlationId}\``);
  });
});

describe('a store read of the Home that fails: the Home is still published, the section saying so', () => {
  it('the digests and the follows unreadable (WRONGTYPE in Redis): published with both said unavailable, the rest shown', async () => {
    // A real failure of the real store: the keys hold a string where a hash is read.
    await h.redis.redis.set(h.redis.keys.subscriptions(TEAM), 'not a hash');
    await h.redis.redis.set(h.redis.keys.feedFollows(TEAM), 'not a hash');
    const home = await openHome(h, USERS.member);
    const text = viewText(home);
    // Until 2026-11-27: nothing published, only the log line "home not published".
    expect(text).toContain('Não consegui ler os resumos diários agora. Abra a aba de novo daqui a pouco.');
    expect(text).toContain('Não consegui ler o que você acompanha agora. Abra a aba de novo daqui a pouco.');
    expect(text).toContain('*Vinculado* à empresa');
    expect(text).toContain('Nenhum canal recebe alertas');
    expect(buttonsOfView(home).map((b) => b.action_id)).toEqual(
      expect.arrayContaining(['home:search', 'home:lookup', 'home:help']),
    );
    const line = h.logs.find((l) => l.includes('some reads failed')) ?? '';
    expect(line).toContain('"reads":["digests","follows"]');
    expect(h.logs.some((l) => l.includes('home not published'))).toBe(false);
  });
});
