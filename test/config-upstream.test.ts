import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

/** The upstream client's and interactive answers' variables (README, Configuration). */
describe('upstream caps and answer timing', () => {
  it('have the documented defaults', () => {
    const config = loadConfig({});
    expect(config.UPSTREAM_MAX_RESPONSE_BYTES).toBe(4 * 1024 * 1024);
    expect(config.UPSTREAM_TIMEOUT).toBe(10_000);
    expect(config.ANSWER_DEADLINE).toBe(25_000);
    expect(config.ANSWER_PENDING_NOTICE).toBe(3_000);
    expect(config.ANSWER_BUDGET_NOTICE).toBe(700);
  });

  it('read sizes and durations with their units', () => {
    const config = loadConfig({
      UPSTREAM_MAX_RESPONSE_BYTES: '512KiB',
      UPSTREAM_TIMEOUT: '1500ms',
      ANSWER_DEADLINE: '1m',
      ANSWER_PENDING_NOTICE: '2.5s',
      ANSWER_BUDGET_NOTICE: '0s',
    });
    expect(config.UPSTREAM_MAX_RESPONSE_BYTES).toBe(524_288);
    expect(config.UPSTREAM_TIMEOUT).toBe(1_500);
    expect(config.ANSWER_DEADLINE).toBe(60_000);
    expect(config.ANSWER_PENDING_NOTICE).toBe(2_500);
    expect(config.ANSWER_BUDGET_NOTICE).toBe(0);
    expect(loadConfig({ UPSTREAM_MAX_RESPONSE_BYTES: '2000000' }).UPSTREAM_MAX_RESPONSE_BYTES).toBe(
      2_000_000,
    );
  });

  it('name every bad value at once', () => {
    let error: unknown;
    try {
      loadConfig({
        UPSTREAM_MAX_RESPONSE_BYTES: 'huge',
        UPSTREAM_TIMEOUT: '10 minutes',
        ANSWER_DEADLINE: '200ms',
        ANSWER_PENDING_NOTICE: '-1s',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const names = (error as ConfigError).problems.map((p) => p.split(':')[0]);
    expect(names).toEqual([
      'UPSTREAM_MAX_RESPONSE_BYTES',
      'UPSTREAM_TIMEOUT',
      'ANSWER_DEADLINE',
      'ANSWER_PENDING_NOTICE',
    ]);
  });
});
