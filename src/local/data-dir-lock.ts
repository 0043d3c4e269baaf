import { readFile, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** What the lock file holds: who took it. */
interface LockOwner {
  pid: number;
  host: string;
  since: string;
}

export interface DataDirLock {
  file: string;
  /** Removes the lock file, if it is still this process's. */
  release(): Promise<void>;
}

/** Another process holds DATA_DIR: local mode refuses to start rather than share the embedded store. */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
  readonly code = 'data_dir_locked';
}

export interface LockOptions {
  pid?: number;
  host?: string;
  now?: () => number;
  /** Whether a process with that pid runs on this machine (signal 0). */
  isAlive?: (pid: number) => boolean;
}

/**
 * Local mode's embedded store is one JSON file written by one process: a second process on the same DATA_DIR would
 * overwrite the first's writes. The first takes `DATA_DIR/.lock` (created exclusively); the second is refused with
 * a message naming the holder. A lock left by a process that died (kill -9, a crash) is taken over.
 */
export async function lockDataDir(dataDir: string, options: LockOptions = {}): Promise<DataDirLock> {
  const file = join(dataDir, '.lock');
  const me: LockOwner = {
    pid: options.pid ?? process.pid,
    host: options.host ?? hostname(),
    since: new Date((options.now ?? Date.now)()).toISOString(),
  };
  const isAlive = options.isAlive ?? processIsAlive;
  const text = `${JSON.stringify(me)}\n`;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await writeFile(file, text, { flag: 'wx', mode: 0o600 });
      return {
        file,
        release: async () => {
          const current = await readFile(file, 'utf8').catch(() => null);
          if (current === text) await unlink(file).catch(() => undefined);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readOwner(file);
    const stale = holder === null || (holder.host === me.host && !isAlive(holder.pid));
    if (!stale) {
      throw new DataDirLockedError(
        `DATA_DIR ${dataDir} is in use by another estoque-bot (pid ${holder.pid} on ${holder.host}, since ` +
          `${holder.since}): stop that one first, or set DATA_DIR to another folder. ` +
          `If no such process runs, delete ${file}.`,
      );
    }
    // The holder is gone: its lock is taken over (once; a race with another taker ends in the error above).
    await unlink(file).catch(() => undefined);
  }
  throw new DataDirLockedError(`DATA_DIR ${dataDir}: another process took the lock at the same time`);
}

async function readOwner(file: string): Promise<LockOwner | null> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<LockOwner>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return null;
    return { pid: parsed.pid, host: parsed.host, since: String(parsed.since ?? '?') };
  } catch {
    return null;
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
