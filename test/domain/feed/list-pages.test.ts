import { describe, expect, it } from 'vitest';
import type { ReceiptEvent, StatusEvent } from '../../../src/domain/feed/types.js';
import { RequestService } from '../../../src/domain/requests/request-service.js';
import type { ReceiptChange } from '../../../src/sandbox/server.js';
import {
  channelListens,
  type FeedHarness,
  type FeedReplica,
  feedHarnessPerTest,
  INTERVAL_MS,
  recorded,
  WS,
} from '../../helpers/feed-harness.js';

/**
 * How the change feed pages the 30-day list: a totalRows that is wrong (too low, too high), a page that comes back
 * short, pages past the end that the service refuses.
 */
const start = feedHarnessPerTest();
const DAY = 86_400_000;

/** The ids of the 30-day list, newest first, as the service lists them now (read honestly, then left to expire). */
async function listIds(h: FeedHarness, a: FeedReplica): Promise<number[]> {
  const ws = await a.replica.domain.workspaces.resolve(WS, 'digest');
  const requests = new RequestService(a.replica.domain);
  const ids: number[] = [];
  for (let page = 1; ; page += 1) {
    const answer = await requests.recentPage(ws, null, page, { bypassCache: true });
    ids.push(...answer.data.rows.map((row) => row.solicitacaoMaterialId));
    if (page >= answer.data.totalPages) break;
  }
  // Left to expire: the rounds read the list from upstream.
  h.clock.advance(10 * 60_000);
  return ids;
}

/** Opens new requests until the 30-day list holds a multiple of 100 rows (at least 300). */
async function exactPages(h: FeedHarness, a: FeedReplica): Promise<number> {
  let count = (await listIds(h, a)).length;
  while (count < 300 || count % 100 !== 0) {
    const missing = count < 300 ? Math.min(100, 300 - count) : 100 - (count % 100);
    count += h.sandbox.advance({ changes: missing, kinds: ['novas'] }).length;
  }
  expect((await listIds(h, a)).length).toBe(count);
  return count;
}

function statusEvents(h: FeedHarness): StatusEvent[] {
  return h.allPosts.flatMap((post) => post.events).filter((e): e is StatusEvent => e.kind === 'status');
}

function receiptEvents(h: FeedHarness): ReceiptEvent[] {
  return h.allPosts
    .flatMap((post) => post.events)
    .filter((e): e is ReceiptEvent => e.kind === 'recebimentos');
}

describe('FeedRound: a totalRows that is wrong', () => {
  it('a total lower than a full page proves does not end the read: a change deep in the list is reported', async () => {
    const h = await start();
    const a = h.feedReplica();
    h.sandbox.advance({ changes: 100, kinds: ['novas'] });
    h.sandbox.advance({ changes: 100, kinds: ['novas'] });
    const ids = await listIds(h, a);
    expect(ids.length).toBeGreaterThan(250);
    await channelListens(h, 'C1');
    h.sandbox.stateTotalRows(80);
    await recorded(h, a.engine);

    const deep = ids[150] ?? 0;
    const [moved] = h.sandbox.advance({ changes: 1, kinds: ['status'], requestIds: [deep] });
    expect(moved).toMatchObject({ kind: 'status', solicitacaoMaterialId: deep });
    h.clock.advance(INTERVAL_MS);
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true, round: { complete: true } });
    expect(statusEvents(h).map((e) => e.requestId)).toEqual([deep]);
  });

  it('a list recorded under a low total reports nothing when the total becomes honest', async () => {
    const h = await start();
    const a = h.feedReplica();
    h.sandbox.advance({ changes: 100, kinds: ['novas'] });
    h.sandbox.advance({ changes: 100, kinds: ['novas'] });
    await channelListens(h, 'C1');
    h.sandbox.stateTotalRows(80);
    await recorded(h, a.engine);

    h.sandbox.stateTotalRows(null);
    h.clock.advance(INTERVAL_MS);
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true, round: { complete: true } });
    expect(h.allPosts.flatMap((post) => post.events.map((e) => e.id))).toEqual([]);
  });

  it('a total too high ends at a short page, and at a page the service refuses past the rows it has', async () => {
    const h = await start();
    const a = h.feedReplica();
    const count = await exactPages(h, a);
    await channelListens(h, 'C1');
    h.sandbox.stateTotalRows(count + 500);
    // Pages past the rows it has are refused (404), as a service may: past page 3 of 300 rows.
    h.sandbox.faults.next({ path: /\/v1\/solicitacoes-materiais\?.*Page=[4-9]/, status: 404, times: 1_000 });
    await recorded(h, a.engine);
    expect((await a.snapshots.state(WS)).recordedAt).not.toBeNull();

    // One row more: page 4 is short (one row) and is the end; page 5 is never asked.
    const [made] = h.sandbox.advance({ changes: 1, kinds: ['novas'] });
    h.sandbox.faults.clear();
    h.sandbox.faults.next({
      path: /\/v1\/solicitacoes-materiais\?.*Page=([5-9]|\d\d)/,
      status: 404,
      times: 1_000,
    });
    h.clock.advance(INTERVAL_MS);
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true, round: { complete: true, detected: 1 } });
    expect(h.allPosts.flatMap((post) => post.events.map((e) => e.id))).toEqual([
      `${WS}:novas:${made?.kind === 'novas' ? made.solicitacaoMaterialId : 0}`,
    ]);
    expect(h.sandbox.faults.pending).toBe(1_000);
  });
});

describe('FeedRound: rows the recording missed', () => {
  it('a page that came back short while recording: its missing rows, and the pages after it, are never posted as new', async () => {
    const h = await start();
    const a = h.feedReplica();
    h.sandbox.advance({ changes: 100, kinds: ['novas'] });
    h.sandbox.advance({ changes: 100, kinds: ['novas'] });
    expect((await listIds(h, a)).length).toBeGreaterThan(250);
    await channelListens(h, 'C1');
    // Page 2 comes back two rows short, once: the recording takes it for the end of the list.
    const ws = await a.replica.domain.workspaces.resolve(WS, 'digest');
    const page2 = await new RequestService(a.replica.domain).recentPage(ws, null, 2, { bypassCache: true });
    h.clock.advance(10 * 60_000);
    const short = page2.data.rows.filter((_, index) => index !== 10 && index !== 20);
    h.sandbox.faults.next({ path: /\/v1\/solicitacoes-materiais\?.*&Page=2&/, status: 200, body: short });
    await recorded(h, a.engine);

    const made = h.sandbox.advance({ changes: 2, kinds: ['novas'] });
    h.clock.advance(INTERVAL_MS);
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true, round: { complete: true } });
    expect(h.allPosts.flatMap((post) => post.events.map((e) => e.id)).sort()).toEqual(
      made.map((c) => `${WS}:novas:${c.kind === 'novas' ? c.solicitacaoMaterialId : 0}`).sort(),
    );
  });
});

/**
 * A workspace whose 30-day list holds `hundreds` × 100 new requests more than the sandbox's, a replica whose budget
 * gives the feed 20 % of `callsAnHour`, an hour later a channel listening; `tick` runs the engine every 10 minutes of
 * the test clock until `until` holds or `hours` have gone.
 */
async function longList(options: { hundreds: number; callsAnHour: number }) {
  const h = await start();
  const HOUR = 3_600_000;
  for (let i = 0; i < options.hundreds; i += 1) h.sandbox.advance({ changes: 100, kinds: ['novas'] });
  const a = h.feedReplica({
    budget: {
      limit: { count: options.callsAnHour, windowMs: HOUR },
      feedSharePercent: 20,
      onTestClock: true,
      maxWaitMs: { feed: 0 },
    },
  });
  const ids = await listIds(h, a);
  h.clock.advance(HOUR);
  await channelListens(h, 'C1');
  const tick = async (hours: number, until: () => Promise<boolean>) => {
    for (let minute = 0; minute < hours * 60 && !(await until()); minute += 10) {
      await a.engine.tick();
      h.clock.advance(10 * 60_000);
    }
  };
  return { h, a, ids, tick };
}

describe('FeedRound: a list longer than the share of a window', () => {
  it('is read whole over several rounds: a change on its last page is reported, and receipts are read', async () => {
    // 10 feed calls an hour; the list holds 11 pages of 100 or more, and receipts cost a call per stockroom.
    const { h, a, ids, tick } = await longList({ hundreds: 10, callsAnHour: 50 });
    expect(ids.length).toBeGreaterThan(1_000);
    await tick(12, async () => (await a.snapshots.state(WS)).recordedAt !== null);
    expect((await a.snapshots.state(WS)).recordedAt).not.toBeNull();

    const last = ids.at(-1) ?? 0;
    const [moved] = h.sandbox.advance({ changes: 1, kinds: ['status'], requestIds: [last] });
    expect(moved).toMatchObject({ kind: 'status', solicitacaoMaterialId: last });
    const reported = () => statusEvents(h).some((e) => e.requestId === last);
    await tick(12, async () => reported() && (await a.snapshots.state(WS)).purchasesRecordedAt !== null);
    expect(statusEvents(h).map((e) => e.requestId)).toEqual([last]);
    // Receipts are read too, however long the list: the pending purchases are recorded.
    expect((await a.snapshots.state(WS)).purchasesRecordedAt).not.toBeNull();
  });
});

describe('FeedRound: receipts the share cannot pay for whole', () => {
  it('do not starve the list: a change on its last page is still reported', async () => {
    // 3 feed calls an hour: page 1 and the pending purchases of 3 stockrooms are more than one round gets.
    const { h, a, ids, tick } = await longList({ hundreds: 4, callsAnHour: 15 });
    expect(ids.length).toBeGreaterThan(400);
    await tick(24, async () => (await a.snapshots.state(WS)).recordedAt !== null);
    expect((await a.snapshots.state(WS)).recordedAt).not.toBeNull();

    const last = ids.at(-1) ?? 0;
    h.sandbox.advance({ changes: 1, kinds: ['status'], requestIds: [last] });
    await tick(24, async () => statusEvents(h).some((e) => e.requestId === last));
    expect(statusEvents(h).map((e) => e.requestId)).toEqual([last]);
  });
});

describe('FeedRound: receipts read before the deep pages', () => {
  it('a round that could not read them (the stockrooms failing) keeps their turn: nothing read, nothing noted', async () => {
    const { h, a, tick } = await longList({ hundreds: 2, callsAnHour: 50 });
    await tick(12, async () => (await a.snapshots.state(WS)).recordedAt !== null);
    expect((await a.snapshots.state(WS)).recordedAt).not.toBeNull();
    // Receipts due first again; the stockrooms' list (its cache long expired) fails for good this round.
    await a.snapshots.updateState(WS, { receiptsReadAt: null, receiptsFirstAt: null, nextRoundAt: 0 });
    h.clock.advance(24 * 60 * 60_000);
    h.sandbox.faults.next({ path: '/v1/almoxarifados', status: 500, times: 20 });
    await a.engine.tick();
    expect((await a.snapshots.state(WS)).receiptsFirstAt).toBeNull();
  });
});

describe('FeedRound: a followed request the list did not show this round', () => {
  it('its status change still reaches the channel feeds when the list showed it within the 30 days', async () => {
    const h = await start();
    const a = h.feedReplica();
    await channelListens(h, 'C1');
    const [followed, ...others] = await listIds(h, a);
    if (followed === undefined) throw new Error('no request in the 30 days');
    await h.listeners.follow(WS, 'U-FOLLOWER', followed, null);
    await recorded(h, a.engine);

    const [moved] = h.sandbox.advance({ changes: 1, kinds: ['status'], requestIds: [followed] });
    expect(moved).toMatchObject({ kind: 'status', solicitacaoMaterialId: followed });
    // This round, page 1 comes back without it (short): the round reads it on its own, by number.
    const ws = await a.replica.domain.workspaces.resolve(WS, 'digest');
    const page1 = await new RequestService(a.replica.domain).recentPage(ws, null, 1, { bypassCache: true });
    h.sandbox.faults.next({
      path: /\/v1\/solicitacoes-materiais\?(?!.*Search=).*&Page=1&/,
      status: 200,
      body: page1.data.rows.filter((row) => row.solicitacaoMaterialId !== followed),
    });
    expect(others.length).toBeGreaterThan(0);
    h.clock.advance(INTERVAL_MS);
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true });
    expect(h.sandbox.faults.pending).toBe(0);
    const got = (kind: 'channel' | 'dm') =>
      h.allPosts
        .filter((post) => post.target.kind === kind)
        .flatMap((post) => post.events)
        .filter((e) => e.kind === 'status')
        .map((e) => e.requestId);
    expect(got('dm')).toEqual([followed]);
    expect(got('channel')).toEqual([followed]);
  });
});

describe('FeedRound: a recording over several rounds', () => {
  it('reports a status change of a row already recorded, read again on the page a later recording round goes back to', async () => {
    // 4 feed calls an hour; the 30-day list holds about 7 pages of 100.
    const { h, a, ids, tick } = await longList({ hundreds: 6, callsAnHour: 20 });
    await tick(6, async () => ((await a.snapshots.state(WS)).recordFromPage ?? 1) > 2);
    const { recordFromPage, recordedAt } = await a.snapshots.state(WS);
    expect(recordedAt).toBeNull();
    // A row of the last page read, which the next recording round reads again (one page back).
    const overlap = ids[((recordFromPage ?? 0) - 2) * 100 + 50] ?? 0;
    const [moved] = h.sandbox.advance({ changes: 1, kinds: ['status'], requestIds: [overlap] });
    expect(moved).toMatchObject({ kind: 'status', solicitacaoMaterialId: overlap });
    await tick(12, async () => statusEvents(h).some((e) => e.requestId === overlap));
    expect((await a.snapshots.state(WS)).recordedAt).not.toBeNull();
    expect(statusEvents(h).map((e) => e.requestId)).toEqual([overlap]);
  });
});

describe('FeedRound: receipts when one round cannot pay for every stockroom', () => {
  it('reads the stockrooms in turn over the rounds, each compared with its own last reading: receipts are reported', async () => {
    // 3 feed calls an hour: page 1, the stockrooms' list and the pending lists of 3 stockrooms are more than a round
    // gets.
    const { h, a, tick } = await longList({ hundreds: 0, callsAnHour: 15 });
    await tick(12, async () => false);

    const made = h.sandbox
      .advance({ changes: 4, kinds: ['recebimentos'] })
      .filter((c): c is ReceiptChange => c.kind === 'recebimentos');
    expect(new Set(made.map((c) => c.almoxarifado)).size).toBeGreaterThan(1);
    const expected = [...new Set(made.map((c) => c.compraMaterialId))].sort();
    const reported = () => [...new Set(receiptEvents(h).map((e) => e.purchaseId))].sort();
    await tick(48, async () => reported().length === expected.length);
    expect(reported()).toEqual(expected);
    // Each receipt once.
    const ids = receiptEvents(h).map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    const state = await a.snapshots.state(WS);
    expect(state.purchasesRecordedAt).not.toBeNull();
    expect(state.receiptsReadAt).not.toBeNull();
  });
});

describe('FeedRound: followed requests older than the 30 days, more than a round reaches', () => {
  it('are read in turn over the rounds: every one is watched, and a change of the last of them is DMed', async () => {
    // 4 feed calls an hour: page 1 and 10 followed requests (a call each) are more than a round gets.
    const { h, a, tick } = await longList({ hundreds: 0, callsAnHour: 20 });
    const olds = (h.sandbox.data.company(1)?.requests ?? [])
      .filter(
        (r) =>
          r.createdAt < h.clock.now() - 60 * DAY &&
          r.createdAt > h.clock.now() - 300 * DAY &&
          r.record.statusAndamentoSolicitacao !== null &&
          r.record.statusAndamentoSolicitacao_Nome,
      )
      .sort((x, y) => x.record.solicitacaoMaterialId - y.record.solicitacaoMaterialId)
      .slice(0, 10);
    expect(olds).toHaveLength(10);
    for (const old of olds) {
      const id = old.record.solicitacaoMaterialId;
      await h.listeners.follow(WS, `U-${id}`, id, old.record.statusAndamentoSolicitacao_Nome ?? null);
    }
    await tick(6, async () => false);

    // The highest number followed moves on.
    const last = olds.at(-1);
    if (!last) throw new Error('no old request');
    const id = last.record.solicitacaoMaterialId;
    const from = last.record.statusAndamentoSolicitacao_Nome;
    last.record.statusAndamentoSolicitacao = (last.record.statusAndamentoSolicitacao ?? 0) + 100;
    last.record.statusAndamentoSolicitacao_Nome = 'Status novo de teste';
    const told = () =>
      h.allPosts
        .filter((p) => p.target.kind === 'dm' && p.target.userId === `U-${id}`)
        .flatMap((p) => p.events);
    await tick(24, async () => told().length > 0);
    expect(told()).toEqual([
      expect.objectContaining({
        kind: 'status',
        requestId: id,
        fromStatus: from,
        toStatus: 'Status novo de teste',
      }),
    ]);
    const snapshot = await a.snapshots.requests(WS);
    for (const old of olds) expect(snapshot.has(old.record.solicitacaoMaterialId)).toBe(true);
    // Nobody else was told anything: the others did not change.
    expect(h.allPosts.filter((p) => p.target.kind === 'dm')).toHaveLength(1);
  });
});
