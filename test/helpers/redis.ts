import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Keys } from '../../src/store/keys.js';
import { TEST_REDIS_URL } from './env.js';

export interface TestRedis {
  redis: Redis;
  keys: Keys;
  prefix: string;
  /** A second connection, as another process would have. */
  connect(): Redis;
  cleanup(): Promise<void>;
}

/** A real Redis connection with a random key prefix; `cleanup` deletes every key under it and closes connections. */
export async function makeTestRedis(): Promise<TestRedis> {
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  const clients: Redis[] = [];
  const connect = () => {
    const client = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 2, lazyConnect: false });
    clients.push(client);
    return client;
  };
  const redis = connect();
  await redis.ping();
  return {
    redis,
    keys: new Keys(prefix),
    prefix,
    connect,
    async cleanup() {
      let cursor = '0';
      do {
        const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
        cursor = next;
        if (found.length > 0) await redis.del(...found);
      } while (cursor !== '0');
      await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}
