import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeRoute } from '../../src/domain/routes.js';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import {
  buttonsOf,
  CHANNELS,
  type Harness,
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

async function ask(command: string, text: string) {
  const result = await h.command(command, text);
  return h.nextMessage(result.sentAt, { userId: USERS.member });
}

async function click(
  message: Awaited<ReturnType<typeof ask>>,
  button: { text?: string; actionPrefix?: string },
  who = {},
) {
  const since = Date.now();
  const result = await h.click(message, button, who);
  expect(result.status).toBe(200);
  return h.nextMessage(since, { userId: (who as { user?: string }).user ?? USERS.member });
}

describe('buttons', () => {
  it('opens a request from a list row, then its history, then its items again', async () => {
    const list = await ask('/solicitacao', `compra:${C1.purchaseWithRequests.compraMaterialId}`);
    const rowButton = buttonsOf(list).find((b) => decodeRoute(b.value)?.view === 'request');
    expect(rowButton).toBeTruthy();
    const detail = await click(list, { actionPrefix: rowButton?.action_id });
    const id =
      decodeRoute(rowButton?.value)?.view === 'request'
        ? (decodeRoute(rowButton?.value) as { id: number }).id
        : 0;
    expect(textOf(detail)).toContain(`Solicitação ${id}`);
    const history = await click(detail, { text: 'Histórico' });
    expect(textOf(history)).toMatch(/Histórico/);
    const items = await click(history, { text: 'Itens' });
    expect(textOf(items)).toContain(`Solicitação ${id}`);
    expect(h.slack.limitViolations).toEqual([]);
  });

  it('Atualizar asks upstream again even with a fresh cache', async () => {
    const [id] = C1.requestsWithItemsBelowMinimum;
    const detail = await ask('/solicitacao', String(id));
    const before = h.sandbox.calls.filter((c) => c.path.endsWith(`/${id}/itens`)).length;
    await click(detail, { text: 'Atualizar' });
    const after = h.sandbox.calls.filter((c) => c.path.endsWith(`/${id}/itens`)).length;
    expect(after).toBe(before + 1);
    // A plain second look is served from the cache.
    await ask('/solicitacao', String(id));
    expect(h.sandbox.calls.filter((c) => c.path.endsWith(`/${id}/itens`)).length).toBe(after);
  });

  it('Solicitações vinculadas on a pending purchase lists its requests', async () => {
    const pending = await ask('/compras', 'pendentes almox:1');
    const linked = await click(pending, { text: 'Solicitações vinculadas' });
    expect(textOf(linked)).toMatch(/compra \d+/i);
    expect(textOf(linked)).toMatch(/Solicitaç/);
  });

  it('Compartilhar no canal posts the same answer in the channel, naming who shared it', async () => {
    const [id] = C1.requestsWithItemsBelowMinimum;
    const detail = await ask('/solicitacao', String(id));
    const since = Date.now();
    await h.click(detail, { text: 'Compartilhar no canal' });
    const shared = await h.nextMessage(since, { channel: CHANNELS.stockroom, ephemeral: false });
    expect(textOf(shared)).toContain(`Solicitação ${id}`);
    expect(textOf(shared)).toContain(`<@${USERS.member}>`);
    expect(buttonsOf(shared).some((b) => b.text?.text === 'Compartilhar no canal')).toBe(false);
    // Someone else clicking a button on the shared message gets their own ephemeral answer;
    // the channel message stays as it was.
    const mine = await click(shared, { text: 'Histórico' }, { user: USERS.admin });
    expect(mine.ephemeral).toBe(true);
    expect(mine.visibleTo).toBe(USERS.admin);
    expect(textOf(mine)).toMatch(/Histórico/);
    expect(h.slack.messages.find((m) => m.ts === shared.ts && m.replaced)).toBeUndefined();
  });

  it('Compartilhar no canal clicked twice at once (a double click) posts the answer once', async () => {
    const [id] = C1.requestsWithItemsBelowMinimum;
    const detail = await ask('/solicitacao', String(id));
    const since = Date.now();
    const clicks = await Promise.all([
      h.click(detail, { text: 'Compartilhar no canal' }),
      h.click(detail, { text: 'Compartilhar no canal' }),
    ]);
    expect(clicks.map((c) => c.status)).toEqual([200, 200]);
    const shared = await h.nextMessage(since, { channel: CHANNELS.stockroom, ephemeral: false });
    expect(textOf(shared)).toContain(`Solicitação ${id}`);
    await h.container.tasks.drain(5_000);
    const inChannel = h.slack.messages.filter(
      (m) => m.channel === CHANNELS.stockroom && !m.ephemeral && m.at >= since,
    );
    expect(inChannel).toHaveLength(1);
    expect(h.logs.filter((l) => l.includes('share clicked again'))).toHaveLength(1);
    // Someone else's click on the same button is theirs: it shares.
    const other = Date.now();
    await h.click(detail, { text: 'Compartilhar no canal' }, { user: USERS.admin });
    const byAdmin = await h.nextMessage(other, { channel: CHANNELS.stockroom, ephemeral: false });
    expect(textOf(byAdmin)).toContain(`<@${USERS.admin}>`);
  });

  it('Compartilhar no canal clicked again after a share that failed (the person told why) shares then', async () => {
    const [id, other] = C1.requestsWithItemsBelowMinimum;
    const detail = await ask('/solicitacao', String(id));
    // The same message, its share button now for a request not read yet, whose items upstream refuses.
    const uncached = {
      ...detail,
      blocks: JSON.parse(JSON.stringify(detail.blocks).replaceAll(`\\"id\\":${id}`, `\\"id\\":${other}`)),
    };
    h.sandbox.faults.next({ path: `/v1/solicitacoes-materiais/${other}/itens`, status: 403, times: 10 });
    const since = Date.now();
    await h.click(uncached, { text: 'Compartilhar no canal' });
    const told = await h.nextMessage(since, { userId: USERS.member });
    expect(told.ephemeral).toBe(true);
    await h.container.tasks.drain(5_000);
    h.sandbox.faults.clear();
    const again = Date.now();
    await h.click(uncached, { text: 'Compartilhar no canal' });
    const shared = await h.nextMessage(again, { channel: CHANNELS.stockroom, ephemeral: false });
    expect(textOf(shared)).toContain(`Solicitação ${other}`);
    expect(h.logs.filter((l) => l.includes('share clicked again'))).toEqual([]);
  });

  it('refuses a button whose value was tampered with, without calling upstream', async () => {
    const list = await ask('/solicitacao', '');
    const before = h.sandbox.calls.length;
    const tampered = {
      ...list,
      blocks: JSON.parse(JSON.stringify(list.blocks).replaceAll('\\"p\\":2', '\\"p\\":-5')),
    };
    const since = Date.now();
    await h.click(tampered, { text: 'Próxima' });
    const answer = await h.nextMessage(since, { userId: USERS.member });
    expect(textOf(answer)).toMatch(/botão|expirou|de novo/i);
    expect(h.sandbox.calls.length).toBe(before);
  });

  it('carries only ids, pages and filters in button values', async () => {
    const list = await ask('/solicitacao', 'status:1,2 torre');
    for (const button of buttonsOf(list)) {
      // Acompanhar / Deixar de acompanhar carry the bare request number; every other button a route.
      if (/^(un)?follow:/.test(button.action_id)) expect(button.value).toMatch(/^[1-9]\d*$/);
      else expect(decodeRoute(button.value)).not.toBeNull();
      expect(button.value).not.toMatch(/demo|eyJ|senha|password|token/i);
    }
  });
});
