import type { SandboxCall } from '../src/sandbox/server.js';
import type { InProcessAck } from './ipc.js';
import type { CommandRecord, StepWindow } from './load.js';
import { MB, maxInSlidingWindow, type Percentiles, percentiles } from './measure.js';
import type { RateLimit } from './stage.js';

/** The figures of one rate step of one configuration. */
export interface StepFigures {
  step: string;
  /** Commands per second sent. */
  perSecond: number;
  /** Commands sent in the measured part. */
  sent: number;
  /** HTTP 200 acks. */
  acked: number;
  answered: number;
  /** Answers showing data: fresh, cached, or saved data shown with a warning. */
  withData: number;
  /** Of those, data no older than the TTL of what it shows. */
  withinTtl: number;
  fresh: number;
  cached: number;
  stale: number;
  /** The budget message, no data. */
  budget: number;
  errors: number;
  unanswered: number;
  /** Age of the data shown, ms, over the answers with data. */
  age: Percentiles;
  /** Share of ages read to the millisecond from the sandbox's log (the rest: to the minute shown). */
  ageExactShare: number | null;
  /** Upstream calls of the credential the sandbox received in the measured part (token calls included). */
  upstreamCalls: number;
  /** The most calls in any window of the limit's length ending in this step (earlier calls counted). */
  maxInWindow: number;
  limit: number;
  upstream429: number;
  /** Time from sending the signed request to its HTTP answer, ms. */
  ack: Percentiles;
  /** The same inside the bot processes: from their 'request' event to the answer handed to the socket, ms. */
  ackInBot: Percentiles;
  /** Time from sending to the final answer on the response_url, ms. */
  answer: Percentiles;
  /**
   * Time from sending to the first message the user saw (see `firstMessageMs`), ms, over the commands that
   * got one; `noFirstMessage` counts the measured commands that got none (unanswered, failed acks).
   */
  firstMessage: Percentiles;
  noFirstMessage: number;
  /** Measured commands whose first message came within FIRST_MESSAGE_TARGET_MS (those with none count as late). */
  firstMessageInTime: number;
  /** Largest sum of the bot processes' VmRSS sampled in the step, MB. */
  peakRssMb: number | null;
}

export function stepFigures(
  window: StepWindow,
  records: readonly CommandRecord[],
  calls: readonly SandboxCall[],
  login: string,
  limit: RateLimit,
  peakRss: number,
  inBot: readonly InProcessAck[],
  ttlScale = 1,
): StepFigures {
  const mine = records.filter((r) => r.step === window.name && r.measured);
  const answered = mine.filter((r) => r.answeredAt !== null);
  const count = (kind: CommandRecord['kind']) => answered.filter((r) => r.kind === kind).length;
  const withData = answered.filter((r) => r.kind === 'fresh' || r.kind === 'cached' || r.kind === 'stale');
  const withinTtl = withData.filter(
    (r) => r.kind !== 'stale' || (r.ageMs !== null && r.ageMs <= r.item.ttlMs * ttlScale),
  );
  const ages = withData.map((r) => r.ageMs).filter((a): a is number => a !== null);
  const credentialCalls = calls.filter((c) => c.login === login);
  const inStep = credentialCalls.filter((c) => c.at >= window.from && c.at <= window.to);
  return {
    step: window.name,
    perSecond: window.perSecond,
    sent: mine.length,
    acked: mine.filter((r) => r.ackStatus === 200).length,
    answered: answered.length,
    withData: withData.length,
    withinTtl: withinTtl.length,
    fresh: count('fresh'),
    cached: count('cached'),
    stale: count('stale'),
    budget: count('budget'),
    errors: count('error'),
    unanswered: mine.length - answered.length,
    age: percentiles(ages),
    ageExactShare: withData.length === 0 ? null : withData.filter((r) => r.ageExact).length / withData.length,
    upstreamCalls: inStep.length,
    maxInWindow: maxInSlidingWindow(
      credentialCalls.map((c) => c.at),
      limit.windowMs,
      { from: window.from, to: window.to },
    ),
    limit: limit.count,
    upstream429: inStep.filter((c) => c.status === 429).length,
    ack: percentiles(mine.map((r) => r.ackMs).filter((v): v is number => v !== null)),
    ackInBot: percentiles(inBot.filter((a) => a.at >= window.from && a.at <= window.to).map((a) => a.ms)),
    answer: percentiles(
      answered.filter((r) => r.sentAt !== null).map((r) => (r.answeredAt as number) - (r.sentAt as number)),
    ),
    ...firstMessages(mine),
    peakRssMb: peakRss > 0 ? peakRss / MB : null,
  };
}

type FirstMessageFields = Pick<
  CommandRecord,
  'sentAt' | 'ackMs' | 'ackStatus' | 'ackMessage' | 'firstMessageAt' | 'answeredAt'
>;

/**
 * When the user first saw something of a command, ms after it was sent: the ack when it carried a message (an
 * ephemeral answer at ack time), a first message on the response_url ("consultando…", saved data
 * "atualizando…", the place in the queue), or the final answer, whichever came first. Null when they saw
 * nothing (never answered, a failed ack, or no send time).
 */
export function firstMessageMs(record: FirstMessageFields): number | null {
  if (record.sentAt === null) return null;
  const sentAt = record.sentAt;
  const seen: number[] = [];
  if (record.ackMessage && record.ackStatus === 200 && record.ackMs !== null) seen.push(record.ackMs);
  if (record.firstMessageAt !== null) seen.push(record.firstMessageAt - sentAt);
  if (record.answeredAt !== null) seen.push(record.answeredAt - sentAt);
  return seen.length === 0 ? null : Math.min(...seen);
}

/** The goal of issue 17: a user sees a first message within this long (at p95, every rate). */
export const FIRST_MESSAGE_TARGET_MS = 1_000;

/**
 * First-message latency over some commands, how many showed the user nothing, and how many showed something
 * within FIRST_MESSAGE_TARGET_MS.
 */
export function firstMessages(records: readonly FirstMessageFields[]): {
  firstMessage: Percentiles;
  noFirstMessage: number;
  firstMessageInTime: number;
} {
  const values = records.map(firstMessageMs);
  const seen = values.filter((v): v is number => v !== null);
  return {
    firstMessage: percentiles(seen),
    noFirstMessage: values.length - seen.length,
    firstMessageInTime: seen.filter((v) => v <= FIRST_MESSAGE_TARGET_MS).length,
  };
}

/**
 * Whether at least `share` of the sent commands showed a first message within FIRST_MESSAGE_TARGET_MS: the p95
 * goal, with a command that showed nothing counted as late (a p95 over the answered ones alone would hide them).
 */
export function firstMessageGoalMet(
  step: Pick<StepFigures, 'sent' | 'firstMessageInTime'>,
  share = 0.95,
): boolean {
  return step.sent > 0 && step.firstMessageInTime >= share * step.sent;
}

/** Figures over the whole configuration run. */
export interface RunTotals {
  upstreamCalls: number;
  /** The most calls in any window of the limit's length over the whole run, any alignment. */
  maxInWindow: number;
  upstream429: number;
  /** Ack latency over every measured command of every step, ms. */
  ack: Percentiles;
  /** Those acks themselves (0.01 ms), for intervals on ratios between configurations. */
  ackSamples: number[];
  /** In-process ack time over the measured steps, ms. */
  ackInBot: Percentiles;
  /** VmHWM of each bot process at the end, MB. */
  peakRssMbByProcess: number[];
}

export function runTotals(
  records: readonly CommandRecord[],
  calls: readonly SandboxCall[],
  login: string,
  limit: RateLimit,
  hwm: readonly number[],
  windows: readonly StepWindow[],
  inBot: readonly InProcessAck[],
): RunTotals {
  const credentialCalls = calls.filter((c) => c.login === login);
  const acks = records.filter((r) => r.measured && r.ackMs !== null).map((r) => r.ackMs as number);
  return {
    upstreamCalls: credentialCalls.length,
    maxInWindow: maxInSlidingWindow(
      credentialCalls.map((c) => c.at),
      limit.windowMs,
    ),
    upstream429: credentialCalls.filter((c) => c.status === 429).length,
    ack: percentiles(acks),
    ackSamples: acks.map((v) => Math.round(v * 100) / 100),
    ackInBot: percentiles(
      inBot.filter((a) => windows.some((w) => a.at >= w.from && a.at <= w.to)).map((a) => a.ms),
    ),
    peakRssMbByProcess: hwm.map((bytes) => bytes / MB),
  };
}
