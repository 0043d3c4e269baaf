import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../src/fake-slack/index.js';
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

const C1 = DEMO_FACTS.company1;
let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

async function ask(command: string, text: string): Promise<FakeMessage> {
  const result = await h.command(command, text);
  expect(result.status).toBe(200);
  return h.nextMessage(result.sentAt, { userId: USERS.member });
}

/** The text of the message's first block: where the suggestion goes. */
function lead(message: FakeMessage): string {
  const [first] = message.blocks as { type: string; elements?: { text?: string }[] }[];
  return first?.type === 'context' ? (first.elements?.map((e) => e.text).join(' ') ?? '') : '';
}

describe('a near-miss subcommand', () => {
  it('/estoque almoxarifado: the material search answers, under “você quis dizer” and a button that runs it', async () => {
    const answer = await ask('/estoque', 'almoxarifado');
    expect(answer.ephemeral).toBe(true);
    expect(lead(answer)).toContain('Você quis dizer `/estoque almoxarifados`?');
    expect(lead(answer)).toContain('`/estoque almoxarifado`');
    // The search ran and answered below (the material names hold no "almoxarifado").
    expect(textOf(answer)).toContain('Nenhum material encontrado para “almoxarifado”');
    expect(h.sandbox.calls.some((c) => c.path === '/v1/materiais')).toBe(true);
    const run = findButton(answer, { text: '/estoque almoxarifados' });
    expect(run?.action_id).toMatch(/^nav:\d+$/);
    const ids = buttonsOf(answer).map((b) => b.action_id);
    expect(new Set(ids).size).toBe(ids.length);

    const since = Date.now();
    await h.click(answer, { text: '/estoque almoxarifados' });
    const stockrooms = await h.nextMessage(since, { userId: USERS.member });
    for (const s of C1.activeStockrooms) expect(textOf(stockrooms)).toContain(s.nome);
    expect(lead(stockrooms)).toBe('');
  });

  it('/estoque tipo: the search results still show, with the suggestion on top', async () => {
    const answer = await ask('/estoque', 'tipo');
    expect(lead(answer)).toContain('Você quis dizer `/estoque tipos`?');
    expect(textOf(answer)).toMatch(/“tipo”/);
    expect(findButton(answer, { text: '/estoque tipos' })).toBeDefined();
  });

  it('/solicitacao minha status:1 offers `/solicitacao minhas status:1`, and the button keeps the filter', async () => {
    const answer = await ask('/solicitacao', 'minha status:1');
    expect(lead(answer)).toContain('Você quis dizer `/solicitacao minhas status:1`?');
    expect(textOf(answer)).toMatch(/Solicitações/);
    const run = findButton(answer, { text: '/solicitacao minhas status:1' });
    expect(JSON.parse(run?.value ?? '{}')).toEqual({ r: 'requests', f: { status: [1] }, p: 1, mine: true });
  });

  it('shows the command as typed: Slack’s entities for < > & are read, and escaped once', async () => {
    // Slack sends "torre & cia" as "torre &amp; cia".
    const answer = await ask('/solicitacao', 'minha torre &amp; cia');
    expect(lead(answer)).toContain('`/solicitacao minhas torre &amp; cia`');
    expect(lead(answer)).not.toContain('&amp;amp;');
    expect(findButton(answer, { text: '/solicitacao minhas torre & cia' })).toBeDefined();
  });

  it('/compras pendente offers `/compras pendentes`', async () => {
    const answer = await ask('/compras', 'pendente');
    expect(lead(answer)).toContain('Você quis dizer `/compras pendentes`?');
    const since = Date.now();
    await h.click(answer, { text: '/compras pendentes' });
    const pending = await h.nextMessage(since, { userId: USERS.member });
    expect(textOf(pending)).toContain(`${Object.values(C1.pendingPurchases).flat().length} compras`);
  });

  it('/estoque vincula offers the linking form; /estoque resumos points to the help', async () => {
    const link = await ask('/estoque', 'vincula');
    expect(lead(link)).toContain('Você quis dizer `/estoque vincular`?');
    expect(findButton(link, { text: '/estoque vincular' })?.action_id).toBe('link:open');
    const digest = await ask('/estoque', 'resumos');
    expect(lead(digest)).toContain('Você quis dizer `/estoque resumo`?');
    expect(JSON.parse(findButton(digest, { text: '/estoque ajuda' })?.value ?? '{}')).toEqual({ r: 'help' });
  });

  it('a real search gets no suggestion', async () => {
    const answer = await ask('/estoque', C1.material.nome);
    expect(lead(answer)).toBe('');
    expect(textOf(answer)).not.toContain('Você quis dizer');
    expect(textOf(answer)).toContain(C1.material.nome);
  });
});
