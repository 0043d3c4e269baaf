import { readFileSync } from 'node:fs';

/** Pure measurement helpers: percentiles, sliding-window maxima, RSS from /proc, a least-squares slope. */

export interface Percentiles {
  n: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
}

/** Nearest-rank percentile (p in 0..100) of unsorted values; null for an empty list. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? null;
}

export function percentiles(values: readonly number[]): Percentiles {
  return {
    n: values.length,
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    max: values.length === 0 ? null : Math.max(...values),
  };
}

/**
 * The most events in any window of `windowMs`, whatever its alignment: for each event, the events in
 * (t - windowMs, t], as a sliding-window limiter counts them when that event arrives. `only` keeps the
 * windows that end at an event inside a range (a rate step), while still counting earlier events.
 */
export function maxInSlidingWindow(
  times: readonly number[],
  windowMs: number,
  only?: { from: number; to: number },
): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let start = 0;
  for (let end = 0; end < sorted.length; end += 1) {
    const t = sorted[end] as number;
    while ((sorted[start] as number) <= t - windowMs) start += 1;
    if (only && (t < only.from || t > only.to)) continue;
    best = Math.max(best, end - start + 1);
  }
  return best;
}

export interface ProcMemory {
  /** Resident set size now, bytes. */
  rss: number;
  /** Peak resident set size of the process's life (VmHWM), bytes. */
  hwm: number;
}

/** VmRSS and VmHWM of a process from /proc/<pid>/status (Linux); null when the process is gone. */
export function readProcMemory(pid: number): ProcMemory | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const kb = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
    return match?.[1] ? Number(match[1]) * 1024 : 0;
  };
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

export interface Trend {
  /** Least-squares slope, units per minute. */
  slopePerMin: number;
  /** Half-width of the slope's 95% confidence interval (normal approximation), per minute. */
  ci95PerMin: number;
  /** Standard deviation of the residuals around the line. */
  residualStd: number;
  samples: number;
}

/** Least-squares line through (ms, value) points. */
export function trend(points: readonly { at: number; value: number }[]): Trend {
  const n = points.length;
  if (n < 3) return { slopePerMin: 0, ci95PerMin: Number.POSITIVE_INFINITY, residualStd: 0, samples: n };
  const xs = points.map((p) => p.at / 60_000);
  const ys = points.map((p) => p.value);
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i += 1) {
    const dx = (xs[i] as number) - mx;
    sxx += dx * dx;
    sxy += dx * ((ys[i] as number) - my);
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  let sse = 0;
  for (let i = 0; i < n; i += 1) {
    const fitted = my + slope * ((xs[i] as number) - mx);
    sse += ((ys[i] as number) - fitted) ** 2;
  }
  const residualVar = sse / (n - 2);
  const slopeSe = sxx === 0 ? Number.POSITIVE_INFINITY : Math.sqrt(residualVar / sxx);
  return { slopePerMin: slope, ci95PerMin: 1.96 * slopeSe, residualStd: Math.sqrt(residualVar), samples: n };
}

export const MB = 1024 * 1024;

/** Rounds for reports: one decimal, or null stays null. */
export function round1(value: number | null): number | null {
  return value === null ? null : Math.round(value * 10) / 10;
}

/**
 * 95 % percentile-bootstrap interval of percentile(a, p) / percentile(b, p): both samples redrawn with
 * replacement `iterations` times (seeded, so a run's report is reproducible from its samples). Null when
 * either sample is empty.
 */
export function percentileRatioInterval(
  a: readonly number[],
  b: readonly number[],
  p: number,
  random: () => number,
  iterations = 2_000,
): { low: number; high: number } | null {
  if (a.length === 0 || b.length === 0) return null;
  const redraw = (values: readonly number[]) =>
    Array.from({ length: values.length }, () => values[Math.floor(random() * values.length)] as number);
  const ratios: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const top = percentile(redraw(a), p);
    const bottom = percentile(redraw(b), p);
    if (top !== null && bottom !== null && bottom > 0) ratios.push(top / bottom);
  }
  const low = percentile(ratios, 2.5);
  const high = percentile(ratios, 97.5);
  return low === null || high === null ? null : { low, high };
}

/** A ratio a / b, or null when either is missing or b is 0. */
export function ratio(a: number | null, b: number | null): number | null {
  return a === null || b === null || b === 0 ? null : a / b;
}

/** Milliseconds on a clock shared by every thread of the process (performance.now has one origin per thread). */
export function preciseNow(): number {
  return performance.timeOrigin + performance.now();
}

export interface RssSample {
  at: number;
  /** Sum of VmRSS over the sampled processes, bytes. */
  total: number;
}

/** Samples the VmRSS of some processes every `everyMs` until stopped. */
export class RssSampler {
  readonly samples: RssSample[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pids: readonly number[],
    everyMs = 1_000,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  sample(): void {
    let total = 0;
    for (const pid of this.pids) total += readProcMemory(pid)?.rss ?? 0;
    if (total > 0) this.samples.push({ at: preciseNow(), total });
  }

  /** The largest total seen in [from, to], bytes (0 when none). */
  peak(from: number, to: number): number {
    let best = 0;
    for (const s of this.samples) if (s.at >= from && s.at <= to) best = Math.max(best, s.total);
    return best;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

export interface TrendBeside extends Trend {
  /** Units of value that go with one unit of the covariate, time held fixed. */
  perCovariate: number;
}

/**
 * The slope over time of `value` with `covariate` held fixed: least squares of value on time and covariate
 * (through Frisch–Waugh: both regressed on the covariate first, then the residuals on each other). The soak
 * uses it to tell the growth of the heap that goes with V8's code growing from growth of its own.
 */
export function trendBeside(
  points: readonly { at: number; value: number; covariate: number }[],
): TrendBeside {
  const n = points.length;
  if (n < 4)
    return {
      slopePerMin: 0,
      ci95PerMin: Number.POSITIVE_INFINITY,
      residualStd: 0,
      samples: n,
      perCovariate: 0,
    };
  const ts = points.map((p) => p.at / 60_000);
  const ys = points.map((p) => p.value);
  const cs = points.map((p) => p.covariate);
  const rt = residualsOn(ts, cs);
  const ry = residualsOn(ys, cs);
  const rc = residualsOn(cs, ts);
  const rcy = residualsOn(ys, ts);
  const stt = sumOfProducts(rt, rt);
  const scc = sumOfProducts(rc, rc);
  const slope = stt === 0 ? 0 : sumOfProducts(rt, ry) / stt;
  const perCovariate = scc === 0 ? 0 : sumOfProducts(rc, rcy) / scc;
  let sse = 0;
  for (let i = 0; i < n; i += 1) sse += ((ry[i] as number) - slope * (rt[i] as number)) ** 2;
  const residualVar = sse / (n - 3);
  const slopeSe = stt === 0 ? Number.POSITIVE_INFINITY : Math.sqrt(residualVar / stt);
  return {
    slopePerMin: slope,
    ci95PerMin: 1.96 * slopeSe,
    residualStd: Math.sqrt(residualVar),
    samples: n,
    perCovariate,
  };
}

/** What is left of ys after the least-squares line on xs. */
function residualsOn(ys: readonly number[], xs: readonly number[]): number[] {
  const n = ys.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  const dx = xs.map((x) => x - mx);
  const sxx = sumOfProducts(dx, dx);
  const dy = ys.map((y) => y - my);
  const slope = sxx === 0 ? 0 : sumOfProducts(dx, dy) / sxx;
  return dy.map((d, i) => d - slope * (dx[i] as number));
}

function sumOfProducts(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 1) sum += (a[i] as number) * (b[i] as number);
  return sum;
}
