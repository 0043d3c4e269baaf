import { describe, expect, it, vi } from 'vitest';
import { FEED_STOP_WAIT_MS, type FeedListenerSource } from '../../../src/domain/feed/engine.js';
import { BudgetClosedError } from '../../../src/upstream/budget-errors.js';
import { type FeedHarness, feedHarnessPerTest, INTERVAL_MS, WS } from '../../helpers/feed-harness.js';

/**
 * The feed engine's stop (SIGTERM): the tick under way starts no further round, the round in flight ends or gives
 * its lease back, and stop() does not wait for it without bound. Against the real Redis, on the harness's clock.
 */

const open = feedHarnessPerTest();

// Workspaces with listeners besides WS (not linked: their rounds end as `not-linked`, which is enough to be run).
const OTHERS = ['T0STOP1', 'T0STOP2', 'T0STOP3', 'T0STOP4', 'T0STOP5'];
const ALL = [WS, ...OTHERS];

/** A promise the test settles by hand. */
function gate<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * A replica (two workspaces per read of the schedule) whose first round is held at its start (its read of the
 * listeners) until the test settles `held`; `started` lists the workspaces whose rounds started, in order.
 */
async function heldReplica() {
  const h = await open();
  for (const workspaceId of ALL)
    await h.listeners.upsertChannel({ workspaceId, channelId: 'C1', stockroomId: null, subscribedBy: 'U1' });
  // The workspaces' first rounds (WS records, the others are not linked) run on another replica, at once; two
  // intervals later all of them are due again (WS's next round is at its place in the interval).
  expect(await h.feedReplica().engine.tick()).toHaveLength(ALL.length);
  h.clock.advance(2 * INTERVAL_MS);
  const started: string[] = [];
  const held = gate<void>();
  const replica = h.feedReplica({
    batch: 2,
    wrapListeners: (listeners): FeedListenerSource => ({
      listWorkspaces: () => listeners.listWorkspaces(),
      listWorkspace: async (workspaceId) => {
        started.push(workspaceId);
        if (started.length === 1) await held.promise;
        return listeners.listWorkspace(workspaceId);
      },
      removeChannel: (...args) => listeners.removeChannel(...args),
      removeUser: (...args) => listeners.removeUser(...args),
      updateLastSeen: (...args) => listeners.updateLastSeen(...args),
      unfollow: (...args) => listeners.unfollow(...args),
    }),
  });
  replica.engine.start();
  h.clock.runDue();
  await vi.waitFor(() => expect(started).toHaveLength(1));
  return { h, replica, started, held, first: started[0] ?? '' };
}

/** Lets Redis answers and the promises they settle run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

async function leaseFree(h: FeedHarness, workspaceId: string): Promise<boolean> {
  return (await h.redis.redis.exists(h.redis.keys.feedRoundLease(workspaceId))) === 0;
}

describe('FeedEngine: stop', () => {
  it('starts no round once stopped, and resolves once the round under way ends; the rest stay due, unleased', async () => {
    const { h, replica, started, held, first } = await heldReplica();
    let stopped = false;
    const stopping = replica.engine.stop().then(() => {
      stopped = true;
    });
    await settle();
    expect(stopped).toBe(false);

    held.resolve();
    await stopping;
    // Only the round that was under way ran; no other workspace was started, in this batch or the next.
    expect(started).toEqual([first]);
    for (const workspaceId of ALL) expect(await leaseFree(h, workspaceId)).toBe(true);
    const due = await replica.snapshots.due(h.clock.now(), 100);
    expect(due.sort()).toEqual(ALL.filter((id) => id !== first).sort());
    // Nor does a tick come later.
    h.clock.advance(INTERVAL_MS);
    h.clock.runDue();
    await settle();
    expect(started).toEqual([first]);
  });

  it('a round cut by the stop gives its lease back and stays due: another replica runs it at once', async () => {
    const { h, replica, started, held, first } = await heldReplica();
    const plannedAt = (await replica.snapshots.state(first)).nextRoundAt;
    const stopping = replica.engine.stop();
    // What closing the budget does to the round's next call.
    held.reject(new BudgetClosedError());
    await stopping;
    expect(started).toEqual([first]);
    expect(await leaseFree(h, first)).toBe(true);
    expect((await replica.snapshots.state(first)).nextRoundAt).toBe(plannedAt);

    const other = h.feedReplica();
    const reports = await other.engine.tick();
    expect(reports.map((r) => r.workspaceId).sort()).toEqual([...ALL].sort());
  });

  it('waits for a round that does not end at most the wait it is given', async () => {
    const { h, replica, started, held, first } = await heldReplica();
    let stopped = false;
    const stopping = replica.engine.stop().then(() => {
      stopped = true;
    });
    await settle();
    h.clock.advance(FEED_STOP_WAIT_MS - 1);
    h.clock.runDue();
    await settle();
    expect(stopped).toBe(false);
    h.clock.advance(1);
    h.clock.runDue();
    await stopping;
    expect(started).toEqual([first]);
    // The round still holds its lease while it runs; let it end before the harness closes.
    expect(await leaseFree(h, first)).toBe(false);
    held.resolve();
    await vi.waitFor(async () => expect(await leaseFree(h, first)).toBe(true));
  });
});
