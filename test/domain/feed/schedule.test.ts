import { describe, expect, it } from 'vitest';
import { placeInInterval, spreadOffset } from '../../../src/domain/feed/engine.js';
import { type FeedHarness, feedHarnessPerTest, INTERVAL_MS, WS } from '../../helpers/feed-harness.js';

/**
 * The feed's schedule: one sorted set of the workspaces with listeners, scored by their next round, so that a tick
 * reads only the due ones. Against the real Redis, with the harness's random key prefix.
 */

// A second workspace with listeners (not linked: its rounds end as `not-linked`, which is enough to be run).
const OTHER = 'T0SCHEDULE2';

const open = feedHarnessPerTest();

async function start(): Promise<FeedHarness> {
  const harness = await open();
  for (const workspaceId of [WS, OTHER]) {
    await harness.listeners.upsertChannel({
      workspaceId,
      channelId: 'C1',
      stockroomId: null,
      subscribedBy: 'U1',
    });
  }
  return harness;
}

describe('FeedEngine: the schedule', () => {
  it('looks only at the workspaces that are due, and two replicas never run one workspace at once', async () => {
    const h = await start();
    const a = h.feedReplica();
    const b = h.feedReplica();
    const t0 = h.clock.now();
    // A listener enters its workspace in the schedule, due at once: the first tick runs each one's first round.
    expect([...(await a.snapshots.scheduled())].sort()).toEqual([OTHER, WS].sort());
    const first = await a.engine.tick();
    expect(first.map((r) => [r.workspaceId, r.ran ? 'ran' : r.reason]).sort()).toEqual(
      [
        [OTHER, 'not-linked'],
        [WS, 'ran'],
      ].sort(),
    );
    // The round after WS's first falls at its place in the interval (from its id), an interval later at least;
    // OTHER (not linked) is looked at again an interval later.
    const next = (await a.snapshots.state(WS)).nextRoundAt ?? 0;
    expect(next).toBe(placeInInterval(t0 + INTERVAL_MS, WS, INTERVAL_MS));
    expect(next % INTERVAL_MS).toBe(spreadOffset(WS, INTERVAL_MS));
    expect(next).toBeGreaterThanOrEqual(t0 + INTERVAL_MS);
    expect(next).toBeLessThan(t0 + 2 * INTERVAL_MS);
    const planned = new Map([
      [WS, next],
      [OTHER, (await a.snapshots.state(OTHER)).nextRoundAt ?? 0],
    ]);
    const [early, late] = [...planned.entries()].sort((x, y) => x[1] - y[1]);
    if (!early || !late) throw new Error('two workspaces');
    expect(late[1] - early[1]).toBeGreaterThan(1_000);

    // Between the two plans only the earlier is due: the other is not even looked at (no report).
    h.clock.set(early[1] + 500);
    const [ra, rb] = await Promise.all([a.engine.tick(), b.engine.tick()]);
    const reports = [...ra, ...rb];
    expect(reports.every((r) => r.workspaceId === early[0])).toBe(true);
    expect(reports.filter((r) => r.ran || r.reason === 'not-linked')).toHaveLength(1);
    // Its next round is an interval later; nothing is due now.
    expect(await a.engine.tick()).toEqual([]);
    expect(await b.engine.tick()).toEqual([]);

    h.clock.set(late[1] + 500);
    const second = [...(await a.engine.tick()), ...(await b.engine.tick())];
    expect(second.map((r) => r.workspaceId)).toEqual([late[0]]);
  });

  it('reads the schedule batch after batch within one tick, past the workspaces another replica holds', async () => {
    const h = await start();
    const a = h.feedReplica({ batch: 1 });
    // Three due at once (OTHER, WS and a third), one of them held by another replica.
    await h.listeners.upsertChannel({
      workspaceId: 'T0THIRD',
      channelId: 'C1',
      stockroomId: null,
      subscribedBy: 'U1',
    });
    const first = await a.engine.tick();
    expect(first.map((r) => r.workspaceId).sort()).toEqual([OTHER, 'T0THIRD', WS].sort());
    // Every one of them due again (WS's next round is at its place in the interval, within two intervals).
    h.clock.advance(2 * INTERVAL_MS);
    expect(await a.snapshots.takeRound(OTHER, 'another-replica', 60_000)).toBe(true);
    const second = await a.engine.tick();
    expect(second.map((r) => [r.workspaceId, r.ran ? 'ran' : r.reason]).sort()).toEqual(
      [
        [OTHER, 'leased'],
        ['T0THIRD', 'not-linked'],
        [WS, 'ran'],
      ].sort(),
    );
  });

  it('takes a workspace out when its listeners are removed (app_uninstalled), and one left without listeners', async () => {
    const h = await start();
    const a = h.feedReplica();
    await a.engine.tick();
    await h.listeners.removeWorkspace(OTHER);
    expect([...(await a.snapshots.scheduled())]).toEqual([WS]);

    // A workspace in the schedule with no listener (its last one left while a round ran): the round takes it out.
    await a.snapshots.enter('T0EMPTY', h.clock.now());
    await a.snapshots.updateState('T0EMPTY', { nextRoundAt: h.clock.now() });
    expect(await a.engine.tick()).toEqual([{ ran: false, workspaceId: 'T0EMPTY', reason: 'no-listeners' }]);
    expect([...(await a.snapshots.scheduled())]).toEqual([WS]);
    h.clock.advance(2 * INTERVAL_MS);
    expect((await a.engine.tick()).map((r) => r.workspaceId)).toEqual([WS]);
  });

  it('picks up, after an upgrade, the workspaces that have round state but no place in the schedule', async () => {
    const h = await start();
    const old = h.feedReplica();
    await old.engine.tick();
    const planned = (await old.snapshots.state(WS)).nextRoundAt;
    expect(planned).not.toBeNull();
    // What an earlier version left: the next round in the round state only, and a workspace recorded but never
    // planned (not new: it has no first round to run at once).
    await old.snapshots.leave(WS);
    await old.snapshots.leave(OTHER);
    await h.redis.redis.hdel(h.redis.keys.feedRoundState(OTHER), 'nextRoundAt');
    await h.redis.redis.hset(h.redis.keys.feedRoundState(OTHER), 'recordedAt', String(h.clock.now()));
    expect([...(await old.snapshots.scheduled())]).toEqual([]);

    const upgraded = h.feedReplica();
    // Its first tick enters both: WS at its stored plan, OTHER due now, placed on first sight at its offset.
    const first = await upgraded.engine.tick();
    expect(first).toEqual([{ ran: false, workspaceId: OTHER, reason: 'planned' }]);
    expect((await upgraded.snapshots.state(OTHER)).nextRoundAt).toBe(
      h.clock.now() + spreadOffset(OTHER, INTERVAL_MS),
    );
    expect([...(await upgraded.snapshots.scheduled())].sort()).toEqual([OTHER, WS].sort());
    h.clock.set((planned ?? 0) + 1);
    const due = await upgraded.engine.tick();
    expect(due.find((r) => r.workspaceId === WS)).toMatchObject({ ran: true, plannedAt: planned });
  });
});
