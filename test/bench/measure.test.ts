import { describe, expect, it } from 'vitest';
import {
  maxInSlidingWindow,
  percentile,
  percentileRatioInterval,
  trend,
  trendBeside,
} from '../../bench/measure.js';
import { seededRandom } from '../../bench/workload.js';

describe('bench measurement helpers', () => {
  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([], 99)).toBeNull();
  });

  it('counts the most events in any window, whatever its alignment', () => {
    expect(maxInSlidingWindow([0, 10, 20, 1_000, 1_005, 1_010, 1_015], 30)).toBe(4);
    expect(maxInSlidingWindow([0, 30, 60], 30)).toBe(1);
  });

  it('brackets a p99 ratio with a bootstrap interval that holds the point estimate', () => {
    const random = seededRandom(1);
    const bare = Array.from({ length: 600 }, () => 2 + random() * 3);
    const slower = bare.map((v) => v * 1.5);
    const interval = percentileRatioInterval(slower, bare, 99, seededRandom(2), 500);
    expect(interval).not.toBeNull();
    expect(interval?.low).toBeLessThanOrEqual(1.5);
    expect(interval?.high).toBeGreaterThanOrEqual(1.5);
    expect(interval?.low).toBeGreaterThan(1.2);
    const same = percentileRatioInterval(bare, bare, 99, seededRandom(3), 500);
    expect(same?.low).toBeLessThan(1);
    expect(same?.high).toBeGreaterThan(1);
    expect(percentileRatioInterval([], bare, 99, seededRandom(4))).toBeNull();
  });

  it('tells growth over time from growth that goes with a covariate', () => {
    const random = seededRandom(5);
    // A covariate that steps up now and then (as V8's code does), a value that follows it at 0.5 per unit
    // and also grows 0.001 per minute on its own, with noise.
    let covariate = 6;
    const points = Array.from({ length: 600 }, (_, i) => {
      if (random() < 0.02) covariate += random() * 0.05;
      const minutes = i * 0.1;
      return {
        at: minutes * 60_000,
        covariate,
        value: 20 + 0.5 * covariate + 0.001 * minutes + (random() - 0.5) * 0.01,
      };
    });
    const beside = trendBeside(points);
    expect(beside.perCovariate).toBeCloseTo(0.5, 1);
    expect(Math.abs(beside.slopePerMin - 0.001)).toBeLessThanOrEqual(beside.ci95PerMin);
    expect(beside.ci95PerMin).toBeLessThan(0.001);
    // The plain trend counts the covariate's share as growth over time.
    expect(trend(points).slopePerMin).toBeGreaterThan(beside.slopePerMin + 0.001);
  });
});
