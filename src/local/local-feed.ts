import { type FeedEngine, feedScope, type RoundReport } from '../domain/feed/engine.js';
import type { FeedListenerStore } from '../store/feed-listeners.js';
import type { FeedSnapshotStore } from '../store/feed-snapshot-store.js';
import type { LinkStore } from '../store/link-store.js';
import type { LocalFeedRounds } from './sandbox-motion.js';

/** How often, and how long apart, a round asked for now waits for one another tick of this process holds. */
const LEASED_TRIES = 40;
const LEASED_WAIT_MS = 250;

/**
 * Local mode's feed rounds on demand, for `/estoque sandbox avancar` (sandbox-motion.ts). A round asked for now is
 * the engine's own round made due now (its plan in the store says when the next one is due): the lease, the
 * snapshot, the outbox, the budget and the delivery claims are the engine's, so nothing is reported twice and the
 * round still spends the feed's share of the budget. `receipts` makes the pending purchases due as well (they are
 * read every third interval otherwise).
 */
export function localFeedRounds(
  engine: Pick<FeedEngine, 'runIfDue'>,
  snapshots: Pick<FeedSnapshotStore, 'state' | 'updateState'>,
  listeners: Pick<FeedListenerStore, 'listWorkspace'>,
  links: Pick<LinkStore, 'get'>,
  now: () => number,
  wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): LocalFeedRounds {
  return {
    async followedRequests(workspaceId) {
      const { follows } = await listeners.listWorkspace(workspaceId);
      return [...new Set(follows.map((follow) => follow.requestId))];
    },
    // Never recorded, or recorded under another company or unit than the link's: the next round only records
    // (the engine starts over), so the changes made now are told by the round after it. Until 2026-11-27 only
    // "never recorded" counted, and the first `avancar` after a relink told nothing.
    async needsFirstRound(workspaceId) {
      const [state, workspace, link] = await Promise.all([
        snapshots.state(workspaceId),
        listeners.listWorkspace(workspaceId),
        links.get(workspaceId),
      ]);
      const listening =
        workspace.channels.length > 0 || workspace.follows.length > 0 || workspace.ownFollows.length > 0;
      const otherScope = link !== null && state.scope !== null && state.scope !== feedScope(link);
      return listening && (state.recordedAt === null || otherScope);
    },
    async runNow(workspaceId, { receipts }) {
      for (let attempt = 0; attempt < LEASED_TRIES; attempt += 1) {
        await snapshots.updateState(workspaceId, {
          nextRoundAt: now(),
          ...(receipts && { receiptsReadAt: 0 }),
        });
        const report: RoundReport = await engine.runIfDue(workspaceId);
        // The engine's own tick holds the round: it may have read before the change, so ask again after it.
        if (report.ran || report.reason !== 'leased') return report;
        await wait(LEASED_WAIT_MS);
      }
      return null;
    },
  };
}
