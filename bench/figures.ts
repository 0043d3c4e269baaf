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
  /** Time from sending to the answer on the response_url, ms. */
  answer: Percentiles;
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
    peakRssMb: peakRss > 0 ? peakRss / MB : null,
  };
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
