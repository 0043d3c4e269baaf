import type { Redis } from 'ioredis';
import { errFields } from '../lib/logger.js';

/** What the server says of its persistence and eviction (CONFIG GET), when it lets us ask. */
export interface RedisDurabilityFacts {
  appendonly: string;
  save: string;
  maxmemoryPolicy: string;
}

export type DurabilityReport =
  | { readable: true; facts: RedisDurabilityFacts; problems: string[] }
  /** Managed Redis often refuses CONFIG: the operator must check by hand (the README says what to check). */
  | { readable: false; reason: string; problems: [] };

/**
 * Links (the sealed upstream credentials), installations and digest subscriptions live only in Redis: a Redis
 * that loses them on restart, or evicts them under memory pressure, unlinks workspaces silently. Caches carry
 * their own TTLs, so `volatile-*` policies evict only them; `allkeys-*` may evict a link.
 */
export function assessDurability(facts: RedisDurabilityFacts): string[] {
  const problems: string[] = [];
  const aof = facts.appendonly.trim().toLowerCase() === 'yes';
  const rdb = facts.save.trim() !== '';
  if (!aof && !rdb) {
    problems.push(
      'persistence is off (appendonly no, save ""): a Redis restart loses every link, installation and ' +
        'subscription; turn on AOF (appendonly yes) or RDB snapshots (save 3600 1 300 100 60 10000)',
    );
  }
  const policy = facts.maxmemoryPolicy.trim().toLowerCase();
  if (policy.startsWith('allkeys-')) {
    problems.push(
      `maxmemory-policy is ${policy}: under memory pressure Redis may evict links; use noeviction ` +
        '(or a volatile-* policy, which evicts only keys with a TTL: caches, never links)',
    );
  }
  return problems;
}

export async function checkDurability(redis: Redis): Promise<DurabilityReport> {
  try {
    const read = async (name: string): Promise<string> => {
      const answer = (await redis.call('CONFIG', 'GET', name)) as unknown;
      // RESP2: [name, value]; RESP3 (ioredis 6 default): { name: value }.
      if (Array.isArray(answer)) return String(answer[1] ?? '');
      if (answer && typeof answer === 'object')
        return String((answer as Record<string, unknown>)[name] ?? '');
      return '';
    };
    const facts: RedisDurabilityFacts = {
      appendonly: await read('appendonly'),
      save: await read('save'),
      maxmemoryPolicy: await read('maxmemory-policy'),
    };
    return { readable: true, facts, problems: assessDurability(facts) };
  } catch (error) {
    return { readable: false, reason: errFields(error).err.message, problems: [] };
  }
}
