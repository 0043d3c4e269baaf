import { afterEach, describe, expect, it, vi } from 'vitest';
import { DigestClaims } from '../../../src/domain/digest/claims.js';
import { FAKE_SEED } from '../../../src/fake-slack/index.js';
import { DEMO_FACTS } from '../../../src/sandbox/facts.js';
import { RedisKeyValue } from '../../../src/store/kv.js';
import { LinkStore } from '../../../src/store/link-store.js';
import {
  CHANNELS,
  type Harness,
  limitsOf,
  type Replica,
  SUBSCRIBER,
  saoPaulo,
  startDigestHarness,
  textOf,
  WS,
} from '../../helpers/digest-harness.js';

const C1 = DEMO_FACTS.company1;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Monday 23/11/2026 07:00 in São Paulo. */
const MONDAY_7AM = saoPaulo(2026, 11, 23, 7);

let harness: Harness | undefined;

afterEach(async () => {
  vi.restoreAllMocks();
  const h = harness;
  harness = undefined;
  if (!h) return;
  try {
    // Every message the bot sent in any test (digests, DMs) is within Slack's limits.
    for (const message of h.slack.messages) expect(limitsOf(message)).toEqual([]);
    expect(h.slack.limitViolations).toEqual([]);
  } finally {
    await h.close();
  }
});

/** Posts go at once: pacing posts in a channel is the poster's subject (test/slack/digest-poster.test.ts). */
async function start(at = MONDAY_7AM): Promise<Harness> {
  harness = await startDigestHarness(at, { pacing: false });
  return harness;
}

describe('exactly one post per subscription and day', () => {
  it('two replicas ticking together at and after the hour post once; restarts and more ticks change nothing', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const a = h.replica();
    const b = h.replica();

    h.clock.set(saoPaulo(2026, 11, 23, 7, 59));
    const early = await Promise.all([a.scheduler.tick(), b.scheduler.tick()]);
    expect(early.map((r) => r.due)).toEqual([0, 0]);

    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    const [ra, rb] = await Promise.all([a.scheduler.tick(), b.scheduler.tick()]);
    expect(ra.posted + rb.posted).toBe(1);
    expect(ra.claimed + rb.claimed).toBe(1);
    expect(h.posts(CHANNELS.general)).toHaveLength(1);

    // Later ticks of both, and of replicas that start afresh, all through the day.
    for (const at of [
      saoPaulo(2026, 11, 23, 8, 0) + 30_000,
      saoPaulo(2026, 11, 23, 9),
      saoPaulo(2026, 11, 23, 23, 59),
    ]) {
      h.clock.set(at);
      const restarted = h.replica();
      const reports = await Promise.all([a.scheduler.tick(), b.scheduler.tick(), restarted.scheduler.tick()]);
      expect(reports.reduce((sum, r) => sum + r.posted, 0)).toBe(0);
    }
    expect(h.posts(CHANNELS.general)).toHaveLength(1);

    const sub = await a.store.get(WS, CHANNELS.general);
    expect(sub?.lastPostedDay).toBe('2026-11-23');
    expect(await a.claims.read(WS, CHANNELS.general, '2026-11-23')).toMatchObject({ state: 'posted' });

    // The next day: one more, again only one.
    h.clock.set(saoPaulo(2026, 11, 24, 8, 1));
    await Promise.all([a.scheduler.tick(), b.scheduler.tick(), h.replica().scheduler.tick()]);
    expect(h.posts(CHANNELS.general)).toHaveLength(2);
    for (const post of h.posts(CHANNELS.general)) expect(limitsOf(post)).toEqual([]);
    expect(h.slack.limitViolations).toEqual([]);
  });

  it('a replica that starts after the hour posts the missed digest once, saying it is late', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    h.clock.set(saoPaulo(2026, 11, 23, 10, 0));
    const report = await h.replica().scheduler.tick();
    expect(report.posted).toBe(1);
    const [post] = h.posts(CHANNELS.general);
    expect(textOf(post!)).toContain('saiu com atraso de 2 h');
    expect(textOf(post!)).toContain('previsto às 08:00');
    await h.replica().scheduler.tick();
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
  });

  it('a digest of one stockroom whose pending purchases upstream refuses is posted without them, not lost', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general, stockroomId: 2 });
    // A lasting refusal of that stockroom's pending purchases (the one section), every time it is asked.
    h.sandbox.faults.next({ path: '/v1/entradas-materiais/compras', status: 403, times: 100 });
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    const report = await h.replica().scheduler.tick();
    expect(report).toMatchObject({ posted: 1, failed: 0 });
    const [post] = h.posts(CHANNELS.general);
    expect(textOf(post!)).toContain('Novas solicitações');
    // A 403 is no "try again later" (until 2026-11-27: "1 almoxarifado não pôde ser consultado agora… Tente de novo").
    expect(textOf(post!)).toContain('Sem permissão para o almoxarifado 2');
    expect(textOf(post!)).not.toContain('Tente de novo');
  });

  it('an on-time digest carries no delay note', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    await h.replica().scheduler.tick();
    expect(textOf(h.posts(CHANNELS.general)[0]!)).not.toContain('atraso');
  });

  it('a replica that starts 2 minutes after the hour says so; a post within the tick interval is on time', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    await h.subscribe({ channelId: CHANNELS.stockroom, hour: 9 });
    // The first tick that sees 08:00 comes up to an interval (DigestScheduler.start's 30 s) after it: that is the
    // schedule, not a delay.
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0) + 30_000);
    expect((await h.replica().scheduler.tick()).posted).toBe(1);
    expect(textOf(h.posts(CHANNELS.general)[0]!)).not.toContain('atraso');
    // No replica ran at 09:00; one starts at 09:02. Until 2026-11-27 a post under 5 minutes late said nothing.
    h.clock.set(saoPaulo(2026, 11, 23, 9, 2));
    expect((await h.replica().scheduler.tick()).posted).toBe(1);
    const [late] = h.posts(CHANNELS.stockroom);
    expect(textOf(late!)).toContain('saiu com atraso de 2 min (previsto às 09:00)');
  });

  it('days that passed while no replica ran are not posted: only today, once', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const first = h.replica();
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    await first.scheduler.tick();
    expect(h.posts(CHANNELS.general)).toHaveLength(1);

    // Nothing ran Tuesday to Thursday; a replica starts Friday at 10:00.
    h.clock.set(saoPaulo(2026, 11, 27, 10, 0));
    const late = h.replica();
    const report = await late.scheduler.tick();
    expect(report.posted).toBe(1);
    await late.scheduler.tick();
    expect(h.posts(CHANNELS.general)).toHaveLength(2);
    expect(textOf(h.posts(CHANNELS.general)[1]!)).toContain('atraso de 2 h');
    expect((await late.store.get(WS, CHANNELS.general))?.lastPostedDay).toBe('2026-11-27');
  });

  it("a subscription made after today's time starts tomorrow", async () => {
    const h = await start(saoPaulo(2026, 11, 23, 9));
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    expect((await replica.scheduler.tick()).due).toBe(0);
    h.clock.set(saoPaulo(2026, 11, 24, 8, 0));
    expect((await replica.scheduler.tick()).posted).toBe(1);
  });

  it('weekdays only: nothing on Saturday and Sunday, the post on Monday', async () => {
    const h = await start(saoPaulo(2026, 11, 20, 12));
    await h.subscribe({ channelId: CHANNELS.general, weekdaysOnly: true });
    const replica = h.replica();
    for (const at of [
      saoPaulo(2026, 11, 21, 8, 5),
      saoPaulo(2026, 11, 22, 8, 5),
      saoPaulo(2026, 11, 22, 23, 0),
    ]) {
      h.clock.set(at);
      expect((await replica.scheduler.tick()).due).toBe(0);
    }
    expect(h.posts(CHANNELS.general)).toHaveLength(0);
    h.clock.set(saoPaulo(2026, 11, 23, 8, 5));
    expect((await replica.scheduler.tick()).posted).toBe(1);
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
  });

  it('a process that died holding the claim does not lose the digest: its lease expires and another posts', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    const dead = new DigestClaims(new RedisKeyValue(h.redis.connect()), h.redis.keys, 'dead');
    const held = await dead.acquire(WS, CHANNELS.general, '2026-11-23');
    expect(held.acquired).toBe(true);

    const replica = h.replica();
    const busy = await replica.scheduler.tick();
    expect(busy).toMatchObject({ due: 1, claimed: 0, posted: 0 });
    // Nobody renews the lease: Redis lets it go when it runs out (here, a millisecond from now).
    const key = h.redis.keys.digestClaim(WS, CHANNELS.general, '2026-11-23');
    await h.redis.redis.pexpire(key, 1);
    await vi.waitFor(async () => expect(await h.redis.redis.exists(key)).toBe(0));
    expect((await replica.scheduler.tick()).posted).toBe(1);
    await replica.scheduler.tick();
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
  });

  it('a post Slack accepted whose day the subscription did not record (crash) is not posted again', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    const crashed = new DigestClaims(new RedisKeyValue(h.redis.connect()), h.redis.keys, 'crashed');
    const held = await crashed.acquire(WS, CHANNELS.general, '2026-11-23');
    if (!held.acquired) throw new Error('expected the claim');
    await held.claim.markPosted(h.clock.now(), h.clock.now() - MINUTE);

    const replica = h.replica();
    const report = await replica.scheduler.tick();
    expect(report.posted).toBe(0);
    expect(h.posts(CHANNELS.general)).toHaveLength(0);
    const sub = await replica.store.get(WS, CHANNELS.general);
    expect(sub?.lastPostedDay).toBe('2026-11-23');
    expect((await replica.scheduler.tick()).due).toBe(0);
  });

  /** The store refuses the first `times` writes of each of the post's records, as it does while Redis restarts. */
  function refuseRecords(replica: Replica, times: number) {
    const refused = { store: 0, claim: 0 };
    const refuseStore = () => refused.store++ < times;
    const refuseClaim = () => refused.claim++ < times;
    const storeWrite = replica.store.markPosted.bind(replica.store);
    vi.spyOn(replica.store, 'markPosted').mockImplementation(async (...args) => {
      if (refuseStore()) throw new Error('Reached the max retries per request limit (which is 3)');
      return storeWrite(...args);
    });
    // The claim's `posted` write, refused by the store itself (as Redis does while it restarts).
    const set = RedisKeyValue.prototype.set;
    vi.spyOn(RedisKeyValue.prototype, 'set').mockImplementation(function (this: RedisKeyValue, ...args) {
      if (args[1].startsWith('posted:') && refuseClaim())
        return Promise.reject(new Error('Reached the max retries per request limit (which is 3)'));
      return set.apply(this, args);
    });
    return refused;
  }

  it('a post Slack accepted while the store restarts is recorded once the store is back, not posted again', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    const replica = h.replica();
    // Three refusals of each write: more than the three tries the records had until 2026-11-27.
    refuseRecords(replica, 3);
    expect((await replica.scheduler.tick()).posted).toBe(1);
    // The claim's lease runs out (as it would while nobody could record it) and another replica ticks.
    await h.redis.redis.pexpire(h.redis.keys.digestClaim(WS, CHANNELS.general, '2026-11-23'), 1);
    await h.replica().scheduler.tick();
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
    expect((await replica.store.get(WS, CHANNELS.general))?.lastPostedDay).toBe('2026-11-23');
  });

  it('while the records are asked again, the claim stays renewed: another replica never takes the day', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    // A lease far shorter than the records' retries (the claim's write goes through after 100 + 200 + 400 + 800 +
    // 1,600 ms), long enough that a loaded machine's event-loop stalls do not outlast it between two renewals (every
    // 300 ms); until 2026-11-27 a 300 ms lease, renewed every 75 ms, which a stall under load could outlast.
    const a = h.replica({ leaseMs: 1_200 });
    const refused = refuseRecords(a, 5);
    const ticking = a.scheduler.tick();
    await vi.waitFor(() => expect(refused.claim).toBeGreaterThanOrEqual(5), { timeout: 10_000 });
    // Past a lease since the last refusal began its wait (1.6 s): a claim nobody renews is gone by now.
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    const key = h.redis.keys.digestClaim(WS, CHANNELS.general, '2026-11-23');
    expect(await h.redis.redis.exists(key)).toBe(1);
    expect((await ticking).posted).toBe(1);
    await h.replica().scheduler.tick();
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
  });

  it('a post whose records the store refused for longer is never posted again by its process, and recorded later', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    const replica = h.replica({ recordRetryMs: 0 });
    refuseRecords(replica, 1);
    expect((await replica.scheduler.tick()).posted).toBe(1);
    expect((await replica.store.get(WS, CHANNELS.general))?.lastPostedDay).toBeNull();
    // The lease runs out; the next tick of the same process records the day instead of posting it again.
    await h.redis.redis.pexpire(h.redis.keys.digestClaim(WS, CHANNELS.general, '2026-11-23'), 1);
    await vi.waitFor(async () =>
      expect(await h.redis.redis.exists(h.redis.keys.digestClaim(WS, CHANNELS.general, '2026-11-23'))).toBe(
        0,
      ),
    );
    // Its next ticks (the store still refusing one write) record the day instead of posting it again.
    expect((await replica.scheduler.tick()).posted).toBe(0);
    expect((await replica.scheduler.tick()).posted).toBe(0);
    expect((await replica.store.get(WS, CHANNELS.general))?.lastPostedDay).toBe('2026-11-23');
    await h.replica().scheduler.tick();
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
  });

  it('a broken link pauses the digests as unlinking does; a new link brings the day’s digest at once', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    await new LinkStore(new RedisKeyValue(h.redis.redis), h.redis.keys, h.box).markBroken(WS, h.clock.now());
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    const report = await replica.scheduler.tick();
    expect(report.posted).toBe(0);
    expect((await replica.store.get(WS, CHANNELS.general))?.paused).toBe('unlinked');
    expect(await replica.claims.read(WS, CHANNELS.general, '2026-11-23')).toBeNull();

    // An admin links again later that day (the link service repairs the link and resumes 'unlinked').
    const links = new LinkStore(new RedisKeyValue(h.redis.redis), h.redis.keys, h.box);
    const link = await links.get(WS);
    if (!link) throw new Error('no link');
    await links.save({ ...link, brokenAt: null });
    await replica.store.resumeWorkspace(WS, 'unlinked');
    h.clock.set(saoPaulo(2026, 11, 23, 8, 10));
    expect((await replica.scheduler.tick()).posted).toBe(1);
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
  });

  it('a paused subscription is not posted; a workspace without a link is paused', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    await h.subscribe({ workspaceId: 'T0NOLINK', channelId: 'C0NOLINK' });
    const replica = h.replica();
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    const report = await replica.scheduler.tick();
    expect(report.posted).toBe(1);
    expect(report.paused).toBe(1);
    expect((await replica.store.get('T0NOLINK', 'C0NOLINK'))?.paused).toBe('unlinked');
    expect(await replica.claims.read('T0NOLINK', 'C0NOLINK', '2026-11-23')).toBeNull();

    await replica.store.pauseWorkspace(WS, 'tokens_revoked');
    h.clock.set(saoPaulo(2026, 11, 24, 8, 0));
    expect((await replica.scheduler.tick()).due).toBe(0);
    await replica.store.resumeWorkspace(WS, 'tokens_revoked');
    expect((await replica.scheduler.tick()).posted).toBe(1);
  });
});

describe('a subscription cancelled, paused or changed while its digest is built', () => {
  /** Runs `change` while the replica builds the digest (the build may wait minutes for the budget). */
  function duringBuild(replica: Replica, change: () => Promise<void>): void {
    const build = replica.digests.build.bind(replica.digests);
    let done = false;
    vi.spyOn(replica.digests, 'build').mockImplementation(async (query) => {
      if (!done) {
        done = true;
        await change();
      }
      return build(query);
    });
  }

  it('cancelled: nothing is posted, and no state of the gone subscription is written again', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    duringBuild(replica, async () => {
      await replica.digestSubscriptions.unsubscribe(WS, CHANNELS.general);
    });
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    const report = await replica.scheduler.tick();
    expect(report).toMatchObject({ claimed: 1, posted: 0 });
    expect(h.posts(CHANNELS.general)).toHaveLength(0);
    expect(await replica.store.get(WS, CHANNELS.general)).toBeNull();
    expect(await h.redis.redis.exists(h.redis.keys.digestState(WS, CHANNELS.general))).toBe(0);
    expect(await replica.claims.read(WS, CHANNELS.general, '2026-11-23')).toBeNull();
  });

  it('paused by an unlink: nothing is posted; a new link brings the day’s digest, once', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    duringBuild(replica, async () => {
      await replica.store.pauseWorkspace(WS, 'unlinked');
    });
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    expect((await replica.scheduler.tick()).posted).toBe(0);
    expect(h.posts(CHANNELS.general)).toHaveLength(0);
    expect(await replica.claims.read(WS, CHANNELS.general, '2026-11-23')).toBeNull();

    await replica.store.resumeWorkspace(WS, 'unlinked');
    h.clock.set(saoPaulo(2026, 11, 23, 9, 0));
    const reports = await Promise.all([replica.scheduler.tick(), h.replica().scheduler.tick()]);
    expect(reports.reduce((sum, r) => sum + r.posted, 0)).toBe(1);
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
  });

  it('changed to another stockroom and a later hour: the old build is not posted; the new one comes at the new hour', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    duringBuild(replica, () => h.subscribe({ channelId: CHANNELS.general, stockroomId: 2, hour: 18 }));
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    expect(await replica.scheduler.tick()).toMatchObject({ posted: 0, stale: 1 });
    expect(h.posts(CHANNELS.general)).toHaveLength(0);

    h.clock.set(saoPaulo(2026, 11, 23, 12, 0));
    expect((await replica.scheduler.tick()).due).toBe(0);
    h.clock.set(saoPaulo(2026, 11, 23, 18, 0));
    const reports = await Promise.all([replica.scheduler.tick(), h.replica().scheduler.tick()]);
    expect(reports.reduce((sum, r) => sum + r.posted, 0)).toBe(1);
    const posts = h.posts(CHANNELS.general);
    expect(posts).toHaveLength(1);
    expect(textOf(posts[0]!)).not.toContain('Todos os almoxarifados');
    expect(textOf(posts[0]!)).toContain('Torre Norte');
    expect((await replica.store.get(WS, CHANNELS.general))?.lastPostedDay).toBe('2026-11-23');
  });

  it('changed at an hour already past: the day still owed is posted at the next tick with the new filters, once', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    duringBuild(replica, () => h.subscribe({ channelId: CHANNELS.general, stockroomId: 2, hour: 7 }));
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    expect((await replica.scheduler.tick()).posted).toBe(0);

    h.clock.set(saoPaulo(2026, 11, 23, 8, 0) + 30_000);
    const reports = await Promise.all([replica.scheduler.tick(), h.replica().scheduler.tick()]);
    expect(reports.reduce((sum, r) => sum + r.posted, 0)).toBe(1);
    const posts = h.posts(CHANNELS.general);
    expect(posts).toHaveLength(1);
    expect(textOf(posts[0]!)).toContain('Torre Norte');
    h.clock.set(saoPaulo(2026, 11, 23, 23, 0));
    expect((await replica.scheduler.tick()).posted).toBe(0);
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
  });

  it('only its time moved, to one already past: the build is still right and is posted, without a second build', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    duringBuild(replica, () => h.subscribe({ channelId: CHANNELS.general, hour: 7 }));
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    expect(await replica.scheduler.tick()).toMatchObject({ posted: 1, stale: 0, builds: 1 });
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
  });

  it('subscribed again with the same settings: the build is still right and is posted', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    duringBuild(replica, () => h.subscribe({ channelId: CHANNELS.general }));
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    expect((await replica.scheduler.tick()).posted).toBe(1);
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
  });
});

describe('changing a subscription keeps a day it still owes', () => {
  it('a post Slack refused at 08:00, then `assinar almox:2` at 08:30: the day is posted, with the new filter, once', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    h.slack.failNext('chat.postMessage', { status: 500 });
    expect((await replica.scheduler.tick()).failed).toBe(1);

    h.clock.set(saoPaulo(2026, 11, 23, 8, 30));
    await h.subscribe({ channelId: CHANNELS.general, stockroomId: 2 });
    for (const hour of [9, 12, 23]) {
      h.clock.set(saoPaulo(2026, 11, 23, hour, 0));
      await replica.scheduler.tick();
    }
    const posts = h.posts(CHANNELS.general);
    expect(posts).toHaveLength(1);
    expect(textOf(posts[0]!)).toContain('Torre Norte');
    expect((await replica.store.get(WS, CHANNELS.general))?.lastPostedDay).toBe('2026-11-23');
  });

  it('a subscription made after today’s time and changed later that day still starts tomorrow', async () => {
    const h = await start(saoPaulo(2026, 11, 23, 9));
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    h.clock.set(saoPaulo(2026, 11, 23, 9, 30));
    await h.subscribe({ channelId: CHANNELS.general, stockroomId: 2 });
    h.clock.set(saoPaulo(2026, 11, 23, 10, 0));
    expect((await replica.scheduler.tick()).due).toBe(0);
    h.clock.set(saoPaulo(2026, 11, 24, 8, 0));
    expect((await replica.scheduler.tick()).posted).toBe(1);
  });
});

describe('running', () => {
  it('start ticks at once and then every interval, until stop', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    const replica = h.replica();
    const ticks: number[] = [];
    const tick = replica.scheduler.tick.bind(replica.scheduler);
    replica.scheduler.tick = () => {
      ticks.push(h.clock.now());
      return tick();
    };

    replica.scheduler.start(MINUTE);
    expect(ticks).toEqual([]);
    h.clock.runDue();
    await vi.waitFor(() => expect(h.posts(CHANNELS.general)).toHaveLength(1));
    // The next tick is set once this one ends, an interval later.
    await vi.waitFor(() => expect(h.clock.pending).toBe(1));
    h.clock.advance(MINUTE - 1);
    expect(h.clock.runDue()).toBe(0);
    h.clock.advance(1);
    expect(h.clock.runDue()).toBe(1);
    await vi.waitFor(() => expect(h.clock.pending).toBe(1));

    await replica.scheduler.stop();
    expect(h.clock.pending).toBe(0);
    h.clock.set(saoPaulo(2026, 11, 24, 8, 0));
    expect(h.clock.runDue()).toBe(0);
    expect(ticks).toEqual([saoPaulo(2026, 11, 23, 8, 0), saoPaulo(2026, 11, 23, 8, 1)]);
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
  });
});

describe('daylight saving time (America/New_York)', () => {
  const NY = 'America/New_York';

  it('02:30 on the spring-forward day (it does not exist) posts once at 03:00, the first valid instant', async () => {
    const h = await start(Date.UTC(2026, 2, 7, 12));
    await h.subscribe({ channelId: CHANNELS.general, hour: 2, minute: 30, timeZone: NY });
    const replica = h.replica();
    h.clock.set(Date.UTC(2026, 2, 8, 6, 59)); // 01:59 EST
    expect((await replica.scheduler.tick()).due).toBe(0);
    h.clock.set(Date.UTC(2026, 2, 8, 7, 0)); // 03:00 EDT
    expect((await replica.scheduler.tick()).posted).toBe(1);
    expect(textOf(h.posts(CHANNELS.general)[0]!)).not.toContain('atraso');
    for (const at of [
      Date.UTC(2026, 2, 8, 7, 30),
      Date.UTC(2026, 2, 8, 8, 30),
      Date.UTC(2026, 2, 9, 3, 59),
    ]) {
      h.clock.set(at);
      await replica.scheduler.tick();
    }
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
    // The next day, 02:30 EDT exists again.
    h.clock.set(Date.UTC(2026, 2, 9, 6, 29));
    expect((await replica.scheduler.tick()).due).toBe(0);
    h.clock.set(Date.UTC(2026, 2, 9, 6, 30));
    expect((await replica.scheduler.tick()).posted).toBe(1);
  });

  it('01:30 on the fall-back day (it happens twice) posts once, at the first', async () => {
    const h = await start(Date.UTC(2026, 9, 31, 12));
    await h.subscribe({ channelId: CHANNELS.general, hour: 1, minute: 30, timeZone: NY });
    const replica = h.replica();
    h.clock.set(Date.UTC(2026, 10, 1, 5, 29)); // 01:29 EDT
    expect((await replica.scheduler.tick()).due).toBe(0);
    h.clock.set(Date.UTC(2026, 10, 1, 5, 30)); // 01:30 EDT
    expect((await replica.scheduler.tick()).posted).toBe(1);
    for (const at of [
      Date.UTC(2026, 10, 1, 6, 0),
      Date.UTC(2026, 10, 1, 6, 30),
      Date.UTC(2026, 10, 1, 6, 45),
    ]) {
      h.clock.set(at); // 01:00, 01:30 and 01:45 EST: the repeated hour
      await Promise.all([replica.scheduler.tick(), h.replica().scheduler.tick()]);
    }
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
  });
});

describe('upstream budget', () => {
  it('when the budget cannot cover the digest the claim is released, and a later tick posts once it frees', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general, stockroomId: 1 });
    const window = 2_000;
    const replica = h.replica({
      budget: {
        limit: { count: 8, windowMs: window },
        maxWaitMs: { digest: 500 },
        reserve: { digest: 0 },
        onTestClock: true,
      },
    });
    // At 08:00 interactive commands have spent the whole window; it frees later than a digest may wait. The bot
    // logged in before (a renewal goes at interactive priority, and waits as long as a command would).
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    await replica.tokens.accessToken(
      { id: h.credentialId, login: C1.login, password: C1.password, empresaId: C1.empresa, unidadeId: null },
      'interactive',
    );
    for (let i = 0; i < 7; i += 1)
      await replica.budget.schedule(h.credentialId, 'interactive', async () => i);
    const failed = await replica.scheduler.tick();
    expect(failed).toMatchObject({ claimed: 1, posted: 0, failed: 1 });
    expect(await replica.claims.read(WS, CHANNELS.general, '2026-11-23')).toBeNull();
    expect(h.posts(CHANNELS.general)).toHaveLength(0);
    expect(h.dataCalls()).toEqual([]);

    // Retries wait for the backoff (1 min) even though the claim is free.
    h.clock.advance(30_000);
    expect((await replica.scheduler.tick()).claimed).toBe(0);

    // The window (and its guard) passed long ago; the backoff too.
    h.clock.advance(10 * MINUTE);
    const later = await replica.scheduler.tick();
    expect(later.posted).toBe(1);
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
    expect(textOf(h.posts(CHANNELS.general)[0]!)).toMatch(/atraso de 1[01] min/);
  });

  it('a short exhaustion is waited for within the tick, the claim renewed meanwhile', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general, stockroomId: 1 });
    const replica = h.replica({
      budget: { limit: { count: 8, windowMs: 1_000 }, maxWaitMs: { digest: 3_000 }, reserve: { digest: 0 } },
      // Half the wait: without renewals (every 150 ms) the claim would expire before the post.
      leaseMs: 600,
    });
    // A real wait: the lease runs out on the Redis clock, which no test can move.
    await replica.budget.pause(h.credentialId, 1_200);
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    const started = Date.now();
    expect((await replica.scheduler.tick()).posted).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_100);
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
  });
});

describe('sharing upstream fetches', () => {
  it('two channels with the same filters share one fetch; another filter makes its own', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    await h.subscribe({ channelId: CHANNELS.stockroom, subscribedBy: FAKE_SEED.users.admin });
    const replica = h.replica();
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    const report = await replica.scheduler.tick();
    expect(report).toMatchObject({ posted: 2, builds: 1 });
    const calls = h.dataCalls();
    expect(new Set(calls).size).toBe(calls.length);
    // Both channels got the same digest.
    const [general] = h.posts(CHANNELS.general);
    const [stockroom] = h.posts(CHANNELS.stockroom);
    expect(stockroom?.blocks).toEqual(general?.blocks);
    expect(calls.length).toBeLessThanOrEqual(16);

    // The next day, one channel filtered by a stockroom: two builds.
    await h.subscribe({ channelId: CHANNELS.stockroom, stockroomId: 2 });
    h.clock.set(saoPaulo(2026, 11, 24, 8, 0));
    const next = await replica.scheduler.tick();
    expect(next).toMatchObject({ posted: 2, builds: 2 });
  });
});

describe('Slack failures', () => {
  for (const [name, channel, setup] of [
    ['not_in_channel', CHANNELS.withoutBot, () => undefined],
    ['is_archived', CHANNELS.archived, () => undefined],
    [
      'channel_not_found',
      CHANNELS.general,
      (h: Harness) => h.slack.failNext('chat.postMessage', { error: 'channel_not_found' }),
    ],
    // Posting restricted by a workspace preference, or a read-only channel: as lasting as the setting.
    [
      'restricted_action',
      CHANNELS.general,
      (h: Harness) => h.slack.failNext('chat.postMessage', { error: 'restricted_action' }),
    ],
    [
      'restricted_action_read_only_channel',
      CHANNELS.general,
      (h: Harness) => h.slack.failNext('chat.postMessage', { error: 'restricted_action_read_only_channel' }),
    ],
    // "Make sure your app is a member of the conversation it's attempting to post a message to."
    [
      'no_permission',
      CHANNELS.general,
      (h: Harness) => h.slack.failNext('chat.postMessage', { error: 'no_permission' }),
    ],
    // "Administrators have suspended the ability to post a message" (Enterprise Key Management).
    [
      'ekm_access_denied',
      CHANNELS.general,
      (h: Harness) => h.slack.failNext('chat.postMessage', { error: 'ekm_access_denied' }),
    ],
    // "Access to a resource specified in the request is denied": the one resource a post names is its channel
    // (until 2026-11-27 retried every tick, every day).
    [
      'access_denied',
      CHANNELS.general,
      (h: Harness) => h.slack.failNext('chat.postMessage', { error: 'access_denied' }),
    ],
  ] as const) {
    it(`${name}: the subscription is removed and the subscriber gets a DM`, async () => {
      const h = await start();
      await h.subscribe({ channelId: channel });
      const replica = h.replica();
      h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
      setup(h);
      const report = await replica.scheduler.tick();
      expect(report).toMatchObject({ posted: 0, removed: 1 });
      expect(await replica.store.get(WS, channel)).toBeNull();
      const dms = h.dms(SUBSCRIBER);
      expect(dms).toHaveLength(1);
      expect(textOf(dms[0]!)).toContain('Cancelei a assinatura do resumo');
      expect(textOf(dms[0]!)).toContain(`<#${channel}>`);
      expect(limitsOf(dms[0]!)).toEqual([]);
      h.clock.advance(HOUR);
      expect((await replica.scheduler.tick()).due).toBe(0);
    });
  }

  // Refusals Slack documents for the token or the app, not the channel: the app lacks chat:write, the token is not
  // a bot token, the workspace's network policy or org keeps it out. No post can succeed until a reinstall (or, with
  // SLACK_BOT_TOKEN, a new token): the workspace's digests pause, as for a revoked token.
  for (const error of ['missing_scope', 'not_allowed_token_type', 'accesslimited'] as const) {
    it(`${error}: the workspace's digests pause at once; nothing is built or read upstream for days after`, async () => {
      const h = await start();
      await h.subscribe({ channelId: CHANNELS.general });
      await h.subscribe({ channelId: CHANNELS.stockroom, stockroomId: 2 });
      const replica = h.replica();
      h.slack.failNext('chat.postMessage', { error }, 10_000);
      h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
      expect(await replica.scheduler.tick()).toMatchObject({ builds: 2, posted: 0, failed: 0, paused: 2 });
      for (const channelId of [CHANNELS.general, CHANNELS.stockroom])
        expect((await replica.store.get(WS, channelId))?.paused).toBe('tokens_revoked');
      const calls = h.dataCalls().length;
      const posts = () => h.slack.calls.filter((call) => call.method === 'chat.postMessage').length;
      const tried = posts();

      // Ticks every half hour for the rest of that day and two more, as replicas would (until 2026-11-27 each
      // released its claim with a backoff of up to 30 min and built the digests again, all day, every day).
      let builds = 0;
      for (let at = saoPaulo(2026, 11, 23, 8, 30); at <= saoPaulo(2026, 11, 25, 23, 30); at += 30 * MINUTE) {
        h.clock.set(at);
        builds += (await replica.scheduler.tick()).builds;
      }
      expect(builds).toBe(0);
      expect(h.dataCalls()).toHaveLength(calls);
      expect(posts()).toBe(tried);
      // Nobody can be told in Slack by a post (the same refusal); `resumo listar` and the Home say it is paused.
      expect(h.posts(CHANNELS.general)).toEqual([]);
      expect(h.dms(SUBSCRIBER)).toEqual([]);
    });
  }

  it('org_login_required (a migration to an Enterprise org under way) is waited out: retried, nothing paused', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    h.slack.failNext('chat.postMessage', { error: 'org_login_required' });
    expect(await replica.scheduler.tick()).toMatchObject({ posted: 0, failed: 1, paused: 0 });
    expect((await replica.store.get(WS, CHANNELS.general))?.paused).toBeNull();
    h.clock.advance(MINUTE);
    expect((await replica.scheduler.tick()).posted).toBe(1);
  });

  it('the subscriber is told even when Slack rate-limits the DM (it waits for Retry-After, as a post does)', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    h.slack.failNext('chat.postMessage', { error: 'channel_not_found' });
    h.slack.failNext('chat.postMessage', { status: 429, retryAfterSec: 1 });
    expect(await replica.scheduler.tick()).toMatchObject({ posted: 0, removed: 1 });
    // Until 2026-11-27 the DM was one attempt: a 429 lost the notice, and the subscription was gone all the same.
    expect(h.dms(SUBSCRIBER)).toHaveLength(1);
    expect(replica.sleeps).toEqual([1_000]);
  });

  it('429: waits for Retry-After, then posts once', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    h.slack.failNext('chat.postMessage', { status: 429, retryAfterSec: 1 });
    const report = await replica.scheduler.tick();
    expect(report.posted).toBe(1);
    expect(replica.sleeps).toEqual([1_000]);
    const attempts = h.slack.calls.filter((call) => call.method === 'chat.postMessage');
    expect(attempts.map((call) => call.status)).toEqual([429, 200]);
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
  });

  it('500: nothing posted, the claim released, the next tick after the backoff posts once', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    h.slack.failNext('chat.postMessage', { status: 500 });
    expect(await replica.scheduler.tick()).toMatchObject({ posted: 0, failed: 1 });
    expect(await replica.claims.read(WS, CHANNELS.general, '2026-11-23')).toBeNull();
    expect(h.posts(CHANNELS.general)).toHaveLength(0);
    h.clock.advance(MINUTE);
    expect((await replica.scheduler.tick()).posted).toBe(1);
    h.clock.advance(MINUTE);
    await replica.scheduler.tick();
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
    expect(await replica.store.get(WS, CHANNELS.general)).not.toBeNull();
  });

  it('a post that may have reached Slack (a 5xx) is made again saying it may repeat; a refused one is not', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    await h.subscribe({ channelId: CHANNELS.stockroom });
    const replica = h.replica();
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    // The first channel's post gets a 503 (Slack's fatal_error may follow a post made); the second, Slack's word (a
    // refusal of the moment: a workspace moving to an Enterprise org).
    h.slack.failNext('chat.postMessage', { status: 503 });
    h.slack.failNext('chat.postMessage', { error: 'org_login_required' });
    expect(await replica.scheduler.tick()).toMatchObject({ posted: 0, failed: 2 });
    h.clock.advance(MINUTE);
    expect((await replica.scheduler.tick()).posted).toBe(2);
    // The channel whose post got the 503 says so; the one Slack refused in words does not.
    const [first, second] = h.slack.calls.filter((call) => call.method === 'chat.postMessage');
    const fiveHundred = String(first?.args.channel);
    const refused = String(second?.args.channel);
    expect(first?.status).toBe(503);
    expect(textOf(h.posts(fiveHundred)[0]!)).toContain('Este resumo pode repetir um enviado às 08:00');
    expect(textOf(h.posts(refused)[0]!)).not.toContain('pode repetir');
  });

  it('a replica that dies mid-post leaves its claim to expire; the one that takes the day says it may repeat', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const b = h.replica();
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    // Replica A claimed the day, noted its attempt and sent the post; it died before it read Slack's reply.
    const a = new DigestClaims(new RedisKeyValue(h.redis.redis), h.redis.keys, 'replica-a', {
      leaseMs: 1_000,
    });
    const taken = await a.acquire(WS, CHANNELS.general, '2026-11-23');
    if (!taken.acquired) throw new Error('not acquired');
    await taken.claim.noteAttempt(h.clock.now());
    // Its lease runs out; B takes the day.
    await h.redis.redis.del(taken.claim.key);
    h.clock.advance(MINUTE);
    expect((await b.scheduler.tick()).posted).toBe(1);
    expect(textOf(h.posts(CHANNELS.general)[0]!)).toContain('Este resumo pode repetir um enviado às 08:00');
  });
});

describe('Slack refuses the message itself (its blocks, its length)', () => {
  const postCalls = (h: Harness) => h.slack.calls.filter((call) => call.method === 'chat.postMessage');

  // A message refused for what it holds is refused again however often it is sent, and each retry built the digest
  // again (upstream calls). Until 2026-11-27 these were retried with a backoff of up to 30 min, all day, every day.
  for (const error of ['invalid_blocks', 'msg_too_long'] as const) {
    it(`${error}: one short plain fallback is posted instead, the day is done; no rebuild, no retry, on any replica`, async () => {
      const h = await start();
      await h.subscribe({ channelId: CHANNELS.general });
      const [a, b] = [h.replica(), h.replica()];
      h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
      // Slack refuses the digest once (the fallback that follows is taken).
      h.slack.failNext('chat.postMessage', { error });
      const first = await a.scheduler.tick();
      const calls = h.dataCalls().length;
      let builds = 0;
      for (let at = saoPaulo(2026, 11, 23, 8, 1); at <= saoPaulo(2026, 11, 23, 23, 31); at += 30 * MINUTE) {
        h.clock.set(at);
        const reports = await Promise.all([
          a.scheduler.tick(),
          b.scheduler.tick(),
          h.replica().scheduler.tick(),
        ]);
        builds += reports.reduce((sum, report) => sum + report.builds, 0);
      }
      expect(first).toMatchObject({ builds: 1, posted: 1, refused: 1, failed: 0, removed: 0, paused: 0 });
      expect(builds).toBe(0);
      // The digest, refused, then its fallback: nothing more, and nothing read upstream again.
      const attempts = postCalls(h);
      expect(attempts.map((call) => call.error ?? 'ok')).toEqual([error, 'ok']);
      expect(h.dataCalls()).toHaveLength(calls);
      const [fallback] = h.posts(CHANNELS.general);
      expect(h.posts(CHANNELS.general)).toHaveLength(1);
      expect(fallback?.text).toContain('O resumo do estoque de hoje não pôde ser mostrado aqui');
      expect(fallback?.text).toContain('/solicitacao');
      expect(fallback?.blocks ?? []).toEqual([]);
      expect(attempts[1]?.args.blocks).toBeUndefined();
      expect((await a.store.get(WS, CHANNELS.general))?.lastPostedDay).toBe('2026-11-23');
      expect(await a.claims.read(WS, CHANNELS.general, '2026-11-23')).toMatchObject({ state: 'posted' });
      // Nothing paused, nothing removed, nobody DMed: the channel and the app are fine.
      expect((await a.store.get(WS, CHANNELS.general))?.paused).toBeNull();
      expect(h.dms(SUBSCRIBER)).toEqual([]);

      // The next day's digest is built and posted as usual.
      h.clock.set(saoPaulo(2026, 11, 24, 8, 0));
      expect((await a.scheduler.tick()).posted).toBe(1);
      expect(textOf(h.posts(CHANNELS.general)[1]!)).toContain('Novas solicitações');
    });
  }

  it('a fallback refused too: given up for the day (logged), the subscription kept, not paused, never retried', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    // Every post of the day is refused for its content, the plain fallback too.
    h.slack.failNext('chat.postMessage', { error: 'invalid_blocks' }, 10_000);
    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    const first = await replica.scheduler.tick();
    const calls = h.dataCalls().length;
    // Ticks every half hour for the rest of the day, as replicas would.
    let builds = 0;
    for (let at = saoPaulo(2026, 11, 23, 8, 1); at <= saoPaulo(2026, 11, 23, 23, 31); at += 30 * MINUTE) {
      h.clock.set(at);
      builds += (await replica.scheduler.tick()).builds;
    }
    // The digest and its fallback, each refused once; not built again, nothing read upstream again.
    expect({ builds, dataCalls: h.dataCalls().length - calls, posts: postCalls(h).length }).toEqual({
      builds: 0,
      dataCalls: 0,
      posts: 2,
    });
    expect(postCalls(h).map((call) => call.error)).toEqual(['invalid_blocks', 'invalid_blocks']);
    expect(first).toMatchObject({ builds: 1, posted: 0, failed: 0, paused: 0, removed: 0, refused: 1 });
    const sub = await replica.store.get(WS, CHANNELS.general);
    expect(sub).toMatchObject({ paused: null, lastPostedDay: '2026-11-23' });
    expect(h.dms(SUBSCRIBER)).toEqual([]);
  });
});

describe('agora', () => {
  it('posts the channel digest now without taking the day: the scheduled one still comes, once', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    expect((await replica.scheduler.postNow(WS, CHANNELS.general)).kind).toBe('posted');
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
    expect((await replica.store.get(WS, CHANNELS.general))?.lastPostedDay).toBeNull();

    h.clock.set(saoPaulo(2026, 11, 23, 8, 0));
    expect((await replica.scheduler.tick()).posted).toBe(1);
    expect(h.posts(CHANNELS.general)).toHaveLength(2);
    expect(await replica.scheduler.postNow(WS, CHANNELS.stockroom)).toEqual({ kind: 'not_subscribed' });
  });

  it('a digest Slack refuses for what it holds: the fallback goes to the channel, and the answer offers no retry', async () => {
    const h = await start();
    await h.subscribe({ channelId: CHANNELS.general });
    const replica = h.replica();
    h.slack.failNext('chat.postMessage', { error: 'msg_too_long' });
    const answer = await replica.digestSubscriptions.postNow(WS, CHANNELS.general);
    expect(answer.text).toContain('O Slack recusou a mensagem do resumo (`msg_too_long`)');
    expect(answer.text).toContain('Postei no canal um aviso curto no lugar dele');
    expect(answer.text).not.toContain('Tente de novo');
    expect(h.posts(CHANNELS.general).map((post) => post.text)).toEqual([
      expect.stringContaining('O resumo do estoque de hoje não pôde ser mostrado aqui'),
    ]);

    h.slack.failNext('chat.postMessage', { error: 'invalid_blocks' }, 2);
    const refused = await replica.digestSubscriptions.postNow(WS, CHANNELS.general);
    expect(refused.text).toContain('Nem um aviso curto no lugar dele foi aceito');
    expect(h.posts(CHANNELS.general)).toHaveLength(1);
  });
});
