import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { INHERITED_PATH } from './env.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TSX = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs')).href;

export interface BotProcess {
  child: ChildProcess;
  /** Everything written to stdout (pino's JSON lines) and stderr, so far. */
  stdout(): string;
  stderr(): string;
  /** The JSON log lines so far. */
  logs(): Record<string, unknown>[];
  /** Resolves with the first log line whose `msg` matches (polling the output as it grows). */
  waitForLog(msg: RegExp): Promise<Record<string, unknown>>;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * `src/main.ts` as its own process (as `npm run dev` starts it), given only the environment a test chooses and
 * PATH: start-up, exit codes and signals are those of the real program.
 */
export function spawnBot(
  env: Record<string, string>,
  options: {
    cwd?: string /** More modules loaded first (`--import`): a fault put in the process. */;
    imports?: string[];
  } = {},
): BotProcess {
  const imports = (options.imports ?? []).flatMap((module) => ['--import', module]);
  const child = spawn(process.execPath, ['--import', TSX, ...imports, join(ROOT, 'src', 'main.ts')], {
    cwd: options.cwd ?? ROOT,
    env: { PATH: INHERITED_PATH, ...env },
    stdio: 'pipe',
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const logs = () =>
    out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    logs,
    async waitForLog(msg) {
      let done = false;
      void exited.then(() => {
        done = true;
      });
      for (;;) {
        const found = logs().find((line) => typeof line.msg === 'string' && msg.test(line.msg));
        if (found) return found;
        if (done) throw new Error(`exited before logging ${msg}:\n${out}\n${err}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    exited,
    kill: (signal = 'SIGTERM') => {
      child.kill(signal);
    },
  };
}

export function freePort(): Promise<number> {
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

/**
 * Whether the redis-server binary is on PATH (startOwnRedis needs it). Without it, says once why the tests that
 * need one are skipped.
 */
export function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn(
      'redis-server is not on PATH: the tests that start a Redis of their own are skipped (apt-get install redis-server)',
    );
    return false;
  }
}

/** A redis-server of the test's own (on a free port, in a temp dir), which it may stop: never the shared one. */
export async function startOwnRedis(
  dir: string,
  args: string[] = [],
  port?: number,
): Promise<{ port: number; url: string; stop(): Promise<void> }> {
  const chosen = port ?? (await freePort());
  const child = spawn(
    'redis-server',
    ['--port', String(chosen), '--bind', '127.0.0.1', '--dir', dir, '--save', '', ...args],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${chosen}`;
  const { Redis } = await import('ioredis');
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 100 });
  probe.on('error', () => undefined);
  for (let i = 0; i < 100; i += 1) {
    try {
      await probe.connect().catch(() => undefined);
      if ((await probe.ping()) === 'PONG') break;
    } catch (error) {
      // Started with --requirepass: it answers, asking for the password.
      if (/NOAUTH/.test(String(error))) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  probe.disconnect();
  return {
    port: chosen,
    url,
    stop: async () => {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
