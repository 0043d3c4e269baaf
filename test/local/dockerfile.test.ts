import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INHERITED_PATH } from '../helpers/env.js';

/**
 * No Docker engine runs here, so the image is checked by what can be checked without one: what the Dockerfile
 * copies exists and is not left out of the build context, the build it runs produces what its CMD starts, and
 * that program starts (local mode) and answers the HEALTHCHECK's /healthz.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

interface Instruction {
  keyword: string;
  args: string;
  stage: string;
}

/** The Dockerfile's instructions (continuation lines joined, comments dropped), each with the stage it is in. */
function parseDockerfile(text: string): Instruction[] {
  const joined = text.replace(/\\\r?\n/g, ' ');
  const instructions: Instruction[] = [];
  let stage = '';
  for (const line of joined.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const match = /^(\w+)\s+(.*)$/.exec(trimmed);
    if (!match?.[1] || match[2] === undefined) continue;
    const keyword = match[1].toUpperCase();
    if (keyword === 'FROM') stage = /\sAS\s+(\S+)/i.exec(match[2])?.[1] ?? match[2];
    instructions.push({ keyword, args: match[2].replace(/\s+/g, ' ').trim(), stage });
  }
  return instructions;
}

/** Sources of a COPY from the build context (not `--from=` another stage). */
function contextSources(copy: Instruction): string[] {
  const words = copy.args.split(' ');
  if (words.some((w) => w.startsWith('--from='))) return [];
  const paths = words.filter((w) => !w.startsWith('--'));
  return paths.slice(0, -1);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

describe('Dockerfile', () => {
  let instructions: Instruction[];
  let ignored: string[];

  beforeAll(async () => {
    instructions = parseDockerfile(await readFile(join(ROOT, 'Dockerfile'), 'utf8'));
    ignored = (await readFile(join(ROOT, '.dockerignore'), 'utf8'))
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
  });

  it('copies only files that exist and that .dockerignore lets into the build context', async () => {
    const sources = instructions.filter((i) => i.keyword === 'COPY').flatMap(contextSources);
    expect(sources).toEqual(
      expect.arrayContaining([
        'package.json',
        'package-lock.json',
        'tsconfig.json',
        'tsconfig.build.json',
        'src',
      ]),
    );
    for (const source of sources) {
      await expect(access(join(ROOT, source)), source).resolves.toBeUndefined();
      const top = source.replace(/^\.\//, '').split('/')[0] ?? source;
      expect(ignored, `${source} is excluded by .dockerignore`).not.toContain(top);
    }
  });

  it('builds with npm ci and npm run build, and runs dist/main.js with production dependencies as a non-root user', () => {
    const stages = [...new Set(instructions.map((i) => i.stage))];
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const build = instructions.filter((i) => i.stage === stages[0]);
    const runtime = instructions.filter((i) => i.stage === stages.at(-1));
    expect(build.filter((i) => i.keyword === 'RUN').map((i) => i.args)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^npm ci\b/), 'npm run build']),
    );
    const runtimeRuns = runtime.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(runtimeRuns.some((args) => /^npm ci --omit=dev\b/.test(args))).toBe(true);
    expect(runtimeRuns.some((args) => /npm run build|tsc/.test(args))).toBe(false);
    expect(runtime.some((i) => i.keyword === 'COPY' && /--from=\S+ \/app\/dist \.\/dist/.test(i.args))).toBe(
      true,
    );
    const user = runtime.filter((i) => i.keyword === 'USER').at(-1)?.args;
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(runtime.find((i) => i.keyword === 'HEALTHCHECK')?.args).toMatch(/fetch\(.*\/healthz/);
    expect(runtime.filter((i) => i.keyword === 'CMD').at(-1)?.args).toBe('["node", "dist/main.js"]');
  });

  // Compiles the whole of src/ and starts the result: several seconds. `npm test` leaves it out, CI runs it.
  describe('the program it runs', { tags: ['slow'] }, () => {
    let outDir: string;
    let dataDir: string;
    let child: ChildProcess | undefined;

    // The same compilation as the build script (the image's build stage runs it), into a folder of the test's
    // own: built once, before the tests, which each look at its result.
    beforeAll(async () => {
      // Inside the repository, so that dist's imports find node_modules as they do in the image.
      await mkdir(join(ROOT, 'test-results'), { recursive: true });
      outDir = await mkdtemp(join(ROOT, 'test-results', 'docker-dist-'));
      dataDir = await mkdtemp(join(tmpdir(), 'estoque-docker-data-'));
      await run(
        process.execPath,
        [
          join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
          '-p',
          'tsconfig.build.json',
          '--outDir',
          outDir,
        ],
        { cwd: ROOT },
      );
    }, 120_000);
    afterAll(async () => {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      await rm(outDir, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    });

    it('is what `npm run build` produces: dist/main.js', async () => {
      const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      };
      expect(pkg.scripts.build).toBe('tsc -p tsconfig.build.json');
      await expect(access(join(outDir, 'main.js'))).resolves.toBeUndefined();
    });

    it('starts outside Docker in local mode, answers /healthz, and stops on SIGTERM', async () => {
      await access(join(outDir, 'main.js'));
      const port = await freePort();
      // Only what the image sets: no Slack, no upstream, no Redis, so local mode.
      const env = {
        PATH: INHERITED_PATH,
        HOME: dataDir,
        NODE_ENV: 'production',
        PORT: String(port),
        SANDBOX_PORT: '0',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
      };
      const started = spawn(process.execPath, [join(outDir, 'main.js')], { cwd: ROOT, env, stdio: 'pipe' });
      child = started;
      let output = '';
      started.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      started.stderr.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
      });
      const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
      const deadline = Date.now() + 30_000;
      while (!output.includes(`Open http://localhost:${port}/`)) {
        if (started.exitCode !== null) throw new Error(`main.js exited with ${started.exitCode}:\n${output}`);
        if (Date.now() > deadline) throw new Error(`main.js did not start in time:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ ok: true });
      started.kill('SIGTERM');
      await expect(exited).resolves.toBe(0);
    }, 60_000);
  });
});
