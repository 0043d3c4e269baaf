import { getHeapSpaceStatistics } from 'node:v8';
import type { PrefetchCounters } from '../src/domain/prefetch.js';

/** Messages between the orchestrator and a bot process it spawned (Node IPC channel). */

export interface ProcessMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  /** Of heapUsed, the code spaces (JIT-compiled code, which grows while hot paths get optimised). */
  codeUsed: number;
}

export interface UpstreamCounters {
  calls: number;
  retries: number;
  coalesced: number;
  rateLimited: number;
  unauthorized: number;
}

export type { PrefetchCounters } from '../src/domain/prefetch.js';

export type ChildMessage =
  | { type: 'ready'; port: number }
  | { type: 'memory'; memory: ProcessMemory }
  | { type: 'stopped'; counters: UpstreamCounters | null; prefetch: PrefetchCounters | null }
  | { type: 'failed'; message: string };

/** `gc`: run a full collection first (the process must run with --expose-gc), so heapUsed is the live heap. */
export type ParentMessage = { type: 'memory'; gc?: boolean } | { type: 'stop' };

export function memoryNow(): ProcessMemory {
  const m = process.memoryUsage();
  const codeUsed = getHeapSpaceStatistics()
    .filter((space) => space.space_name.startsWith('code'))
    .reduce((sum, space) => sum + space.space_used_size, 0);
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external, codeUsed };
}

/** A bot process's side of the channel: answers memory requests, runs `stop` once, then exits. */
export function serveParent(stop: () => Promise<Extract<ChildMessage, { type: 'stopped' }>>): void {
  let stopping = false;
  process.on('message', (raw: ParentMessage) => {
    if (raw.type === 'memory') {
      if (raw.gc) (globalThis as { gc?: () => void }).gc?.();
      process.send?.({ type: 'memory', memory: memoryNow() } satisfies ChildMessage);
    }
    if (raw.type === 'stop' && !stopping) {
      stopping = true;
      stop().then(
        (message) => process.send?.(message, () => process.exit(0)),
        (error: unknown) => {
          process.send?.({ type: 'failed', message: String(error) } satisfies ChildMessage, () =>
            process.exit(1),
          );
        },
      );
    }
  });
  // The orchestrator died: do not linger.
  process.on('disconnect', () => process.exit(0));
}

export function announceReady(port: number): void {
  process.send?.({ type: 'ready', port } satisfies ChildMessage);
}

export function announceFailure(error: unknown): never {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  process.stderr.write(`bench bot failed: ${message}\n`);
  process.send?.({ type: 'failed', message } satisfies ChildMessage, () => process.exit(1));
  setTimeout(() => process.exit(1), 1_000).unref();
  throw error;
}
