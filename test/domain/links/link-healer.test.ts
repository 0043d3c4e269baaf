import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  nextProbeAt,
  PROBE_FIRST_DELAY_MS,
  PROBE_FOR_MS,
  PROBE_LOGIN_REFUSED_DELAY_MS,
  PROBE_MAX_DELAY_MS,
  probeDelay,
} from '../../../src/domain/links/link-healer.js';
import { DEMO_FACTS } from '../../../src/sandbox/facts.js';
import { CHANNELS, type Harness, startHarness, TEAM, USERS } from '../../helpers/bot-harness.js';

/**
 * A broken link is checked again by itself (domain/links/link-healer.ts): a login with the stored password and one
 * cheap call, at background priority, spaced out, for a week; restored as it was when both work. Over the sandbox
 * and the real Redis; the bot's clock is the test's.
 */

const C1 = DEMO_FACTS.company1;
const MIN = 60_000;
let h: Harness;
let clock: number;
let since: number;

beforeEach(async () => {
  clock = Date.now();
  h = await startHarness({ now: () => clock });
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

/** The upstream calls since the last look, as `kind:status`. */
function callsSince(): string[] {
  const seen = h.sandbox.calls.slice(since).map((c) => `${c.kind}:${c.status}`);
  since = h.sandbox.calls.length;
  return seen;
}

/** The link breaks now, as the third refusal episode breaks it (Workspaces.run). */
async function breakLink(why: 'tokens_refused' | 'login_refused' = 'tokens_refused') {
  const link = await h.container.links.get(TEAM);
  if (!link) throw new Error('not linked');
  expect(await h.container.links.markBroken(TEAM, clock, link.linkedAt, why)).toBe('first');
  since = h.sandbox.calls.length;
  return link;
}

describe('the schedule of checks', () => {
  it('refused tokens: 5 minutes after the break, then doubling up to an hour, for 7 days; a wrong password: never', () => {
    const waits = [0, 1, 2, 3, 4, 5, 6].map((count) => probeDelay('tokens_refused', count));
    expect(waits).toEqual([5, 10, 20, 40, 60, 60, 60].map((m) => m * MIN));
    expect(PROBE_FIRST_DELAY_MS).toBe(5 * MIN);
    expect(PROBE_MAX_DELAY_MS).toBe(60 * MIN);
    // A login refused otherwise than as wrong credentials (a passing refusal) follows the same pace.
    expect([0, 1, 2, 3, 4, 5].map((count) => probeDelay('login_refused', count))).toEqual(
      [5, 10, 20, 40, 60, 60].map((m) => m * MIN),
    );
    // A link broken before the reason was kept is checked once a day.
    expect(probeDelay(undefined, 0)).toBe(PROBE_LOGIN_REFUSED_DELAY_MS);
    expect(probeDelay('password_refused', 0)).toBeNull();
    expect(nextProbeAt({ brokenAt: 1_000, brokenWhy: 'tokens_refused' })).toBe(1_000 + 5 * MIN);
    expect(nextProbeAt({ brokenAt: 1_000, brokenWhy: 'password_refused' })).toBeNull();
    expect(nextProbeAt({ brokenAt: null })).toBeNull();
    expect(nextProbeAt({ brokenAt: 1_000, probes: { count: 3, nextAt: 9_000 } })).toBe(9_000);
    expect(PROBE_FOR_MS).toBe(7 * 24 * 60 * MIN);
  });
});

describe('a link broken by refused tokens', () => {
  it('is checked with a login and one call, spaced out, until the service takes the tokens again; then restored as it was', async () => {
    const before = await breakLink();
    await h.container.subscriptions.upsert({
      workspaceId: TEAM,
      channelId: CHANNELS.stockroom,
      hour: 8,
      minute: 0,
      timeZone: 'America/Sao_Paulo',
      weekdaysOnly: false,
      stockroomId: null,
      subscribedBy: USERS.member,
    });
    await h.container.subscriptions.pauseWorkspace(TEAM, 'unlinked');
    await h.container.feedListeners.follow(TEAM, USERS.member, 4105, 'Aberta');
    await h.container.feedListeners.pauseWorkspace(TEAM, 'unlinked');
    h.sandbox.faults.next({ path: '/v1/almoxarifados', status: 401, times: 100 });

    // Not due yet: nothing asked (the first look moves it to its check, 5 minutes after the break).
    clock += 5 * MIN - 1;
    expect(await h.container.healer.tick()).toEqual([{ workspaceId: TEAM, outcome: 'not-due' }]);
    expect(await h.container.healer.tick()).toEqual([]);
    expect(callsSince()).toEqual([]);
    // Due: a login and the call, refused once (no refresh, no retry); the next check 10 minutes later.
    clock += 1;
    expect(await h.container.healer.tick()).toEqual([{ workspaceId: TEAM, outcome: 'failed' }]);
    expect(callsSince()).toEqual(['login:200', 'data:401']);
    expect((await h.container.links.get(TEAM))?.probes).toEqual({ count: 1, nextAt: clock + 10 * MIN });
    expect(await h.container.linkService.status(TEAM)).toMatchObject({
      broken: true,
      checks: { nextAt: clock + 10 * MIN },
    });
    clock += 10 * MIN - 1;
    expect(await h.container.healer.tick()).toEqual([]);
    clock += 1;
    expect(await h.container.healer.tick()).toEqual([{ workspaceId: TEAM, outcome: 'failed' }]);
    expect(callsSince()).toEqual(['login:200', 'data:401']);
    expect((await h.container.links.get(TEAM))?.probes).toEqual({ count: 2, nextAt: clock + 20 * MIN });

    // The service takes tokens again: the next check restores the link as it was.
    h.sandbox.faults.clear();
    clock += 20 * MIN;
    expect(await h.container.healer.tick()).toEqual([{ workspaceId: TEAM, outcome: 'healed' }]);
    expect(callsSince()).toEqual(['login:200', 'data:200']);
    expect(await h.container.links.get(TEAM)).toEqual({ ...before, brokenAt: null });
    expect(await h.redis.redis.exists(h.redis.keys.tokenRefusals(before.credentialId))).toBe(0);
    // Digests and alerts resume, as a new link resumes them.
    expect((await h.container.subscriptions.listWorkspace(TEAM)).map((sub) => sub.paused)).toEqual([null]);
    expect(await h.container.feedListeners.pausedReason(TEAM)).toBeNull();
    expect(h.logs.some((line) => line.includes('"msg":"link healed"'))).toBe(true);
    // Commands work again, with the pair the check obtained: no other login.
    const ws = await h.container.domain.workspaces.resolve(TEAM, 'interactive');
    await expect(h.container.client.listStockrooms(ws.call)).resolves.toHaveLength(
      C1.activeStockrooms.length,
    );
    expect(callsSince()).toEqual(['data:200']);
    // Nothing more to check.
    clock += 2 * 60 * MIN;
    expect(await h.container.healer.tick()).toEqual([]);
  });

  it('checks end a week after the break', async () => {
    const link = await breakLink();
    const brokenAt = clock;
    // The 170th check (5, 10, 20, 40 minutes, then hourly), 45 minutes before the week ends: the last one.
    await h.container.links.recordProbe(TEAM, link.linkedAt, brokenAt, {
      count: 169,
      nextAt: brokenAt + PROBE_FOR_MS - 45 * MIN,
    });
    h.sandbox.faults.next({ path: '/v1/almoxarifados', status: 401 });
    clock = brokenAt + PROBE_FOR_MS - 45 * MIN;
    expect(await h.container.healer.tick()).toEqual([{ workspaceId: TEAM, outcome: 'failed' }]);
    expect(callsSince()).toEqual(['login:200', 'data:401']);
    expect((await h.container.links.get(TEAM))?.probes).toEqual({ count: 170, nextAt: null });
    expect(await h.container.linkService.status(TEAM)).toMatchObject({
      checks: { nextAt: null, ended: 'ended' },
    });
    since = h.sandbox.calls.length;
    clock += 30 * 24 * 60 * MIN;
    expect(await h.container.healer.tick()).toEqual([]);
    expect(callsSince()).toEqual([]);
  });

  it('a check whose login is refused as a wrong password is the last: the password is never sent again', async () => {
    await breakLink();
    const account = h.sandbox.data.accounts.find((a) => a.login === C1.login);
    if (!account) throw new Error('no demo account');
    account.password = 'trocada-pelo-usuario';
    clock += 5 * MIN;
    expect(await h.container.healer.tick()).toEqual([{ workspaceId: TEAM, outcome: 'failed' }]);
    expect(callsSince()).toEqual(['login:401']);
    expect(await h.container.links.get(TEAM)).toMatchObject({
      brokenWhy: 'password_refused',
      probes: { count: 1, nextAt: null },
    });
    expect(await h.container.linkService.status(TEAM)).toMatchObject({
      checks: { nextAt: null, ended: 'password' },
    });
    for (const days of [1, 3, 6]) {
      clock += days * 24 * 60 * MIN;
      await h.container.keeper.runOnce();
      expect(await h.container.healer.tick()).toEqual([]);
    }
    expect(callsSince()).toEqual([]);
  });

  it("a login refused for another reason (a passing refusal) is checked at the refused tokens' pace, not once a day; healed when the issuer takes the password again", async () => {
    await breakLink('login_refused');
    clock += 5 * MIN;
    h.sandbox.faults.next({
      path: '/auth/v1/auth/',
      status: 200,
      body: {
        success: false,
        message: 'Serviço temporariamente indisponível',
        hasActiveSession: false,
        authToken: null,
      },
    });
    expect(await h.container.healer.tick()).toEqual([{ workspaceId: TEAM, outcome: 'failed' }]);
    expect(callsSince()).toEqual(['login:200']);
    expect((await h.container.links.get(TEAM))?.probes).toEqual({ count: 1, nextAt: clock + 10 * MIN });
    expect((await h.container.links.get(TEAM))?.brokenWhy).toBe('login_refused');
    clock += 10 * MIN;
    expect(await h.container.healer.tick()).toEqual([{ workspaceId: TEAM, outcome: 'healed' }]);
    expect(callsSince()).toEqual(['login:200', 'data:200']);
  });

  it('a link broken before the reason was kept is first checked a day after the break; a login refused then without a message follows the short pace', async () => {
    const link = await h.container.links.get(TEAM);
    if (!link) throw new Error('not linked');
    expect(await h.container.links.markBroken(TEAM, clock, link.linkedAt)).toBe('first');
    since = h.sandbox.calls.length;
    clock += 5 * MIN;
    expect(await h.container.healer.tick()).toEqual([{ workspaceId: TEAM, outcome: 'not-due' }]);
    expect(callsSince()).toEqual([]);
    h.sandbox.faults.next({ path: '/auth/v1/auth/', status: 403 });
    clock += 24 * 60 * MIN - 5 * MIN;
    expect(await h.container.healer.tick()).toEqual([{ workspaceId: TEAM, outcome: 'failed' }]);
    expect(callsSince()).toEqual(['login:403']);
    expect(await h.container.links.get(TEAM)).toMatchObject({
      brokenWhy: 'login_refused',
      probes: { count: 1, nextAt: clock + 10 * MIN },
    });
  });
});

describe('a check and what changes meanwhile', () => {
  /** Holds the next request to `path` until the returned release is called. */
  function hold(path: string): () => void {
    let release = () => {};
    h.sandbox.faults.next({
      path,
      release: new Promise<void>((resolve) => {
        release = resolve;
      }),
    });
    return () => release();
  }

  it('an unlink during a check wins: the workspace stays unlinked, nobody is told, no token pair is left', async () => {
    const link = await breakLink();
    clock += 5 * MIN;
    const release = hold('/auth/v1/auth/');
    const check = h.container.healer.tick();
    await vi.waitFor(() =>
      expect(h.sandbox.calls.some((c) => c.kind === 'login' && c.status === 0)).toBe(true),
    );
    await h.container.linkService.unlink(TEAM);
    release();
    expect(await check).toEqual([{ workspaceId: TEAM, outcome: 'unlinked' }]);
    expect(await h.container.links.get(TEAM)).toBeNull();
    expect(await h.redis.redis.exists(h.redis.keys.tokens(link.credentialId))).toBe(0);
    expect(h.logs.some((line) => line.includes('"msg":"link healed"'))).toBe(false);
    expect(h.slack.calls.filter((c) => c.method === 'chat.postMessage')).toEqual([]);
  });

  it('a new link during a check wins: it is left as it was made', async () => {
    await breakLink();
    clock += 5 * MIN;
    const release = hold('/v1/almoxarifados');
    const check = h.container.healer.tick();
    await vi.waitFor(() =>
      expect(h.sandbox.calls.some((c) => c.kind === 'data' && c.status === 0)).toBe(true),
    );
    clock += 1_000;
    await h.link(TEAM);
    release();
    const relinked = await h.container.links.get(TEAM);
    expect(relinked).toMatchObject({ linkedAt: clock, brokenAt: null });
    expect(await check).toEqual([{ workspaceId: TEAM, outcome: 'replaced' }]);
    expect(await h.container.links.get(TEAM)).toEqual(relinked);
    expect(h.logs.some((line) => line.includes('"msg":"link healed"'))).toBe(false);
  });
});

describe('the budget', () => {
  it('a check takes its slots at background priority: never over the limit, and waits when the slots are gone', async () => {
    await h.close();
    clock = Date.now();
    h = await startHarness({ now: () => clock, rateLimit: { count: 10, windowMs: 3_600_000 } });
    await h.link(TEAM);
    const link = await breakLink();
    const usage = () => h.container.linkService.status(TEAM).then((s) => s.budget);
    const usedBefore = (await usage())?.used ?? 0;
    clock += 5 * MIN;
    h.sandbox.faults.next({ path: '/v1/almoxarifados', status: 401 });
    expect(await h.container.healer.tick()).toEqual([{ workspaceId: TEAM, outcome: 'failed' }]);
    expect(callsSince()).toEqual(['login:200', 'data:401']);
    // Both calls counted in the credential's window.
    expect((await usage())?.used).toBe(usedBefore + 2);

    // The window fills up to what background calls leave to others (30 % of 10): the next check asks nothing.
    const ws = await h.container.domain.workspaces.resolve(TEAM, 'interactive').catch(() => null);
    expect(ws).toBeNull();
    const credential = {
      id: link.credentialId,
      login: link.login,
      password: link.password,
      empresaId: link.empresaId,
      unidadeId: link.unidadeId,
    };
    while (((await usage())?.used ?? 0) < 7)
      await h.container.client.listStockrooms({ credential, priority: 'interactive' });
    callsSince();
    clock += 10 * MIN;
    expect(await h.container.healer.tick()).toEqual([{ workspaceId: TEAM, outcome: 'busy' }]);
    expect(callsSince()).toEqual([]);
    // Not counted as a check; looked at again once a slot may be free.
    const probes = (await h.container.links.get(TEAM))?.probes;
    expect(probes?.count).toBe(1);
    expect(probes?.nextAt).toBeGreaterThanOrEqual(clock + 5 * MIN);
    const after = await usage();
    expect(after?.used).toBeLessThanOrEqual(after?.limit ?? 0);
  });
});
