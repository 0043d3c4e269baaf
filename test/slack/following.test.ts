import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeRoute } from '../../src/domain/routes.js';
import { FAKE_SEED } from '../../src/fake-slack/index.js';
import type { FakeMessage } from '../../src/fake-slack/types.js';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import {
  buttonsOf,
  findButton,
  type Harness,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../helpers/bot-harness.js';

/**
 * `/solicitacao acompanhando [pagina:N]`: the follows of the person who asks, 10 a page, oldest first, each row with
 * `Ver` (the request's detail, which has `Deixar de acompanhar`), `Anterior`/`Próxima` replacing the list in place.
 * Until 2026-11-27 the list stopped at 40 rows ("E mais N solicitações.") with no paging and no row button.
 */

let h: Harness;
const FIRST = DEMO_FACTS.company1.requestIds.first;
/** 27 follows: pages of 10, 10 and 7. */
const FOLLOWED = Array.from({ length: 27 }, (_, i) => FIRST + i);

beforeEach(async () => {
  h = await startHarness();
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

/** Stored straight in the feed store: following 27 requests over HTTP would read each one upstream. */
async function follow(userId: string, ids: readonly number[]): Promise<void> {
  for (const [i, id] of ids.entries())
    await h.container.feedListeners.follow(TEAM, userId, id, i % 5 === 4 ? null : 'Aguardando compra');
}

async function answerTo(text: string, user: string = USERS.member): Promise<FakeMessage> {
  const result = await h.command('/solicitacao', text, { user });
  expect(result.status).toBe(200);
  expect(result.body).toBe('');
  return h.nextMessage(result.sentAt, { userId: user, ephemeral: true });
}

async function click(message: FakeMessage, text: string, user: string = USERS.member): Promise<FakeMessage> {
  const since = Date.now();
  const result = await h.click(message, { text }, { user });
  expect(result.status).toBe(200);
  return h.nextMessage(since, { ephemeral: true });
}

/** The request numbers of the rows, in order, read from their `Ver` buttons. */
function rowIds(message: FakeMessage): number[] {
  return buttonsOf(message)
    .filter((b) => b.text?.text === 'Ver')
    .map((b) => {
      const route = decodeRoute(b.value);
      return route?.view === 'request' ? route.id : -1;
    });
}

describe('/solicitacao acompanhando', () => {
  it('pages the follows 10 at a time, oldest first, each row opening its request; Próxima and Anterior replace the list', async () => {
    await follow(USERS.member, FOLLOWED);

    const first = await answerTo('acompanhando');
    expect(rowIds(first)).toEqual(FOLLOWED.slice(0, 10));
    const text = textOf(first);
    expect(text).toContain('Solicitações que você acompanha');
    expect(text).toContain('Página 1 de 3 · 27 solicitações');
    expect(text).toContain(`*${FIRST}* — Aguardando compra`);
    expect(text).toContain(`*${FIRST + 4}* — status ainda não visto`);
    expect(text).toContain('Para parar: `/solicitacao <número> parar`');
    expect(text).not.toContain('E mais');
    expect(findButton(first, { text: 'Anterior' })).toBeUndefined();
    // A person's follows are theirs: nothing to share in the channel.
    expect(findButton(first, { text: 'Compartilhar no canal' })).toBeUndefined();
    expect(new Set(buttonsOf(first).map((b) => b.action_id)).size).toBe(buttonsOf(first).length);

    const second = await click(first, 'Próxima');
    expect(second.visibleTo).toBe(USERS.member);
    expect(rowIds(second)).toEqual(FOLLOWED.slice(10, 20));
    expect(textOf(second)).toContain('Página 2 de 3 · 27 solicitações');
    // Replaced in place, not stacked.
    expect(h.slack.messages.find((m) => m.ts === first.ts && m.replaced)).toBeTruthy();

    const third = await click(second, 'Próxima');
    expect(rowIds(third)).toEqual(FOLLOWED.slice(20));
    expect(textOf(third)).toContain('Página 3 de 3 · 27 solicitações');
    expect(findButton(third, { text: 'Próxima' })).toBeUndefined();

    const back = await click(third, 'Anterior');
    expect(rowIds(back)).toEqual(FOLLOWED.slice(10, 20));
  });

  it('pagina:N opens page N; a page past the end shows the last; a bad pagina: gets the usage', async () => {
    await follow(USERS.member, FOLLOWED);
    const second = await answerTo('acompanhando pagina:2');
    expect(rowIds(second)).toEqual(FOLLOWED.slice(10, 20));
    expect(findButton(second, { text: 'Anterior' })).toBeDefined();
    expect(findButton(second, { text: 'Próxima' })).toBeDefined();
    expect(rowIds(await answerTo('ACOMPANHANDO pagina: 9'))).toEqual(FOLLOWED.slice(20));

    for (const bad of ['acompanhando pagina:0', 'acompanhando pagina:x', 'acompanhando status:1']) {
      const result = await h.command('/solicitacao', bad);
      const body = JSON.parse(result.body) as { text: string; response_type: string };
      expect(body.response_type, bad).toBe('ephemeral');
      expect(body.text, bad).toMatch(/pagina:|status:/);
    }
    const words = await h.command('/solicitacao', 'acompanhando todas');
    expect((JSON.parse(words.body) as { text: string }).text).toContain('`acompanhando` aceita só');
  });

  it('a row opens the request’s detail, which offers Deixar de acompanhar', async () => {
    await follow(USERS.member, FOLLOWED);
    const list = await answerTo('acompanhando pagina:2');
    const id = FOLLOWED[10];
    const detail = await click(list, 'Ver');
    expect(textOf(detail)).toContain(`Solicitação ${id}`);
    expect(findButton(detail, { text: 'Deixar de acompanhar' })?.value).toBe(String(id));
    // The list was replaced by the detail, as a list row's Ver does elsewhere.
    expect(h.slack.messages.find((m) => m.ts === list.ts && m.replaced)).toBeTruthy();
  });

  it('a page button lists the follows of whoever clicks it, never those of the list’s owner', async () => {
    await follow(USERS.member, FOLLOWED);
    const adminFollows = FOLLOWED.slice(0, 13).map((id) => id + 50);
    await follow(USERS.admin, adminFollows);
    const memberList = await answerTo('acompanhando');
    // A forged click by someone else on the member's list (Slack shows an ephemeral message to one person only).
    const since = Date.now();
    await h.click(memberList, { text: 'Próxima' }, { user: USERS.admin });
    const answer = await h.nextMessage(since, {});
    expect(rowIds(answer)).toEqual(adminFollows.slice(10));
    expect(textOf(answer)).toContain('Página 2 de 2 · 13 solicitações');
  });

  it('a forged Compartilhar no canal of the list posts nothing in the channel', async () => {
    await follow(USERS.member, FOLLOWED.slice(0, 12));
    const list = await answerTo('acompanhando');
    const next = buttonsOf(list).find((b) => b.text?.text === 'Próxima');
    if (!next) throw new Error('no Próxima');
    next.action_id = 'share:0';
    const since = Date.now();
    await h.click(list, { text: 'Próxima' });
    const answer = await h.nextMessage(since, { userId: USERS.member });
    expect(answer.ephemeral).toBe(true);
    expect(textOf(answer)).toContain('Este botão não funciona mais');
    expect(h.slack.messages.filter((m) => !m.ephemeral)).toEqual([]);
  });

  it('keeps the own-requests note on every page, and says so when there are no follows', async () => {
    await follow(USERS.admin, FOLLOWED.slice(0, 12));
    await h.container.feedListeners.followOwn(TEAM, USERS.admin, FAKE_SEED.adminEmail);
    const first = await answerTo('acompanhando', USERS.admin);
    expect(textOf(first)).toContain('Você também acompanha as suas próprias solicitações');
    const second = await click(first, 'Próxima', USERS.admin);
    expect(rowIds(second)).toEqual(FOLLOWED.slice(10, 12));
    expect(textOf(second)).toContain('Você também acompanha as suas próprias solicitações');
    expect(textOf(second)).toContain('Para parar: `/solicitacao <número> parar`');

    const none = await answerTo('acompanhando');
    expect(textOf(none)).toContain('Você não acompanha nenhuma solicitação');
    expect(buttonsOf(none)).toEqual([]);
  });

  it('lists the follows of a workspace that is not linked (they are paused, not gone)', async () => {
    await follow(USERS.member, FOLLOWED.slice(0, 3));
    await h.container.linkService.unlink(TEAM);
    const list = await answerTo('acompanhando');
    expect(rowIds(list)).toEqual(FOLLOWED.slice(0, 3));
  });
});
