import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { systemClock, type TimerHandle } from '../lib/clock.js';
import { errFields } from '../lib/logger.js';
import type { Keys } from '../store/keys.js';
import {
  BACKOFF_STEPS,
  type Budget,
  type BudgetOptions,
  backoffAfter429,
  DEFAULT_LOSS_CHECK_MS,
  DEFAULT_LOSS_SETTLE_MS,
  type Priority,
} from './budget.js';
import { OwnUse } from './budget-own-use.js';
import { mapPriorities, PRIORITIES, resolveBudgetPolicy, yieldsToInteractive } from './budget-policy.js';
import { type Acquire, type AcquireResult, budgetOverWindow } from './budget-queue.js';

/**
 * Lua that reads the epoch at `key` into `epoch` (writing `fresh` when it is absent) and sets `lost` when it is not
 * the epoch the process saw (`seen`; '' when it saw none yet). See LOSS, above ACQUIRE_LUA.
 */
function epochLua(key: string, seen: string, fresh: string): string {
  return `local epoch = redis.call('GET', ${key})
local lost = false
if not epoch then
  epoch = ${fresh}
  redis.call('SET', ${key}, epoch)
  lost = ${seen} ~= ''
elseif ${seen} ~= '' and ${seen} ~= epoch then
  lost = true
end`;
}

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
 * If the state vanishes (Redis restarted without persistence, a failover to a replica that lagged, a FLUSH), the
 * upstream still counts the calls of the last window: starting a new log would let every replica spend the limit
 * again. So each process keeps its own calls of the window and its pauses (budget-own-use.ts) and puts them back
 * when it finds them gone, and every process grants nothing for a settle period meanwhile (see LOSS below).
 *
 * Replies: {1, epoch, score, member} granted; {2, epoch} the state was lost (nothing granted: the process puts
 * back what it holds and asks again); {0, epoch, paused, wait per priority...} refused.
 */
/*
 * LOSS. KEYS[7] is the epoch: a value written once (by the first call to find it absent) and never expired, which
 * every process remembers. A process finds the state lost when the epoch it saw is gone or replaced (ARGV[9]), or
 * when its newest call that still counts (ARGV[11], score ARGV[12]) is not in the log. It then sets KEYS[8], the
 * settle mark, for ARGV[13] ms (unless a longer one runs): while it lives no call is granted, to any process, so
 * that every process has time to put back its own calls (a check every second, and at once on reconnecting)
 * before the window is counted again. The epoch and the settle mark are one per key prefix, not per credential:
 * a loss takes every credential's state at once, and a process that saw the epoch through one credential detects
 * it through any other.
 */
const ACQUIRE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local span = tonumber(ARGV[1])
${epochLua('KEYS[7]', 'ARGV[9]', 'ARGV[10]')}
if ARGV[11] ~= '' and tonumber(ARGV[12]) > now - span and not redis.call('ZSCORE', KEYS[1], ARGV[11]) then
  lost = true
end
if lost then
  local settle = tonumber(ARGV[13])
  if redis.call('PTTL', KEYS[8]) < settle then redis.call('SET', KEYS[8], '1', 'PX', settle) end
  return {2, epoch}
end
local paused = redis.call('PTTL', KEYS[2])
if paused < 0 then paused = 0 end
local settling = redis.call('PTTL', KEYS[8])
if settling > 0 then
  local wait = math.max(settling, paused)
  return {0, epoch, paused, wait, wait, wait, wait}
end
local priority = tonumber(ARGV[3])
local feedCap = tonumber(ARGV[4])
local feedIndex = tonumber(ARGV[5])
local yieldFrom = tonumber(ARGV[6])
local margin = tonumber(ARGV[7])
local capacity = tonumber(ARGV[13 + priority])
local isFeed = priority == feedIndex
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
  return {1, epoch, now, member}
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
local reply = {0, epoch, paused}
for i = 14, #ARGV do
  local p = i - 13
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
  local mark = reply[4] + margin
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

/*
 * A process's periodic look at the state it relies on (LOSS above): KEYS[1] the epoch, KEYS[2] the settle mark, then
 * per credential it holds calls or a pause for, its log and its pause; ARGV: span, the epoch it saw, a new epoch,
 * the settle period, the margin below which a pause it knows of is not looked for, then per credential its newest
 * call that counts (member, score) and how long it knows the pause lasts. Replies {epoch, i...}: the 1-based
 * places of the credentials whose state was lost (every one when the epoch was), the settle mark set if any.
 */
const CHECK_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local span = tonumber(ARGV[1])
${epochLua('KEYS[1]', 'ARGV[2]', 'ARGV[3]')}
local margin = tonumber(ARGV[5])
local reply = {epoch}
for i = 1, (#KEYS - 2) / 2 do
  local member = ARGV[3 + 3 * i]
  local score = tonumber(ARGV[4 + 3 * i])
  local pausedMs = tonumber(ARGV[5 + 3 * i])
  local gone = lost
  if member ~= '' and score > now - span and not redis.call('ZSCORE', KEYS[1 + 2 * i], member) then gone = true end
  if pausedMs > margin and redis.call('PTTL', KEYS[2 + 2 * i]) < pausedMs - margin then gone = true end
  if gone then reply[#reply + 1] = i end
end
if #reply > 1 then
  local settle = tonumber(ARGV[4])
  if redis.call('PTTL', KEYS[2]) < settle then redis.call('SET', KEYS[2], '1', 'PX', settle) end
end
return reply
`;

/*
 * Puts back one process's calls of a credential (ARGV from 3 on: score, member, 1 when the feed's log holds it too)
 * that still count, with ZADD NX: a call already there, or put back by another process, counts once. And its pause
 * (ARGV[2] ms), unless a longer one runs. Replies how many calls it added.
 */
const RESTORE_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local span = tonumber(ARGV[1])
local added = 0
for i = 3, #ARGV, 3 do
  local score = tonumber(ARGV[i])
  if score > now - span then
    added = added + redis.call('ZADD', KEYS[1], 'NX', score, ARGV[i + 1])
    if ARGV[i + 2] == '1' then redis.call('ZADD', KEYS[2], 'NX', score, ARGV[i + 1]) end
  end
end
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('PEXPIRE', KEYS[1], span) end
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], span) end
local pausedMs = tonumber(ARGV[2])
if pausedMs > 0 and redis.call('PTTL', KEYS[3]) < pausedMs then redis.call('SET', KEYS[3], '1', 'PX', pausedMs) end
return added
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
local settling = redis.call('PTTL', KEYS[5])
if settling > wait then wait = settling end
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
    epoch: string,
    settling: string,
    ...args: ScriptArg[]
  ): Promise<unknown>;
  /** Keys and arguments after the number of keys: the check's are as many as the credentials it looks at. */
  estoqueBudgetCheck(numberOfKeys: number, ...keysAndArgs: ScriptArg[]): Promise<unknown>;
  estoqueBudgetRestore(log: string, feedLog: string, pause: string, ...args: ScriptArg[]): Promise<unknown>;
  estoqueBudgetPause(pause: string, stats: string, ms: number): Promise<unknown>;
  estoqueBudgetPause429(pause: string, stats: string, streak: string, ...args: ScriptArg[]): Promise<unknown>;
  estoqueBudgetUsage(
    log: string,
    pause: string,
    feedLog: string,
    saturated: string,
    settling: string,
    spanMs: number,
    count: number,
  ): Promise<unknown>;
}

/** Registers the scripts once per connection; ioredis sends them with EVALSHA and reloads them after NOSCRIPT. */
function withBudgetCommands(redis: Redis): Redis & BudgetCommands {
  const target = redis as Redis & Partial<BudgetCommands>;
  if (typeof target.estoqueBudgetAcquire !== 'function') {
    redis.defineCommand('estoqueBudgetAcquire', { numberOfKeys: 8, lua: ACQUIRE_LUA });
    redis.defineCommand('estoqueBudgetCheck', { lua: CHECK_LUA });
    redis.defineCommand('estoqueBudgetRestore', { numberOfKeys: 3, lua: RESTORE_LUA });
    redis.defineCommand('estoqueBudgetPause', { numberOfKeys: 2, lua: PAUSE_LUA });
    redis.defineCommand('estoqueBudgetPause429', { numberOfKeys: 3, lua: PAUSE_429_LUA });
    redis.defineCommand('estoqueBudgetUsage', { numberOfKeys: 5, lua: USAGE_LUA, readOnly: true });
  }
  return redis as Redis & BudgetCommands;
}

/** The first priority (1-based, in PRIORITIES' order) whose calls leave slots to a waiting interactive call. */
const YIELD_FROM = PRIORITIES.findIndex(yieldsToInteractive) + 1;

/** A pause this process knows of is looked for in Redis only when it has more than this left (replies take time). */
const PAUSE_CHECK_MARGIN_MS = 1_000;

/** A reply's number at `index`, or a string (the epoch, a member) with `text`. */
function field(reply: unknown[], index: number, what: string): number {
  const value = reply[index];
  if (typeof value !== 'number')
    throw new Error(`Unexpected reply from the budget ${what} script: ${JSON.stringify(reply)}`);
  return value;
}

function text(reply: unknown[], index: number, what: string): string {
  const value = reply[index];
  if (typeof value !== 'string')
    throw new Error(`Unexpected reply from the budget ${what} script: ${JSON.stringify(reply)}`);
  return value;
}

function list(reply: unknown, what: string): unknown[] {
  if (!Array.isArray(reply))
    throw new Error(`Unexpected reply from the budget ${what} script: ${JSON.stringify(reply)}`);
  return reply;
}

/**
 * A budget shared by every process that uses the same Redis and key prefix. The process keeps its own calls of
 * the window and its pauses (OwnUse), looks every `lossCheckMs` (and at once when its connection comes back) that
 * Redis still has them, and puts them back when it does not (LOSS above).
 */
export function createRedisBudget(redis: Redis, keys: Keys, options: BudgetOptions): Budget {
  const policy = resolveBudgetPolicy(options);
  const clock = options.clock ?? systemClock;
  const commands = withBudgetCommands(redis);
  const capacities = PRIORITIES.map((priority) => policy.capacity[priority]);
  const backoffs = Array.from({ length: BACKOFF_STEPS }, (_, step) =>
    Math.ceil(backoffAfter429(step + 1, policy.windowMs)),
  );
  const checkMs = Math.max(1, options.lossCheckMs ?? DEFAULT_LOSS_CHECK_MS);
  // Past a span after the loss every call made before it has left the window: no need to hold longer.
  const settleMs = Math.max(1, Math.min(options.lossSettleMs ?? DEFAULT_LOSS_SETTLE_MS, policy.spanMs));
  const processTag = randomBytes(4).toString('hex');
  const own = new OwnUse(policy.spanMs, policy.count);
  let sequence = 0;
  /** The epoch this process last saw; '' before its first reply. */
  let seenEpoch = '';
  const nextId = () => {
    sequence += 1;
    return sequence.toString(36);
  };
  const newEpoch = () => `${processTag}.${nextId()}`;

  let restoring: Promise<void> | null = null;
  /**
   * Puts back every call and pause this process holds (each credential's, whichever was found lost: ZADD NX makes
   * the others' a no-op), then records `epoch` as seen. One at a time: a caller that finds one running joins it.
   */
  const restore = (epoch: string): Promise<void> => {
    restoring ??= (async () => {
      const now = clock.monotonic();
      const ids = own.tracked(now);
      const added = await Promise.all(
        ids.map(async (credentialId) => {
          const calls = own
            .live(credentialId, now)
            .flatMap((call) => [call.score, call.member, call.feed ? 1 : 0]);
          return field(
            [
              await commands.estoqueBudgetRestore(
                keys.budgetLog(credentialId),
                keys.budgetFeedLog(credentialId),
                keys.budgetPause(credentialId),
                policy.spanMs,
                Math.floor(own.pausedMs(credentialId, now)),
                ...calls,
              ),
            ],
            0,
            'restore',
          );
        }),
      );
      seenEpoch = epoch;
      options.logger?.warn(
        { credentials: ids.length, callsPutBack: added.reduce((sum, n) => sum + n, 0), settleMs },
        'upstream budget state lost in Redis: this process put back its calls of the window and its pauses',
      );
    })().finally(() => {
      restoring = null;
    });
    return restoring;
  };

  let timer: TimerHandle | null = null;
  let checking: Promise<void> | null = null;
  let closed = false;
  const check = async () => {
    const now = clock.monotonic();
    const ids = own.tracked(now);
    if (ids.length === 0) return;
    const keyArgs: string[] = [keys.budgetEpoch(), keys.budgetSettling()];
    const args: ScriptArg[] = [policy.spanMs, seenEpoch, newEpoch(), settleMs, PAUSE_CHECK_MARGIN_MS];
    for (const credentialId of ids) {
      keyArgs.push(keys.budgetLog(credentialId), keys.budgetPause(credentialId));
      const newest = own.newest(credentialId, now);
      args.push(newest?.member ?? '', newest?.score ?? 0, Math.floor(own.pausedMs(credentialId, now)));
    }
    const reply = list(await commands.estoqueBudgetCheck(keyArgs.length, ...keyArgs, ...args), 'check');
    const epoch = text(reply, 0, 'check');
    // The places of the credentials found lost follow the epoch: any at all, and this process puts back its own.
    if (reply.length > 1) await restore(epoch);
    else seenEpoch = epoch;
  };
  const runCheck = () => {
    if (timer !== null) clock.clearTimeout(timer);
    timer = null;
    if (closed || checking !== null) return;
    checking = check()
      .catch((error: unknown) => options.logger?.debug({ ...errFields(error) }, 'budget check failed'))
      .finally(() => {
        checking = null;
        // A connection closed for good (redis.quit) has nothing more to check.
        if (redis.status !== 'end') scheduleCheck();
      });
  };
  /** Checks every checkMs while this process holds calls that count or a pause. */
  const scheduleCheck = () => {
    if (closed || timer !== null || checking !== null) return;
    if (own.tracked(clock.monotonic()).length === 0) return;
    timer = clock.setTimeout(runCheck, checkMs);
    (timer as { unref?: () => void }).unref?.();
  };
  // A Redis restart or a failover drops the connection: look as soon as it is back.
  redis.on('ready', runCheck);

  type Once = AcquireResult | { lost: string };
  const acquireOnce = async (credentialId: string, priority: Priority): Promise<Once> => {
    const sentAt = clock.monotonic();
    const newest = own.newest(credentialId, sentAt);
    const reply = list(
      await commands.estoqueBudgetAcquire(
        keys.budgetLog(credentialId),
        keys.budgetPause(credentialId),
        keys.budgetStats(credentialId),
        keys.budgetFeedLog(credentialId),
        keys.budgetInteractiveWaiting(credentialId),
        keys.budgetSaturated(credentialId),
        keys.budgetEpoch(),
        keys.budgetSettling(),
        policy.spanMs,
        `${processTag}-${nextId()}`,
        PRIORITIES.indexOf(priority) + 1,
        policy.feedCap,
        PRIORITIES.indexOf('feed') + 1,
        YIELD_FROM,
        policy.waitingMarginMs,
        policy.feedCapSaturated,
        seenEpoch,
        newEpoch(),
        newest?.member ?? '',
        newest?.score ?? 0,
        settleMs,
        ...capacities,
      ),
      'acquire',
    );
    const code = field(reply, 0, 'acquire');
    const epoch = text(reply, 1, 'acquire');
    if (code === 2) return { lost: epoch };
    seenEpoch = epoch;
    if (code === 1) {
      own.record(credentialId, {
        score: field(reply, 2, 'acquire'),
        member: text(reply, 3, 'acquire'),
        feed: priority === 'feed',
        seenAt: clock.monotonic(),
      });
      scheduleCheck();
      return { granted: true };
    }
    const paused = field(reply, 2, 'acquire');
    // Another process's pause: this one can put it back too.
    if (paused > 0) {
      own.notePause(credentialId, sentAt + paused);
      scheduleCheck();
    }
    const [interactive, digest, feed, background] = [3, 4, 5, 6].map((i) => field(reply, i, 'acquire'));
    return {
      granted: false,
      waitMs: {
        interactive: interactive ?? 0,
        digest: digest ?? 0,
        feed: feed ?? 0,
        background: background ?? 0,
      },
    };
  };

  const acquire: Acquire = async (credentialId, priority) => {
    const first = await acquireOnce(credentialId, priority);
    if (!('lost' in first)) return first;
    await restore(first.lost);
    const again = await acquireOnce(credentialId, priority);
    // Lost again meanwhile: nothing is granted during the settle period anyway.
    if ('lost' in again) return { granted: false, waitMs: mapPriorities(() => settleMs) };
    return again;
  };

  const budget = budgetOverWindow(policy, options, {
    acquire,
    async pause(credentialId, ms) {
      const sentAt = clock.monotonic();
      const inForce = field(
        [
          await commands.estoqueBudgetPause(
            keys.budgetPause(credentialId),
            keys.budgetStats(credentialId),
            ms,
          ),
        ],
        0,
        'pause',
      );
      own.notePause(credentialId, sentAt + inForce);
      scheduleCheck();
    },
    async pauseAfter429(credentialId, retryAfterMs) {
      const sentAt = clock.monotonic();
      const reply = list(
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
      const pausedMs = field(reply, 0, 'pause after 429');
      own.notePause(credentialId, sentAt + pausedMs);
      scheduleCheck();
      return { pausedMs, streak: field(reply, 1, 'pause after 429') };
    },
    async usage(credentialId) {
      const reply = list(
        await commands.estoqueBudgetUsage(
          keys.budgetLog(credentialId),
          keys.budgetPause(credentialId),
          keys.budgetFeedLog(credentialId),
          keys.budgetSaturated(credentialId),
          keys.budgetSettling(),
          policy.spanMs,
          policy.count,
        ),
        'usage',
      );
      const [used, pausedMs, waitMs, feedUsed, saturated] = [0, 1, 2, 3, 4].map((i) =>
        field(reply, i, 'usage'),
      );
      return {
        used: used ?? 0,
        pausedMs: pausedMs ?? 0,
        waitMs: waitMs ?? 0,
        feedUsed: feedUsed ?? 0,
        saturated: saturated === 1,
      };
    },
  });
  return {
    ...budget,
    async close() {
      closed = true;
      if (timer !== null) clock.clearTimeout(timer);
      timer = null;
      redis.off('ready', runCheck);
      await budget.close();
      await checking;
    },
  };
}

/** The counters of `keys.budgetStats(id)`, zero when absent. */
export async function readBudgetStats(redis: Redis, keys: Keys, credentialId: string): Promise<BudgetStats> {
  const hash = await redis.hgetall(keys.budgetStats(credentialId));
  const read = (field: keyof BudgetStats) => Number.parseInt(hash[field] ?? '0', 10) || 0;
  return { calls: read('calls'), denied: read('denied'), paused: read('paused') };
}
