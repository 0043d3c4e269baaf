import { describe, expect, it } from 'vitest';
import { FOLLOWED_MAX_PAGES } from '../../../src/domain/feed/round.js';
import type { StatusEvent } from '../../../src/domain/feed/types.js';
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

/** A request of the demo data older than the rounds' 30 days (within the list's 12 months), with a status. */
function oldRequest(h: FeedHarness) {
  const old = h.sandbox.data
    .company(1)
    ?.requests.find(
      (r) =>
        r.createdAt < h.clock.now() - 60 * DAY &&
        r.createdAt > h.clock.now() - 300 * DAY &&
        r.record.statusAndamentoSolicitacao !== null,
    );
  if (!old) throw new Error('no old request in the demo data');
  return old;
}

/**
 * `count` newer requests (40 days old: in the 12 months, out of the 30 days) whose number holds the old one's, so
 * that its search (`Search=<number>`) lists them before it.
 */
function newerMatches(h: FeedHarness, old: ReturnType<typeof oldRequest>, count: number): void {
  const requests = h.sandbox.data.company(1)?.requests;
  if (!requests) throw new Error('no company');
  const id = old.record.solicitacaoMaterialId;
  for (let k = 0; k < count; k += 1) {
    requests.push({
      ...old,
      record: { ...old.record, solicitacaoMaterialId: Number(`${id}${String(k).padStart(3, '0')}`) },
      createdAt: h.clock.now() - 40 * DAY,
    });
  }
}

/** The pages of the followed request's own search that upstream saw, in order. */
function searchPages(h: FeedHarness, id: number, since = 0): number[] {
  return h.sandbox.calls
    .filter((call) => call.kind === 'data' && call.at >= since)
    .map((call) => new URL(call.url, 'http://sandbox').searchParams)
    .filter((params) => params.get('Search') === String(id))
    .map((params) => Number(params.get('Page') ?? 1));
}

function dmEvents(h: FeedHarness, userId: string): StatusEvent[] {
  return h.allPosts
    .filter((p) => p.target.kind === 'dm' && p.target.userId === userId)
    .flatMap((p) => p.events) as StatusEvent[];
}

function moveOn(old: ReturnType<typeof oldRequest>, statusName: string): void {
  old.record.statusAndamentoSolicitacao = (old.record.statusAndamentoSolicitacao ?? 0) + 100;
  old.record.statusAndamentoSolicitacao_Nome = statusName;
}

describe('FeedEngine: a followed request older than the 30 days', () => {
  it('is found on a later page of its search when newer requests match its number, and its change is DMed', async () => {
    const h = await start();
    const a = h.feedReplica();
    const old = oldRequest(h);
    const id = old.record.solicitacaoMaterialId;
    newerMatches(h, old, 120);
    await h.listeners.follow(WS, 'U-OLD', id, old.record.statusAndamentoSolicitacao_Nome ?? null);
    await recorded(h, a.engine);
    expect((await a.snapshots.requests(WS)).has(id)).toBe(true);

    h.clock.advance(60_000);
    const from = old.record.statusAndamentoSolicitacao_Nome;
    moveOn(old, 'Status novo de teste');
    h.clock.advance(INTERVAL_MS);
    const since = h.clock.now();
    await a.engine.runIfDue(WS);

    expect(dmEvents(h, 'U-OLD')).toContainEqual(
      expect.objectContaining({
        kind: 'status',
        requestId: id,
        fromStatus: from,
        toStatus: 'Status novo de teste',
      }),
    );
    // Page 1 holds 100 newer matches: the round reads on to page 2, where the request is, and no further.
    expect(searchPages(h, id, since)).toEqual([1, 2]);
  });

  it('is looked for in a few pages at most: a search with more pages costs no more than that per round', async () => {
    const h = await start();
    const a = h.feedReplica();
    const old = oldRequest(h);
    const id = old.record.solicitacaoMaterialId;
    newerMatches(h, old, (FOLLOWED_MAX_PAGES + 1) * 100);
    await h.listeners.follow(WS, 'U-OLD', id, old.record.statusAndamentoSolicitacao_Nome ?? null);
    const since = h.clock.now();
    expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true, round: { complete: true } });
    expect(searchPages(h, id, since)).toEqual(Array.from({ length: FOLLOWED_MAX_PAGES }, (_, i) => i + 1));
    expect((await a.snapshots.requests(WS)).has(id)).toBe(false);
  });

  it('a change made between the follow and the first round that reads it reaches the follower, once, and only them', async () => {
    const h = await start();
    const a = h.feedReplica();
    await channelListens(h, 'C1');
    await recorded(h, a.engine);

    const old = oldRequest(h);
    const id = old.record.solicitacaoMaterialId;
    const seen = old.record.statusAndamentoSolicitacao_Nome ?? null;
    // Someone follows it as it is now (what `/solicitacao <id> acompanhar` keeps) ...
    h.clock.advance(10_000);
    await h.listeners.follow(WS, 'U-OLD', id, seen);
    // ... a minute later it moves on, and a third person follows it as it is then.
    h.clock.advance(60_000);
    moveOn(old, 'Status novo de teste');
    await h.listeners.follow(WS, 'U-LATE', id, 'Status novo de teste');
    for (let round = 0; round < 3; round += 1) {
      h.clock.advance(INTERVAL_MS);
      await a.engine.runIfDue(WS);
    }

    const told = dmEvents(h, 'U-OLD');
    expect(told).toEqual([
      expect.objectContaining({
        kind: 'status',
        requestId: id,
        fromStatus: seen,
        toStatus: 'Status novo de teste',
      }),
    ]);
    expect((await h.listeners.getFollow(WS, 'U-OLD', id))?.lastSeenStatus).toBe('Status novo de teste');
    // Who followed it after the change saw the new status already; the channel covers the 30 days only.
    expect(dmEvents(h, 'U-LATE')).toEqual([]);
    expect(h.allPosts.filter((p) => p.target.kind === 'channel').flatMap((p) => p.events)).not.toContainEqual(
      expect.objectContaining({ requestId: id }),
    );
  });
});
