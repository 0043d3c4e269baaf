import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadSandboxConfig, readEnvironment } from '../src/config.js';

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
    expect(config.FEED_INTERVAL).toBe(120_000);
    expect(config.FEED_BUDGET_SHARE).toBe(20);
    expect(config.FEED_BUDGET_SHARE_SATURATED).toBe(5);
  });

  it('reads the feed interval as a duration and its share as a percent, and names bad ones', () => {
    expect(loadConfig({ FEED_INTERVAL: '30s', FEED_BUDGET_SHARE: '35' })).toMatchObject({
      FEED_INTERVAL: 30_000,
      FEED_BUDGET_SHARE: 35,
    });
    expect(loadConfig({ FEED_INTERVAL: '1h' }).FEED_INTERVAL).toBe(3_600_000);
    expect(loadConfig({ FEED_BUDGET_SHARE: '0' }).FEED_BUDGET_SHARE).toBe(0);
    expect(loadConfig({ FEED_BUDGET_SHARE_SATURATED: '0' }).FEED_BUDGET_SHARE_SATURATED).toBe(0);
    for (const env of [
      { FEED_BUDGET_SHARE_SATURATED: '-1' },
      { FEED_BUDGET_SHARE_SATURATED: 'half' },
      { FEED_INTERVAL: 'two minutes' },
      { FEED_INTERVAL: '500ms' },
      { FEED_BUDGET_SHARE: '120' },
      { FEED_BUDGET_SHARE: '12.5' },
      { FEED_BUDGET_SHARE: 'lots' },
    ]) {
      const name = Object.keys(env)[0] ?? '';
      expect(() => loadConfig(env), name).toThrow(ConfigError);
      expect(() => loadConfig(env), name).toThrow(name);
    }
  });

  it('takes a blank value (PORT=, FEED_BUDGET_SHARE=, DATA_DIR= in a .env) as unset: its default', () => {
    const blank = loadConfig({
      PORT: '',
      SANDBOX_PORT: ' ',
      FEED_BUDGET_SHARE: '',
      FEED_BUDGET_SHARE_SATURATED: '  ',
    });
    expect(blank).toMatchObject({
      PORT: 3000,
      SANDBOX_PORT: 4010,
      FEED_BUDGET_SHARE: 20,
      FEED_BUDGET_SHARE_SATURATED: 5,
    });
    expect(loadConfig({ PORT: ' 8080 ' }).PORT).toBe(8080);
    // Text with a default too (compose's ${VAR} of an unset variable gives a blank).
    expect(loadConfig({ REDIS_KEY_PREFIX: '', DIGEST_TZ: ' ', LOG_LEVEL: '', DATA_DIR: '' })).toMatchObject({
      REDIS_KEY_PREFIX: 'estoque:',
      DIGEST_TZ: 'America/Sao_Paulo',
      LOG_LEVEL: 'info',
      DATA_DIR: 'data',
    });
    expect(() => loadConfig({ PORT: 'http' })).toThrow(/PORT/);
  });

  it('reads numbers written in digits only: 1e3, 0x10 or 3000.5 are refused, not read as another number', () => {
    expect(loadConfig({ PORT: '8080', FEED_BUDGET_SHARE: '35' })).toMatchObject({
      PORT: 8080,
      FEED_BUDGET_SHARE: 35,
    });
    for (const [name, bad] of [
      ['PORT', '1e3'],
      ['PORT', '0x10'],
      ['PORT', '3000.5'],
      ['PORT', '-1'],
      ['PORT', '70000'],
      ['SANDBOX_PORT', '0b1'],
      ['FEED_BUDGET_SHARE', '0x10'],
      ['FEED_BUDGET_SHARE', '1e1'],
      ['FEED_BUDGET_SHARE_SATURATED', '+5'],
    ] as const) {
      expect(() => loadConfig({ [name]: bad }), `${name}=${bad}`).toThrow(
        new RegExp(`${name}: must be .*, got "${bad.replace('+', '\\+')}"`),
      );
    }
  });

  it('takes CREDENTIALS_KEY as base64 of 32 bytes and nothing else: a stray character is refused, not skipped', () => {
    const bytes = Buffer.alloc(32, 0xfb);
    const replica = {
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 's',
      UPSTREAM_BASE_URL: 'https://api.example.com',
      UPSTREAM_AUTH_URL: 'https://auth.example.com',
      REDIS_URL: 'redis://redis:6379',
    };
    // openssl rand -base64 32, with or without its padding, and the same key in base64url.
    for (const good of [
      bytes.toString('base64'),
      bytes.toString('base64').replace('=', ''),
      bytes.toString('base64url'),
    ])
      expect(loadConfig({ ...replica, CREDENTIALS_KEY: good }).CREDENTIALS_KEY, good).toBe(good);
    const key = bytes.toString('base64');
    for (const bad of [
      `!!!!${key}`,
      `${key.slice(0, 20)} ${key.slice(20)}`,
      // The 43rd digit's last two bits set: the same 32 bytes, written another way.
      `${key.slice(0, 42)}9=`,
      'a'.repeat(64),
    ]) {
      expect(() => loadConfig({ ...replica, CREDENTIALS_KEY: bad }), bad).toThrow(
        /CREDENTIALS_KEY: must be base64 of exactly 32 bytes and nothing else/,
      );
      expect(
        () => loadConfig({ ...replica, CREDENTIALS_KEY: key, CREDENTIALS_KEY_PREVIOUS: bad }),
        bad,
      ).toThrow(/CREDENTIALS_KEY_PREVIOUS: every key must be base64/);
    }
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

  it('refuses a budget window longer than a day, naming the variable', () => {
    expect(loadConfig({ UPSTREAM_RATE_LIMIT: '5000/1d' }).UPSTREAM_RATE_LIMIT).toEqual({
      count: 5000,
      windowMs: 86_400_000,
    });
    for (const name of ['UPSTREAM_RATE_LIMIT', 'SANDBOX_RATE_LIMIT']) {
      for (const bad of ['1/1000000000d', '250/25h', '250/2d']) {
        expect(() => loadConfig({ [name]: bad }), `${name}=${bad}`).toThrow(
          new RegExp(`${name}: DURATION must be at most 1 day \\(24h\\)`),
        );
      }
    }
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
      REDIS_URL: 'redis://redis:6379',
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

  it('refuses SLACK_BOT_TOKEN beside OAuth, naming both ways out (it was ignored by Bolt, used by the posts)', () => {
    const oauth = {
      SLACK_CLIENT_ID: 'id',
      SLACK_CLIENT_SECRET: 'secret',
      SLACK_STATE_SECRET: 'state',
      SLACK_SIGNING_SECRET: 's',
      UPSTREAM_BASE_URL: 'https://api.example.com',
      UPSTREAM_AUTH_URL: 'https://auth.example.com',
      CREDENTIALS_KEY: KEY,
      REDIS_URL: 'redis://redis:6379',
    };
    expect(loadConfig(oauth).oauth).toBe(true);
    let error: unknown;
    try {
      loadConfig({ ...oauth, SLACK_BOT_TOKEN: 'xoxb-1' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      expect.stringMatching(
        /^SLACK_BOT_TOKEN: not used with OAuth \(SLACK_CLIENT_ID\/SECRET\/STATE_SECRET set.*unset SLACK_BOT_TOKEN, or unset the SLACK_CLIENT_\* variables/,
      ),
    ]);
  });

  it('any Slack credential set is a replica, never local mode: a partial OAuth config names what is missing', () => {
    for (const name of ['SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET']) {
      let error: unknown;
      try {
        loadConfig({ [name]: 'x', REDIS_URL: 'redis://redis:6379', CREDENTIALS_KEY: KEY });
      } catch (e) {
        error = e;
      }
      expect(error, name).toBeInstanceOf(ConfigError);
      const names = (error as ConfigError).problems.map((p) => p.split(':')[0]);
      const missingOAuth = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'].filter(
        (n) => n !== name,
      );
      expect(names, name).toEqual(
        expect.arrayContaining([
          'UPSTREAM_BASE_URL',
          'UPSTREAM_AUTH_URL',
          'SLACK_SIGNING_SECRET',
          ...missingOAuth,
        ]),
      );
      expect(names, name).not.toContain(name);
    }
  });

  it('wants http:// or https:// in the Slack and upstream URLs, naming the variable and the missing scheme', () => {
    for (const name of ['UPSTREAM_BASE_URL', 'UPSTREAM_AUTH_URL', 'SLACK_API_URL']) {
      for (const bad of ['estoque.example.com:443', 'ftp://estoque.example.com/', 'mailto:ops@example.com']) {
        expect(() => loadConfig({ [name]: bad }), `${name}=${bad}`).toThrow(
          new RegExp(`${name}: must be an http:// or https:// .*URL, scheme included`),
        );
      }
    }
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 's',
      SLACK_API_URL: 'http://127.0.0.1:9/api',
      UPSTREAM_BASE_URL: 'https://api.example.com',
      UPSTREAM_AUTH_URL: 'http://127.0.0.1:4010/auth',
      CREDENTIALS_KEY: KEY,
      REDIS_URL: 'redis://redis:6379',
    });
    expect(config).toMatchObject({
      SLACK_API_URL: 'http://127.0.0.1:9/api/',
      UPSTREAM_BASE_URL: 'https://api.example.com',
      UPSTREAM_AUTH_URL: 'http://127.0.0.1:4010/auth',
    });
  });

  it('refuses a query, a fragment or credentials in the Slack and upstream URLs: paths are appended to them', () => {
    const cases: [string, RegExp][] = [
      ['https://e.example/api?x=1#f', /must have no query \(\?…\) or fragment \(#…\)/],
      ['https://e.example/api?', /must have no query/],
      ['https://e.example/api#f', /must have no query/],
      ['https://user:secret@e.example/api', /must not hold a user name or password/],
      ['https://:secret@e.example/api', /must not hold a user name or password/],
    ];
    for (const name of ['UPSTREAM_BASE_URL', 'UPSTREAM_AUTH_URL', 'SLACK_API_URL']) {
      for (const [bad, why] of cases) {
        let error: unknown;
        try {
          loadConfig({ [name]: bad });
        } catch (e) {
          error = e;
        }
        expect(error, `${name}=${bad}`).toBeInstanceOf(ConfigError);
        const problems = (error as ConfigError).problems.filter((problem) => problem.startsWith(`${name}:`));
        expect(problems, `${name}=${bad}`).toHaveLength(1);
        expect(problems[0], `${name}=${bad}`).toMatch(why);
        // The message never repeats the password it refuses.
        expect((error as ConfigError).message).not.toContain('secret');
      }
    }
  });

  it('refuses a Redis URL without a host or with something other than a database number after it', () => {
    for (const bad of ['redis://', 'rediss://', 'redis:///0', 'redis://redis:6379/cache']) {
      expect(() => loadConfig({ REDIS_URL: bad }), bad).toThrow(
        /REDIS_URL: must (name a host|have at most a database)/,
      );
    }
    const replica = {
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_SIGNING_SECRET: 's',
      UPSTREAM_BASE_URL: 'https://api.example.com',
      UPSTREAM_AUTH_URL: 'https://auth.example.com',
      CREDENTIALS_KEY: KEY,
    };
    // The forms ioredis reads stay accepted: a password, an ACL user, TLS, a database, IPv6, query options.
    for (const good of [
      'redis://redis:6379',
      'redis://redis:6379/',
      'redis://:password@redis:6379/0',
      'redis://user:password@redis:6379/15',
      'rediss://redis.example.com:6380',
      'redis://[::1]:6379',
      'redis://redis:6379/0?family=6',
    ]) {
      expect(loadConfig({ ...replica, REDIS_URL: good }).REDIS_URL, good).toBe(good);
    }
  });

  it('names the replica-only variables in the same round as the malformed ones', () => {
    let error: unknown;
    try {
      loadConfig({
        SLACK_BOT_TOKEN: 'xoxb-1',
        SLACK_SIGNING_SECRET: 's',
        UPSTREAM_BASE_URL: 'https://api.example.com',
        UPSTREAM_AUTH_URL: 'https://auth.example.com',
        PORT: 'abc',
        CREDENTIALS_KEY_PREVIOUS: `${KEY},c2hvcnQ=`,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const names = (error as ConfigError).problems.map((p) => p.split(':')[0]);
    expect(names).toEqual(['PORT', 'CREDENTIALS_KEY_PREVIOUS', 'REDIS_URL', 'CREDENTIALS_KEY']);
  });

  it('shapes the result by mode: a replica has everything it needs, typed as present', () => {
    const replica = loadConfig({
      SLACK_APP_TOKEN: 'xapp-1',
      SLACK_BOT_TOKEN: 'xoxb-1',
      UPSTREAM_BASE_URL: 'https://api.example.com',
      UPSTREAM_AUTH_URL: 'https://auth.example.com',
      CREDENTIALS_KEY: KEY,
      REDIS_URL: 'redis://redis:6379',
    });
    expect(replica.mode).toBe('replica');
    if (replica.mode !== 'replica') return;
    expect(replica.slack).toEqual({ kind: 'socket', appToken: 'xapp-1' });
    const url: string = replica.REDIS_URL;
    expect(url).toBe('redis://redis:6379');
    const local = loadConfig({});
    expect(local.mode).toBe('local');
    expect(local.slack).toEqual({ kind: 'local' });
  });

  it('reads SHUTDOWN_GRACE and REDIS_KEY_PREFIX with their defaults, and refuses bad ones', () => {
    const config = loadConfig({});
    expect(config.SHUTDOWN_GRACE).toBe(25_000);
    expect(config.REDIS_KEY_PREFIX).toBe('estoque:');
    expect(loadConfig({ SHUTDOWN_GRACE: '10s', REDIS_KEY_PREFIX: 'staging:' })).toMatchObject({
      SHUTDOWN_GRACE: 10_000,
      REDIS_KEY_PREFIX: 'staging:',
    });
    expect(() => loadConfig({ SHUTDOWN_GRACE: 'forever', REDIS_KEY_PREFIX: 'has space' })).toThrow(
      /REDIS_KEY_PREFIX[\s\S]*SHUTDOWN_GRACE/,
    );
    expect(() => loadConfig({ SHUTDOWN_GRACE: '0s' })).toThrow(/SHUTDOWN_GRACE: must be between/);
  });

  it('reads BOT_ADMINS as a list', () => {
    expect(loadConfig({ BOT_ADMINS: ' U012AB3CD, W0ORGADM1 ,,' }).BOT_ADMINS).toEqual([
      'U012AB3CD',
      'W0ORGADM1',
    ]);
  });

  it('refuses BOT_ADMINS entries that are not Slack user ids, naming each one', () => {
    let error: unknown;
    try {
      loadConfig({ BOT_ADMINS: 'U012AB3CD, ana@empresa.com.br, @joao, u012ab3cd' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      expect.stringMatching(
        /^BOT_ADMINS: must be Slack user ids \(U… or W….*; not "ana@empresa\.com\.br", "@joao", "u012ab3cd"$/,
      ),
    ]);
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

describe('readEnvironment', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'estoque-env-'));

  it('fills in from .env what the real environment does not set; the real environment wins', () => {
    const cwd = dir();
    writeFileSync(join(cwd, '.env'), '# comment\nLOG_LEVEL=debug\nPORT=4000\nDIGEST_TZ="America/Manaus"\n');
    const read = readEnvironment({ cwd, env: { PORT: '5000' } });
    expect(read.dotEnvFile).toBe(join(cwd, '.env'));
    expect(read.fromFile.sort()).toEqual(['DIGEST_TZ', 'LOG_LEVEL']);
    const config = loadConfig(read.env);
    expect(config).toMatchObject({ LOG_LEVEL: 'debug', PORT: 5000, DIGEST_TZ: 'America/Manaus' });
  });

  it('a filled .env gives a replica, not local mode', () => {
    const cwd = dir();
    writeFileSync(
      join(cwd, '.env'),
      [
        'SLACK_SIGNING_SECRET=s',
        'SLACK_BOT_TOKEN=xoxb-1',
        'UPSTREAM_BASE_URL=https://api.example.com',
        'UPSTREAM_AUTH_URL=https://auth.example.com',
        `CREDENTIALS_KEY=${KEY}`,
        'REDIS_URL=redis://redis:6379',
      ].join('\n'),
    );
    expect(loadConfig(readEnvironment({ cwd, env: {} }).env).mode).toBe('replica');
  });

  it('without a .env, the environment as it is', () => {
    const env = { PORT: '1' };
    expect(readEnvironment({ cwd: dir(), env })).toEqual({ env, dotEnvFile: null, fromFile: [] });
  });
});
