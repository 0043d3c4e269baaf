import { describe, expect, it } from 'vitest';
import type { RoundReport } from '../../src/domain/feed/engine.js';
import { localFeedRounds } from '../../src/local/local-feed.js';
import type { WorkspaceListeners } from '../../src/store/feed-listeners.js';
import type { FeedRoundState } from '../../src/store/feed-snapshot-store.js';
import type { LinkStore } from '../../src/store/link-store.js';

/**
 * Local mode's rounds on demand (src/local/local-feed.ts), with the engine and the stores replaced by records of
 * what they were asked: the round is made due now, asked again while another tick holds it, and only a workspace
 * that listens and never recorded needs its first round. The whole path runs in playground-feed.browser.test.ts.
 */

const WS = 'T00LOCAL1';
const NOW = 1_800_000_000_000;

function world(options: {
  reports?: RoundReport[];
  listeners?: Partial<WorkspaceListeners>;
  recordedAt?: number;
  /** FeedRoundState.scope: the company and unit the snapshot was read from. */
  scope?: string;
  /** The link's company; null: not linked. */
  link?: { empresaId: number; unidadeId: number | null } | null;
}) {
  const updates: Partial<FeedRoundState>[] = [];
  const waits: number[] = [];
  const reports = [...(options.reports ?? [])];
  const rounds = localFeedRounds(
    {
      runIfDue: async (workspaceId) =>
        reports.shift() ?? { ran: false, workspaceId, reason: 'no-listeners' as const },
    },
    {
      state: async () => ({
        recordedAt: options.recordedAt ?? null,
        purchasesRecordedAt: null,
        receiptsReadAt: null,
        resumedAt: null,
        recordFromPage: null,
        readFromPage: null,
        receiptsFirstAt: null,
        followedAfter: null,
        nextRoundAt: null,
        intervalMs: null,
        shareIntervalMs: null,
        lastCompleteAt: null,
        lateMs: null,
        lastRoundCalls: null,
        lastRoundAt: null,
        lastReadAt: null,
        readUntil: null,
        scope: options.scope ?? null,
      }),
      updateState: async (_workspaceId, changes) => {
        updates.push(changes);
      },
    },
    {
      listWorkspace: async (workspaceId) => ({
        workspaceId,
        paused: null,
        channels: [],
        follows: [],
        ownFollows: [],
        ...options.listeners,
      }),
    },
    {
      get: async (workspaceId) => {
        const link = options.link === undefined ? { empresaId: 1, unidadeId: null } : options.link;
        return link && ({ workspaceId, ...link } as Awaited<ReturnType<LinkStore['get']>>);
      },
    },
    () => NOW,
    async (ms) => {
      waits.push(ms);
    },
  );
  return { rounds, updates, waits };
}

const leased: RoundReport = { ran: false, workspaceId: WS, reason: 'leased' };
const notLinked: RoundReport = { ran: false, workspaceId: WS, reason: 'not-linked' };

describe('local mode: a feed round now', () => {
  it('makes the round due now, and the pending purchases due too when asked', async () => {
    const { rounds, updates } = world({ reports: [notLinked, notLinked] });
    await expect(rounds.runNow(WS, { receipts: false })).resolves.toEqual(notLinked);
    await expect(rounds.runNow(WS, { receipts: true })).resolves.toEqual(notLinked);
    expect(updates).toEqual([{ nextRoundAt: NOW }, { nextRoundAt: NOW, receiptsReadAt: 0 }]);
  });

  it('while the engine’s own tick holds the round, waits and asks again', async () => {
    const { rounds, updates, waits } = world({ reports: [leased, leased, notLinked] });
    await expect(rounds.runNow(WS, { receipts: false })).resolves.toEqual(notLinked);
    expect(updates).toHaveLength(3);
    expect(waits).toEqual([250, 250]);
  });

  it('gives up after 40 tries while the round stays held', async () => {
    const { rounds, waits } = world({ reports: Array.from({ length: 50 }, () => leased) });
    await expect(rounds.runNow(WS, { receipts: false })).resolves.toBeNull();
    expect(waits).toHaveLength(40);
  });

  it('needs a first round only when the workspace listens and never recorded', async () => {
    const follow = { requestId: 1312, userId: 'U1', lastSeenStatus: null, createdAt: NOW };
    await expect(world({}).rounds.needsFirstRound(WS)).resolves.toBe(false);
    await expect(
      world({ listeners: { follows: [follow] } as Partial<WorkspaceListeners> }).rounds.needsFirstRound(WS),
    ).resolves.toBe(true);
    await expect(
      world({
        listeners: { follows: [follow] } as Partial<WorkspaceListeners>,
        recordedAt: NOW,
      }).rounds.needsFirstRound(WS),
    ).resolves.toBe(false);
    await expect(
      world({
        listeners: { follows: [follow, { ...follow, userId: 'U2' }] } as Partial<WorkspaceListeners>,
      }).rounds.followedRequests(WS),
    ).resolves.toEqual([1312]);
  });

  it('needs a first round too when the snapshot was recorded under another company than the link’s (a relink)', async () => {
    // Until 2026-11-27 a recorded snapshot was enough: the round after a relink only recorded, and the first
    // `avancar` told nothing of its changes.
    const channels = [{ channelId: 'C1' }] as unknown as WorkspaceListeners['channels'];
    const recorded = { listeners: { channels }, recordedAt: NOW };
    await expect(world({ ...recorded, scope: '1:' }).rounds.needsFirstRound(WS)).resolves.toBe(false);
    await expect(
      world({ ...recorded, scope: '1:', link: { empresaId: 2, unidadeId: null } }).rounds.needsFirstRound(WS),
    ).resolves.toBe(true);
    await expect(
      world({ ...recorded, scope: '1:', link: { empresaId: 1, unidadeId: 5 } }).rounds.needsFirstRound(WS),
    ).resolves.toBe(true);
    // Not linked: the round would not run anyway.
    await expect(world({ ...recorded, scope: '1:', link: null }).rounds.needsFirstRound(WS)).resolves.toBe(
      false,
    );
  });
});
