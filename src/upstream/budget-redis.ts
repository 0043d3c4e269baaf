import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Keys } from '../store/keys.js';
import { BACKOFF_STEPS, type Budget, type BudgetOptions, backoffAfter429 } from './budget.js';
import { PRIORITIES, resolveBudgetPolicy, yieldsToInteractive } from './budget-policy.js';
import { type Acquire, budgetOverWindow } from './budget-queue.js';

/** Counters kept in `keys.budgetStats(id)` for the status command. */
export interface BudgetStats {
  /** Slots granted (calls started). */
  calls: number;
  /** Attempts refused because the window was full or the credential paused. */
  denied: number;
  /** Pauses requested after a 429. */
  paused: number;
}

/*
 * One sliding-window log per credential: a sorted set of the calls that still count, score = the start of the call
 * in ms on the Redis clock (TIME), so every replica measures the window on the same clock. An entry counts for the
 * window plus a small guard (see budget-policy.ts) and then leaves; PEXPIRE makes an idle log vanish on its own.
 *
 * Priority across processes: each replica has its own queue, so a queue alone cannot keep a digest on replica B
 * from taking the slot an interactive user on replica A is waiting for. The script therefore gives every priority
 * its own capacity: an interactive call may fill the window, a digest call only while fewer than COUNT - reserve
 * calls count, a background call only below COUNT - its (larger) reserve. The last slots of the window are thus
 * always left to the more urgent callers, whichever replica they are on.
 *
 * The change feed ('feed', between digests and background) is also held to its share of the window
 * (FEED_BUDGET_SHARE): its calls are logged a second time in their own sorted set, and a feed call is granted only
 * while that set holds fewer than its cap. Both sets are written by the same script, so the two counts agree.
 *
 * And the feed and background calls never take a slot an interactive user waits for, on whichever replica: an
 * interactive call refused a slot marks the credential (KEYS[5]) until the slot it waits for frees, plus a margin
 * for its retry to arrive; while the mark lives, feed and background calls are refused and told to wait it out.
 * A refused interactive call also marks the credential saturated for one window (KEYS[6]): while that mark lives
 * the feed keeps to its smaller share (FEED_BUDGET_SHARE_SATURATED), so that the slots it would take in the lulls
 * of a full window are there for the next commands instead.
 *
 * If the keys vanish (Redis restarted without persistence, a FLUSH), the next call simply starts a new log.
 */
const ACQUIRE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local span = tonumber(ARGV[1])
local priority = tonumber(ARGV[3])
local feedCap = tonumber(ARGV[4])
local feedIndex = tonumber(ARGV[5])
local yieldFrom = tonumber(ARGV[6])
local margin = tonumber(ARGV[7])
local capacity = tonumber(ARGV[8 + priority])
local isFeed = priority == feedIndex
local paused = redis.call('PTTL', KEYS[2])
local waiting = redis.call('PTTL', KEYS[5])
if redis.call('PTTL', KEYS[6]) > 0 then feedCap = tonumber(ARGV[8]) end
local yields = priority >= yieldFrom and waiting > 0
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - span)
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - span)
local count = redis.call('ZCARD', KEYS[1])
local feedCount = redis.call('ZCARD', KEYS[4])
if paused <= 0 and (not yields) and count < capacity and ((not isFeed) or feedCount < feedCap) then
  local member = now .. '-' .. ARGV[2]
  redis.call('ZADD', KEYS[1], now, member)
  redis.call('PEXPIRE', KEYS[1], span)
  if isFeed then
    redis.call('ZADD', KEYS[4], now, member)
    redis.call('PEXPIRE', KEYS[4], span)
  end
  redis.call('HINCRBY', KEYS[3], 'calls', 1)
  return {1}
end
redis.call('HINCRBY', KEYS[3], 'denied', 1)
local feedWait = span
if feedCap > 0 then
  feedWait = 0
  if feedCount >= feedCap then
    local leaving = redis.call('ZRANGE', KEYS[4], feedCount - feedCap, feedCount - feedCap, 'WITHSCORES')
    feedWait = tonumber(leaving[2]) + span - now
  end
end
local reply = {0}
for i = 9, #ARGV do
  local p = i - 8
  local cap = tonumber(ARGV[i])
  local wait = 0
  if count >= cap then
    local leaving = redis.call('ZRANGE', KEYS[1], count - cap, count - cap, 'WITHSCORES')
    wait = tonumber(leaving[2]) + span - now
  end
  if p == feedIndex and feedWait > wait then wait = feedWait end
  if p >= yieldFrom and waiting > wait then wait = waiting end
  if paused > wait then wait = paused end
  reply[#reply + 1] = wait
end
-- Priority 1 is interactive: refused, it marks the credential until its slot frees and its retry can take it.
if priority == 1 then
  local mark = reply[2] + margin
  if mark > waiting then redis.call('SET', KEYS[5], '1', 'PX', mark) end
  redis.call('SET', KEYS[6], '1', 'PX', span)
end
return reply
`;

/** Sets the pause unless a longer one is already running. */
const PAUSE_LUA = `
local ms = tonumber(ARGV[1])
redis.call('HINCRBY', KEYS[2], 'paused', 1)
local left = redis.call('PTTL', KEYS[1])
if left < ms then
  redis.call('SET', KEYS[1], '1', 'PX', ms)
  return ms
end
return left
`;

/*
 * After a 429: the credential's streak of 429s in a row lives in KEYS[3], shared by every replica. A 429 that arrives
 * while the pause is in force answered a call granted before it (the same burst) and keeps the streak; one after
 * the pause counts one more. The pause is the larger of Retry-After (ARGV[1], 0 when absent) and the backoff of the
 * streak (ARGV[3..], one per step; the last step repeats), and never shortens a pause in force. The streak lives on
 * for a window (ARGV[2]) after the pause: a window without a 429 ends it.
 */
const PAUSE_429_LUA = `
local retryAfter = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local steps = #ARGV - 2
redis.call('HINCRBY', KEYS[2], 'paused', 1)
local left = redis.call('PTTL', KEYS[1])
local streak
if left > 0 then
  streak = tonumber(redis.call('GET', KEYS[3]) or '1') or 1
  if streak < 1 then streak = 1 end
else
  streak = redis.call('INCR', KEYS[3])
end
local step = streak
if step > steps then step = steps end
local ms = tonumber(ARGV[2 + step])
if retryAfter > ms then ms = retryAfter end
if left < ms then
  redis.call('SET', KEYS[1], '1', 'PX', ms)
  left = ms
end
redis.call('SET', KEYS[3], streak, 'PX', left + window)
return {left, streak}
`;

const USAGE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local span = tonumber(ARGV[1])
local count = tonumber(ARGV[2])
local since = '(' .. (now - span)
local used = redis.call('ZCOUNT', KEYS[1], since, '+inf')
local wait = 0
if used >= count then
  local leaving = redis.call('ZRANGE', KEYS[1], since, '+inf', 'BYSCORE', 'LIMIT', used - count, 1, 'WITHSCORES')
  wait = tonumber(leaving[2]) + span - now
end
local paused = redis.call('PTTL', KEYS[2])
if paused < 0 then paused = 0 end
local feedUsed = redis.call('ZCOUNT', KEYS[3], since, '+inf')
local saturated = 0
if redis.call('PTTL', KEYS[4]) > 0 then saturated = 1 end
return {used, paused, wait, feedUsed, saturated}
`;

type ScriptArg = string | number;

interface BudgetCommands {
  estoqueBudgetAcquire(
    log: string,
    pause: string,
    stats: string,
    feedLog: string,
    interactiveWaiting: string,
    saturated: string,
    ...args: ScriptArg[]
  ): Promise<unknown>;
  estoqueBudgetPause(pause: string, stats: string, ms: number): Promise<unknown>;
  estoqueBudgetPause429(pause: string, stats: string, streak: string, ...args: ScriptArg[]): Promise<unknown>;
  estoqueBudgetUsage(
    log: string,
    pause: string,
    feedLog: string,
    saturated: string,
    spanMs: number,
    count: number,
  ): Promise<unknown>;
}

/** Registers the scripts once per connection; ioredis sends them with EVALSHA and reloads them after NOSCRIPT. */
function withBudgetCommands(redis: Redis): Redis & BudgetCommands {
  const target = redis as Redis & Partial<BudgetCommands>;
  if (typeof target.estoqueBudgetAcquire !== 'function') {
    redis.defineCommand('estoqueBudgetAcquire', { numberOfKeys: 6, lua: ACQUIRE_LUA });
    redis.defineCommand('estoqueBudgetPause', { numberOfKeys: 2, lua: PAUSE_LUA });
    redis.defineCommand('estoqueBudgetPause429', { numberOfKeys: 3, lua: PAUSE_429_LUA });
    redis.defineCommand('estoqueBudgetUsage', { numberOfKeys: 4, lua: USAGE_LUA, readOnly: true });
  }
  return redis as Redis & BudgetCommands;
}

/** The first priority (1-based, in PRIORITIES' order) whose calls leave slots to a waiting interactive call. */
const YIELD_FROM = PRIORITIES.findIndex(yieldsToInteractive) + 1;

function integers(reply: unknown, what: string): number[] {
  if (!Array.isArray(reply) || reply.some((value) => typeof value !== 'number')) {
    throw new Error(`Unexpected reply from the budget ${what} script: ${JSON.stringify(reply)}`);
  }
  return reply as number[];
}

/** A budget shared by every process that uses the same Redis and key prefix. */
export function createRedisBudget(redis: Redis, keys: Keys, options: BudgetOptions): Budget {
  const policy = resolveBudgetPolicy(options);
  const commands = withBudgetCommands(redis);
  const capacities = PRIORITIES.map((priority) => policy.capacity[priority]);
  const backoffs = Array.from({ length: BACKOFF_STEPS }, (_, step) =>
    Math.ceil(backoffAfter429(step + 1, policy.windowMs)),
  );
  const processTag = randomBytes(4).toString('hex');
  let sequence = 0;

  const acquire: Acquire = async (credentialId, priority) => {
    sequence += 1;
    const reply = integers(
      await commands.estoqueBudgetAcquire(
        keys.budgetLog(credentialId),
        keys.budgetPause(credentialId),
        keys.budgetStats(credentialId),
        keys.budgetFeedLog(credentialId),
        keys.budgetInteractiveWaiting(credentialId),
        keys.budgetSaturated(credentialId),
        policy.spanMs,
        `${processTag}-${sequence.toString(36)}`,
        PRIORITIES.indexOf(priority) + 1,
        policy.feedCap,
        PRIORITIES.indexOf('feed') + 1,
        YIELD_FROM,
        policy.waitingMarginMs,
        policy.feedCapSaturated,
        ...capacities,
      ),
      'acquire',
    );
    if (reply[0] === 1) return { granted: true };
    const [, interactive = 0, digest = 0, feed = 0, background = 0] = reply;
    return { granted: false, waitMs: { interactive, digest, feed, background } };
  };

  return budgetOverWindow(policy, options, {
    acquire,
    async pause(credentialId, ms) {
      await commands.estoqueBudgetPause(keys.budgetPause(credentialId), keys.budgetStats(credentialId), ms);
    },
    async pauseAfter429(credentialId, retryAfterMs) {
      const [pausedMs = 0, streak = 1] = integers(
        await commands.estoqueBudgetPause429(
          keys.budgetPause(credentialId),
          keys.budgetStats(credentialId),
          keys.budget429Streak(credentialId),
          retryAfterMs,
          policy.windowMs,
          ...backoffs,
        ),
        'pause after 429',
      );
      return { pausedMs, streak };
    },
    async usage(credentialId) {
      const [used = 0, pausedMs = 0, waitMs = 0, feedUsed = 0, saturated = 0] = integers(
        await commands.estoqueBudgetUsage(
          keys.budgetLog(credentialId),
          keys.budgetPause(credentialId),
          keys.budgetFeedLog(credentialId),
          keys.budgetSaturated(credentialId),
          policy.spanMs,
          policy.count,
        ),
        'usage',
      );
      return { used, pausedMs, waitMs, feedUsed, saturated: saturated === 1 };
    },
  });
}

/** The counters of `keys.budgetStats(id)`, zero when absent. */
export async function readBudgetStats(redis: Redis, keys: Keys, credentialId: string): Promise<BudgetStats> {
  const hash = await redis.hgetall(keys.budgetStats(credentialId));
  const read = (field: keyof BudgetStats) => Number.parseInt(hash[field] ?? '0', 10) || 0;
  return { calls: read('calls'), denied: read('denied'), paused: read('paused') };
}
