import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadSandboxConfig } from '../src/config.js';

const KEY = Buffer.alloc(32, 7).toString('base64');

describe('loadConfig', () => {
  it('runs local mode with nothing configured, with the documented defaults', () => {
    const config = loadConfig({});
    expect(config.localMode).toBe(true);
    expect(config.PORT).toBe(3000);
    expect(config.UPSTREAM_RATE_LIMIT).toEqual({ count: 250, windowMs: 3_600_000 });
    expect(config.DIGEST_TZ).toBe('America/Sao_Paulo');
    expect(config.SLACK_API_URL).toBe('https://slack.com/api/');
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.SANDBOX_PORT).toBe(4010);
  });

  it('reads METRICS_TOKEN, unset when empty, and refuses one too short or with spaces', () => {
    expect(loadConfig({}).METRICS_TOKEN).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: '  ' }).METRICS_TOKEN).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: 'a'.repeat(16) }).METRICS_TOKEN).toBe('a'.repeat(16));
    for (const bad of ['short', 'sixteen chars but spaces']) {
      expect(() => loadConfig({ METRICS_TOKEN: bad })).toThrow(
        /METRICS_TOKEN: must be at least 16 printable/,
      );
    }
  });

  it('reads COUNT/DURATION budgets', () => {
    expect(loadConfig({ UPSTREAM_RATE_LIMIT: '25/36s' }).UPSTREAM_RATE_LIMIT).toEqual({
      count: 25,
      windowMs: 36_000,
    });
    expect(loadConfig({ UPSTREAM_RATE_LIMIT: '50/60s' }).UPSTREAM_RATE_LIMIT).toEqual({
      count: 50,
      windowMs: 60_000,
    });
    expect(loadConfig({ UPSTREAM_RATE_LIMIT: '10/2s' }).UPSTREAM_RATE_LIMIT).toEqual({
      count: 10,
      windowMs: 2_000,
    });
  });

  it('names every bad variable in one error', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'abc',
        UPSTREAM_RATE_LIMIT: '250 per hour',
        DIGEST_TZ: 'Mars/Olympus',
        CREDENTIALS_KEY: 'c2hvcnQ=',
        REDIS_URL: 'http://localhost',
        LOG_LEVEL: 'loud',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = (error as ConfigError).message;
    for (const name of [
      'PORT',
      'UPSTREAM_RATE_LIMIT',
      'DIGEST_TZ',
      'CREDENTIALS_KEY',
      'REDIS_URL',
      'LOG_LEVEL',
    ]) {
      expect(text).toContain(name);
    }
    expect((error as ConfigError).problems).toHaveLength(6);
  });

  it('requires the upstream URLs and a signing secret once Slack is configured', () => {
    expect(() => loadConfig({ SLACK_BOT_TOKEN: 'xoxb-1' })).toThrow(
      /UPSTREAM_BASE_URL[\s\S]*UPSTREAM_AUTH_URL[\s\S]*SLACK_SIGNING_SECRET/,
    );
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 's',
      UPSTREAM_BASE_URL: 'https://api.example.com',
      UPSTREAM_AUTH_URL: 'https://auth.example.com',
      CREDENTIALS_KEY: KEY,
    });
    expect(config.localMode).toBe(false);
    expect(config.oauth).toBe(false);
  });

  it('wants all three OAuth variables together', () => {
    expect(() =>
      loadConfig({
        SLACK_CLIENT_ID: 'id',
        SLACK_SIGNING_SECRET: 's',
        UPSTREAM_BASE_URL: 'https://api.example.com',
        UPSTREAM_AUTH_URL: 'https://auth.example.com',
      }),
    ).toThrow(/SLACK_CLIENT_SECRET[\s\S]*SLACK_STATE_SECRET/);
  });

  it('reads BOT_ADMINS as a list', () => {
    expect(loadConfig({ BOT_ADMINS: ' U1, U2 ,,' }).BOT_ADMINS).toEqual(['U1', 'U2']);
  });
});

describe('loadSandboxConfig', () => {
  it('reads the sandbox port and limit, with their defaults, whatever else the environment holds', () => {
    expect(loadSandboxConfig({})).toEqual({ port: 4010, rateLimit: { count: 250, windowMs: 3_600_000 } });
    // PORT is invalid for the bot; the sandbox does not read it.
    expect(loadSandboxConfig({ PORT: 'abc', SANDBOX_PORT: '4020', SANDBOX_RATE_LIMIT: '10/2s' })).toEqual({
      port: 4020,
      rateLimit: { count: 10, windowMs: 2_000 },
    });
  });

  it('names both bad variables in one error', () => {
    let error: unknown;
    try {
      loadSandboxConfig({ SANDBOX_PORT: '70000', SANDBOX_RATE_LIMIT: 'lots' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^SANDBOX_PORT: /);
    expect(problems[1]).toMatch(/^SANDBOX_RATE_LIMIT: /);
  });
});
