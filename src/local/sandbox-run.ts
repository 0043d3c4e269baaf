import { errFields, type Logger } from '../lib/logger.js';
import type { AdvanceRequest } from '../sandbox/changes.js';
import type { Keys } from '../store/keys.js';
import type { KeyValue } from '../store/kv.js';

/**
 * Local mode's sandbox runs in memory, while the store (feed snapshots, cache, follows' last-seen statuses) outlives
 * a restart. So that both still agree after one, the store keeps what the sandbox needs to come back as it was: the
 * time of its first start (its demo data's dates are offsets from it), its seed, and every advance made since, with
 * the time it was made at. The sandbox's advances are deterministic (same seed, same data, same advances in order:
 * same changes, see src/sandbox/advance.ts), so the next start builds the data at that time and makes them again.
 *
 * The list is bounded (MAX_RECORDED_ADVANCES). Advances cannot be folded into a count: each one's outcome depends on
 * its request (company, number of changes, the followed requests moved first) and on the data the advances before it
 * left, so only the whole list gives that data back. Past the bound the record keeps no advances and says so
 * (`overflowed`): the running sandbox goes on in memory unchanged, and the next start begins a new run (a fresh
 * sandbox at that time) while local mode forgets what the feed, the cache and the follows saw of the old one, as for
 * a store without a run. Until 2026-11-27 the list grew with every advance, and every start replayed all of it.
 */

/** Advances a run keeps for replay; one more and the next start begins a new run. */
export const MAX_RECORDED_ADVANCES = 1_000;

export interface SandboxRunRecord {
  version: 1;
  /** The sandbox's clock at its first start. */
  startedAt: number;
  seed: number;
  /** Every advance made, in order, with the sandbox clock's time it was made at. */
  advances: { at: number; request: AdvanceRequest }[];
  /** More advances were made than a run keeps: none is kept, and the next start begins a new run. */
  overflowed?: true;
}

export interface SandboxRun {
  /** The sandbox's seed. */
  seed: number;
  /**
   * No run to replay was found in the store (a new store, one from before runs were kept, or a run that went past
   * its bound): the sandbox starts afresh.
   */
  fresh: boolean;
  /** The stored run had gone past MAX_RECORDED_ADVANCES: the store describes a sandbox that is not coming back. */
  overflowed: boolean;
  /** The sandbox's clock: the recorded times while starting and replaying, the real clock afterwards. */
  now(): number;
  /** startSandbox's onAdvance: records an advance made by the running sandbox (not one replayed). */
  record(request: AdvanceRequest, at: number): void;
  /** Makes the recorded advances again, in order, each at its time; then the clock is the real one. */
  replay(sandbox: { advance(request: AdvanceRequest): unknown }): number;
  /** Resolves once every advance recorded so far is in the store. */
  saved(): Promise<void>;
}

const DEFAULT_SEED = 1;

/** `maxAdvances`: how many advances the run keeps. */
export async function openSandboxRun(
  kv: KeyValue,
  keys: Keys,
  logger: Logger,
  clock: () => number = Date.now,
  maxAdvances: number = MAX_RECORDED_ADVANCES,
): Promise<SandboxRun> {
  const key = keys.localSandboxRun();
  const raw = await kv.get(key);
  let run = raw === null ? null : parseRecord(raw);
  if (raw !== null && run === null) logger.warn('stored sandbox run unreadable: the sandbox starts afresh');
  const overflowed = run?.overflowed === true;
  if (overflowed) {
    logger.info({ maxAdvances }, 'the sandbox run went past its recorded advances: a new run starts');
    run = null;
  }
  const fresh = run === null;
  run ??= { version: 1, startedAt: clock(), seed: DEFAULT_SEED, advances: [] };
  const record: SandboxRunRecord = run;
  let replayAt: number | null = record.startedAt;
  let replaying = false;
  let writes: Promise<void> = Promise.resolve();
  const save = () => {
    const value = JSON.stringify(record);
    writes = writes
      .then(() => kv.set(key, value))
      .then(
        () => undefined,
        (error: unknown) => logger.warn(errFields(error), 'could not save the sandbox run'),
      );
    return writes;
  };
  if (fresh) await save();
  return {
    seed: record.seed,
    fresh,
    overflowed,
    now: () => replayAt ?? clock(),
    record(request, at) {
      if (replaying || record.overflowed) return;
      if (record.advances.length >= maxAdvances) {
        // The list would not give the data back without this advance: keep none, and start anew next time.
        record.advances = [];
        record.overflowed = true;
        logger.warn(
          { maxAdvances },
          'sandbox advances past what a run keeps: the next start begins a new sandbox run',
        );
      } else {
        record.advances.push({ at, request });
      }
      void save();
    },
    replay(sandbox) {
      replaying = true;
      try {
        for (const advance of record.advances) {
          replayAt = advance.at;
          try {
            sandbox.advance(advance.request);
          } catch (error) {
            logger.warn({ ...errFields(error), at: advance.at }, 'a recorded sandbox advance failed again');
          }
        }
      } finally {
        replaying = false;
        replayAt = null;
      }
      return record.advances.length;
    },
    saved: () => writes,
  };
}

function parseRecord(raw: string): SandboxRunRecord | null {
  try {
    const value = JSON.parse(raw) as Partial<SandboxRunRecord>;
    if (
      value.version !== 1 ||
      typeof value.startedAt !== 'number' ||
      typeof value.seed !== 'number' ||
      !Array.isArray(value.advances) ||
      (value.overflowed !== undefined && value.overflowed !== true)
    ) {
      return null;
    }
    return value as SandboxRunRecord;
  } catch {
    return null;
  }
}
