import { describe, expect, it } from 'vitest';
import { eventsOfPost } from '../../bench/feed-load.js';
import type { FeedEvent } from '../../src/domain/feed/types.js';
import { renderFeedPost } from '../../src/render/feed.js';

const NOW = Date.UTC(2026, 10, 23, 15, 0);

function news(requestId: number): FeedEvent {
  return {
    kind: 'novas',
    id: `T1:novas:${requestId}`,
    workspaceId: 'T1',
    detectedAt: NOW,
    stockroomId: 1,
    requestId,
    stockroomName: 'Almoxarifado Central',
    requesterName: 'Márcia Conceição',
    requesterEmail: null,
    statusName: null,
  };
}

function status(requestId: number, fromStatus: string, toStatus: string): FeedEvent {
  return {
    kind: 'status',
    id: `T1:status:${requestId}:${fromStatus}:${toStatus}`,
    workspaceId: 'T1',
    detectedAt: NOW,
    stockroomId: 1,
    requestId,
    fromStatus,
    toStatus,
    requesterEmail: null,
  };
}

const render = (events: FeedEvent[]) => {
  const message = renderFeedPost({ kind: 'channel', channelId: 'C1' }, events, {
    timeZone: 'America/Sao_Paulo',
    now: NOW,
  });
  if (!message) throw new Error('nothing rendered');
  return message.blocks as unknown[];
};

describe('the feed beside the load reads events back from the posts the fake Slack recorded', () => {
  it('reads every row of a post: new requests and status changes, each by request and transition', () => {
    const { events, hidden } = eventsOfPost(
      render([news(4221), status(4105, 'Aguardando compra', 'Entregue parcialmente')]),
    );
    expect(events.map((e) => e.key)).toEqual([
      'novas:4221',
      'status:4105:Aguardando compra → Entregue parcialmente',
    ]);
    expect(events.map((e) => e.novas)).toEqual([true, false]);
    expect(hidden).toBe(0);
  });

  it('counts the events a post only mentions as "e mais N" apart from its rows', () => {
    const many = Array.from({ length: 13 }, (_, i) => news(5000 + i));
    const { events, hidden } = eventsOfPost(render(many));
    expect(events).toHaveLength(10);
    expect(events[0]?.requestId).toBe(5000);
    expect(hidden).toBe(3);
  });

  it('tells two status moves of one request apart, so only the same move twice counts as doubled', () => {
    const first = eventsOfPost(render([status(7, 'Aberta', 'Em análise')])).events[0]?.key;
    const second = eventsOfPost(render([status(7, 'Em análise', 'Aprovada')])).events[0]?.key;
    expect(first).not.toBe(second);
  });

  it('tells a post that says it may repeat an earlier one', () => {
    const plain = eventsOfPost(render([news(8)]));
    expect(plain.mayRepeat).toBe(false);
    const message = renderFeedPost(
      { kind: 'channel', channelId: 'C1' },
      [news(8)],
      {
        timeZone: 'America/Sao_Paulo',
        now: NOW,
      },
      { mayRepeatSince: NOW - 60_000 },
    );
    expect(eventsOfPost((message?.blocks ?? []) as unknown[]).mayRepeat).toBe(true);
  });
});
