import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { type Harness, startHarness, TEAM, textOf, USERS } from '../helpers/bot-harness.js';

/**
 * The answer thread as a replica runs it (ANSWER_THREAD=on): a real worker thread with its own Redis connection
 * and upstream client, over signed HTTP requests and the fake Slack.
 */
const C1 = DEMO_FACTS.company1;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ answerThread: true });
  await h.link(TEAM);
}, 60_000);
afterAll(async () => {
  await h?.close();
});

async function ask(text: string, user: string = USERS.member) {
  const result = await h.command('/solicitacao', text, { user });
  expect(result.status).toBe(200);
  return textOf(await h.nextMessage(result.sentAt, { userId: user }));
}

it('a request is answered by the thread: upstream read there, none by the acking thread', async () => {
  expect(h.answerThread?.threaded).toBe(true);
  const callsHere = h.container.client.counters.calls;
  const before = h.sandbox.calls.length;
  const [id] = C1.requestsWithItemsBelowMinimum;
  const text = await ask(String(id));
  expect(text).toContain(`Solicitação ${id}`);
  expect(text).toMatch(/abaixo do mínimo/i);
  expect(h.sandbox.calls.length).toBeGreaterThan(before);
  expect(h.container.client.counters.calls).toBe(callsHere);
});

it('a failure is built there and shown here, with its message', async () => {
  expect(await ask(String(C1.unknownRequestId))).toContain(
    `Solicitação ${C1.unknownRequestId} não encontrada`,
  );
});

it('/solicitacao minhas: the thread asks this side for the Slack user e-mail', async () => {
  h.slack.addUser({
    id: 'U00MARIA1',
    teamId: TEAM,
    name: 'maria',
    realName: 'Maria Souza',
    email: C1.user.email,
  });
  const text = await ask('minhas', 'U00MARIA1');
  expect(text).toMatch(/Suas solicitações|Maria Souza/);
  const lists = h.sandbox.calls.filter((c) => c.path === '/v1/solicitacoes-materiais');
  expect(lists.at(-1)?.url).toContain(`SolicitanteId=${C1.user.usuario}`);
});

it('the scrape of /metrics adds the thread counts to this thread', async () => {
  const text = await h.container.metrics.render();
  const calls = text
    .split('\n')
    .filter((line) => line.startsWith('estoque_upstream_calls_total{'))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
  // Every interactive read above was made by the thread; the scrape still counts them.
  expect(calls).toBeGreaterThanOrEqual(2);
  expect(text).toContain('estoque_redis_up 1');
});
