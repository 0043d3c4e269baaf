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
 */

export interface SandboxRunRecord {
  version: 1;
  /** The sandbox's clock at its first start. */
  startedAt: number;
  seed: number;
  /** Every advance made, in order, with the sandbox clock's time it was made at. */
  advances: { at: number; request: AdvanceRequest }[];
}

export interface SandboxRun {
  /** The sandbox's seed. */
  seed: number;
  /** No run was found in the store (a new store, or one from before runs were kept): the sandbox starts afresh. */
  fresh: boolean;
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

export async function openSandboxRun(
  kv: KeyValue,
  keys: Keys,
  logger: Logger,
  clock: () => number = Date.now,
): Promise<SandboxRun> {
  const key = keys.localSandboxRun();
  const raw = await kv.get(key);
  let run = raw === null ? null : parseRecord(raw);
  if (raw !== null && run === null) logger.warn('stored sandbox run unreadable: the sandbox starts afresh');
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
    now: () => replayAt ?? clock(),
    record(request, at) {
      if (replaying) return;
      record.advances.push({ at, request });
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
      !Array.isArray(value.advances)
    ) {
      return null;
    }
    return value as SandboxRunRecord;
  } catch {
    return null;
  }
}
