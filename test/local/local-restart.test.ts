import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { FAKE_SEED } from '../../src/fake-slack/index.js';
import { makeLogger } from '../../src/lib/logger.js';
import { type LocalMode, type LocalModeOverrides, startLocalMode } from '../../src/local/local-mode.js';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { EmbeddedKeyValue } from '../../src/store/embedded-kv.js';
import {
  openPlaygroundEvents,
  type PlaygroundEvents,
  type PlaygroundMessage,
  playgroundCommand,
  textOfPlaygroundMessage,
} from './sse.js';

/**
 * Local mode across a restart: the sandbox comes back as it was (its first start's clock and every advance made,
 * replayed), so the store's feed snapshots, cache and follows still describe it and alerts keep going forward.
 */

/** An open request of the demo data: the sandbox can move it along. */
const FOLLOWED_ID = DEMO_FACTS.company1.requestsWithItemsBelowMinimum[0];

interface Move {
  id: number;
  from: string;
  to: string;
}

/** Every "Solicitação N: A → B" line of a message. */
function movesIn(message: PlaygroundMessage): Move[] {
  const text = textOfPlaygroundMessage(message).replace(/[*_]/g, '');
  return [...text.matchAll(/Solicitação (\d+): ([^\n→]+?) → ([^\n]+)/g)].map((m) => ({
    id: Number(m[1]),
    from: (m[2] ?? '').trim(),
    to: (m[3] ?? '').trim(),
  }));
}

describe('local mode restarted', () => {
  let dataDir: string;
  const running: LocalMode[] = [];
  const opened: PlaygroundEvents[] = [];

  const start = async (overrides: LocalModeOverrides = {}) => {
    const local = await startLocalMode(loadConfig({ DATA_DIR: dataDir }), makeLogger({ level: 'silent' }), {
      port: 0,
      sandboxPort: 0,
      print: () => undefined,
      ...overrides,
    });
    running.push(local);
    const page = await openPlaygroundEvents(local.url);
    opened.push(page);
    return { local, page };
  };
  const isChannel = (m: PlaygroundMessage) => !m.ephemeral && m.channel === FAKE_SEED.channels.stockroom;

  /** `/estoque sandbox avancar N`: the sandbox's moves, as its reply lists them. */
  const advance = async (local: LocalMode, page: PlaygroundEvents, changes: number) => {
    expect(await playgroundCommand(local.url, '/estoque', `sandbox avancar ${changes}`)).toEqual({
      ok: true,
    });
    const reply = await page.message(
      (m) => m.ephemeral && textOfPlaygroundMessage(m).includes('O sandbox fez'),
    );
    return movesIn(reply);
  };
  /** The moves of the channel alert that tells of the followed request. */
  const alerted = async (page: PlaygroundEvents) =>
    movesIn(await page.message((m) => isChannel(m) && movesIn(m).some((move) => move.id === FOLLOWED_ID)));

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'estoque-local-restart-'));
  });
  afterEach(async () => {
    for (const page of opened.splice(0)) page.close();
    await Promise.all(running.splice(0).map((local) => local.close()));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('advance, stop, start, advance: the sandbox goes on from where it was and the alerts go forward', {
    timeout: 60_000,
  }, async () => {
    const first = await start();
    await playgroundCommand(first.local.url, '/estoque', 'alertas assinar');
    await first.page.message((m) => isChannel(m) && m.text.includes('assinou os alertas'));
    await playgroundCommand(first.local.url, '/solicitacao', `${FOLLOWED_ID} acompanhar`);
    await first.page.message((m) => textOfPlaygroundMessage(m).includes('Você passou a acompanhar'));
    const before = await advance(first.local, first.page, 3);
    const movedFirst = before.find((m) => m.id === FOLLOWED_ID);
    expect(movedFirst).toBeDefined();
    expect(await alerted(first.page)).toContainEqual(movedFirst);
    await first.local.close();

    const second = await start();
    const after = await advance(second.local, second.page, 3);
    // The sandbox did not start again from its seed: the followed request moves on from where the first run left it.
    const movedSecond = after.find((m) => m.id === FOLLOWED_ID);
    expect(movedSecond?.from).toBe(movedFirst?.to);
    expect(after).not.toEqual(before);
    // Every alert of the second run is one of its own moves: none told backwards, none from the first run.
    const alertedSecond = await alerted(second.page);
    expect(alertedSecond).toContainEqual(movedSecond);
    for (const move of alertedSecond) {
      expect(after).toContainEqual(move);
      expect(before.some((old) => old.id === move.id && old.from === move.to && old.to === move.from)).toBe(
        false,
      );
    }
  });

  it('a store from before the sandbox runs were kept: what the feed saw is forgotten, and nothing is told backwards', {
    timeout: 60_000,
  }, async () => {
    const first = await start();
    await playgroundCommand(first.local.url, '/estoque', 'alertas assinar');
    await first.page.message((m) => isChannel(m) && m.text.includes('assinou os alertas'));
    await playgroundCommand(first.local.url, '/solicitacao', `${FOLLOWED_ID} acompanhar`);
    await first.page.message((m) => textOfPlaygroundMessage(m).includes('Você passou a acompanhar'));
    // Two advances: the second one moves the followed request further, past where a fresh sandbox's first goes.
    const before = [
      ...(await advance(first.local, first.page, 3)),
      ...(await advance(first.local, first.page, 3)),
    ];
    await first.local.close();
    // The store as a version that did not keep the sandbox's run left it.
    const kv = await EmbeddedKeyValue.open({ file: join(dataDir, 'store.json') });
    expect(await kv.del('estoque:local-sandbox-run')).toBe(1);
    await kv.close();

    const second = await start();
    const after = await advance(second.local, second.page, 3);
    const moved = after.find((m) => m.id === FOLLOWED_ID);
    expect(moved).toBeDefined();
    const alertedSecond = await alerted(second.page);
    expect(alertedSecond).toContainEqual(moved);
    for (const move of alertedSecond) expect(after).toContainEqual(move);
    expect(
      before.some((old) =>
        alertedSecond.some((m) => m.id === old.id && m.from === old.to && m.to === old.from),
      ),
    ).toBe(false);
  });

  it('past the advances a run keeps, the record stays bounded and the next start is a new run: nothing told backwards', {
    timeout: 60_000,
  }, async () => {
    const bound = { maxSandboxAdvances: 2 };
    const storedRun = async () => {
      const kv = await EmbeddedKeyValue.open({ file: join(dataDir, 'store.json') });
      try {
        return JSON.parse((await kv.get('estoque:local-sandbox-run')) ?? 'null') as {
          advances: unknown[];
          overflowed?: boolean;
        };
      } finally {
        await kv.close();
      }
    };
    const first = await start(bound);
    await playgroundCommand(first.local.url, '/estoque', 'alertas assinar');
    await first.page.message((m) => isChannel(m) && m.text.includes('assinou os alertas'));
    await playgroundCommand(first.local.url, '/solicitacao', `${FOLLOWED_ID} acompanhar`);
    await first.page.message((m) => textOfPlaygroundMessage(m).includes('Você passou a acompanhar'));
    // One advance past the bound: the running sandbox goes on as before, in memory.
    const before: Move[] = [];
    for (let n = 0; n < 3; n += 1) {
      const moves = await advance(first.local, first.page, 3);
      expect(moves.length).toBeGreaterThan(0);
      before.push(...moves);
    }
    await first.local.close();
    // Until 2026-11-27 every advance stayed in the record (3 here), replayed at each start.
    const run = await storedRun();
    expect(run.advances.length).toBeLessThanOrEqual(bound.maxSandboxAdvances);
    expect(run.overflowed).toBe(true);

    const second = await start(bound);
    const after = await advance(second.local, second.page, 3);
    const moved = after.find((m) => m.id === FOLLOWED_ID);
    expect(moved).toBeDefined();
    // A new run: the feed forgot the old one, so every alert is one of this run's moves, none told backwards.
    const alertedSecond = await alerted(second.page);
    expect(alertedSecond).toContainEqual(moved);
    for (const move of alertedSecond) expect(after).toContainEqual(move);
    expect(
      before.some((old) =>
        alertedSecond.some((m) => m.id === old.id && m.from === old.to && m.to === old.from),
      ),
    ).toBe(false);
    await second.local.close();
    expect(await storedRun()).toMatchObject({ advances: [expect.anything()] });
  });
});
