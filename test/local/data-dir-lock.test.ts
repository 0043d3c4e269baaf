import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, lockDataDir } from '../../src/local/data-dir-lock.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'estoque-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited: nothing runs under it now. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid ?? -1;
}

describe('the DATA_DIR lock', () => {
  it('a second process is refused with a message naming DATA_DIR and the holder; released, it can be taken', async () => {
    const first = await lockDataDir(dir);
    const error = await lockDataDir(dir, { pid: process.pid + 1, isAlive: () => true }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DataDirLockedError);
    expect((error as Error).message).toContain(
      `DATA_DIR ${dir} is in use by another estoque-bot (pid ${process.pid}`,
    );
    expect((error as Error).message).toMatch(/set DATA_DIR to another folder/);
    await first.release();
    const second = await lockDataDir(dir);
    await second.release();
  });

  it('the lock of a process that died is taken over', async () => {
    const pid = await deadPid();
    const stale = await lockDataDir(dir, { pid });
    const taken = await lockDataDir(dir);
    expect(JSON.parse(await readFile(taken.file, 'utf8'))).toMatchObject({ pid: process.pid });
    // The dead holder's release does not remove the new holder's lock.
    await stale.release();
    expect(JSON.parse(await readFile(taken.file, 'utf8'))).toMatchObject({ pid: process.pid });
    await taken.release();
  });

  it('an unreadable lock file is taken over', async () => {
    await writeFile(join(dir, '.lock'), 'garbage');
    const taken = await lockDataDir(dir);
    await taken.release();
  });
});
