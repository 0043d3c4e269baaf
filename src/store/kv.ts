import type { Redis } from 'ioredis';
import { orAfter } from '../lib/deadline.js';

/**
 * The few storage operations the stores need. Redis in production; an embedded implementation for local mode
 * honours the same contract (test/store/kv-contract.ts runs against both). The budget has its own Lua-based
 * implementation because it needs atomic sliding-window arithmetic.
 */
export interface KeyValue {
  get(key: string): Promise<string | null>;
  /**
   * The values of the keys given, in their order, in one command (MGET in Redis: one round trip, and one moment, for
   * all of them): null where a key is absent or holds no string.
   */
  getMany(keys: readonly string[]): Promise<(string | null)[]>;
  /** Returns false when `onlyIfAbsent` and the key exists. */
  set(key: string, value: string, options?: { ttlMs?: number; onlyIfAbsent?: boolean }): Promise<boolean>;
  /**
   * Sets every key given to its value, with one TTL, all or none (one MULTI in Redis: a process that dies while
   * writing leaves every key or none). Nothing when `entries` is empty.
   */
  setMany(entries: Record<string, string>, options: { ttlMs: number }): Promise<void>;
  del(...keys: string[]): Promise<number>;
  /** How many of the keys given exist (a hash or sorted set with nothing left does not), in one command. */
  exists(...keys: string[]): Promise<number>;
  /** Deletes the key only if it holds `value` (lock release). */
  delIfEquals(key: string, value: string): Promise<boolean>;
  /**
   * Sets the key to `value` only if it still holds `expected`, keeping its time to live, in one step: a value
   * rewritten from what was read (sealed again with a new key) never undoes a write or delete made meanwhile.
   */
  replaceIfEquals(key: string, expected: string, value: string): Promise<boolean>;
  /** Gives the key a new time to live only if it holds `value`, in one step (a lease's holder extends it). */
  expireIfEquals(key: string, value: string, ttlMs: number): Promise<boolean>;
  /**
   * Sets the key with a time to live only if it is absent or, given `tail`, still ends with `tail`, in one step: a
   * value built from a read that took long (an upstream answer) never overwrites one written meanwhile.
   */
  setIfUnchanged(
    key: string,
    value: string,
    options: { ttlMs: number; tail: string | null },
  ): Promise<boolean>;
  /**
   * Adds one to the counter at `key` (absent: zero) and gives it `ttlMs` to live from now, in one step: every caller,
   * in any process, gets a number of its own. The new count.
   */
  incr(key: string, options: { ttlMs: number }): Promise<number>;
  hget(key: string, field: string): Promise<string | null>;
  /** The values of the fields given, in their order (null where absent), in one command. */
  hgetMany(key: string, fields: readonly string[]): Promise<(string | null)[]>;
  hset(key: string, field: string, value: string): Promise<void>;
  /**
   * Sets the field to `value` only if it still holds `expected` (null: only while the field is absent), in one step:
   * a value rewritten from what was read never undoes a write or delete made meanwhile (another replica's).
   */
  hsetIfEquals(key: string, field: string, expected: string | null, value: string): Promise<boolean>;
  /** Sets every field given, in one command (nothing when `fields` is empty). */
  hsetMany(key: string, fields: Record<string, string>): Promise<void>;
  /**
   * Deletes the fields given, in one command. How many were there: with concurrent callers, each field counts for
   * exactly one of them. Nothing given: 0.
   */
  hdel(key: string, ...fields: string[]): Promise<number>;
  hgetall(key: string): Promise<Record<string, string>>;
  hincrby(key: string, field: string, by: number): Promise<number>;
  /**
   * Sets a sorted-set member's score: `nx` only adds a member that is absent, `xx` only moves one that is there.
   */
  zadd(key: string, member: string, score: number, mode?: 'nx' | 'xx'): Promise<void>;
  zrem(key: string, member: string): Promise<void>;
  /** Members with a score ≤ `max` (+Infinity: all), lowest score first, `offset` skipped, at most `limit`. */
  zrangeByScore(
    key: string,
    max: number,
    limit?: number,
    offset?: number,
  ): Promise<{ member: string; score: number }[]>;
  /** Every key that starts with `prefix`. */
  keysWithPrefix(prefix: string): Promise<string[]>;
  /** True when the store answers, within about a second (false when down or too slow to say). */
  ping(): Promise<boolean>;
}

const DEL_IF_EQUALS = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;
const REPLACE_IF_EQUALS = `if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') return 1 else return 0 end`;
const HSET_IF_EQUALS = `if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) return 1 else return 0 end`;
const EXPIRE_IF_EQUALS = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
// ARGV[3] empty: only while absent. Otherwise also while the value ends with ARGV[3].
const INCR_WITH_TTL = `local n = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return n`;
const SET_IF_UNCHANGED = `local current = redis.call('GET', KEYS[1])
if current and (ARGV[3] == '' or string.sub(current, -string.len(ARGV[3])) ~= ARGV[3]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`;

export class RedisKeyValue implements KeyValue {
  constructor(readonly redis: Redis) {}

  get(key: string): Promise<string | null> {
    return this.redis.get(key);
  }

  async getMany(keys: readonly string[]): Promise<(string | null)[]> {
    return keys.length === 0 ? [] : this.redis.mget(...keys);
  }

  async set(
    key: string,
    value: string,
    options: { ttlMs?: number; onlyIfAbsent?: boolean } = {},
  ): Promise<boolean> {
    const ttl = options.ttlMs === undefined ? [] : (['PX', Math.max(1, Math.round(options.ttlMs))] as const);
    const result = options.onlyIfAbsent
      ? await this.redis.set(key, value, ...(ttl as ['PX', number]), 'NX')
      : await this.redis.set(key, value, ...(ttl as ['PX', number]));
    return result === 'OK';
  }

  async setMany(entries: Record<string, string>, options: { ttlMs: number }): Promise<void> {
    const pairs = Object.entries(entries);
    if (pairs.length === 0) return;
    const ttl = Math.max(1, Math.round(options.ttlMs));
    const transaction = this.redis.multi();
    for (const [key, value] of pairs) transaction.set(key, value, 'PX', ttl);
    const results = await transaction.exec();
    // exec answers null when the transaction was aborted, and an error per command that failed.
    if (results === null) throw new Error('setMany: transaction aborted');
    for (const [error] of results) if (error) throw error;
  }

  del(...keys: string[]): Promise<number> {
    return keys.length === 0 ? Promise.resolve(0) : this.redis.del(...keys);
  }

  exists(...keys: string[]): Promise<number> {
    return keys.length === 0 ? Promise.resolve(0) : this.redis.exists(...keys);
  }

  async delIfEquals(key: string, value: string): Promise<boolean> {
    return (await this.redis.eval(DEL_IF_EQUALS, 1, key, value)) === 1;
  }

  async replaceIfEquals(key: string, expected: string, value: string): Promise<boolean> {
    return (await this.redis.eval(REPLACE_IF_EQUALS, 1, key, expected, value)) === 1;
  }

  async expireIfEquals(key: string, value: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.eval(EXPIRE_IF_EQUALS, 1, key, value, Math.max(1, Math.round(ttlMs)))) === 1;
  }

  async setIfUnchanged(
    key: string,
    value: string,
    options: { ttlMs: number; tail: string | null },
  ): Promise<boolean> {
    const ttl = Math.max(1, Math.round(options.ttlMs));
    return (await this.redis.eval(SET_IF_UNCHANGED, 1, key, value, ttl, options.tail ?? '')) === 1;
  }

  async incr(key: string, options: { ttlMs: number }): Promise<number> {
    return Number(await this.redis.eval(INCR_WITH_TTL, 1, key, Math.max(1, Math.round(options.ttlMs))));
  }

  hget(key: string, field: string): Promise<string | null> {
    return this.redis.hget(key, field);
  }

  async hgetMany(key: string, fields: readonly string[]): Promise<(string | null)[]> {
    return fields.length === 0 ? [] : this.redis.hmget(key, ...fields);
  }

  async hset(key: string, field: string, value: string): Promise<void> {
    await this.redis.hset(key, field, value);
  }

  async hsetIfEquals(key: string, field: string, expected: string | null, value: string): Promise<boolean> {
    if (expected === null) return (await this.redis.hsetnx(key, field, value)) === 1;
    return (await this.redis.eval(HSET_IF_EQUALS, 1, key, field, expected, value)) === 1;
  }

  async hsetMany(key: string, fields: Record<string, string>): Promise<void> {
    if (Object.keys(fields).length === 0) return;
    await this.redis.hset(key, fields);
  }

  hdel(key: string, ...fields: string[]): Promise<number> {
    return fields.length === 0 ? Promise.resolve(0) : this.redis.hdel(key, ...fields);
  }

  hgetall(key: string): Promise<Record<string, string>> {
    return this.redis.hgetall(key);
  }

  hincrby(key: string, field: string, by: number): Promise<number> {
    return this.redis.hincrby(key, field, by);
  }

  async zadd(key: string, member: string, score: number, mode?: 'nx' | 'xx'): Promise<void> {
    if (mode === 'nx') await this.redis.zadd(key, 'NX', score, member);
    else if (mode === 'xx') await this.redis.zadd(key, 'XX', score, member);
    else await this.redis.zadd(key, score, member);
  }

  async zrem(key: string, member: string): Promise<void> {
    await this.redis.zrem(key, member);
  }

  async zrangeByScore(
    key: string,
    max: number,
    limit?: number,
    offset = 0,
  ): Promise<{ member: string; score: number }[]> {
    const upper = max === Number.POSITIVE_INFINITY ? '+inf' : max;
    const flat =
      limit === undefined
        ? await this.redis.zrangebyscore(key, '-inf', upper, 'WITHSCORES')
        : await this.redis.zrangebyscore(key, '-inf', upper, 'WITHSCORES', 'LIMIT', offset, limit);
    const out: { member: string; score: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2)
      out.push({ member: flat[i] ?? '', score: Number(flat[i + 1]) });
    return out;
  }

  async keysWithPrefix(prefix: string): Promise<string[]> {
    const found: string[] = [];
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      found.push(...keys);
    } while (cursor !== '0');
    return found;
  }

  /**
   * Whether Redis answered PING within PING_TIMEOUT_MS: a Redis that went away holds commands in ioredis's queue
   * while it reconnects, and /healthz and the metrics scrape must say "down" in time, not after the retries.
   */
  ping(): Promise<boolean> {
    const pong = this.redis.ping().then(
      (reply) => reply === 'PONG',
      () => false,
    );
    return orAfter(pong, PING_TIMEOUT_MS, () => false);
  }
}

/** How long a health probe waits for Redis's PONG: well under a Docker HEALTHCHECK's or a scrape's timeout. */
export const PING_TIMEOUT_MS = 1_000;
