import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchNodeFlags, inheritedEnv } from './bench-env.js';
import type { ChildMessage, ParentMessage, ProcessMemory } from './ipc.js';
import { readProcMemory } from './measure.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const REPO_DIR = dirname(BENCH_DIR);

export type BotKind = 'replica' | 'bare';

/**
 * How bot processes run: `compiled` (default) runs plain node on JavaScript that tsc built from src/ and bench/
 * (as `npm start` runs dist/), so neither the figures nor the memory include a TypeScript loader; `tsx` skips
 * the build (quicker to iterate, about 40-50 MB more RSS per process and slower start).
 */
export type RunMode = 'compiled' | 'tsx';

const BUILD_DIR = join(BENCH_DIR, 'results', 'build');

/** Builds bench/ and src/ into bench/results/build (bench/tsconfig.build.json), for `compiled` mode. */
export async function buildBotScripts(): Promise<void> {
  const tsc = join(REPO_DIR, 'node_modules', 'typescript', 'bin', 'tsc');
  const child = spawn(process.execPath, [tsc, '-p', join(BENCH_DIR, 'tsconfig.build.json')], {
    cwd: REPO_DIR,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`tsc -p bench/tsconfig.build.json failed (${code})`);
}

/** Removes the build (it is only needed while bots run; `biome check .` would otherwise read it). */
export function removeBotScripts(): void {
  rmSync(BUILD_DIR, { recursive: true, force: true });
}

function commandOf(kind: BotKind, mode: RunMode): string[] {
  const name = kind === 'replica' ? 'replica' : 'bare-bolt';
  return mode === 'compiled'
    ? [join(BUILD_DIR, 'bench', `${name}.js`)]
    : ['--import', 'tsx', join(BENCH_DIR, `${name}.ts`)];
}

export interface BotProcess {
  kind: BotKind;
  pid: number;
  eventsUrl: string;
  /** The process's own view of its memory (heap included); `gc` first when it runs with `exposeGc`. */
  memory(options?: { gc?: boolean }): Promise<ProcessMemory | null>;
  /** Stops the bot and returns what it reported (upstream counters, prefetch counters). */
  stop(): Promise<Extract<ChildMessage, { type: 'stopped' }> | null>;
  /** VmHWM read just before it stopped (bytes), 0 if never read. */
  peakRss(): number;
  /** kill -9, as a crashed replica: no shutdown, nothing released. Resolves when it has exited. */
  kill(): Promise<void>;
}

/**
 * Starts bench/replica.ts or bench/bare-bolt.ts (see RunMode) with the given environment, its stdout and stderr
 * to a log file, and waits for it to listen. The pid is the bot's own node process (no npx or tsx wrapper in
 * between), so /proc/<pid>/status is the bot's memory.
 */
export async function spawnBot(
  kind: BotKind,
  mode: RunMode,
  env: Record<string, string>,
  logFile: string,
  options: { exposeGc?: boolean; cpuProfileDir?: string } = {},
): Promise<BotProcess> {
  mkdirSync(dirname(logFile), { recursive: true });
  const log = openSync(logFile, 'a');
  const flags = [
    // Runtime flags to try on every bot process alike, bare Bolt included (e.g. a GC setting), space-separated.
    ...benchNodeFlags(),
    ...(options.exposeGc ? ['--expose-gc'] : []),
    // Written when the process exits (after `stop`), one .cpuprofile per process; open in Chrome DevTools.
    ...(options.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : []),
  ];
  const child = spawn(process.execPath, [...flags, ...commandOf(kind, mode)], {
    cwd: REPO_DIR,
    env: { ...inheritedEnv(), ...env },
    stdio: ['ignore', log, log, 'ipc'],
  });
  closeSync(log);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start bench/${kind}.ts`);
  const port = await waitReady(child, kind, logFile);
  let lastHwm = 0;
  const readHwm = () => {
    const memory = readProcMemory(pid);
    if (memory) lastHwm = Math.max(lastHwm, memory.hwm);
  };
  return {
    kind,
    pid,
    eventsUrl: `http://127.0.0.1:${port}/slack/events`,
    memory: (memoryOptions = {}) =>
      request(child, { type: 'memory', gc: memoryOptions.gc ?? false }, 'memory', 2_000).then(
        (m) => m?.memory ?? null,
      ),
    async stop() {
      readHwm();
      const stopped = await request(child, { type: 'stop' }, 'stopped', 15_000);
      // A process killed by a signal has a signalCode and no exitCode.
      const running = () => child.exitCode === null && child.signalCode === null;
      if (running()) {
        await Promise.race([
          new Promise((resolve) => child.once('exit', resolve)),
          new Promise((resolve) => setTimeout(resolve, 5_000)),
        ]);
      }
      if (running()) child.kill('SIGKILL');
      return stopped;
    },
    peakRss: () => {
      readHwm();
      return lastHwm;
    },
    async kill() {
      readHwm();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * How long a bot process may take to listen. It loads in a few seconds on a quiet machine; on the shared 2-core
 * machine under a load average of 15-20, starts of 30 s and more were seen (three runs in a row refused).
 */
const START_TIMEOUT_MS = 120_000;

function waitReady(child: ChildProcess, kind: BotKind, logFile: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`bench/${kind}.ts did not start within ${START_TIMEOUT_MS / 1000} s (see ${logFile})`),
      );
    }, START_TIMEOUT_MS);
    const onMessage = (message: ChildMessage) => {
      if (message.type === 'ready') {
        cleanup();
        resolve(message.port);
      } else if (message.type === 'failed') {
        cleanup();
        reject(new Error(`bench/${kind}.ts failed: ${message.message} (see ${logFile})`));
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`bench/${kind}.ts exited with ${code} before it listened (see ${logFile})`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

function request<K extends ChildMessage['type']>(
  child: ChildProcess,
  message: ParentMessage,
  answer: K,
  timeoutMs: number,
): Promise<Extract<ChildMessage, { type: K }> | null> {
  if (!child.connected) return Promise.resolve(null);
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish(null), timeoutMs);
    const onMessage = (reply: ChildMessage) => {
      if (reply.type === answer) finish(reply as Extract<ChildMessage, { type: K }>);
    };
    const onExit = () => finish(null);
    function finish(value: Extract<ChildMessage, { type: K }> | null) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(value);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send(message);
  });
}
