import { afterEach, beforeEach, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { eventually, type Harness, startHarness, TEAM, textOf, USERS } from '../helpers/bot-harness.js';
import { ManualClock } from '../helpers/manual-clock.js';

/**
 * `/solicitacao <id>` reads the request's items and the history page its header comes from (no detail endpoint
 * exists). Over HTTP with the fake Slack; the sandbox holds a call until the test lets it go. The first messages'
 * clock stands still, so what the person sees is the answer alone.
 */

const C1 = DEMO_FACTS.company1;
const REQUESTS = '/v1/solicitacoes-materiais';
const ID = C1.requestsWithItemsBelowMinimum[0];
let h: Harness;

beforeEach(async () => {
  h = await startHarness({ clock: new ManualClock(Date.now()) });
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

function gate() {
  let open = () => {};
  const released = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { released, open };
}

const callsTo = (path: string) => h.sandbox.calls.filter((c) => c.kind === 'data' && c.path === path);

it('asks for the items and the history at once: the answer waits for the slower read, not for both in turn', async () => {
  const items = gate();
  h.sandbox.faults.next({ path: `${REQUESTS}/${ID}/itens`, release: items.released });
  const { sentAt } = await h.command('/solicitacao', String(ID));
  // The history is asked while the items are still held upstream.
  await eventually(() => callsTo(`${REQUESTS}/${ID}/historico`).some((c) => c.status === 200));
  expect(callsTo(`${REQUESTS}/${ID}/itens`).map((c) => c.status)).toEqual([0]);
  items.open();
  const answer = await h.nextMessage(sentAt, { userId: USERS.member });
  const text = textOf(answer);
  expect(text).toContain(`Solicitação ${ID}`);
  // The header (from the history) and the items are both in it.
  expect(text).toMatch(/Aberta em/);
  expect(text).toMatch(/Qtd\.:/);
  expect(callsTo(`${REQUESTS}/${ID}/itens`)).toHaveLength(1);
  expect(callsTo(`${REQUESTS}/${ID}/historico`)).toHaveLength(1);
});

it('a history that fails leaves the items answered, without the header', async () => {
  h.sandbox.faults.next({ path: `${REQUESTS}/${ID}/historico`, status: 500, times: 4 });
  const { sentAt } = await h.command('/solicitacao', String(ID));
  const answer = await h.nextMessage(sentAt, { userId: USERS.member });
  expect(textOf(answer)).toContain(`Solicitação ${ID}`);
  expect(textOf(answer)).not.toMatch(/Aberta em/);
  expect(textOf(answer)).toMatch(/Qtd\.:/);
});

it('a request that does not exist is answered as not found, whichever read says so first', async () => {
  const { sentAt } = await h.command('/solicitacao', '999999');
  const answer = await h.nextMessage(sentAt, { userId: USERS.member });
  expect(textOf(answer)).toContain('Solicitação 999999 não encontrada.');
});

it('a number the service answers with empty lists (200 [], no 404) is not found, not shown as an empty request', async () => {
  // upstream-api.md documents empty lists given instead of errors; a request always has its opening in the history.
  const id = 777_777;
  h.sandbox.faults.next({ path: `${REQUESTS}/${id}/itens`, status: 200, body: [] });
  h.sandbox.faults.next({ path: `${REQUESTS}/${id}/historico`, status: 200, body: [] });
  const { sentAt } = await h.command('/solicitacao', String(id));
  const answer = await h.nextMessage(sentAt, { userId: USERS.member });
  expect(textOf(answer)).toContain(`Solicitação ${id} não encontrada.`);
  expect(answer.blocks?.some((b) => JSON.stringify(b).includes('Acompanhar'))).toBe(false);
});

it('no items and a history that answers 404 is not found (the 404 is the documented answer to an unknown id)', async () => {
  // upstream-api.md promises a 404 for "no resource for the given identifier" but not on which of the two reads: a
  // service may answer the items 200 [] and the history 404. Shown as an empty request until 2026-11-27.
  const id = 777_778;
  h.sandbox.faults.next({ path: `${REQUESTS}/${id}/itens`, status: 200, body: [] });
  h.sandbox.faults.next({
    path: `${REQUESTS}/${id}/historico`,
    status: 404,
    body: { title: 'Not Found', status: 404, detail: 'Solicitação não encontrada.' },
  });
  const { sentAt } = await h.command('/solicitacao', String(id));
  const answer = await h.nextMessage(sentAt, { userId: USERS.member });
  expect(textOf(answer)).toContain(`Solicitação ${id} não encontrada.`);
});

it('a request with no items but its history is still shown (only both empty means not found)', async () => {
  h.sandbox.faults.next({ path: `${REQUESTS}/${ID}/itens`, status: 200, body: [] });
  const { sentAt } = await h.command('/solicitacao', String(ID));
  const answer = await h.nextMessage(sentAt, { userId: USERS.member });
  expect(textOf(answer)).not.toMatch(/não encontrada/);
  expect(textOf(answer)).toMatch(/Aberta em/);
});

it('names the history leaves null (they are nullable there) come from the request’s list row, one search', async () => {
  const entry = {
    andamentoSolicitacao: 1,
    solicitacaoMaterial: ID,
    responsavelSaidaMaterial: null,
    responsavelRetirada: null,
    status: 1,
    data: '2026-01-10T09:00:00',
    site_Nome: null,
    almoxarifado_Nome: null,
    solicitante: null,
    solicitante_Nome: null,
    responsavelSaidaMaterial_Nome: null,
    responsavelRetirada_Nome: null,
    statusAndamentoSolicitacao_Nome: null,
    rowNumber: 1,
    totalRows: 1,
  };
  const row = {
    solicitacaoMaterialId: ID,
    almoxarifado: 1,
    site: 1,
    solicitante: 7,
    almoxarifado_Nome: 'Almoxarifado da Torre Sul',
    solicitante_Nome: 'Márcia Conceição',
    listaStatusAndamentoSolicitacao: null,
    statusAndamentoSolicitacao: 1,
    statusAndamentoSolicitacao_Nome: 'Em separação',
    ocorrencias: null,
    concluidoComRessalvas: false,
    rowNumber: 1,
    totalRows: 1,
  };
  h.sandbox.faults.next({ path: `${REQUESTS}/${ID}/historico`, status: 200, body: [entry] });
  h.sandbox.faults.next({ path: new RegExp(`^${REQUESTS}\\?.*Search=${ID}`), status: 200, body: [row] });
  const { sentAt } = await h.command('/solicitacao', String(ID));
  const answer = await h.nextMessage(sentAt, { userId: USERS.member });
  const shown = JSON.stringify(answer.blocks);
  expect(shown).toContain('Almoxarifado da Torre Sul');
  expect(shown).toContain('Márcia Conceição');
  expect(shown).toContain('Em separação');
  expect(h.sandbox.calls.filter((c) => c.kind === 'data' && c.path === REQUESTS)).toHaveLength(1);
});

it('a history with its names makes no list search', async () => {
  const { sentAt } = await h.command('/solicitacao', String(ID));
  await h.nextMessage(sentAt, { userId: USERS.member });
  expect(h.sandbox.calls.filter((c) => c.kind === 'data' && c.path === REQUESTS)).toHaveLength(0);
});
