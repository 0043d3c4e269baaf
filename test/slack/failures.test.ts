import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import {
  buttonsOf,
  eventually,
  type Harness,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../helpers/bot-harness.js';

const C1 = DEMO_FACTS.company1;
let h: Harness;

beforeEach(async () => {
  h = await startHarness({ timeoutMs: 300 });
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

async function ask(command: string, text: string) {
  const result = await h.command(command, text);
  expect(result.status).toBe(200);
  return h.nextMessage(result.sentAt, { userId: USERS.member });
}

describe('upstream failures become clear messages', () => {
  it('403', async () => {
    h.sandbox.faults.next({ path: '/v1/materiais/tipos', status: 403 });
    expect(textOf(await ask('/estoque', 'tipos'))).toMatch(/permissão|acesso/i);
  });

  it('500 shows the ErrorCommandResult hash after the retries', async () => {
    h.sandbox.faults.next({
      path: '/v1/materiais/categorias',
      status: 500,
      times: 10,
      body: { type: 'Unexpected Error', hash: 'abc123def' },
    });
    const text = textOf(await ask('/estoque', 'categorias'));
    expect(text).toContain('abc123def');
    expect(text).not.toMatch(/at \w+ \(|Error:/); // never a stack trace
  });

  it('timeout offers a retry button that works', async () => {
    h.sandbox.faults.next({ path: '/v1/compras-materiais/321/solicitacoes', delayMs: 1_000, times: 4 });
    const message = await ask('/compras', '321');
    expect(textOf(message)).toMatch(/demorou|não respondeu|tempo/i);
    const retry = buttonsOf(message).find((b) => b.action_id.startsWith('retry:'));
    expect(retry).toBeTruthy();
    h.sandbox.faults.clear();
    const since = Date.now();
    await h.click(message, { actionPrefix: 'retry:' });
    const answer = await h.nextMessage(since, { userId: USERS.member });
    expect(textOf(answer)).toContain('1268');
  });

  it('429 from upstream (another client spent the budget) tells when to try again', async () => {
    h.sandbox.faults.next({ path: '/v1/entradas-materiais', status: 429, times: 10 });
    expect(textOf(await ask('/compras', 'entradas'))).toMatch(/limite|tente de novo/i);
  });
});

describe('expired credentials', () => {
  it('tells users an admin must link again, and DMs the linking admin once', async () => {
    // The upstream password changed: neither refresh (expired) nor login with the stored password works.
    const link = await h.container.links.get(TEAM);
    if (!link) throw new Error('not linked');
    await h.container.links.save({ ...link, password: 'senha-antiga' });
    h.sandbox.expireAccessTokens(C1.login);
    h.sandbox.expireRefreshTokens(C1.login);
    await h.container.tokens.forget(link.credentialId);
    const first = await ask('/estoque', 'almoxarifados');
    expect(textOf(first)).toMatch(/vincular/i);
    const dm = await eventually(() =>
      h.slack.messages.find((m) => m.channel.startsWith('D') || m.channel === USERS.admin),
    );
    expect(textOf(dm)).toMatch(/vincular/i);
    const second = await ask('/estoque', 'almoxarifados');
    expect(textOf(second)).toMatch(/vincular/i);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const dms = h.slack.calls.filter(
      (c) => c.method === 'chat.postMessage' && c.args.channel === USERS.admin,
    );
    expect(dms).toHaveLength(1);
    // Linking again fixes it.
    await h.link(TEAM);
    expect(textOf(await ask('/estoque', 'almoxarifados'))).toContain(C1.activeStockrooms[0]?.nome);
  });
});

describe('requests Slack did not sign', () => {
  it('rejects a bad signature and a stale timestamp, with no upstream call', async () => {
    const before = h.sandbox.calls.length;
    const { slashCommand } = await import('../../src/fake-slack/index.js');
    const fields = {
      command: '/estoque',
      text: 'almoxarifados',
      teamId: TEAM,
      userId: USERS.member,
      channelId: 'C00ALMOX1',
      responseUrl: h.slack.newResponseUrl({ teamId: TEAM, channelId: 'C00ALMOX1', userId: USERS.member }),
      triggerId: h.slack.newTriggerId(),
    };
    const bad = await slashCommand(h.target, fields, { signature: 'v0=deadbeef' });
    expect(bad.status).toBe(401);
    const stale = await slashCommand(h.target, fields, { timestampSec: Math.floor(Date.now() / 1000) - 600 });
    expect(stale.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.sandbox.calls.length).toBe(before);
  });
});
