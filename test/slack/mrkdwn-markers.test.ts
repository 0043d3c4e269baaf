import { afterEach, beforeEach, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { type Harness, startHarness, TEAM, textOf, USERS } from '../helpers/bot-harness.js';

/**
 * Names from upstream carrying Slack's formatting markers, over HTTP: what the person sees in the answers to
 * `/estoque <texto>` and `/solicitacao <id>` shows the markers as written (look-alikes), never as formatting.
 */

const C1 = DEMO_FACTS.company1;
const MARKED = 'Cabo *flex* 2_5 ~PVC~ `x';
const SHOWN = 'Cabo ∗flex∗ 2ˍ5 ∼PVC∼ ˋx';
let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

async function ask(command: string, text: string) {
  const { sentAt } = await h.command(command, text);
  return textOf(await h.nextMessage(sentAt, { userId: USERS.member }));
}

it('material search: a name with markers is shown as written, and searching the copied name finds it', async () => {
  const company = h.sandbox.data.company(C1.empresa);
  const record = company?.materials.find((m) => m.codigo === C1.material.codigo);
  if (!record) throw new Error('demo material missing');
  record.nome = MARKED;
  const text = await ask('/estoque', C1.material.codigo);
  expect(text).toContain(SHOWN);
  expect(text).not.toContain('*flex*');
  // What a person copies from the answer and pastes into a search finds the same material.
  expect(await ask('/estoque', '∗flex∗ 2ˍ5')).toContain(SHOWN);
});

it('request detail: an item named with markers is shown as written', async () => {
  const id = C1.requestsWithItemsBelowMinimum[0];
  const row = h.sandbox.data.company(C1.empresa)?.requests.find((r) => r.record.solicitacaoMaterialId === id);
  const first = row?.items[0];
  if (!first) throw new Error('demo request without items');
  first.material_Nome = MARKED;
  const text = await ask('/solicitacao', String(id));
  expect(text).toContain(SHOWN);
  expect(text).not.toContain('*flex*');
});
