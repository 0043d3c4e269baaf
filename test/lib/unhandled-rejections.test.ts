import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { INHERITED_PATH } from '../helpers/env.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href;
const MODULE = pathToFileURL(join(ROOT, 'src', 'lib', 'unhandled-rejections.ts')).href;
const LOGGER = pathToFileURL(join(ROOT, 'src', 'lib', 'logger.ts')).href;

/** A Node process that installs the handler (or not), lets a promise fail unawaited, and says whether it went on. */
function run(install: boolean) {
  const script = `
    import { logUnhandledRejections } from '${MODULE}';
    import { makeLogger } from '${LOGGER}';
    if (${install}) logUnhandledRejections(process, makeLogger());
    Promise.reject(Object.assign(new Error('token xoxb-1234-secret refused'), { code: 'E_TEST' }));
    setTimeout(() => { process.stdout.write('still running\\n'); }, 50);
  `;
  return spawnSync(process.execPath, ['--import', TSX, '--input-type=module', '-e', script], {
    cwd: ROOT,
    env: { PATH: INHERITED_PATH },
    encoding: 'utf8',
  });
}

describe('a promise that fails with nobody awaiting it', () => {
  it('is logged at error level, secrets masked, no stack, and the process goes on', () => {
    const result = run(true);
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe('still running');
    const logged = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(logged).toMatchObject({
      level: 50,
      component: 'process',
      msg: 'unhandled promise rejection; the process goes on',
      err: { name: 'Error', code: 'E_TEST' },
    });
    expect(result.stdout).not.toContain('xoxb-1234-secret');
    // pino writes an empty `stack` for the plain object errFields gives it: no frame of the error's.
    expect((logged.err as { stack?: string }).stack ?? '').toBe('');
  });

  it('ends the process without the handler, as Node does (what main.ts no longer lets happen)', () => {
    const result = run(false);
    expect(result.status).toBe(1);
    expect(result.stdout).not.toContain('still running');
  });
});
