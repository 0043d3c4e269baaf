import { randomBytes } from 'node:crypto';
import type { Container } from '../src/container.js';
import { Prefetcher, ScopedWorkspaces } from '../src/domain/prefetch.js';
import type { Logger } from '../src/lib/logger.js';
import type { Keys } from '../src/store/keys.js';
import type { KeyValue } from '../src/store/kv.js';
import type { PrefetchCounters } from './ipc.js';

export interface WiredPrefetch {
  start(): void;
  stop(): void;
  counters(): PrefetchCounters;
}

/**
 * Turns prefetch on in a container built by buildContainer, without changing container.ts: the services read
 * `container.domain` at call time, so swapping its reader and workspaces reaches every one of them. The wiring
 * container.ts would need to turn it on for good does the same at construction (README, Performance).
 */
export function wirePrefetch(
  container: Container,
  deps: { kv: KeyValue; keys: Keys; logger: Logger },
): WiredPrefetch {
  const { domain } = container;
  // Stand-in for a `Keys.prefetchClaim(id)` in src/store/keys.ts (the one place keys are built).
  const claimKey = (id: string) => `${deps.keys.prefix}prefetch:${id}`;
  const owner = `p${process.pid}-${randomBytes(4).toString('hex')}`;
  const workspaces = new ScopedWorkspaces(container.links, domain.now);
  const prefetcher = new Prefetcher({
    workspaces,
    logger: deps.logger.child({ component: 'prefetch' }),
    now: domain.now,
    claims: {
      tryClaim: (id, ttlMs) => deps.kv.set(claimKey(id), owner, { ttlMs, onlyIfAbsent: true }),
      release: async (id) => {
        await deps.kv.delIfEquals(claimKey(id), owner);
      },
    },
  });
  domain.workspaces = workspaces;
  domain.reader = prefetcher.makeReader(
    container.cache,
    deps.logger.child({ component: 'cache' }),
    domain.now,
  );
  return {
    start: () => prefetcher.start(),
    stop: () => prefetcher.stop(),
    counters: () => ({ ...prefetcher.counters }),
  };
}
