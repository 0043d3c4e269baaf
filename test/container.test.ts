import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { buildContainer, type ContainerOptions } from '../src/container.js';
import { MeteredReader } from '../src/domain/metered-reader.js';
import { makeLogger } from '../src/lib/logger.js';
import { SecretBox } from '../src/store/crypto.js';
import { RedisKeyValue } from '../src/store/kv.js';
import { createMemoryBudget } from '../src/upstream/budget-memory.js';
import { makeTestRedis } from './helpers/redis.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function build(features?: ContainerOptions['features'], limit = { count: 250, windowMs: 3_600_000 }) {
  const logger = makeLogger({ level: 'silent' });
  const redis = await makeTestRedis();
  closers.push(() => redis.cleanup());
  const container = buildContainer({
    config: {
      UPSTREAM_RATE_LIMIT: limit,
      BOT_ADMINS: [],
      DIGEST_TZ: 'America/Sao_Paulo',
      SLACK_API_URL: 'http://127.0.0.1:9/api/',
    },
    upstream: { baseUrl: 'http://127.0.0.1:9', authUrl: 'http://127.0.0.1:9/v1/auth/' },
    logger,
    kv: new RedisKeyValue(redis.redis),
    keys: redis.keys,
    box: new SecretBox(randomBytes(32)),
    budget: createMemoryBudget({ limit }),
    ...(features && { features }),
  });
  closers.unshift(() => container.close());
  return container;
}

describe('buildContainer', () => {
  it('builds no prefetcher unless the benchmark switch asks for one', async () => {
    const container = await build();
    expect(container.prefetcher).toBeNull();
  });

  it('reads every service answer through the prefetcher when features.prefetch is on', async () => {
    const container = await build({ prefetch: true });
    expect(container.prefetcher).not.toBeNull();
    // Counted on the way (MeteredReader), then read through the prefetcher.
    expect(container.domain.reader).toBeInstanceOf(MeteredReader);
    expect((container.domain.reader as MeteredReader).inner).toBe(container.prefetcher?.reader);
  });

  it('a small UPSTREAM_RATE_LIMIT still gives the feed one call a window (4/1m at 20 %: not 0, the feed not off)', async () => {
    const container = await build(undefined, { count: 4, windowMs: 60_000 });
    // One call a minute pays for a round every FEED_INTERVAL (2 min).
    expect(container.feed.intervalFor(1)).toBe(120_000);
    // Looked at (it has no listener), not turned off.
    expect(await container.feed.runIfDue('T0SMALL')).toMatchObject({ ran: false, reason: 'no-listeners' });
  });
});
