import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  buttonsOf,
  eventually,
  type Harness,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../helpers/bot-harness.js';
import { ManualClock } from '../helpers/manual-clock.js';

let h: Harness;

beforeEach(async () => {
  h = await startHarness({ timeoutMs: 5_000 });
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

/** SIGTERM, then the grace (10 s, on a clock the test moves) runs out: the stop, still under way. */
async function graceRunsOut(): Promise<{ closing: Promise<unknown> }> {
  const clock = new ManualClock(Date.now());
  const closing = h.container.close({ graceMs: 10_000, clock });
  await eventually(() => (clock.pending > 0 ? true : null));
  clock.advance(10_000);
  clock.runDue();
  return { closing };
}

/** A bot with these options in place of the test's, linked. */
async function restart(options: Parameters<typeof startHarness>[0]): Promise<void> {
  await h.close();
  h = await startHarness(options);
  await h.link(TEAM);
}

/**
 * `/estoque resumo agora` in a subscribed channel, with nothing saved and every upstream read hanging: the digest
 * cannot be built before the grace ends; `beforeSending` runs right before it goes. Returns when it was sent.
 */
async function resumoAgoraThatHangs(beforeSending = () => {}): Promise<number> {
  await h.command('/estoque', 'resumo assinar');
  await eventually(() => h.container.tasks.size === 0 || null);
  await h.container.cache.clear(TEAM);
  h.sandbox.faults.next({ path: /^\/v1\//, delayMs: 60_000, times: 100 });
  beforeSending();
  const sentAt = Date.now();
  await h.command('/estoque', 'resumo agora');
  return sentAt;
}

/** Sends the command and waits until its answer is being worked on (the upstream call is under way). */
async function askSlowly(delayMs: number) {
  h.sandbox.faults.next({ path: '/v1/almoxarifados', delayMs });
  const result = await h.command('/estoque', 'almoxarifados');
  expect(result.status).toBe(200);
  await eventually(() => (h.sandbox.faults.pending === 0 && h.container.tasks.size === 1 ? true : null));
  return result.sentAt;
}

describe('SIGTERM: answers in flight', () => {
  it('an answer still running at the end of the grace: its user is told the bot is restarting, with a retry', async () => {
    const sentAt = await askSlowly(4_000);
    const { closing } = await graceRunsOut();
    const message = await h.nextMessage(sentAt, { userId: USERS.member });
    expect(textOf(message)).toMatch(/o bot está reiniciando, tente de novo/i);
    expect(message.ephemeral).toBe(true);
    const retry = buttonsOf(message).find((b) => b.action_id.startsWith('retry:'));
    expect(retry?.text?.text).toBe('Tentar de novo');
    await closing;
  });

  it('a "consultando…" already on screen is replaced by the restart notice, not left beside it', async () => {
    await restart({ timeoutMs: 5_000, answerTiming: { pendingNotice: '50ms' } });
    const sentAt = await askSlowly(4_000);
    const pending = await h.nextMessage(sentAt, { userId: USERS.member });
    expect(textOf(pending)).toMatch(/consultando/i);
    await (await graceRunsOut()).closing;
    const shown = h.slack.messages.filter((m) => m.channel === pending.channel && !m.replaced);
    expect(shown.map((m) => textOf(m))).toEqual([expect.stringMatching(/o bot está reiniciando/i)]);
  });

  it('a "consultando…" still on its way when the grace ends is replaced by the restart notice, not left beside it', async () => {
    await restart({ timeoutMs: 5_000, answerTiming: { pendingNotice: '50ms' } });
    // Slack takes a second to take the first message: the grace ends while it is on its way.
    h.slack.failNext('response_url', { delayMs: 1_000 });
    const sentAt = await askSlowly(4_000);
    await eventually(() => h.slack.calls.find((c) => c.method === 'response_url' && c.at >= sentAt));
    await (await graceRunsOut()).closing;
    // The first message has reached Slack, replaced by now or beside the notice.
    await eventually(() => h.slack.messages.find((m) => m.at >= sentAt && /consultando/i.test(textOf(m))));
    const shown = h.slack.messages.filter((m) => m.at >= sentAt && m.ephemeral && !m.replaced);
    expect(shown.map((m) => textOf(m))).toEqual([expect.stringMatching(/o bot está reiniciando/i)]);
  });

  it('the restart notice stays: the cut answer’s late failure is not sent over it', async () => {
    await restart({ timeoutMs: 60_000, answerTiming: { pendingNotice: '50ms' } });
    const sentAt = await askSlowly(60_000);
    const pending = await h.nextMessage(sentAt, { userId: USERS.member });
    await (await graceRunsOut()).closing;
    // The upstream call is cut as the process closes; the answer it comes to is dropped, not sent.
    await eventually(() => h.logs.some((line) => line.includes('answer after the restart notice; not sent')));
    const shown = h.slack.messages.filter((m) => m.channel === pending.channel && !m.replaced);
    expect(shown.map((m) => textOf(m))).toEqual([expect.stringMatching(/o bot está reiniciando/i)]);
    expect(buttonsOf(shown[0]!).some((b) => b.action_id.startsWith('retry:'))).toBe(true);
  });

  it('upstream calls still hanging when the grace ends do not hold the stop (they are cut, their users told)', async () => {
    await restart({ timeoutMs: 60_000 });
    const sentAt = await askSlowly(60_000);
    const { closing } = await graceRunsOut();
    // Without the fix the stop waits for the 60 s upstream call: far past this.
    const outcome = await Promise.race([
      closing.then(() => 'stopped'),
      new Promise((resolve) => setTimeout(() => resolve('still waiting on upstream'), 5_000)),
    ]);
    expect(outcome).toBe('stopped');
    const message = await h.nextMessage(sentAt, { userId: USERS.member });
    expect(textOf(message)).toMatch(/o bot está reiniciando/i);
  });

  it('a subscription command still running (resumo agora) is told too, not dropped in silence', async () => {
    await restart({ timeoutMs: 60_000 });
    const sentAt = await resumoAgoraThatHangs();
    await eventually(() => h.container.tasks.size === 1 || null);
    await eventually(() => h.sandbox.calls.find((c) => c.at >= sentAt && c.kind === 'data'));
    await (await graceRunsOut()).closing;
    const told = await eventually(() =>
      h.slack.messages.find((m) => m.at >= sentAt && /o bot está reiniciando/i.test(textOf(m))),
    );
    expect(textOf(told)).toContain('/estoque resumo agora');
    expect(told.visibleTo).toBe(USERS.member);
  });

  it('resumo agora with its "consultando…" on screen: the restart notice replaces it, not left beside it', async () => {
    await restart({ timeoutMs: 60_000, answerTiming: { pendingNotice: '50ms' } });
    const sentAt = await resumoAgoraThatHangs();
    const pending = await h.nextMessage(sentAt, { userId: USERS.member, ephemeral: true });
    expect(textOf(pending)).toMatch(/consultando/i);
    await (await graceRunsOut()).closing;
    const shown = h.slack.messages.filter((m) => m.at >= sentAt && m.ephemeral && !m.replaced);
    expect(shown.map((m) => textOf(m))).toEqual([expect.stringMatching(/o bot está reiniciando/i)]);
  });

  it('resumo agora with its "consultando…" still on its way: the restart notice replaces it', async () => {
    await restart({ timeoutMs: 60_000, answerTiming: { pendingNotice: '50ms' } });
    // Slack takes a second to take the first message: the grace ends while it is on its way.
    const sentAt = await resumoAgoraThatHangs(() => h.slack.failNext('response_url', { delayMs: 1_000 }));
    await eventually(() => h.slack.calls.find((c) => c.method === 'response_url' && c.at >= sentAt));
    await (await graceRunsOut()).closing;
    // The first message has reached Slack, replaced by now or beside the notice.
    await eventually(() => h.slack.messages.find((m) => m.at >= sentAt && /consultando/i.test(textOf(m))));
    const shown = h.slack.messages.filter((m) => m.at >= sentAt && m.ephemeral && !m.replaced);
    expect(shown.map((m) => textOf(m))).toEqual([expect.stringMatching(/o bot está reiniciando/i)]);
  });

  it('an answer that finishes within the grace is delivered, and nobody is told of a restart', async () => {
    const sentAt = await askSlowly(200);
    const clock = new ManualClock(Date.now());
    // The grace never ends on this clock: close returns once the answer went out.
    await h.container.close({ graceMs: 10_000, clock });
    const answer = await h.nextMessage(sentAt, { userId: USERS.member });
    expect(textOf(answer)).not.toMatch(/reiniciando/);
    expect(textOf(answer)).toMatch(/almoxarifado/i);
    expect(h.slack.messages.filter((m) => /reiniciando/.test(textOf(m)))).toEqual([]);
  });

  it('a command that arrives once shutdown began is not started: its user is told at once', async () => {
    await h.container.close({ graceMs: 10_000, clock: new ManualClock(Date.now()) });
    const callsBefore = h.sandbox.calls.length;
    const result = await h.command('/estoque', 'almoxarifados');
    expect(result.status).toBe(200);
    const message = await h.nextMessage(result.sentAt, { userId: USERS.member });
    expect(textOf(message)).toMatch(/o bot está reiniciando/i);
    expect(h.sandbox.calls.length).toBe(callsBefore);
  });
});
