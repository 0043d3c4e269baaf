import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import {
  UpstreamResponseTooLargeError,
  UpstreamSchemaError,
  UpstreamTimeoutError,
  UpstreamUnauthorizedError,
} from '../../src/upstream/errors.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';
import { credentialFor, makeStack, type Stack, type StackOptions } from '../helpers/upstream-stack.js';

const C1 = DEMO_FACTS.company1;
const MiB = 1024 * 1024;

let sandbox: Sandbox;
let redis: TestRedis;
let stack: Stack;

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
});
afterEach(async () => {
  await stack?.close();
  await redis.cleanup();
});

const stackOn = (options: Partial<StackOptions> = {}) =>
  makeStack({
    redis: redis.redis,
    keys: redis.keys,
    baseUrl: sandbox.baseUrl,
    authUrl: sandbox.authUrl,
    timeoutMs: 5_000,
    ...options,
  });
const ctx = () => ({
  credential: credentialFor(sandbox.authUrl, C1.login, C1.password, C1.empresa),
  priority: 'interactive' as const,
});
const dataCalls = () => sandbox.calls.filter((c) => c.kind === 'data');

describe('the most bytes read from one answer', () => {
  it('cuts a huge chunked answer while it streams, never reads it whole, and does not retry it', async () => {
    stack = stackOn({ maxResponseBytes: MiB });
    sandbox.faults.next({ path: '/v1/materiais', huge: { bytes: 64 * MiB } });
    const error = await stack.client.listMaterials(ctx()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamResponseTooLargeError);
    const tooLarge = error as UpstreamResponseTooLargeError;
    expect(tooLarge.limitBytes).toBe(MiB);
    // Read just past the cap (one chunk more at most), not the 64 MiB.
    expect(tooLarge.bytesRead).toBeGreaterThan(MiB);
    expect(tooLarge.bytesRead).toBeLessThan(MiB + 256 * 1024);
    await expect.poll(() => dataCalls()[0]?.streamed?.complete).toBe(false);
    expect(dataCalls()[0]?.streamed?.bytes).toBeLessThan(32 * MiB);
    expect(dataCalls()).toHaveLength(1);
  });

  it('refuses an answer whose Content-Length is over the cap before reading it', async () => {
    stack = stackOn({ maxResponseBytes: MiB });
    sandbox.faults.next({ path: '/v1/materiais', huge: { bytes: 8 * MiB, declareLength: true } });
    const error = (await stack.client.listMaterials(ctx()).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(UpstreamResponseTooLargeError);
    expect((error as UpstreamResponseTooLargeError).bytesRead).toBeGreaterThan(8 * MiB - 1024);
    await expect.poll(() => dataCalls()[0]?.streamed?.complete).toBe(false);
  });

  it('reads an answer under the cap, and keeps at most maxRows rows of a list', async () => {
    stack = stackOn({ maxResponseBytes: 4 * MiB, maxRows: 500 });
    const [row] = await stack.client.listMaterials(ctx());
    const size = JSON.stringify(row).length + 1;
    sandbox.faults.next({ path: '/v1/materiais', huge: { bytes: 2_000 * size, row } });
    const rows = await stack.client.listMaterials(ctx());
    expect(dataCalls()[1]?.streamed?.complete).toBe(true);
    expect(rows).toHaveLength(500);
    expect(rows[0]).toEqual(row);
  });
});

describe('lists without pages', () => {
  it('a company with more materials than the old 5,000-row cut gets them all (the byte cap is the bound)', async () => {
    stack = stackOn();
    const [row] = await stack.client.listMaterials(ctx());
    const size = JSON.stringify(row).length + 1;
    sandbox.faults.next({ path: '/v1/materiais', huge: { bytes: 6_000 * size, row } });
    const rows = await stack.client.listMaterials(ctx());
    expect(rows.length).toBeGreaterThanOrEqual(5_999);
  });
});

describe('answers that are not what the document says', () => {
  it('a null list is a schema error, not an empty list', async () => {
    stack = stackOn();
    sandbox.faults.next({
      path: '/v1/almoxarifados',
      status: 200,
      body: 'null',
      contentType: 'application/json',
    });
    await expect(stack.client.listStockrooms(ctx())).rejects.toBeInstanceOf(UpstreamSchemaError);
  });

  it('an empty body is still an empty list', async () => {
    stack = stackOn();
    sandbox.faults.next({
      path: '/v1/almoxarifados',
      status: 200,
      body: '',
      contentType: 'application/json',
    });
    await expect(stack.client.listStockrooms(ctx())).resolves.toEqual([]);
  });
});

describe('a persistent 401', () => {
  it('refreshes once, then gives up with UpstreamUnauthorizedError: no login (test/upstream/refusals.test.ts)', async () => {
    stack = stackOn();
    await stack.client.listStockrooms(ctx());
    sandbox.calls.length = 0;
    sandbox.faults.next({ path: '/v1/almoxarifados', status: 401, times: 3 });
    await expect(stack.client.listStockrooms(ctx())).rejects.toBeInstanceOf(UpstreamUnauthorizedError);
    expect(sandbox.calls.map((c) => `${c.kind}:${c.status}`)).toEqual([
      'data:401',
      'refresh:200',
      'data:401',
    ]);
  });
});

describe('a deadline instead of an attempt count', () => {
  it('a hanging upstream is tried twice at most under a deadline (four times without one)', async () => {
    stack = stackOn({ timeoutMs: 200 });
    await stack.client.listStockrooms(ctx());
    sandbox.calls.length = 0;
    sandbox.faults.next({ path: '/v1/almoxarifados', delayMs: 60_000, times: 8 });
    await expect(
      stack.client.listStockrooms({ ...ctx(), deadline: Date.now() + 20_000 }),
    ).rejects.toBeInstanceOf(UpstreamTimeoutError);
    expect(dataCalls()).toHaveLength(2);
    sandbox.calls.length = 0;
    await expect(stack.client.listStockrooms(ctx())).rejects.toBeInstanceOf(UpstreamTimeoutError);
    expect(dataCalls()).toHaveLength(4);
  });

  it('an attempt is cut to what is left of the deadline, and none starts past it', async () => {
    stack = stackOn({ timeoutMs: 60_000 });
    await stack.client.listStockrooms(ctx());
    sandbox.calls.length = 0;
    sandbox.faults.next({ path: '/v1/almoxarifados', delayMs: 60_000, times: 4 });
    const error = await stack.client
      .listStockrooms({ ...ctx(), deadline: Date.now() + 300 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamTimeoutError);
    expect((error as UpstreamTimeoutError).timeoutMs).toBeLessThanOrEqual(300);
    expect(dataCalls().length).toBeLessThanOrEqual(2);
    sandbox.calls.length = 0;
    await expect(stack.client.listStockrooms({ ...ctx(), deadline: Date.now() - 1 })).rejects.toBeInstanceOf(
      UpstreamTimeoutError,
    );
    expect(dataCalls()).toHaveLength(0);
  });

  it('waits for a budget slot as long as the deadline leaves 5 s for the call, and at least the usual 10 s', async () => {
    stack = stackOn();
    await stack.client.listStockrooms(ctx());
    const schedule = vi.spyOn(stack.budget, 'schedule');
    const waitOf = async (deadlineInMs: number | null) => {
      schedule.mockClear();
      await stack.client.listStockrooms(
        deadlineInMs === null ? ctx() : { ...ctx(), deadline: Date.now() + deadlineInMs },
      );
      return schedule.mock.calls[0]?.[3]?.maxWaitMs;
    };
    // An answer's deadline of 25 s: its call may wait 20 s, where it gave up at 10 s and answered with saved data.
    const long = await waitOf(25_000);
    expect(long).toBeGreaterThan(19_000);
    expect(long).toBeLessThanOrEqual(20_000);
    // A short deadline: the usual wait cut to it, as before.
    const short = await waitOf(8_000);
    expect(short).toBeGreaterThan(7_000);
    expect(short).toBeLessThanOrEqual(8_000);
    // No deadline: the budget's own default (10 s for an interactive call).
    expect(await waitOf(null)).toBeUndefined();
  });

  it('tells its observer it waits for a budget slot, then that it went out', async () => {
    stack = stackOn({ limit: { count: 2, windowMs: 1_500 }, guardMs: 0 });
    await stack.client.listStockrooms(ctx());
    const seen: string[] = [];
    const observer = {
      queued: (position: number) => seen.push(`queued:${position}`),
      started: () => seen.push('started'),
    };
    await stack.client.listMaterialTypes({ ...ctx(), deadline: Date.now() + 20_000, observer });
    expect(seen[0]).toBe('queued:1');
    expect(seen.at(-1)).toBe('started');
  });
});
