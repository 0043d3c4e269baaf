import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { REFUSAL_COOLDOWN_MS } from '../../src/upstream/auth.js';
import {
  CredentialsExpiredError,
  TokenRefusedError,
  UpstreamUnauthorizedError,
} from '../../src/upstream/errors.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';
import { credentialFor, makeStack, type Stack } from '../helpers/upstream-stack.js';

const C1 = DEMO_FACTS.company1;

let sandbox: Sandbox;
let redis: TestRedis;
let clock: number;
const stacks: Stack[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sandbox.close();
});
beforeEach(async () => {
  redis = await makeTestRedis();
  sandbox.calls.length = 0;
  sandbox.faults.clear();
  clock = Date.now();
});
afterEach(async () => {
  for (const stack of stacks.splice(0)) await stack.close();
  sandbox.faults.clear();
  await redis.cleanup();
});

/** One replica: its own memory, the test's Redis and clock. */
function replica(box = stacks[0]?.box): Stack {
  const stack = makeStack({
    redis: redis.connect(),
    keys: redis.keys,
    baseUrl: sandbox.baseUrl,
    authUrl: sandbox.authUrl,
    now: () => clock,
    ...(box && { box }),
  });
  stacks.push(stack);
  return stack;
}

const credential = () => credentialFor(sandbox.authUrl, C1.login, C1.password, C1.empresa);
const ctx = () => ({ credential: credential(), priority: 'interactive' as const });
const kinds = () => sandbox.calls.map((c) => `${c.kind}:${c.status}`);
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error,
  );

/** A replica that has logged in and read once, an hour ago; then the service refuses every token of the login. */
async function refusedFromNowOn(): Promise<Stack> {
  const a = replica();
  await a.client.listStockrooms(ctx());
  clock += 3_600_000;
  sandbox.calls.length = 0;
  sandbox.faults.next({ path: '/v1/almoxarifados', status: 401, times: 100 });
  return a;
}

describe('a 401 that a renewal does not cure', () => {
  it('costs one renewal and one retry, then no renewal on any replica until the cooldown ends', async () => {
    const a = await refusedFromNowOn();
    const first = await failure(a.client.listStockrooms(ctx()));
    expect(first).toBeInstanceOf(UpstreamUnauthorizedError);
    expect(first).not.toBeInstanceOf(TokenRefusedError);
    // The renewed token was refused too: no login with ExpireCurrentSession (it would end the session others use).
    expect(kinds()).toEqual(['data:401', 'refresh:200', 'data:401']);
    const stored = JSON.parse((await redis.redis.get(redis.keys.tokenRefusals(credential().id))) ?? '{}');
    expect(stored).toEqual({ episodes: 1, coolUntil: clock + REFUSAL_COOLDOWN_MS });

    // The next commands on this replica send the token held, once each: no renewal, no retry, the 401's message.
    for (let i = 0; i < 2; i += 1) {
      const next = await failure(a.client.listStockrooms(ctx()));
      expect(next).toBeInstanceOf(UpstreamUnauthorizedError);
    }
    expect(kinds()).toEqual(['data:401', 'refresh:200', 'data:401', 'data:401', 'data:401']);

    // Another replica holds the refused token from the store: one call a command there too, and no renewal.
    const b = replica();
    expect(await failure(b.client.listStockrooms(ctx()))).toBeInstanceOf(UpstreamUnauthorizedError);
    expect(await failure(b.client.listStockrooms(ctx()))).toBeInstanceOf(UpstreamUnauthorizedError);
    expect(kinds().filter((kind) => kind !== 'data:401')).toEqual(['refresh:200']);
    expect(kinds()).toHaveLength(7);
    // One episode, however many replicas met it.
    expect(await a.tokens.expiries(credential().id)).not.toBeNull();
    expect(
      JSON.parse((await redis.redis.get(redis.keys.tokenRefusals(credential().id))) ?? '{}'),
    ).toMatchObject({ episodes: 1 });
  });

  it('refused again after each cooldown: at the third episode the credentials count as expired (the link breaks)', async () => {
    const a = await refusedFromNowOn();
    expect(await failure(a.client.listStockrooms(ctx()))).toBeInstanceOf(UpstreamUnauthorizedError);
    clock += REFUSAL_COOLDOWN_MS + 1;
    const second = await failure(a.client.listStockrooms(ctx()));
    expect(second).toBeInstanceOf(UpstreamUnauthorizedError);
    expect(second).not.toBeInstanceOf(CredentialsExpiredError);
    clock += REFUSAL_COOLDOWN_MS + 1;
    expect(await failure(a.client.listStockrooms(ctx()))).toBeInstanceOf(CredentialsExpiredError);
    // After each cooldown a refresh and one try with its token; never a login.
    expect(kinds()).toEqual([
      'data:401',
      'refresh:200',
      'data:401',
      'refresh:200',
      'data:401',
      'refresh:200',
      'data:401',
    ]);
  });

  it('a call let through after a cooldown forgets the refusals: a later one starts at the first episode again', async () => {
    const a = await refusedFromNowOn();
    expect(await failure(a.client.listStockrooms(ctx()))).toBeInstanceOf(UpstreamUnauthorizedError);
    sandbox.faults.clear();
    clock += REFUSAL_COOLDOWN_MS + 1;
    await expect(a.client.listStockrooms(ctx())).resolves.toHaveLength(C1.activeStockrooms.length);
    expect(await redis.redis.exists(redis.keys.tokenRefusals(credential().id))).toBe(0);
    expect(kinds().slice(3)).toEqual(['refresh:200', 'data:200']);
  });

  it('the service taking the token again within the cooldown: the next command is answered at once', async () => {
    const a = await refusedFromNowOn();
    expect(await failure(a.client.listStockrooms(ctx()))).toBeInstanceOf(UpstreamUnauthorizedError);
    sandbox.faults.clear();
    clock += 1_000;
    await expect(a.client.listStockrooms(ctx())).resolves.toHaveLength(C1.activeStockrooms.length);
    expect(kinds()).toEqual(['data:401', 'refresh:200', 'data:401', 'data:200']);
    expect(await redis.redis.exists(redis.keys.tokenRefusals(credential().id))).toBe(0);
  });

  it('a token expired early still gets its renewal and retry', async () => {
    const a = await refusedFromNowOn();
    sandbox.faults.clear();
    sandbox.expireAccessTokens(C1.login);
    await expect(a.client.listStockrooms(ctx())).resolves.toHaveLength(C1.activeStockrooms.length);
    expect(kinds()).toEqual(['data:401', 'refresh:200', 'data:200']);
    expect(await redis.redis.exists(redis.keys.tokenRefusals(credential().id))).toBe(0);
  });
});
