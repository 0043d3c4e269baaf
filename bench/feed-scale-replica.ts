import { Redis } from 'ioredis';
import type { RoundReport } from '../src/domain/feed/engine.js';
import type { FeedPoster, FeedPostResult } from '../src/domain/feed/types.js';
import { makeLogger } from '../src/lib/logger.js';
import { SecretBox } from '../src/store/crypto.js';
import { Keys } from '../src/store/keys.js';
import { buildFeedReplica } from './feed-setup.js';
import type { RateLimit } from './stage.js';

/**
 * One replica of the feed scale line (bench/feed-scale.ts), in a process of its own: a feed engine as
 * bench/feed-setup.ts builds it, ticking as the engine's own loop does, reporting to the parent (IPC) the rounds
 * it ran (planned and start time) and how many Redis commands its connection sent. Its options come as JSON in
 * the first argument (the parent imports only this module's types).
 */

export interface FeedScaleReplicaOptions {
  redisUrl: string;
  prefix: string;
  boxKey: string;
  sandbox: { baseUrl: string; authUrl: string };
  limit: RateLimit;
  sharePercent: number;
  intervalMs: number;
  leaseMs: number;
  owner: string;
}

export type FeedScaleChildMessage =
  | { type: 'ready' }
  | {
      type: 'done';
      /** Per round run: [plannedAt, startedAt] (epoch ms). */
      rounds: [number, number][];
      /** Ticks and the tick reports by reason (not-due, leased, planned, ...). */
      ticks: number;
      reasons: Record<string, number>;
      /** Commands this process sent to Redis (counted on its connection, so others' traffic is not in it). */
      redisCommands: number;
      posts: number;
      errors: number;
    };

class CountingPoster implements FeedPoster {
  posts = 0;
  async post(): Promise<FeedPostResult> {
    this.posts += 1;
    return { ok: true };
  }
  async tellFeedLost(): Promise<void> {}
  async tellFollowsEnded(): Promise<void> {}
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '') as FeedScaleReplicaOptions;
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 3 });
  let redisCommands = 0;
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = ((...args: Parameters<typeof send>) => {
    redisCommands += 1;
    return send(...args);
  }) as typeof redis.sendCommand;
  const poster = new CountingPoster();
  const logger = makeLogger({ level: 'warn' }).child({ replica: options.owner });
  const replica = buildFeedReplica({
    redis,
    keys: new Keys(options.prefix),
    box: SecretBox.fromBase64(options.boxKey),
    sandbox: options.sandbox,
    limit: options.limit,
    sharePercent: options.sharePercent,
    intervalMs: options.intervalMs,
    leaseMs: options.leaseMs,
    poster,
    logger,
    owner: options.owner,
  });
  const rounds: [number, number][] = [];
  const reasons: Record<string, number> = {};
  let ticks = 0;
  let errors = 0;
  let stopping = false;
  const tickMs = Math.max(100, Math.floor(options.intervalMs / 4));
  const record = (report: RoundReport) => {
    const reason = report.ran ? 'ran' : report.reason;
    reasons[reason] = (reasons[reason] ?? 0) + 1;
    if (report.ran && report.plannedAt !== null) rounds.push([report.plannedAt, report.startedAt]);
  };
  // The engine's own loop (start()) with its reports kept: tick, then wait a tick.
  const loop = (async () => {
    while (!stopping) {
      ticks += 1;
      try {
        for (const report of await replica.engine.tick()) record(report);
      } catch {
        errors += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, tickMs));
    }
  })();
  process.on('message', (message: { type: string }) => {
    if (message.type !== 'stop') return;
    stopping = true;
    void loop.then(async () => {
      const done: FeedScaleChildMessage = {
        type: 'done',
        rounds,
        ticks,
        reasons,
        redisCommands,
        posts: poster.posts,
        errors,
      };
      await replica.close();
      redis.disconnect();
      process.send?.(done, () => process.exit(0));
    });
  });
  process.send?.({ type: 'ready' } satisfies FeedScaleChildMessage);
}

void main().catch((error: unknown) => {
  process.stderr.write(
    `feed-scale replica failed: ${error instanceof Error ? error.stack : String(error)}\n`,
  );
  process.exit(1);
});
