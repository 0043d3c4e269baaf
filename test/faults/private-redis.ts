import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/**
 * A redis-server of the fault matrix's own, on a free port, that it may stop and start again: the shared Redis at
 * 6379 is never stopped. Persistence is on (AOF, fsync always), as the README asks of production, so a restart
 * keeps what was written before the stop.
 */
export interface PrivateRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM: it writes its AOF and exits) and waits for the exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data folder; resolves once it answers PING. */
  start(): Promise<void>;
  /** A client of its own (the test's view of what is stored). */
  client(): Redis;
  close(): Promise<void>;
}

/** Throws a clear message when the binary is missing: the matrix cannot run without it. */
export function redisServerBinary(): string {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return 'redis-server';
  } catch {
    throw new Error(
      'The fault matrix needs the redis-server binary on PATH (it starts, stops and restarts a Redis of its own). ' +
        'Install it (apt-get install redis-server) and run again.',
    );
  }
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

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const binary = redisServerBinary();
  const dir = await mkdtemp(join(tmpdir(), 'estoque-faults-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const clients: Redis[] = [];

  const start = async () => {
    if (child && child.exitCode === null) return;
    const started = spawn(
      binary,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--save',
        '',
        '--maxmemory-policy',
        'noeviction',
        '--protected-mode',
        'no',
      ],
      { stdio: 'ignore' },
    );
    child = started;
    const deadline = Date.now() + 15_000;
    for (;;) {
      if (started.exitCode !== null) throw new Error(`redis-server exited with ${started.exitCode}`);
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') return;
      } catch {
        // Not listening yet.
      } finally {
        probe.disconnect();
      }
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };

  await start();
  return {
    url,
    port,
    stop,
    start,
    client() {
      const redis = new Redis(url, { maxRetriesPerRequest: 2 });
      redis.on('error', () => undefined);
      clients.push(redis);
      return redis;
    },
    async close() {
      for (const redis of clients.splice(0)) redis.disconnect();
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
