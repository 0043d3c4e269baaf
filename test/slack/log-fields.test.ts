import { afterEach, beforeEach, expect, it } from 'vitest';
import { type Harness, startHarness, TEAM, textOf, USERS } from '../helpers/bot-harness.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ timeoutMs: 300 });
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

/** How many times each key appears at the top level of a raw JSON line (JSON.parse would keep only the last). */
function keyCounts(line: string): Map<string, number> {
  const counts = new Map<string, number>();
  let depth = 0;
  for (const match of line.matchAll(/[{}]|"((?:[^"\\]|\\.)*)":/g)) {
    if (match[0] === '{') depth += 1;
    else if (match[0] === '}') depth -= 1;
    else if (depth === 1 && match[1] !== undefined) counts.set(match[1], (counts.get(match[1]) ?? 0) + 1);
  }
  return counts;
}

it('a failed answer is logged with one field per fact: correlationId and route once each', async () => {
  h.sandbox.faults.next({ path: '/v1/materiais/tipos', status: 403 });
  const result = await h.command('/estoque', 'tipos');
  const message = await h.nextMessage(result.sentAt, { userId: USERS.member });
  expect(textOf(message)).toMatch(/permissão|acesso/i);
  const failed = h.logs.filter((line) => line.includes('"msg":"answer failed"'));
  expect(failed).toHaveLength(1);
  const counts = keyCounts(failed[0] ?? '');
  expect(counts.get('correlationId')).toBe(1);
  expect(counts.get('route')).toBe(1);
  expect([...counts.entries()].filter(([, n]) => n > 1)).toEqual([]);
});

it("a failed answer's log line names the upstream's trace id (ProblemDetails traceId)", async () => {
  const traceId = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  h.sandbox.faults.next({
    path: '/v1/materiais/tipos',
    status: 403,
    body: { title: 'Forbidden', status: 403, detail: null, traceId },
  });
  const result = await h.command('/estoque', 'tipos');
  await h.nextMessage(result.sentAt, { userId: USERS.member });
  const failed = h.logs.filter((line) => line.includes('"msg":"answer failed"'));
  expect(failed).toHaveLength(1);
  const line = JSON.parse(failed[0] ?? '{}') as { err?: { code?: string; traceId?: string } };
  expect(line.err).toMatchObject({ code: 'upstream_forbidden', traceId });
});
