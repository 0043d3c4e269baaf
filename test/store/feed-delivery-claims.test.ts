import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EmbeddedKeyValue } from '../../src/store/embedded-kv.js';
import { FeedListenerStore } from '../../src/store/feed-listeners.js';
import { DELIVERED_KEEP_MS, FeedSnapshotStore } from '../../src/store/feed-snapshot-store.js';
import { Keys } from '../../src/store/keys.js';

const DAY = 86_400_000;
const WS = 'T1';

/**
 * The delivery claims that keep an event from being posted twice to a target expire (DELIVERED_KEEP_MS), while a
 * paused workspace's outbox waits for as long as the pause lasts. On the embedded store, whose expiry follows the
 * injected clock, the weeks of a pause pass for the claims too.
 */
describe('FeedSnapshotStore: delivery claims of a paused workspace', () => {
  let dir: string;
  let kv: EmbeddedKeyValue;
  let clock: number;
  let snapshots: FeedSnapshotStore;
  let listeners: FeedListenerStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'estoque-feed-claims-'));
    clock = 1_000_000;
    kv = await EmbeddedKeyValue.open({ file: join(dir, 'store.json'), flushDelayMs: 5, now: () => clock });
    const keys = new Keys('test:');
    snapshots = new FeedSnapshotStore(kv, keys);
    listeners = new FeedListenerStore(kv, keys, () => clock);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await kv.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a sent claim (and a post in doubt) outlives a pause longer than its lifetime, then expires that long after the resume', async () => {
    await snapshots.markDelivered(WS, 'c-C1', ['e1'], clock);
    // A post whose outcome is not known: its note stays through the pause as well.
    await snapshots.notePostAttempt(WS, 'c-C2', ['e1'], clock);
    await listeners.pauseWorkspace(WS, 'tokens_revoked');
    clock += DELIVERED_KEEP_MS + 5 * DAY;
    expect(await snapshots.delivery(WS, 'c-C1', 'e1')).toMatchObject({ state: 'sent' });
    expect(await snapshots.postAttempt(WS, 'c-C2')).toMatchObject({ eventIds: ['e1'] });

    await listeners.resumeWorkspace(WS, 'tokens_revoked');
    clock += DELIVERED_KEEP_MS - DAY;
    expect(await snapshots.delivery(WS, 'c-C1', 'e1')).toMatchObject({ state: 'sent' });
    clock += 2 * DAY;
    expect(await snapshots.delivery(WS, 'c-C1', 'e1')).toBeNull();
  });

  it('a post recorded after the pause began is held too; a claim being posted is left to its lease', async () => {
    await snapshots.claimDelivery(WS, 'c-C1', 'e2', 'replica-1', 60_000);
    await listeners.pauseWorkspace(WS, 'unlinked');
    // A round that started before the pause records its post now.
    await snapshots.markDelivered(WS, 'c-C2', ['e1'], clock);
    clock += 61_000;
    expect(await snapshots.delivery(WS, 'c-C1', 'e2')).toBeNull();
    clock += DELIVERED_KEEP_MS;
    expect(await snapshots.delivery(WS, 'c-C2', 'e1')).toMatchObject({ state: 'sent' });
  });

  it('a hold the store refuses leaves the workspace unpaused, and the pause asked again holds the claims', async () => {
    await snapshots.markDelivered(WS, 'c-C1', ['e1'], clock);
    // The listeners' own snapshot store: refused once, as a store restarting would.
    const hold = vi.spyOn(FeedSnapshotStore.prototype, 'holdDeliveries');
    hold.mockRejectedValueOnce(new Error('Connection is closed.'));
    await expect(listeners.pauseWorkspace(WS, 'unlinked')).rejects.toThrow('Connection is closed.');
    expect(await listeners.pausedReason(WS)).toBeNull();
    expect(await listeners.pauseWorkspace(WS, 'unlinked')).toBe(true);
    clock += DELIVERED_KEEP_MS + DAY;
    expect(await snapshots.delivery(WS, 'c-C1', 'e1')).toMatchObject({ state: 'sent' });
  });

  it('a release the store refuses leaves the workspace paused, and the resume asked again releases the claims', async () => {
    await snapshots.markDelivered(WS, 'c-C1', ['e1'], clock);
    await listeners.pauseWorkspace(WS, 'unlinked');
    vi.spyOn(FeedSnapshotStore.prototype, 'releaseDeliveries').mockRejectedValueOnce(
      new Error('Connection is closed.'),
    );
    await expect(listeners.resumeWorkspace(WS, 'unlinked')).rejects.toThrow('Connection is closed.');
    expect(await listeners.pausedReason(WS)).toBe('unlinked');
    expect(await listeners.resumeWorkspace(WS, 'unlinked')).toBe(true);
    clock += DELIVERED_KEEP_MS + DAY;
    expect(await snapshots.delivery(WS, 'c-C1', 'e1')).toBeNull();
  });

  it('without a pause a sent claim expires after its lifetime', async () => {
    await snapshots.markDelivered(WS, 'c-C1', ['e1'], clock);
    clock += DELIVERED_KEEP_MS + 1;
    expect(await snapshots.delivery(WS, 'c-C1', 'e1')).toBeNull();
  });
});
