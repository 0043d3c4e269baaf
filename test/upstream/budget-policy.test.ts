import { describe, expect, it } from 'vitest';
import { resolveBudgetPolicy } from '../../src/upstream/budget-policy.js';

describe('resolveBudgetPolicy: the feed at saturation', () => {
  const caps = (count: number, feedSharePercent?: number, feedSaturatedSharePercent?: number) => {
    const policy = resolveBudgetPolicy({
      limit: { count, windowMs: 3_600_000 },
      ...(feedSharePercent !== undefined && { feedSharePercent }),
      ...(feedSaturatedSharePercent !== undefined && { feedSaturatedSharePercent }),
    });
    return [policy.feedCap, policy.feedCapSaturated];
  };

  it('gives the feed 20 % of the window, and 5 % while commands are refused slots, by default', () => {
    expect(caps(250)).toEqual([50, 12]);
    expect(caps(25)).toEqual([5, 1]);
  });

  it('keeps at least one call at saturation when the share grants any, and never more than the share', () => {
    expect(caps(10, 20, 5)).toEqual([2, 1]);
    expect(caps(250, 20, 50)).toEqual([50, 50]);
    expect(caps(250, 0, 5)).toEqual([0, 0]);
  });

  it('gives the feed at least one call when its share is above 0, however small the limit', () => {
    // 4 × 20 % is 0.8: rounded down it was 0, the feed off in silence while the status blamed FEED_BUDGET_SHARE.
    expect(caps(4, 20)).toEqual([1, 1]);
    expect(caps(4, 20, 0)).toEqual([1, 0]);
    expect(caps(4, 0)).toEqual([0, 0]);
  });

  it('stops the feed at saturation when its saturated share is 0', () => {
    expect(caps(250, 20, 0)).toEqual([50, 0]);
  });

  it('refuses a saturated share outside 0-100', () => {
    expect(() => caps(250, 20, -1)).toThrow(RangeError);
    expect(() => caps(250, 20, 101)).toThrow(RangeError);
  });
});
