import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/render/index.js';
import { AnswerProgress, type AnswerTiming, firstMessageThenAnswer } from '../../src/slack/first-message.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { captureLogger } from '../helpers/upstream-stack.js';

/**
 * When the first message is sent and what it says, on a clock the test moves and an answer the test resolves:
 * the order of what the person sees, never how long anything took.
 */

const TIMING: AnswerTiming = { deadlineMs: 25_000, pendingNoticeMs: 3_000, budgetNoticeMs: 700 };

const message = (text: string): Message => ({ text, blocks: [] });

/** Lets the promises the timers started settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function scenario(
  options: { saved?: string | null; timing?: AnswerTiming; arrivedAgoMs?: number; savedHangs?: boolean } = {},
) {
  const clock = new ManualClock(1_000_000);
  const progress = new AnswerProgress();
  const sent: { text: string; replacing: boolean }[] = [];
  let answer = (_text: string) => {};
  const answered = new Promise<Message>((resolve) => {
    answer = (text) => resolve(message(text));
  });
  const arrivedAt = clock.monotonic() - (options.arrivedAgoMs ?? 0);
  const done = firstMessageThenAnswer({
    clock,
    timing: options.timing ?? TIMING,
    progress,
    arrivedAt,
    logger: captureLogger().logger,
    answer: answered,
    saved: options.savedHangs
      ? () => new Promise<Message | null>(() => undefined)
      : async () => (options.saved ? message(options.saved) : null),
    timedOut: () => message('timeout'),
    send: async (m, replacing) => {
      sent.push({ text: m.text, replacing });
    },
  });
  const pass = async (ms: number) => {
    clock.advance(ms);
    clock.runDue();
    await settle();
  };
  return { clock, progress, sent, answer, done, pass };
}

describe('a store that does not answer', () => {
  it('the saved data it cannot give does not hold the first message back: "consultando…" goes without it', async () => {
    const s = scenario({ savedHangs: true });
    await s.pass(700);
    // The saved-data read is given a moment (real time), then the notice goes without it.
    await new Promise((resolve) => setTimeout(resolve, 700));
    await settle();
    expect(s.sent).toEqual([{ text: expect.stringContaining('Consultando'), replacing: false }]);
    s.answer('the data');
    await s.done;
    expect(s.sent[1]).toEqual({ text: 'the data', replacing: true });
  });
});

describe("the first message counts from the command's arrival", () => {
  it('a call queued after part of the notice time was spent shows its place when the notice time from arrival ends', async () => {
    const s = scenario();
    await s.pass(600);
    s.progress.queued(3);
    await s.pass(99);
    expect(s.sent).toEqual([]);
    await s.pass(1);
    expect(s.sent).toEqual([{ text: expect.stringContaining('posição 3'), replacing: false }]);
    s.answer('the data');
    expect(await s.done).toEqual({ notices: ['queue'] });
    expect(s.sent.map((m) => m.replacing)).toEqual([false, true]);
    expect(s.sent[1]?.text).toBe('the data');
  });

  it('time spent before the first message was armed (the ack, the hand-off) counts too', async () => {
    const s = scenario({ arrivedAgoMs: 200 });
    s.progress.queued(1);
    await s.pass(499);
    expect(s.sent).toEqual([]);
    await s.pass(1);
    expect(s.sent).toEqual([{ text: expect.stringContaining('próxima da fila'), replacing: false }]);
  });

  it('a call queued after the notice time shows the saved data at once', async () => {
    const s = scenario({ saved: 'saved data, atualizando' });
    s.progress.started();
    await s.pass(2_000);
    expect(s.sent).toEqual([]);
    s.progress.queued(2);
    await settle();
    expect(s.sent).toEqual([{ text: 'saved data, atualizando', replacing: false }]);
    // The 3 s notice does not replace it.
    await s.pass(5_000);
    expect(s.sent).toHaveLength(1);
    s.answer('fresh');
    await s.done;
    expect(s.sent).toEqual([
      { text: 'saved data, atualizando', replacing: false },
      { text: 'fresh', replacing: true },
    ]);
  });

  it('an answer that comes before the notice time is the only message (no flicker)', async () => {
    const s = scenario({ saved: 'saved' });
    s.progress.queued(1);
    await s.pass(699);
    s.answer('fresh');
    expect(await s.done).toEqual({ notices: [] });
    await s.pass(10_000);
    expect(s.sent).toEqual([{ text: 'fresh', replacing: false }]);
  });
});

describe('what the first message says at the notice time', () => {
  it('an answer built before the notice time but sent after it (the process busy with acks) is the only message', async () => {
    const s = scenario({ saved: 'saved data' });
    await s.pass(100);
    s.progress.built();
    await s.pass(5_000);
    expect(s.sent).toEqual([]);
    s.answer('the data');
    expect(await s.done).toEqual({ notices: [] });
    expect(s.sent).toEqual([{ text: 'the data', replacing: false }]);
  });

  it('nothing out at upstream and nothing queued (waiting for a read made elsewhere): the saved data', async () => {
    const s = scenario({ saved: 'saved data, atualizando' });
    await s.pass(700);
    expect(s.sent).toEqual([{ text: 'saved data, atualizando', replacing: false }]);
    s.answer('fresh');
    await s.done;
    expect(s.sent.map((m) => [m.text, m.replacing])).toEqual([
      ['saved data, atualizando', false],
      ['fresh', true],
    ]);
  });

  it('nothing saved and nothing known: "consultando…", which a later place in the queue replaces', async () => {
    const s = scenario();
    await s.pass(700);
    expect(s.sent).toEqual([{ text: expect.stringContaining('Consultando'), replacing: false }]);
    s.progress.queued(4);
    await settle();
    expect(s.sent[1]).toEqual({ text: expect.stringContaining('posição 4'), replacing: true });
    s.answer('fresh');
    expect(await s.done).toEqual({ notices: ['pending', 'queue'] });
    expect(s.sent).toHaveLength(3);
  });

  it('a call out at upstream: no notice at the notice time, "consultando…" at ANSWER_PENDING_NOTICE', async () => {
    const s = scenario({ saved: 'saved' });
    s.progress.started();
    await s.pass(2_999);
    expect(s.sent).toEqual([]);
    await s.pass(1);
    expect(s.sent).toEqual([{ text: expect.stringContaining('Consultando'), replacing: false }]);
  });
});
