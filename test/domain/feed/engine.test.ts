import { describe, expect, it } from 'vitest';
import { MAX_PAGES } from '../../../src/domain/feed/round.js';
import type { NewRequestEvent, ReceiptEvent, StatusEvent } from '../../../src/domain/feed/types.js';
import { RequestService } from '../../../src/domain/requests/request-service.js';
import type { ReceiptChange, StatusChange } from '../../../src/sandbox/server.js';
import {
  channelListens,
  type FeedHarness,
  feedHarnessPerTest,
  INTERVAL_MS,
  recorded,
  WS,
} from '../../helpers/feed-harness.js';

const DAY = 86_400_000;
const start = feedHarnessPerTest();

/** A channel that listens to receipts only, and its workspace recorded by a replica's first round. */
async function receiptsRecorded() {
  const h = await start();
  const a = h.feedReplica();
  await h.listeners.upsertChannel({
    workspaceId: WS,
    channelId: 'C-RECEIPTS',
    stockroomId: null,
    kinds: ['recebimentos'],
    subscribedBy: 'U1',
  });
  await recorded(h, a.engine);
  return { h, a };
}

function email(h: FeedHarness, usuario: number): string {
  const user = h.sandbox.data.company(1)?.users.find((u) => u.record.usuario === usuario);
  if (!user?.record.email) throw new Error(`user ${usuario} has no e-mail`);
  return user.record.email;
}

describe('FeedEngine: detection', () => {
  it('records on the first round, then reports new requests and status changes once, to the channel that listens', async () => {
    const h = await start();
    await channelListens(h, 'C1');
    const a = h.feedReplica();
    await recorded(h, a.engine);
    expect(a.poster.posts).toHaveLength(0);

    h.clock.advance(60_000);
    const added = h.sandbox.advance({ changes: 3, kinds: ['novas'] });
    h.clock.advance(INTERVAL_MS);
    const second = await a.engine.runIfDue(WS);
    expect(second).toMatchObject({ ran: true, round: { recorded: false, detected: 3 } });
    expect(a.poster.posts).toHaveLength(1);
    const novas = a.poster.posts[0]?.events as NewRequestEvent[];
    expect(novas.map((e) => e.requestId).sort()).toEqual(
      added.map((c) => (c.kind === 'novas' ? c.solicitacaoMaterialId : 0)).sort(),
    );
    for (const event of novas) {
      expect(event).toMatchObject({ kind: 'novas', workspaceId: WS, statusName: expect.any(String) });
      expect(event.stockroomName).toBeTruthy();
      expect(event.requesterName).toBeTruthy();
    }

    h.clock.advance(60_000);
    const moved = h.sandbox
      .advance({ changes: 6, kinds: ['status'] })
      .filter((c): c is StatusChange => c.kind === 'status');
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);
    const status = (a.poster.posts[1]?.events ?? []) as StatusEvent[];
    // Requests opened within the 30 days are in the list the rounds read; older ones only when followed.
    const inWindow = moved.filter((c) => c.createdAt > h.clock.now() - 29 * DAY);
    const outside = moved.filter((c) => c.createdAt < h.clock.now() - 31 * DAY);
    expect(inWindow.length).toBeGreaterThan(0);
    for (const change of inWindow) {
      expect(status).toContainEqual(
        expect.objectContaining({
          kind: 'status',
          requestId: change.solicitacaoMaterialId,
          fromStatus: change.fromNome,
          toStatus: change.toNome,
        }),
      );
    }
    for (const change of outside)
      expect(status.map((e) => e.requestId)).not.toContain(change.solicitacaoMaterialId);

    // Nothing changed: the next round posts nothing.
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);
    expect(a.poster.posts).toHaveLength(2);
    // The round's reads are the digest's pages: the cache answers them for the next reader.
    const ws = await a.replica.domain.workspaces.resolve(WS, 'digest');
    const page = await new RequestService(a.replica.domain).recentPage(ws, null, 1);
    expect(page.freshness.fromCache).toBe(true);
  });

  it('a stockroom whose pending list upstream refuses is left out of the receipts, not taken as all received', async () => {
    const { h, a } = await receiptsRecorded();
    h.clock.advance(60_000);
    const receipts = h.sandbox
      .advance({ changes: 6, kinds: ['recebimentos'] })
      .filter((c): c is ReceiptChange => c.kind === 'recebimentos');
    const refused = receipts[0]?.almoxarifado;
    if (refused === undefined) throw new Error('no receipt made');
    // The login may not read that stockroom's pending purchases any more (403, every time).
    h.sandbox.faults.next({
      path: new RegExp(`/v1/entradas-materiais/compras\\?.*almoxarifadoId=${refused}(&|$)`),
      status: 403,
      times: 1_000,
    });
    h.clock.advance(3 * INTERVAL_MS);
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true });
    const reported = a.poster.posts
      .flatMap((p) => p.events)
      .filter((e): e is ReceiptEvent => e.kind === 'recebimentos');
    const expected = receipts.filter((c) => c.almoxarifado !== refused).map((c) => c.compraMaterialId);
    expect([...new Set(reported.map((e) => e.purchaseId))].sort()).toEqual([...new Set(expected)].sort());
    expect(reported.some((e) => e.stockroomId === refused)).toBe(false);
  });

  it('a stockroom refused from the very first round does not keep the other stockrooms’ receipts from ever being reported', async () => {
    const h = await start();
    const a = h.feedReplica();
    await h.listeners.upsertChannel({
      workspaceId: WS,
      channelId: 'C-RECEIPTS',
      stockroomId: null,
      kinds: ['recebimentos'],
      subscribedBy: 'U1',
    });
    const refused = 3;
    h.sandbox.faults.next({
      path: new RegExp(`/v1/entradas-materiais/compras\\?.*almoxarifadoId=${refused}(&|$)`),
      status: 403,
      times: 1_000,
    });
    await recorded(h, a.engine);
    expect((await a.snapshots.state(WS)).purchasesRecordedAt).not.toBeNull();
    h.clock.advance(60_000);
    const receipts = h.sandbox
      .advance({ changes: 8, kinds: ['recebimentos'] })
      .filter((c): c is ReceiptChange => c.kind === 'recebimentos' && c.almoxarifado !== refused);
    expect(receipts.length).toBeGreaterThan(0);
    for (let i = 0; i < 3; i += 1) {
      h.clock.advance(3 * INTERVAL_MS);
      await a.engine.runIfDue(WS);
    }
    const reported = a.poster.posts
      .flatMap((p) => p.events)
      .filter((e): e is ReceiptEvent => e.kind === 'recebimentos')
      .map((e) => e.purchaseId);
    expect([...new Set(reported)].sort()).toEqual(
      [...new Set(receipts.map((c) => c.compraMaterialId))].sort(),
    );
  });

  it('own follows get an own new request even when the round that found it could not read the users list', async () => {
    const h = await start();
    await channelListens(h, 'C1');
    const a = h.feedReplica();
    await recorded(h, a.engine);
    h.clock.advance(60_000);
    const [mine] = h.sandbox.advance({ changes: 1, kinds: ['novas'] });
    if (mine?.kind !== 'novas') throw new Error('no new request');
    await h.listeners.followOwn(WS, 'U-OWNER', email(h, mine.solicitante));
    // The users list (own follows match by e-mail) fails for a whole round: 503 through every retry.
    h.sandbox.faults.next({ path: '/v1/usuarios', status: 503, times: 4 });
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);
    const dm = a.poster.posts.find((p) => p.target.kind === 'dm' && p.target.userId === 'U-OWNER');
    expect(dm?.events.map((e) => (e.kind === 'novas' ? e.requestId : 0))).toContain(
      mine.solicitacaoMaterialId,
    );
  });

  it('reports receipts less often than statuses, with the linked requests, to followers and own-request followers', async () => {
    const { h, a } = await receiptsRecorded();
    const pendingReads = () =>
      h.dataCalls().filter((url) => url.includes('/entradas-materiais/compras')).length;
    const afterFirst = pendingReads();
    expect(afterFirst).toBe(3); // one per active stockroom

    h.clock.advance(60_000);
    const receipts = h.sandbox
      .advance({ changes: 4, kinds: ['recebimentos'] })
      .filter((c): c is ReceiptChange => c.kind === 'recebimentos');
    const receipt = receipts.find((c) => c.solicitacaoMaterialIds.length > 0);
    if (!receipt) throw new Error('no receipt with linked requests made');
    const linked = receipt.solicitacaoMaterialIds[0];
    if (linked === undefined) throw new Error('receipt without linked requests');
    await h.listeners.follow(WS, 'U-FOLLOWER', linked, null);
    h.clock.advance(60_000);
    const newOnes = h.sandbox.advance({ changes: 2, kinds: ['novas'] });
    const mine = newOnes[0];
    if (mine?.kind !== 'novas') throw new Error('no new request');
    await h.listeners.followOwn(WS, 'U-OWNER', email(h, mine.solicitante).toUpperCase());
    // The requester of the receipt's linked request follows their own requests: a follow of each of them.
    const linkedRequester = h.sandbox.data
      .company(1)
      ?.requests.find((r) => r.record.solicitacaoMaterialId === linked)?.record.solicitante;
    if (linkedRequester === undefined) throw new Error('linked request not found');
    await h.listeners.followOwn(WS, 'U-LINKED-OWNER', email(h, linkedRequester));

    // The next round reads statuses but not receipts yet.
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);
    expect(pendingReads()).toBe(afterFirst);
    expect(a.poster.posts.filter((p) => p.target.kind === 'channel')).toHaveLength(0);
    const ownDm = a.poster.posts.find((p) => p.target.kind === 'dm' && p.target.userId === 'U-OWNER');
    expect(ownDm?.events.map((e) => (e.kind === 'novas' ? e.requestId : 0))).toContain(
      mine.solicitacaoMaterialId,
    );

    // Three intervals after the last receipts read: the pending lists again, and the receipt.
    h.clock.advance(2 * INTERVAL_MS);
    await a.engine.runIfDue(WS);
    expect(pendingReads()).toBe(afterFirst + 3);
    const channelPost = a.poster.posts.find((p) => p.target.kind === 'channel');
    expect(channelPost?.events.map((e) => (e.kind === 'recebimentos' ? e.purchaseId : 0)).sort()).toEqual(
      [...new Set(receipts.map((c) => c.compraMaterialId))].sort(),
    );
    const event = channelPost?.events.find(
      (e) => e.kind === 'recebimentos' && e.purchaseId === receipt.compraMaterialId,
    ) as ReceiptEvent;
    expect(event).toMatchObject({
      kind: 'recebimentos',
      purchaseId: receipt.compraMaterialId,
      complete: receipt.leftPendingList,
      stockroomId: receipt.almoxarifado,
    });
    expect(event.requestIds.sort()).toEqual([...receipt.solicitacaoMaterialIds].sort());
    const followerDm = a.poster.posts.find((p) => p.target.kind === 'dm' && p.target.userId === 'U-FOLLOWER');
    expect(followerDm?.events.map((e) => e.id)).toContain(event.id);
    const ownerDms = a.poster.posts.filter(
      (p) => p.target.kind === 'dm' && p.target.userId === 'U-LINKED-OWNER',
    );
    expect(ownerDms.flatMap((p) => p.events).map((e) => e.id)).toContain(event.id);
  });

  it('a receipt whose linked requests cannot be read in the round that found it is linked by the next one, once', async () => {
    const { h, a } = await receiptsRecorded();
    h.clock.advance(60_000);
    const receipts = h.sandbox
      .advance({ changes: 4, kinds: ['recebimentos'] })
      .filter((c): c is ReceiptChange => c.kind === 'recebimentos');
    const receipt = receipts.find((c) => c.solicitacaoMaterialIds.length > 0);
    const linked = receipt?.solicitacaoMaterialIds[0];
    if (!receipt || linked === undefined) throw new Error('no receipt with linked requests made');
    await h.listeners.follow(WS, 'U-FOLLOWER', linked, null);
    // The round that reads the pending lists cannot read any purchase's requests (503 through every retry).
    h.sandbox.faults.next({ path: /\/v1\/compras-materiais\/\d+\/solicitacoes/, status: 503, times: 4 });
    h.clock.advance(3 * INTERVAL_MS);
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true, round: { complete: false } });
    expect(h.sandbox.faults.pending).toBe(0);
    const received = () =>
      a.poster.posts.flatMap((p) => p.events).filter((e): e is ReceiptEvent => e.kind === 'recebimentos');
    expect(received()).toEqual([]);

    // The next round (receipts not due again yet: no pending list is read) links them first: every receipt, with
    // its requests, once; the rounds after it post nothing more.
    const pendingReads = () =>
      h.dataCalls().filter((url) => url.includes('/entradas-materiais/compras')).length;
    const before = pendingReads();
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);
    expect(pendingReads()).toBe(before);
    expect(received().length).toBeGreaterThan(0);
    for (let i = 0; i < 3; i += 1) {
      h.clock.advance(INTERVAL_MS);
      await a.engine.runIfDue(WS);
    }
    const channel = a.poster.posts
      .filter((p) => p.target.kind === 'channel')
      .flatMap((p) => p.events)
      .filter((e): e is ReceiptEvent => e.kind === 'recebimentos');
    expect(channel.map((e) => e.purchaseId).sort()).toEqual(
      [...new Set(receipts.map((c) => c.compraMaterialId))].sort(),
    );
    expect(new Set(channel.map((e) => e.id)).size).toBe(channel.length);
    const event = channel.find((e) => e.purchaseId === receipt.compraMaterialId);
    expect(event?.requestIds.sort()).toEqual([...receipt.solicitacaoMaterialIds].sort());
    const dm = a.poster.posts.filter((p) => p.target.kind === 'dm' && p.target.userId === 'U-FOLLOWER');
    expect(dm.flatMap((p) => p.events.map((e) => e.id))).toEqual([event?.id]);
    expect(await a.snapshots.receiptsWaiting(WS)).toEqual([]);
  });

  it('watches a followed request older than the 30 days on its own', async () => {
    const h = await start();
    const a = h.feedReplica();
    const company = h.sandbox.data.company(1);
    const old = company?.requests.find(
      (r) =>
        r.createdAt < h.clock.now() - 60 * DAY &&
        r.createdAt > h.clock.now() - 300 * DAY &&
        r.record.statusAndamentoSolicitacao !== null,
    );
    if (!old) throw new Error('no old request in the demo data');
    const id = old.record.solicitacaoMaterialId;
    await h.listeners.follow(WS, 'U-OLD', id, null);
    await recorded(h, a.engine);
    expect(h.dataCalls().some((url) => url.includes(`Search=${id}`))).toBe(true);
    const snapshot = await a.snapshots.requests(WS);
    expect(snapshot.get(id)?.statusName).toBe(old.record.statusAndamentoSolicitacao_Nome);
  });
});

describe('FeedEngine: delivery', () => {
  it('DMs a follower the status changes of the requests they follow and keeps the status they were told', async () => {
    const h = await start();
    const a = h.feedReplica();
    const recent = (h.sandbox.data.company(1)?.requests ?? []).filter(
      (r) => r.createdAt > h.clock.now() - 25 * DAY,
    );
    for (const r of recent) await h.listeners.follow(WS, 'U-FOLLOWER', r.record.solicitacaoMaterialId, null);
    await recorded(h, a.engine);
    h.clock.advance(60_000);
    const moved = h.sandbox
      .advance({ changes: 8, kinds: ['status'] })
      .filter((c): c is StatusChange => c.kind === 'status')
      .filter((c) => recent.some((r) => r.record.solicitacaoMaterialId === c.solicitacaoMaterialId));
    expect(moved.length).toBeGreaterThan(0);
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);

    const dms = a.poster.posts.filter((p) => p.target.kind === 'dm');
    expect(dms).toHaveLength(1);
    const last = new Map(moved.map((c) => [c.solicitacaoMaterialId, c.toNome]));
    for (const [requestId, toNome] of last) {
      expect(dms[0]?.events).toContainEqual(
        expect.objectContaining({ kind: 'status', requestId, toStatus: toNome }),
      );
      expect((await h.listeners.getFollow(WS, 'U-FOLLOWER', requestId))?.lastSeenStatus).toBe(toNome);
    }
  });

  it('removes a lost channel feed and tells its subscriber; a DM refused for good ends the follows', async () => {
    const h = await start();
    const a = h.feedReplica();
    await channelListens(h, 'C-GONE');
    await channelListens(h, 'C-OK');
    await recorded(h, a.engine);
    h.clock.advance(60_000);
    const [made] = h.sandbox.advance({ kinds: ['novas'] });
    if (made?.kind !== 'novas') throw new Error('no new request');
    await h.listeners.followOwn(WS, 'U-OWNER', email(h, made.solicitante));
    a.poster.results.set('c-C-GONE', { ok: false, lost: true, error: 'channel_not_found' });
    a.poster.results.set('u-U-OWNER', { ok: false, lost: true, error: 'cannot_dm_bot' });
    h.clock.advance(INTERVAL_MS);
    expect(await a.engine.runIfDue(WS)).toMatchObject({ delivery: { lostTargets: 2, delivered: 1 } });

    expect(a.poster.lost.map((feed) => feed.channelId)).toEqual(['C-GONE']);
    expect(await h.listeners.getChannel(WS, 'C-GONE')).toBeNull();
    expect(await h.listeners.getChannel(WS, 'C-OK')).not.toBeNull();
    expect(await h.listeners.getOwnFollow(WS, 'U-OWNER')).toBeNull();
    expect(await a.snapshots.outbox(WS)).toEqual([]);
  });
});

describe('FeedEngine: a post whose outcome is not known', () => {
  const ids = (events: readonly { id: string }[]) => events.map((event) => event.id).sort();

  async function withChannel() {
    const h = await start();
    const a = h.feedReplica();
    await channelListens(h, 'C1');
    await recorded(h, a.engine);
    return { h, a };
  }

  it('is made again next round, saying it may repeat the one made then; once confirmed, no more', async () => {
    const { h, a } = await withChannel();
    h.clock.advance(60_000);
    h.sandbox.advance({ changes: 2, kinds: ['novas'] });
    a.poster.results.set('c-C1', { ok: false, lost: false, error: 'request_error', mayHaveArrived: true });
    h.clock.advance(INTERVAL_MS);
    const firstAt = h.clock.now();
    await a.engine.runIfDue(WS);
    a.poster.results.delete('c-C1');
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);
    const [first, again] = a.poster.posts;
    expect(first?.mayRepeatSince).toBeNull();
    expect(ids(again?.events ?? [])).toEqual(ids(first?.events ?? []));
    expect(again?.mayRepeatSince).toBe(firstAt);

    h.clock.advance(60_000);
    h.sandbox.advance({ changes: 1, kinds: ['novas'] });
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);
    expect(a.poster.posts).toHaveLength(3);
    expect(a.poster.posts[2]?.mayRepeatSince).toBeNull();
  });

  it('a post Slack refused is made again without the note; a repeat that is refused keeps it for the next', async () => {
    const { h, a } = await withChannel();
    h.clock.advance(60_000);
    h.sandbox.advance({ changes: 2, kinds: ['novas'] });
    a.poster.results.set('c-C1', { ok: false, lost: false, error: 'http_503' });
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);
    a.poster.results.set('c-C1', { ok: false, lost: false, error: 'request_error', mayHaveArrived: true });
    h.clock.advance(INTERVAL_MS);
    const doubtAt = h.clock.now();
    await a.engine.runIfDue(WS);
    a.poster.results.set('c-C1', { ok: false, lost: false, error: 'http_503' });
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);
    a.poster.results.delete('c-C1');
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);
    // Recorded: the post whose reply was lost, then the one that went through (the refused ones never reached Slack).
    const [lostReply, through] = a.poster.posts;
    expect(lostReply?.mayRepeatSince).toBeNull();
    expect(through?.mayRepeatSince).toBe(doubtAt);
    expect(ids(through?.events ?? [])).toEqual(ids(lostReply?.events ?? []));
    expect(a.poster.posts).toHaveLength(2);
  });
});

describe('FeedEngine: list pages cached at different times', () => {
  it('a page older than the page before it is read again: the first round records every request, none comes back as new', async () => {
    const h = await start();
    const a = h.feedReplica();
    // More than a page of 100 in the 30 days.
    h.sandbox.advance({ changes: 100, kinds: ['novas'] });
    h.sandbox.advance({ changes: 60, kinds: ['novas'] });
    // A digest reads pages 1 and 2 (cached for 60 s); requests are opened; someone refreshes page 1 only.
    const ws = await a.replica.domain.workspaces.resolve(WS, 'digest');
    const requests = new RequestService(a.replica.domain);
    expect((await requests.recentPage(ws, null, 1)).data.totalPages).toBeGreaterThan(1);
    await requests.recentPage(ws, null, 2);
    h.clock.advance(10_000);
    h.sandbox.advance({ changes: 3, kinds: ['novas'] });
    h.clock.advance(10_000);
    await requests.recentPage(ws, null, 1, { bypassCache: true });
    // A channel subscribes; the first round, within page 2's 60 s: it only records; the next reports nothing that
    // existed before.
    h.clock.advance(20_000);
    await channelListens(h, 'C1');
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true, round: { recorded: true } });
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);
    expect(a.poster.posts.flatMap((p) => p.events.map((e) => e.id))).toEqual([]);
  });
});

describe('FeedEngine: a workspace paused longer than the outbox keeps events', () => {
  it('keeps what it detected while paused: a resume after 8 days posts it, it does not expire', async () => {
    const h = await start();
    const a = h.feedReplica();
    await channelListens(h, 'C1');
    await recorded(h, a.engine);
    h.clock.advance(60_000);
    const made = h.sandbox.advance({ changes: 2, kinds: ['novas'] });
    // The post finds the token revoked: the workspace pauses, its events stay in the outbox.
    a.poster.results.set('c-C1', { ok: false, lost: false, error: 'token_revoked' });
    h.clock.advance(INTERVAL_MS);
    await a.engine.runIfDue(WS);
    await h.listeners.pauseWorkspace(WS, 'tokens_revoked');
    expect((await a.snapshots.outbox(WS)).length).toBeGreaterThan(0);
    a.poster.results.delete('c-C1');
    // A reinstall eight days later.
    h.clock.advance(8 * DAY);
    await h.listeners.resumeWorkspace(WS, 'tokens_revoked');
    for (let i = 0; i < 2; i += 1) {
      h.clock.advance(INTERVAL_MS);
      await a.engine.runIfDue(WS);
    }
    const posted = a.poster.posts.flatMap((p) => p.events.map((e) => e.id));
    for (const change of made) {
      if (change.kind === 'novas') expect(posted).toContain(`${WS}:novas:${change.solicitacaoMaterialId}`);
    }
  });
});

describe('FeedEngine: cost', () => {
  it('makes no upstream call for a workspace without listeners, nor for a paused one', async () => {
    const h = await start();
    const a = h.feedReplica();
    expect(await a.engine.tick()).toEqual([]);
    h.clock.advance(INTERVAL_MS);
    expect(await a.engine.tick()).toEqual([]);

    await channelListens(h, 'C1');
    await h.listeners.pauseWorkspace(WS, 'unlinked');
    await a.engine.tick();
    h.clock.advance(INTERVAL_MS);
    expect(await a.engine.tick()).toEqual([{ ran: false, workspaceId: WS, reason: 'paused' }]);
    expect(h.sandbox.calls).toHaveLength(0);
  });
});

describe('FeedEngine: a list whose rows state a total it does not have', () => {
  const listPages = (h: FeedHarness) =>
    h
      .dataCalls()
      .filter((url) => new URL(url, 'http://upstream').pathname === '/v1/solicitacoes-materiais')
      .map((url) => new URL(url, 'http://upstream').searchParams.get('Page'));

  it('a service that answers full pages forever costs a round at most MAX_PAGES reads', async () => {
    const h = await start();
    const a = h.feedReplica();
    await channelListens(h, 'C1');
    const template = (h.sandbox.data.company(1)?.requests ?? [])[0]!.record;
    const rows = Array.from({ length: 100 }, (_, i) => ({
      ...template,
      solicitacaoMaterialId: 9001 + i,
      rowNumber: i + 1,
      totalRows: 2_000_000_000,
    }));
    h.sandbox.faults.next({ path: '/v1/solicitacoes-materiais', status: 200, body: rows, times: 1_000 });
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true });
    expect(listPages(h)).toHaveLength(MAX_PAGES);
  });

  it.each([
    ['no list can hold', 2_000_000_000],
    ['a list could hold', 5_000],
  ])('reads up to the first short page, whatever total (%s) its rows state', async (_, stated) => {
    const h = await start();
    const a = h.feedReplica();
    await channelListens(h, 'C1');
    const template = (h.sandbox.data.company(1)?.requests ?? [])[0]!.record;
    const rowsOf = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        ...template,
        solicitacaoMaterialId: from + i,
        rowNumber: i + 1,
        totalRows: stated,
      }));
    // Page 1 full, page 2 short (the list ends there); past it the service goes on answering full pages.
    const serve = (page: string, body: unknown) =>
      h.sandbox.faults.next({
        path: new RegExp(`/v1/solicitacoes-materiais\\?.*[?&]Page=${page}&`),
        status: 200,
        body,
        times: 500,
      });
    serve('1', rowsOf(5001, 100));
    serve('2', rowsOf(5101, 30));
    serve('(?![12]&)\\d+', rowsOf(9001, 100));
    await recorded(h, a.engine);
    expect(listPages(h)).toEqual(['1', '2']);
  });
});
