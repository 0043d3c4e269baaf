import { describe, expect, it } from 'vitest';
import { spreadOffset } from '../../../src/domain/feed/engine.js';
import { route } from '../../../src/domain/feed/route.js';
import type { ChannelFeed, FeedEvent } from '../../../src/domain/feed/types.js';
import type { WorkspaceListeners } from '../../../src/store/feed-listeners.js';

const WS = 'T1';
const AT = 1_000_000;

const novas = (requestId: number, stockroomId: number, email: string | null = null): FeedEvent => ({
  id: `${WS}:novas:${requestId}`,
  kind: 'novas',
  workspaceId: WS,
  detectedAt: AT,
  stockroomId,
  requestId,
  stockroomName: null,
  requesterName: null,
  requesterEmail: email,
  statusName: 'Aberta',
});
const status = (requestId: number, stockroomId: number, email: string | null = null): FeedEvent => ({
  id: `${WS}:status:${requestId}:1:1>2`,
  kind: 'status',
  workspaceId: WS,
  detectedAt: AT + 1,
  stockroomId,
  requestId,
  fromStatus: 'Aberta',
  toStatus: 'Em separação',
  requesterEmail: email,
});
const receipt = (
  purchaseId: number,
  stockroomId: number,
  requestIds: number[],
  requesterEmails: string[] = [],
): FeedEvent => ({
  id: `${WS}:recebimentos:${purchaseId}:done`,
  kind: 'recebimentos',
  workspaceId: WS,
  detectedAt: AT + 2,
  stockroomId,
  purchaseId,
  supplierName: null,
  complete: true,
  requestIds,
  requesterEmails,
});

function channel(channelId: string, over: Partial<ChannelFeed> = {}): ChannelFeed {
  return {
    workspaceId: WS,
    channelId,
    stockroomId: null,
    kinds: ['novas', 'status', 'recebimentos'],
    subscribedBy: 'U1',
    createdAt: 0,
    paused: null,
    ...over,
  };
}

function listeners(over: Partial<WorkspaceListeners>): WorkspaceListeners {
  return { workspaceId: WS, paused: null, channels: [], follows: [], ownFollows: [], ...over };
}

const events = [novas(10, 1, 'Ana@X.com'), status(11, 2, 'bia@x.com'), receipt(70, 2, [11, 12])];
const ids = (deliveries: ReturnType<typeof route>, key: string) =>
  deliveries.find((d) => d.key === key)?.events.map((e) => e.id) ?? [];

describe('route', () => {
  it('gives each channel the kinds and the stockroom it asked for, one delivery per target', () => {
    const out = route(
      listeners({
        channels: [
          channel('C-ALL'),
          channel('C-2', { stockroomId: 2 }),
          channel('C-NEW', { kinds: ['novas'] }),
          channel('C-PAUSED', { paused: 'unlinked' }),
          channel('C-LATER', { createdAt: AT + 1 }),
        ],
      }),
      events,
    );
    expect(out.map((d) => d.key)).toEqual(['c-C-ALL', 'c-C-2', 'c-C-NEW', 'c-C-LATER']);
    expect(ids(out, 'c-C-ALL')).toEqual(events.map((e) => e.id));
    expect(ids(out, 'c-C-2')).toEqual([events[1]?.id, events[2]?.id]);
    expect(ids(out, 'c-C-NEW')).toEqual([events[0]?.id]);
    // A feed gets only what was detected since it began.
    expect(ids(out, 'c-C-LATER')).toEqual([events[1]?.id, events[2]?.id]);
  });

  it('DMs a follower the status changes and receipts of their requests, and an own follower theirs, in one DM', () => {
    const follow = (userId: string, requestId: number, createdAt = 0) => ({
      workspaceId: WS,
      userId,
      requestId,
      lastSeenStatus: null,
      createdAt,
    });
    const out = route(
      listeners({
        follows: [follow('U-F', 11), follow('U-R', 12), follow('U-NONE', 99)],
        ownFollows: [{ workspaceId: WS, userId: 'U-F', email: 'ana@x.com ', createdAt: 0 }],
      }),
      events,
    );
    expect(out.map((d) => d.key)).toEqual(['u-U-F', 'u-U-R']);
    expect(ids(out, 'u-U-F')).toEqual(events.map((e) => e.id));
    expect(ids(out, 'u-U-R')).toEqual([events[2]?.id]);
  });

  it('DMs an own follower the receipts of purchases linked to their requests (a follow of each of them)', () => {
    const own = (userId: string, email: string, createdAt = 0) => ({
      workspaceId: WS,
      userId,
      email,
      createdAt,
    });
    const mine = receipt(701, 1, [41, 42], ['ana@x.com']);
    const theirs = receipt(702, 1, [43], ['bia@x.com']);
    const out = route(
      listeners({ ownFollows: [own('U-ANA', ' Ana@X.com'), own('U-LATE', 'ana@x.com', AT + 10)] }),
      [mine, theirs],
    );
    expect(out.map((d) => d.key)).toEqual(['u-U-ANA']);
    expect(ids(out, 'u-U-ANA')).toEqual([mine.id]);
  });

  it('keeps a followed request older than the 30 days out of channel feeds: its change goes to its followers', () => {
    const old = { ...status(5, 1), id: `${WS}:status:5:1:1>2`, outsideRecent: true } as FeedEvent;
    const out = route(
      listeners({
        channels: [channel('C-ALL')],
        follows: [{ workspaceId: WS, userId: 'U-F', requestId: 5, lastSeenStatus: null, createdAt: 0 }],
      }),
      [old],
    );
    expect(out.map((d) => d.key)).toEqual(['u-U-F']);
  });

  it('gives a change found against what followers were shown to those followers alone', () => {
    const seen = {
      ...status(6, 1, 'bia@x.com'),
      id: `${WS}:status:6:seen:U-A`,
      followers: ['U-A'],
    } as FeedEvent;
    const follow = (userId: string) => ({
      workspaceId: WS,
      userId,
      requestId: 6,
      lastSeenStatus: null,
      createdAt: 0,
    });
    const out = route(
      listeners({
        channels: [channel('C-ALL')],
        follows: [follow('U-A'), follow('U-B')],
        ownFollows: [{ workspaceId: WS, userId: 'U-BIA', email: 'bia@x.com', createdAt: 0 }],
      }),
      [seen],
    );
    expect(out.map((d) => d.key)).toEqual(['u-U-A']);
  });

  it('leaves out of DMs the followers shown the new status already (seenBy); channels and others get it', () => {
    const follow = (userId: string) => ({
      workspaceId: WS,
      userId,
      requestId: 11,
      lastSeenStatus: null,
      createdAt: 0,
    });
    const change = { ...status(11, 2, 'bia@x.com'), seenBy: ['U-SEEN'] } as FeedEvent;
    const out = route(
      listeners({
        channels: [channel('C-ALL')],
        follows: [follow('U-SEEN'), follow('U-OTHER')],
        ownFollows: [{ workspaceId: WS, userId: 'U-SEEN', email: 'bia@x.com', createdAt: 0 }],
      }),
      [change],
    );
    expect(out.map((d) => d.key)).toEqual(['c-C-ALL', 'u-U-OTHER']);
  });

  it('routes nothing in a paused workspace', () => {
    expect(route(listeners({ paused: 'tokens_revoked', channels: [channel('C1')] }), events)).toEqual([]);
  });
});

describe('spreadOffset', () => {
  it('places workspaces across the whole interval, each always at the same place', () => {
    const interval = 120_000;
    const offsets = Array.from({ length: 200 }, (_, i) =>
      spreadOffset(`T${i.toString(36).padStart(8, '0')}`, interval),
    );
    for (const offset of offsets) expect(offset >= 0 && offset < interval).toBe(true);
    const tenths = new Set(offsets.map((offset) => Math.floor((offset / interval) * 10)));
    expect(tenths.size).toBe(10);
    expect(spreadOffset('T00000001', interval)).toBe(spreadOffset('T00000001', interval));
  });
});
