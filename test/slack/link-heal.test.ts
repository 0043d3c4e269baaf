import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { REFUSAL_COOLDOWN_MS } from '../../src/upstream/auth.js';
import {
  CHANNELS,
  eventually,
  type Harness,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../helpers/bot-harness.js';

/**
 * A link broken by a passing upstream fault heals without an admin (domain/links/link-healer.ts): the service
 * answers 401 to every valid token for a while (its identity provider rotates its keys, or cannot be reached), the
 * refusals outlast two cooldowns and the link is marked broken; once the service takes tokens again, the token
 * keeper's tick checks the link, restores it and tells the admin who linked, once. Over HTTP with the fake Slack,
 * the sandbox and the real Redis; the bot's clock is the test's.
 */

const C1 = DEMO_FACTS.company1;
const MIN = 60_000;
let h: Harness;
let clock: number;

afterEach(async () => {
  await h?.close();
});

async function start() {
  clock = Date.now();
  h = await startHarness({ now: () => clock });
  await h.link(TEAM);
}

const dmsSaying = (words: RegExp) =>
  h.slack.messages.filter((m) => m.channel.startsWith('D') && !m.ephemeral && words.test(textOf(m)));
const brokenDms = () => dmsSaying(/credenciais do estoque que você vinculou/);
const healedDms = () => dmsSaying(/voltou a funcionar/);

/** `/estoque <text>` as the member (in the stockroom channel), and the text of its answer there. */
async function ask(text: string, user: string = USERS.member): Promise<string> {
  const { sentAt } = await h.command('/estoque', text, { user });
  return textOf(await h.nextMessage(sentAt, { userId: user, channel: CHANNELS.stockroom }));
}

describe('a 401 storm longer than the break threshold', () => {
  it('breaks the link; when the service takes tokens again a check heals it, with no admin, and the admin is told once', async () => {
    await start();
    // The service refuses every token, however fresh, for 15 minutes.
    h.sandbox.faults.next({ path: '/v1/almoxarifados', status: 401, times: 1_000 });
    expect(await ask('almoxarifados')).toContain('recusou o login vinculado');
    clock += REFUSAL_COOLDOWN_MS + 1;
    expect(await ask('almoxarifados')).toContain('recusou o login vinculado');
    clock += REFUSAL_COOLDOWN_MS + 1;
    // The third episode: the link is marked broken, and the admin who linked hears it, with the automatic checks.
    expect(await ask('almoxarifados')).toMatch(/vincular de novo/);
    await eventually(() => brokenDms().length === 1);
    expect(textOf(brokenDms()[0] ?? ({} as never))).toContain('o bot verifica o vínculo de novo sozinho');
    const link = await h.container.links.get(TEAM);
    expect(link).toMatchObject({ brokenWhy: 'tokens_refused', login: C1.login, password: C1.password });
    const status = await ask('status', USERS.admin);
    expect(status).toContain('O vínculo parou de funcionar');
    expect(status).toContain('próxima verificação automática às');

    // Five minutes later the storm still rages: the check fails, and the next one is 10 minutes later.
    clock += 5 * MIN;
    await h.container.keeper.tick();
    expect((await h.container.links.get(TEAM))?.probes).toEqual({ count: 1, nextAt: clock + 10 * MIN });
    // The storm is over; the next tick before the check asks nothing, the one at the check heals the link.
    h.sandbox.faults.clear();
    const before = h.sandbox.calls.length;
    clock += 10 * MIN - 1;
    await h.container.keeper.tick();
    expect(h.sandbox.calls.length).toBe(before);
    clock += 1;
    await h.container.keeper.tick();
    expect(h.sandbox.calls.slice(before).map((c) => `${c.kind}:${c.status}`)).toEqual([
      'login:200',
      'data:200',
    ]);
    expect(await h.container.links.get(TEAM)).toEqual({ ...link, brokenAt: null, brokenWhy: undefined });
    expect(h.logs.some((line) => line.includes('"msg":"link healed"'))).toBe(true);

    // The admin who linked is told, once; members' commands work again.
    await eventually(() => healedDms().length === 1);
    const dm = h.slack.calls.find(
      (c) => c.method === 'chat.postMessage' && String(c.args.text).includes('voltou a funcionar'),
    );
    expect(dm?.args.channel).toBe(USERS.admin);
    expect(await ask('almoxarifados')).toContain(C1.activeStockrooms[0]?.nome ?? '?');
    clock += 2 * 60 * MIN;
    await h.container.keeper.tick();
    expect(healedDms()).toHaveLength(1);
    expect(brokenDms()).toHaveLength(1);
  });
});

describe('two replicas on one Redis', () => {
  it('check a broken link one at a time: one login, one call, one DM', async () => {
    await start();
    const other = (await h.addReplica()).container;
    const link = await h.container.links.get(TEAM);
    if (!link) throw new Error('not linked');
    await h.container.links.markBroken(TEAM, clock, link.linkedAt, 'tokens_refused');
    clock += 5 * MIN;
    const before = h.sandbox.calls.length;
    // Replica A's check is on its way (its login held) when replica B's tick comes.
    let release = () => {};
    h.sandbox.faults.next({
      path: '/auth/v1/auth/',
      release: new Promise<void>((resolve) => {
        release = resolve;
      }),
    });
    const first = h.container.healer.tick();
    await vi.waitFor(() =>
      expect(h.sandbox.calls.slice(before).some((c) => c.kind === 'login' && c.status === 0)).toBe(true),
    );
    expect(await other.healer.tick()).toEqual([{ workspaceId: TEAM, outcome: 'claimed' }]);
    release();
    expect(await first).toEqual([{ workspaceId: TEAM, outcome: 'healed' }]);
    // B's next tick finds nothing to check.
    expect(await other.healer.tick()).toEqual([]);
    await Promise.all([h.container.keeper.tick(), other.keeper.tick()]);
    expect(h.sandbox.calls.slice(before).map((c) => `${c.kind}:${c.status}`)).toEqual([
      'login:200',
      'data:200',
    ]);
    await eventually(() => healedDms().length === 1);
    await other.tasks.shutdown(1_000);
    await h.container.tasks.shutdown(1_000);
    expect(healedDms()).toHaveLength(1);
    // Both replicas serve the restored link.
    const ws = await other.domain.workspaces.resolve(TEAM, 'interactive');
    await expect(other.client.listStockrooms(ws.call)).resolves.toHaveLength(C1.activeStockrooms.length);
  });
});
