import type { Server } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapCodeStatistics } from 'node:v8';
import type { PrefetchCounters } from '../src/domain/prefetch.js';

/** Messages between the orchestrator and a bot process it spawned (Node IPC channel). */

export interface ProcessMemory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  /**
   * Of heapUsed, V8's code: compiled code and bytecode with their metadata (getHeapCodeStatistics), wherever in
   * the heap they live. It grows while new paths run and hot ones get optimised; the code spaces alone miss the
   * bytecode and the metadata kept in old space.
   */
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

/** One request to /slack/events as the bot process saw it. */
export interface InProcessAck {
  /** preciseNow() when the request reached the server's 'request' listener. */
  at: number;
  /** From there to the last byte of the answer handed to the socket ('finish'), ms. */
  ms: number;
}

/** Event-loop delay over the process's life (perf_hooks.monitorEventLoopDelay, 1 ms resolution), ms. */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

export interface Timings {
  acks: InProcessAck[];
  loopDelay: LoopDelay;
}

export type ChildMessage =
  | { type: 'ready'; port: number }
  | { type: 'memory'; memory: ProcessMemory }
  | {
      type: 'stopped';
      counters: UpstreamCounters | null;
      prefetch: PrefetchCounters | null;
      timings: Timings | null;
    }
  | { type: 'failed'; message: string };

/** `gc`: run a full collection first (the process must run with --expose-gc), so heapUsed is the live heap. */
export type ParentMessage = { type: 'memory'; gc?: boolean } | { type: 'stop' };

export function memoryNow(): ProcessMemory {
  const m = process.memoryUsage();
  const code = getHeapCodeStatistics();
  const codeUsed = code.code_and_metadata_size + code.bytecode_and_metadata_size;
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

/** How many requests a bot process keeps timings of: more than any configuration or soak sends to one process. */
const ACK_CAPACITY = 50_000;

/**
 * Times each POST to /slack/events inside the bot process, and the event loop's delay: set beside the
 * sender's figures, they tell the bot's own time from the time the request spent reaching it. The timings go
 * into one buffer allocated at start (outside the V8 heap), so that recording them adds nothing to the heap a
 * soak watches, as an array of objects did with every request. Past the capacity, the oldest are overwritten.
 */
export function timeRequests(server: Server, capacity = ACK_CAPACITY): () => Timings {
  const at = new Float64Array(capacity);
  const took = new Float64Array(capacity);
  let recorded = 0;
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  server.on('request', (req, res) => {
    if (req.method !== 'POST' || !req.url?.startsWith('/slack/events')) return;
    const started = performance.now();
    res.once('finish', () => {
      const slot = recorded % capacity;
      at[slot] = performance.timeOrigin + started;
      took[slot] = performance.now() - started;
      recorded += 1;
    });
  });
  return () => {
    histogram.disable();
    const ms = (ns: number) => ns / 1e6;
    const kept = Math.min(recorded, capacity);
    const acks: InProcessAck[] = [];
    for (let i = recorded - kept; i < recorded; i += 1)
      acks.push({ at: at[i % capacity] ?? 0, ms: took[i % capacity] ?? 0 });
    return {
      acks,
      loopDelay: {
        p50: ms(histogram.percentile(50)),
        p99: ms(histogram.percentile(99)),
        max: ms(histogram.max),
      },
    };
  };
}
