import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { INHERITED_PATH } from '../helpers/env.js';
import { freePort } from './private-redis.js';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/** The program as `npm run build` makes it (same tsconfig), in a folder of the run's own inside the repository. */
export async function buildBot(): Promise<{ mainJs: string; remove(): Promise<void> }> {
  await mkdir(join(ROOT, 'test-results'), { recursive: true });
  const outDir = await mkdtemp(join(ROOT, 'test-results', 'faults-dist-'));
  await run(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', outDir],
    { cwd: ROOT },
  );
  return { mainJs: join(outDir, 'main.js'), remove: () => rm(outDir, { recursive: true, force: true }) };
}

/** One replica: `node dist/main.js` with the environment a deployment would give it. */
export interface BotProcess {
  name: string;
  pid: number;
  port: number;
  eventsUrl: string;
  logFile: string;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<number | string>;
  /** Log lines so far (pino JSON parsed where it is JSON, else the raw line). */
  lines(): LogLine[];
  /** Peak resident memory (VmHWM, bytes) as /proc reads it now; 0 once it has exited. */
  peakRss(): number;
  /** Resident memory now (VmRSS, bytes); 0 once it has exited. */
  rss(): number;
  signal(signal: 'SIGTERM' | 'SIGKILL'): void;
  /** SIGKILL if still running. */
  kill(): Promise<void>;
}

export type LogLine = Record<string, unknown> & { raw: string };

export async function spawnBot(
  mainJs: string,
  name: string,
  env: Record<string, string>,
  logDir: string,
): Promise<BotProcess> {
  const port = await freePort();
  const logFile = join(logDir, `${name}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  const child: ChildProcess = spawn(process.execPath, [mainJs], {
    cwd: ROOT,
    env: { PATH: INHERITED_PATH, NODE_ENV: 'production', LOG_LEVEL: 'info', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${name}`);
  const lines: LogLine[] = [];
  const collect = (stream: NodeJS.ReadableStream | null) => {
    let rest = '';
    stream?.on('data', (chunk: Buffer) => {
      log.write(chunk);
      rest += chunk.toString('utf8');
      const parts = rest.split('\n');
      rest = parts.pop() ?? '';
      for (const raw of parts) {
        if (raw.trim() === '') continue;
        try {
          lines.push({ ...(JSON.parse(raw) as Record<string, unknown>), raw });
        } catch {
          lines.push({ raw });
        }
      }
    });
  };
  collect(child.stdout);
  collect(child.stderr);
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => {
      log.end();
      resolve(code ?? signal ?? 'unknown');
    }),
  );
  const deadline = Date.now() + 30_000;
  while (!lines.some((l) => l.msg === 'estoque-bot started')) {
    if (child.exitCode !== null) {
      throw new Error(`${name} exited with ${child.exitCode}:\n${lines.map((l) => l.raw).join('\n')}`);
    }
    if (Date.now() > deadline) throw new Error(`${name} did not start within 30 s (see ${logFile})`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    name,
    pid,
    port,
    eventsUrl: `http://127.0.0.1:${port}/slack/events`,
    logFile,
    exited,
    lines: () => lines,
    peakRss: () => procStatusBytes(pid, 'VmHWM'),
    rss: () => procStatusBytes(pid, 'VmRSS'),
    signal(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}

function procStatusBytes(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(status)?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}
