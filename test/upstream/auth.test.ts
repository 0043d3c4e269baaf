import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/server.js';
import { SecretBox } from '../../src/store/crypto.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { type TokenPair, TokenStore } from '../../src/store/token-store.js';
import { TokenManager } from '../../src/upstream/auth.js';
import type { Budget } from '../../src/upstream/budget.js';
import { createRedisBudget } from '../../src/upstream/budget-redis.js';
import type { UpstreamCredential } from '../../src/upstream/credential.js';
import {
  CredentialsExpiredError,
  UpstreamRateLimitedError,
  UpstreamTimeoutError,
} from '../../src/upstream/errors.js';
import { createDispatcher } from '../../src/upstream/http.js';
import { FAST_RETRY_POLICY } from '../../src/upstream/retry.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';
import { captureLogger, credentialFor, makeStack, type Stack } from '../helpers/upstream-stack.js';

const C1 = DEMO_FACTS.company1;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let redis: TestRedis;
let sandbox: Sandbox | undefined;
let proxy: IssuerProxy | undefined;
let stack: Stack | undefined;

beforeEach(async () => {
  redis = await makeTestRedis();
});
afterEach(async () => {
  await stack?.close();
  await proxy?.close();
  await sandbox?.close();
  stack = undefined;
  proxy = undefined;
  sandbox = undefined;
  await redis.cleanup();
});

interface IssuerProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * A token issuer as another service may run it: the sandbox's issuer behind a proxy that changes the `authToken` of
 * each answer (an expiry left out, a wall time without a zone). The tokens stay the sandbox's, so data calls work.
 */
async function issuerProxy(target: string, rewrite: (authToken: Record<string, unknown>) => void) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const answer = await fetch(`${target}${req.url ?? '/'}`, {
          method: req.method ?? 'POST',
          headers: { 'content-type': req.headers['content-type'] ?? '' },
          body: Buffer.concat(chunks),
        });
        const body = (await answer.json()) as { authToken?: Record<string, unknown> | null };
        if (body.authToken) rewrite(body.authToken);
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      })().catch(() => {
        res.writeHead(502);
        res.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  proxy = {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return proxy;
}

async function sandboxWith(options: SandboxOptions = {}): Promise<Sandbox> {
  sandbox = await startSandbox({ port: 0, ...options });
  return sandbox;
}

function stackFor(
  started: Sandbox,
  authUrl: string,
  options: { now?: () => number; limit?: { count: number; windowMs: number } } = {},
) {
  const logs = captureLogger('info');
  stack = makeStack({
    redis: redis.redis,
    keys: redis.keys,
    baseUrl: started.baseUrl,
    authUrl,
    logger: logs.logger,
    ...options,
  });
  const credential = credentialFor(authUrl, C1.login, C1.password, C1.empresa);
  return { stack, logs, credential, ctx: { credential, priority: 'interactive' as const } };
}

const kinds = (started: Sandbox) => started.calls.map((c) => `${c.kind}:${c.status}`);

describe('expiries the issuer gives', () => {
  it('an issuer whose clock is 3 hours behind ours: its tokens are used for 2 hours, not renewed before every call', async () => {
    // Its expiresIn (its now + 2 h) reads as an hour ago here; its own clock says the token is good.
    const started = await sandboxWith({ now: () => Date.now() - 3 * HOUR });
    const { stack, logs, credential, ctx } = stackFor(started, started.authUrl);
    for (let i = 0; i < 5; i += 1) await stack.client.listStockrooms(ctx);
    expect(kinds(started)).toEqual(['login:200', ...Array(5).fill('data:200')]);
    const expiries = await stack.tokens.expiries(credential.id);
    expect(expiries?.expiresAt).toBeGreaterThan(Date.now() + HOUR);
    expect(expiries?.refreshExpiresAt).toBeGreaterThan(Date.now() + 3 * DAY);
    // A renewal meets the same expiry: said once per credential, with the expiries, never the token, refresh
    // token or jti.
    started.expireAccessTokens(C1.login);
    await stack.client.listStockrooms(ctx);
    expect(kinds(started).slice(6)).toEqual(['data:401', 'refresh:200', 'data:200']);
    const warnings = logs.lines.filter((line) => line.includes('assuming the documented lifetime'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] ?? '{}')).toMatchObject({ level: 40, credential: credential.id });
    const pair = await new TokenStore(new RedisKeyValue(redis.redis), redis.keys, stack.box).load(
      credential.id,
    );
    for (const secret of [pair?.token, pair?.refreshToken, pair?.jti, C1.password].map(String)) {
      expect(logs.lines.join('\n')).not.toContain(secret);
    }
  });

  it('an issuer that sends its local wall time without a zone (3 hours behind UTC): the same', async () => {
    const started = await sandboxWith();
    const local = (value: unknown) =>
      new Date(Date.parse(String(value)) - 3 * HOUR).toISOString().replace(/\.\d+Z$/, '');
    const issuer = await issuerProxy(started.authUrl, (authToken) => {
      authToken.expiresIn = local(authToken.expiresIn);
      authToken.refreshExpiresIn = local(authToken.refreshExpiresIn);
    });
    const { stack, ctx } = stackFor(started, issuer.url);
    for (let i = 0; i < 5; i += 1) await stack.client.listStockrooms(ctx);
    expect(kinds(started)).toEqual(['login:200', ...Array(5).fill('data:200')]);
  });

  it('an answer without expiresIn and refreshExpiresIn: the login succeeds with the documented lifetimes, and a refresh without them does not lead to a login', async () => {
    const started = await sandboxWith();
    const issuer = await issuerProxy(started.authUrl, (authToken) => {
      delete authToken.expiresIn;
      delete authToken.refreshExpiresIn;
    });
    const now = Date.now();
    const { stack, credential, ctx } = stackFor(started, issuer.url, { now: () => now });
    await expect(stack.tokens.login(credential)).resolves.toMatchObject({
      expiresAt: now + 2 * HOUR,
      refreshExpiresAt: now + 7 * DAY,
    });
    // Kept in Redis as long as the refresh token lives (about 7 days), not dropped at once.
    expect(await redis.redis.pttl(redis.keys.tokens(credential.id))).toBeGreaterThan(6 * DAY);
    for (let i = 0; i < 2; i += 1) {
      started.expireAccessTokens(C1.login);
      await stack.client.listStockrooms(ctx);
    }
    expect(kinds(started)).toEqual([
      'login:200',
      'data:401',
      'refresh:200',
      'data:200',
      'data:401',
      'refresh:200',
      'data:200',
    ]);
  });
});

describe('one renewal at a time across processes', () => {
  it('a renewal whose wait for a budget slot outlives its lock does not send a refresh token another process rotated meanwhile', async () => {
    const started = await sandboxWith();
    // Process B: logs in and stores the pair.
    const b = stackFor(started, started.authUrl);
    await b.stack.client.listStockrooms(b.ctx);
    const first = await new TokenStore(new RedisKeyValue(redis.redis), redis.keys, b.stack.box).load(
      b.credential.id,
    );

    // Process A: the same Redis and key, a clock of its own, and a budget that holds its calls until the test
    // lets them go (a long wait for a slot, at digest priority behind interactive users).
    let clockA = Date.now();
    let letGo = () => {};
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let waiting = 0;
    const budgetA = createRedisBudget(redis.connect(), redis.keys, {
      limit: { count: 1_000, windowMs: 60_000 },
    });
    const slowBudget: Budget = {
      schedule: async (credentialId, priority, fn, options) => {
        waiting += 1;
        await held;
        return budgetA.schedule(credentialId, priority, fn, options);
      },
      pause: (credentialId, ms) => budgetA.pause(credentialId, ms),
      pauseAfter429: (credentialId, retryAfterMs) => budgetA.pauseAfter429(credentialId, retryAfterMs),
      usage: (credentialId) => budgetA.usage(credentialId),
      close: () => budgetA.close(),
    };
    const dispatcherA = createDispatcher();
    const a = new TokenManager({
      authUrl: started.authUrl,
      dispatcher: dispatcherA,
      budget: slowBudget,
      store: new TokenStore(new RedisKeyValue(redis.connect()), redis.keys, b.stack.box, () => clockA),
      logger: captureLogger('info').logger,
      retryPolicy: FAST_RETRY_POLICY,
      lockTtlMs: 150,
      now: () => clockA,
    });
    try {
      // A finds the pair expired, takes the renewal lock and waits for a slot to refresh with it.
      clockA += 2 * HOUR + 60_000;
      const renewalA = a.accessToken(b.credential, 'digest');
      await vi.waitFor(() => expect(waiting).toBe(1));
      const lock = redis.keys.tokenRefreshLock(b.credential.id);
      expect(await redis.redis.exists(lock)).toBe(1);
      // It waits past the most a holder keeps the lock (5 minutes): the lock expires while it still waits.
      clockA += 5 * 60_000 + 1;
      await vi.waitFor(async () => expect(await redis.redis.exists(lock)).toBe(0));

      // B's token is refused meanwhile: B takes the free lock and refreshes with the same refresh token.
      started.expireAccessTokens(C1.login);
      await b.stack.client.listStockrooms(b.ctx);
      const renewed = await new TokenStore(new RedisKeyValue(redis.redis), redis.keys, b.stack.box).load(
        b.credential.id,
      );
      expect(renewed?.refreshToken).not.toBe(first?.refreshToken);

      // A gets its slot: it uses B's pair instead of spending the refresh token B rotated.
      letGo();
      const tokenA = await renewalA;
      // B's session lives on: its next call needs no renewal.
      await b.stack.client.listStockrooms(b.ctx);
      expect(kinds(started)).toEqual([
        'login:200',
        'data:200',
        'data:401',
        'refresh:200',
        'data:200',
        'data:200',
      ]);
      expect(tokenA).toBe(renewed?.token);
    } finally {
      letGo();
      await slowBudget.close();
      await dispatcherA.close();
    }
  });
});

describe('a login refused with the stored password', () => {
  it('does not forget the pair a new link of the same login stored meanwhile', async () => {
    const started = await sandboxWith();
    const a = stackFor(started, started.authUrl);
    const b = makeStack({
      redis: redis.connect(),
      keys: redis.keys,
      baseUrl: started.baseUrl,
      authUrl: started.authUrl,
      box: a.stack.box,
    });
    try {
      // Replica A renews with the password of the old link; its login is held on its way.
      const old = credentialFor(started.authUrl, C1.login, 'senha-antiga', C1.empresa);
      let release = () => {};
      started.faults.next({
        path: '/auth/v1/auth/',
        release: new Promise<void>((resolve) => {
          release = resolve;
        }),
      });
      const renewal = a.stack.tokens.accessToken(old, 'interactive').catch((error: unknown) => error);
      await vi.waitFor(() =>
        expect(started.calls.some((c) => c.kind === 'login' && c.status === 0)).toBe(true),
      );
      // The admin links the same login again, with its new password, on replica B.
      const linked = await b.tokens.login(a.credential, { expireCurrentSession: true });
      release();
      expect(await renewal).toBeInstanceOf(CredentialsExpiredError);
      // The new link's pair stays: its next call needs no login.
      const stored = await new TokenStore(new RedisKeyValue(redis.redis), redis.keys, a.stack.box).load(
        a.credential.id,
      );
      expect(stored?.token).toBe(linked.token);
      await expect(b.client.listStockrooms(a.ctx)).resolves.toHaveLength(C1.activeStockrooms.length);
      expect(kinds(started)).toEqual(['login:401', 'login:200', 'data:200']);
    } finally {
      await b.close();
    }
  });
});

describe('the priority of a renewal', () => {
  /** 10 calls an hour, 9 of them used: a digest may use 9, the last is kept for commands (and a renewal). */
  async function nineOfTen(stack: Stack, credential: UpstreamCredential): Promise<string> {
    const token = await stack.tokens.accessToken(credential, 'interactive');
    for (let i = 0; i < 8; i += 1)
      await stack.budget.schedule(credential.id, 'interactive', async () => undefined);
    expect((await stack.budget.usage(credential.id)).used).toBe(9);
    return token;
  }

  it('a command that joins a renewal ahead of expiry a digest started, still waiting for its slot, raises it to its own priority', async () => {
    const started = await sandboxWith();
    let clock = Date.now();
    const { stack, credential } = stackFor(started, started.authUrl, {
      limit: { count: 10, windowMs: HOUR },
      now: () => clock,
    });
    const token = await nineOfTen(stack, credential);

    // Five minutes before expiry a digest gets the token, still good, and starts its renewal in the background: its
    // refresh waits for a slot a digest may take.
    clock += 2 * HOUR - 5 * 60_000;
    await expect(stack.tokens.accessToken(credential, 'digest')).resolves.toBe(token);
    const lock = redis.keys.tokenRefreshLock(credential.id);
    await vi.waitFor(async () => expect(await redis.redis.exists(lock)).toBe(1));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(kinds(started)).toEqual(['login:200']);

    // A command meets a 401 with it: it joins that renewal, which now takes the slot kept for commands.
    stack.tokens.invalidate(credential, token);
    const forCommand = await stack.tokens.accessToken(credential, 'interactive');
    expect(kinds(started)).toEqual(['login:200', 'refresh:200']);
    expect(forCommand).not.toBe(token);
  });

  it("a token refused is renewed at interactive priority whoever needs it: another replica's command does not wait behind a digest's renewal while a slot is free", async () => {
    const started = await sandboxWith();
    const a = stackFor(started, started.authUrl, { limit: { count: 10, windowMs: HOUR } });
    const b = makeStack({
      redis: redis.connect(),
      keys: redis.keys,
      baseUrl: started.baseUrl,
      authUrl: started.authUrl,
      box: a.stack.box,
      limit: { count: 10, windowMs: HOUR },
    });
    try {
      const token = await nineOfTen(a.stack, a.credential);
      // Both replicas met a 401 with it. A digest on replica A renews first; a command on replica B waits for it.
      a.stack.tokens.invalidate(a.credential, token);
      b.tokens.invalidate(a.credential, token);
      const digest = a.stack.tokens.accessToken(a.credential, 'digest');
      // B asks once A holds the lock (or has renewed already).
      const lock = redis.keys.tokenRefreshLock(a.credential.id);
      await vi.waitFor(async () =>
        expect((await redis.redis.exists(lock)) === 1 || kinds(started).length > 1).toBe(true),
      );
      const command = b.tokens.accessToken(a.credential, 'interactive');
      // The renewal took the free slot (an hour's window: nothing else frees one).
      await vi.waitFor(() => expect(kinds(started)).toEqual(['login:200', 'refresh:200']), {
        timeout: 5_000,
      });
      const [forDigest, forCommand] = await Promise.all([digest, command]);
      expect(forCommand).toBe(forDigest);
      expect(forCommand).not.toBe(token);
    } finally {
      await b.close();
    }
  });
});

describe("a wait for another replica's renewal", () => {
  it("ends at the caller's deadline, or when it aborts; the renewal goes on and its pair serves the next call", async () => {
    const started = await sandboxWith();
    const b = stackFor(started, started.authUrl);
    const token = await b.stack.tokens.accessToken(b.credential, 'interactive');

    // Replica A renews, and its refresh is held before it gets a budget slot.
    let letGo = () => {};
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    const budgetA = createRedisBudget(redis.connect(), redis.keys, {
      limit: { count: 1_000, windowMs: 60_000 },
    });
    const heldBudget: Budget = {
      schedule: async (credentialId, priority, fn, options) => {
        await held;
        return budgetA.schedule(credentialId, priority, fn, options);
      },
      pause: (credentialId, ms) => budgetA.pause(credentialId, ms),
      pauseAfter429: (credentialId, retryAfterMs) => budgetA.pauseAfter429(credentialId, retryAfterMs),
      usage: (credentialId) => budgetA.usage(credentialId),
      close: () => budgetA.close(),
    };
    const dispatcherA = createDispatcher();
    const a = new TokenManager({
      authUrl: started.authUrl,
      dispatcher: dispatcherA,
      budget: heldBudget,
      store: new TokenStore(new RedisKeyValue(redis.connect()), redis.keys, b.stack.box),
      logger: captureLogger('info').logger,
      retryPolicy: FAST_RETRY_POLICY,
    });
    try {
      a.invalidate(b.credential, token);
      const renewalA = a.accessToken(b.credential, 'interactive');
      const lock = redis.keys.tokenRefreshLock(b.credential.id);
      await vi.waitFor(async () => expect(await redis.redis.exists(lock)).toBe(1));

      // On replica B the token was refused too: a command waits for A's renewal until its answer's deadline.
      b.stack.tokens.invalidate(b.credential, token);
      let settled = false;
      const command = b.stack.client
        .listStockrooms({ ...b.ctx, deadline: Date.now() + 300 })
        .catch((error: unknown) => error)
        .finally(() => {
          settled = true;
        });
      await vi.waitFor(() => expect(settled).toBe(true), { timeout: 5_000 });
      expect(await command).toBeInstanceOf(UpstreamTimeoutError);
      // Or until the caller aborts.
      const abort = new AbortController();
      const aborted = b.stack.tokens
        .accessToken(b.credential, 'interactive', { signal: abort.signal })
        .catch((error: unknown) => error);
      abort.abort(new Error('the answer was cancelled'));
      expect(await aborted).toMatchObject({ message: 'the answer was cancelled' });
      expect(kinds(started)).toEqual(['login:200']);

      // A's renewal goes on; B's next call takes its pair.
      letGo();
      const renewed = await renewalA;
      await expect(b.stack.client.listStockrooms(b.ctx)).resolves.toHaveLength(C1.activeStockrooms.length);
      expect(kinds(started)).toEqual(['login:200', 'refresh:200', 'data:200']);
      expect(await b.stack.tokens.accessToken(b.credential, 'interactive')).toBe(renewed);
    } finally {
      letGo();
      await heldBudget.close();
      await dispatcherA.close();
    }
  });
});

describe('a store that cannot take a pair just obtained', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /** A process's token manager over the test's Redis whose store refuses writes while `failing` says so. */
  function flakyTokens(
    started: Sandbox,
    box: SecretBox,
    failing: () => boolean,
    logger = captureLogger('info').logger,
  ) {
    class FlakyStore extends TokenStore {
      override async save(id: string, pair: TokenPair): Promise<void> {
        if (failing()) throw new Error('Connection is closed.');
        return super.save(id, pair);
      }
    }
    const budget = createRedisBudget(redis.connect(), redis.keys, {
      limit: { count: 1_000, windowMs: 60_000 },
    });
    const dispatcher = createDispatcher();
    const tokens = new TokenManager({
      authUrl: started.authUrl,
      dispatcher,
      budget,
      store: new FlakyStore(new RedisKeyValue(redis.connect()), redis.keys, box),
      logger,
      retryPolicy: FAST_RETRY_POLICY,
      saveRetryMs: 300,
    });
    closers.push(async () => {
      await budget.close();
      await dispatcher.close();
    });
    return tokens;
  }

  it('a refreshed pair refused by the store for a moment is stored when it answers: the caller gets its token, and another replica refreshes from it', async () => {
    const started = await sandboxWith();
    const box = new SecretBox(randomBytes(32));
    let failures = 0;
    const a = flakyTokens(started, box, () => failures-- > 0);
    const b = flakyTokens(started, box, () => false);
    const credential = credentialFor(started.authUrl, C1.login, C1.password, C1.empresa);
    const first = await a.accessToken(credential, 'interactive');
    started.calls.length = 0;

    a.invalidate(credential, first);
    failures = 1;
    const renewed = await a.accessToken(credential, 'interactive');
    expect(renewed).not.toBe(first);
    const stored = await new TokenStore(new RedisKeyValue(redis.redis), redis.keys, box).load(credential.id);
    expect(stored?.token).toBe(renewed);

    // Another replica meets a 401 with it later: it refreshes with the refresh token that was stored, no login.
    b.invalidate(credential, renewed);
    await b.accessToken(credential, 'interactive');
    expect(kinds(started)).toEqual(['refresh:200', 'refresh:200']);
  });

  it('a pair the store never takes still goes to the caller, is logged, and this process renews from it', async () => {
    const started = await sandboxWith();
    const box = new SecretBox(randomBytes(32));
    let down = false;
    const logs = captureLogger('info');
    const a = flakyTokens(started, box, () => down, logs.logger);
    const credential = credentialFor(started.authUrl, C1.login, C1.password, C1.empresa);
    const first = await a.accessToken(credential, 'interactive');
    started.calls.length = 0;

    a.invalidate(credential, first);
    down = true;
    const renewed = await a.accessToken(credential, 'interactive');
    expect(renewed).not.toBe(first);
    expect(logs.lines.some((line) => line.includes('token pair obtained but not stored'))).toBe(true);

    // The store answers again; the next renewal refreshes from the pair in memory (the stored refresh token is
    // spent): no refusal, and no login that would end this session.
    down = false;
    a.invalidate(credential, renewed);
    await a.accessToken(credential, 'interactive');
    expect(kinds(started)).toEqual(['refresh:200', 'refresh:200']);
  });
});

describe('a renewal that ends after its credential was forgotten (unlinked)', () => {
  it('leaves no token pair in the store, whichever replica renewed', async () => {
    const started = await sandboxWith();
    const a = stackFor(started, started.authUrl);
    const b = makeStack({
      redis: redis.connect(),
      keys: redis.keys,
      baseUrl: started.baseUrl,
      authUrl: started.authUrl,
      box: a.stack.box,
    });
    const store = new TokenStore(new RedisKeyValue(redis.redis), redis.keys, a.stack.box);
    try {
      const first = await a.stack.tokens.accessToken(a.credential, 'interactive');
      // Replica A renews (its token was refused); the refresh is held on its way.
      let release = () => {};
      started.faults.next({
        path: '/auth/v1/auth/refresh',
        release: new Promise<void>((resolve) => {
          release = resolve;
        }),
      });
      a.stack.tokens.invalidate(a.credential, first);
      const renewal = a.stack.tokens.accessToken(a.credential, 'interactive');
      await vi.waitFor(() =>
        expect(started.calls.some((c) => c.kind === 'refresh' && c.status === 0)).toBe(true),
      );
      // The workspace is unlinked on replica B meanwhile: its pair is forgotten.
      await b.tokens.forget(a.credential.id);
      expect(await store.load(a.credential.id)).toBeNull();
      release();
      // The call that needed the token still gets it; the store keeps nothing for the unlinked login.
      await expect(renewal).resolves.toEqual(expect.any(String));
      expect(await store.load(a.credential.id)).toBeNull();
      expect(await redis.redis.exists(redis.keys.tokens(a.credential.id))).toBe(0);
      // A new link of the same login afterwards keeps its pair.
      const linked = await b.tokens.login(a.credential, { expireCurrentSession: true });
      expect((await store.load(a.credential.id))?.token).toBe(linked.token);
    } finally {
      await b.close();
    }
  });
});

describe('a 429 of the token issuer with a Retry-After far ahead', () => {
  it('pauses the credential in the shared budget for at most its window, and logs the Retry-After received', async () => {
    const started = await sandboxWith();
    const {
      stack: a,
      logs,
      credential,
    } = stackFor(started, started.authUrl, {
      limit: { count: 100, windowMs: 60_000 },
    });
    const yearAhead = new Date(Date.now() + 365 * DAY).toUTCString();
    started.faults.next({ path: '/auth/v1/auth/', status: 429, headers: { 'retry-after': yearAhead } });
    const error = await a.tokens.login(credential).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamRateLimitedError);
    const pausedUntil = (error as UpstreamRateLimitedError).pausedUntil ?? 0;
    expect(pausedUntil).toBeGreaterThan(Date.now());
    expect(pausedUntil).toBeLessThanOrEqual(Date.now() + 60_000);
    expect((await a.budget.usage(credential.id)).pausedUntil ?? 0).toBeLessThanOrEqual(Date.now() + 60_000);
    const warned = logs.lines
      .map((line) => JSON.parse(line) as { msg?: string; retryAfterMs?: number; pauseCapMs?: number })
      .find((line) => line.pauseCapMs !== undefined);
    expect(warned?.pauseCapMs).toBe(60_000);
    expect(warned?.retryAfterMs).toBeGreaterThan(364 * DAY);
  });
});

describe('a renewal whose login with the stored password is refused', () => {
  const passing = {
    success: false,
    message: 'Serviço temporariamente indisponível',
    hasActiveSession: false,
    authToken: null,
  };

  /** Logged in, then both tokens expire at the issuer: the next call renews by logging in again. */
  async function expiredSession() {
    const started = await sandboxWith();
    const s = stackFor(started, started.authUrl);
    await s.stack.tokens.login(s.credential);
    started.expireAccessTokens(C1.login);
    started.expireRefreshTokens(C1.login);
    return { started, ...s };
  }

  it('once, in words that do not say the credentials are wrong: asked once more, and the renewal goes through', async () => {
    const { started, stack: s, ctx, logs } = await expiredSession();
    started.faults.next({ path: '/auth/v1/auth/', status: 200, body: passing });
    await expect(s.client.listStockrooms(ctx)).resolves.toHaveLength(C1.activeStockrooms.length);
    expect(kinds(started)).toEqual([
      'login:200',
      'data:401',
      'refresh:401',
      'login:200',
      'login:200',
      'data:200',
    ]);
    expect(logs.lines.join('\n')).toContain('asking once more before the link is taken as broken');
  });

  it('twice in such words: the credentials are taken as expired, as a login refusal (checked again soon), after two logins', async () => {
    const { started, stack: s, ctx } = await expiredSession();
    started.faults.next({ path: '/auth/v1/auth/', status: 200, body: passing, times: 2 });
    const error = await s.client.listStockrooms(ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialsExpiredError);
    expect((error as CredentialsExpiredError).why).toBe('login_refused');
    expect(kinds(started).filter((k) => k.startsWith('login'))).toEqual([
      'login:200',
      'login:200',
      'login:200',
    ]);
  });

  it('as wrong credentials: taken as expired at once, and the password is not sent again', async () => {
    const { started, stack: s, ctx } = await expiredSession();
    started.faults.next({
      path: '/auth/v1/auth/',
      status: 200,
      body: { ...passing, message: 'Usuário ou senha inválidos.' },
    });
    const error = await s.client.listStockrooms(ctx).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CredentialsExpiredError);
    expect((error as CredentialsExpiredError).why).toBe('password_refused');
    expect(kinds(started).filter((k) => k.startsWith('login'))).toEqual(['login:200', 'login:200']);
  });
});
