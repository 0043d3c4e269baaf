import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Priority } from '../../src/upstream/budget.js';
import {
  BudgetClosedError,
  BudgetExhaustedError,
  BudgetStoreUnavailableError,
} from '../../src/upstream/budget-errors.js';
import { DEFAULT_MAX_WAIT_MS } from '../../src/upstream/budget-policy.js';
import {
  type Acquire,
  type AcquireResult,
  BudgetQueue as QueueOnClock,
} from '../../src/upstream/budget-queue.js';
import { fakeClock, settle } from '../helpers/fake-time.js';

/** The queue on fake timers: its waits and deadlines pass only when a test lets them. */
class BudgetQueue extends QueueOnClock {
  constructor(acquire: Acquire, maxWaitMs: typeof DEFAULT_MAX_WAIT_MS) {
    super(acquire, maxWaitMs, undefined, fakeClock);
  }
}

beforeEach(() => {
  vi.useFakeTimers({ now: Date.UTC(2026, 10, 23, 12) });
});
afterEach(() => {
  vi.useRealTimers();
});

const granted: AcquireResult = { granted: true };
const refused = (interactive: number, digest = interactive, background = digest): AcquireResult => ({
  granted: false,
  waitMs: { interactive, digest, feed: background, background },
});

/** A store that answers from a script, then grants; records what it was asked. */
function scriptedStore(answers: AcquireResult[]) {
  const asked: Priority[] = [];
  const acquire: Acquire = async (_id, priority) => {
    asked.push(priority);
    return answers.shift() ?? granted;
  };
  return { asked, acquire };
}

describe('budget queue', () => {
  it('starts the next job without waiting for the previous one to finish', async () => {
    const { acquire } = scriptedStore([]);
    const queue = new BudgetQueue(acquire, DEFAULT_MAX_WAIT_MS);
    const first = queue.schedule('c', 'interactive', () => new Promise<string>(() => {}));

    await expect(queue.schedule('c', 'interactive', async () => 'second')).resolves.toBe('second');
    void first;
    await queue.close();
  });

  it('wakes for a more urgent job instead of sleeping through the wait of a less urgent one', async () => {
    const { acquire, asked } = scriptedStore([refused(1, 60_000)]);
    const queue = new BudgetQueue(acquire, DEFAULT_MAX_WAIT_MS);
    const background = queue.schedule('c', 'background', async () => 'background', { maxWaitMs: 120_000 });
    await vi.waitFor(() => expect(asked).toEqual(['background']));
    const refusedAt = Date.now();

    await expect(settle(queue.schedule('c', 'interactive', async () => 'interactive'))).resolves.toBe(
      'interactive',
    );

    expect(asked).toEqual(['background', 'interactive']);
    // It ran when its own slot freed (1 ms after the refusal), not after the background job's 60 s.
    expect(Date.now() - refusedAt).toBe(1);
    await queue.close();
    await expect(background).rejects.toBeInstanceOf(BudgetClosedError);
  });

  it('rejects at once a job whose slot frees after its deadline, and a later one without asking the store', async () => {
    const { acquire, asked } = scriptedStore([refused(5_000)]);
    const queue = new BudgetQueue(acquire, DEFAULT_MAX_WAIT_MS);
    const keeper = queue.schedule('c', 'interactive', async () => 'keeper', { maxWaitMs: 60_000 });
    const hopeless = await queue
      .schedule('c', 'interactive', async () => 'never', { maxWaitMs: 1_000 })
      .catch((e: unknown) => e);

    expect(hopeless).toBeInstanceOf(BudgetExhaustedError);
    // The store said a slot frees in 5 s; no time has passed.
    expect((hopeless as BudgetExhaustedError).retryAt).toBe(Date.now() + 5_000);
    const late = await queue.schedule('c', 'background', async () => 'never').catch((e: unknown) => e);
    expect(late).toBeInstanceOf(BudgetExhaustedError);
    expect(asked).toEqual(['interactive']);
    await queue.close();
    await expect(keeper).rejects.toBeInstanceOf(BudgetClosedError);
  });

  it('rejects a job when its deadline passes while the store does not answer, saying the store did not answer, not that the budget is spent', async () => {
    let answer: (result: AcquireResult) => void = () => {};
    const acquire: Acquire = () => new Promise((resolve) => (answer = resolve));
    const queue = new BudgetQueue(acquire, DEFAULT_MAX_WAIT_MS);
    const started = Date.now();
    const stuck = queue.schedule('c', 'interactive', async () => 'stuck', { maxWaitMs: 60_000 });
    const behind = queue.schedule('c', 'digest', async () => 'behind', { maxWaitMs: 50 });

    const error = await settle(behind).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetStoreUnavailableError);
    expect(error).not.toBeInstanceOf(BudgetExhaustedError);
    expect(Date.now() - started).toBe(50);
    answer(granted);
    await expect(stuck).resolves.toBe('stuck');
    await queue.close();
  });

  it('gives the job it asked for the store error, and the next job its own attempt', async () => {
    let calls = 0;
    const acquire: Acquire = async () => {
      calls += 1;
      if (calls === 1) throw new Error('Connection is closed.');
      return granted;
    };
    const queue = new BudgetQueue(acquire, DEFAULT_MAX_WAIT_MS);
    const first = queue.schedule('c', 'interactive', async () => 'first');
    const second = queue.schedule('c', 'interactive', async () => 'second');

    await expect(first).rejects.toThrow('Connection is closed.');
    await expect(first).rejects.toBeInstanceOf(BudgetStoreUnavailableError);
    await expect(second).resolves.toBe('second');
    await queue.close();
  });

  it('rejects aborted jobs and keeps serving the others', async () => {
    const { acquire } = scriptedStore([refused(300)]);
    const queue = new BudgetQueue(acquire, DEFAULT_MAX_WAIT_MS);
    const controller = new AbortController();
    const aborted = queue.schedule('c', 'interactive', async () => 'aborted', { signal: controller.signal });
    const other = queue.schedule('c', 'interactive', async () => 'other');

    controller.abort(new Error('user left'));

    await expect(aborted).rejects.toThrow('user left');
    await expect(settle(other)).resolves.toBe('other');
    await expect(
      queue.schedule('c', 'interactive', async () => 'x', {
        signal: AbortSignal.abort(new Error('already')),
      }),
    ).rejects.toThrow('already');
    await queue.close();
  });

  it('passes on what fn throws, even synchronously', async () => {
    const queue = new BudgetQueue(scriptedStore([]).acquire, DEFAULT_MAX_WAIT_MS);
    await expect(
      queue.schedule('c', 'interactive', () => {
        throw new Error('sync boom');
      }),
    ).rejects.toThrow('sync boom');
    await queue.close();
  });

  it('refuses new jobs once closed', async () => {
    const queue = new BudgetQueue(scriptedStore([]).acquire, DEFAULT_MAX_WAIT_MS);
    await queue.close();
    await expect(queue.schedule('c', 'interactive', async () => 'x')).rejects.toBeInstanceOf(
      BudgetClosedError,
    );
  });
});

describe('budget queue: where a waiting call stands', () => {
  it('tells each waiting job its place in the queue, by priority then arrival, and nothing to a job that starts at once', async () => {
    const { acquire, asked } = scriptedStore([granted, refused(1_000), refused(500)]);
    const queue = new BudgetQueue(acquire, DEFAULT_MAX_WAIT_MS);
    const told: string[] = [];
    const tell = (name: string) => (position: number) => told.push(`${name}:${position}`);
    await queue.schedule('c', 'interactive', async () => 'at once', { onQueued: tell('first') });
    expect(told).toEqual([]);

    const digest = queue.schedule('c', 'digest', async () => 'digest', { onQueued: tell('digest') });
    await vi.waitFor(() => expect(asked).toHaveLength(2));
    expect(told).toEqual(['digest:1']);
    // The lane is known full: a newcomer is told its place at once, ahead of the digest.
    const command = queue.schedule('c', 'interactive', async () => 'command', { onQueued: tell('command') });
    expect(told).toEqual(['digest:1', 'command:1']);

    await vi.advanceTimersByTimeAsync(1_000);
    await vi.waitFor(() => expect(asked).toHaveLength(3));
    expect(told).toEqual(['digest:1', 'command:1', 'command:1', 'digest:2']);
    await vi.advanceTimersByTimeAsync(500);
    await expect(command).resolves.toBe('command');
    await expect(digest).resolves.toBe('digest');
    await queue.close();
  });
});

/** Jobs that record the order they ran in. */
function recorder() {
  const ran: string[] = [];
  const job = (name: string) => async () => {
    ran.push(name);
    return name;
  };
  return { ran, job };
}

/** `answers` answers wait on a call, `empty` of them (default: all) with nothing on screen. */
const waiting = (answers: number, empty = answers) => ({ answers, empty });

describe('budget queue: the call the most answers wait on goes first', () => {
  it('gives a freed slot to the most waited-on call of the most urgent priority, the earliest among equals', async () => {
    const { acquire, asked } = scriptedStore([refused(1_000)]);
    const queue = new BudgetQueue(acquire, DEFAULT_MAX_WAIT_MS);
    const { ran, job } = recorder();
    let hotReaders = 1;
    const cold = queue.schedule('c', 'interactive', job('cold'));
    await vi.waitFor(() => expect(asked).toHaveLength(1));
    const hot = queue.schedule('c', 'interactive', job('hot'), { demand: () => waiting(hotReaders) });
    const warm = queue.schedule('c', 'interactive', job('warm'), { demand: () => waiting(3) });
    const digest = queue.schedule('c', 'digest', job('digest'), { demand: () => waiting(50) });
    // Readers join the hot call while it waits: read when the slot frees, not when it was queued.
    hotReaders = 5;

    await settle(Promise.all([cold, hot, warm, digest]));
    expect(ran).toEqual(['hot', 'warm', 'cold', 'digest']);
    await queue.close();
  });

  it('keeps arrival order when no call says how many wait on it', async () => {
    const { acquire, asked } = scriptedStore([refused(1_000)]);
    const queue = new BudgetQueue(acquire, DEFAULT_MAX_WAIT_MS);
    const { ran, job } = recorder();
    const first = queue.schedule('c', 'interactive', job('first'));
    await vi.waitFor(() => expect(asked).toHaveLength(1));
    const second = queue.schedule('c', 'interactive', job('second'), { demand: () => waiting(1) });
    const third = queue.schedule('c', 'interactive', job('third'));

    await settle(Promise.all([first, second, third]));
    expect(ran).toEqual(['first', 'second', 'third']);
    await queue.close();
  });
});

describe('budget queue: among equals, people looking at nothing go first', () => {
  it('among calls as many answers wait on, gives a freed slot first to the one people shown nothing wait on', async () => {
    const { acquire, asked } = scriptedStore([refused(1_000)]);
    const queue = new BudgetQueue(acquire, DEFAULT_MAX_WAIT_MS);
    const { ran, job } = recorder();
    let firstEmpty = 1;
    const first = queue.schedule('c', 'interactive', job('saved-shown'), {
      demand: () => waiting(1, firstEmpty),
    });
    await vi.waitFor(() => expect(asked).toHaveLength(1));
    const empty = queue.schedule('c', 'interactive', job('empty'), { demand: () => waiting(1, 1) });
    // More answers wait on these: they go first whoever sees what (one call answers them all).
    const popularSaved = queue.schedule('c', 'interactive', job('popular-saved'), {
      demand: () => waiting(3, 0),
    });
    const popularEmpty = queue.schedule('c', 'interactive', job('popular-empty'), {
      demand: () => waiting(3, 2),
    });
    // The first message of the first command showed its saved data while it waited: read at the grant.
    firstEmpty = 0;

    await settle(Promise.all([first, empty, popularSaved, popularEmpty]));
    expect(ran).toEqual(['popular-empty', 'popular-saved', 'empty', 'saved-shown']);
    await queue.close();
  });

  it('tells each waiting call its place in the order a freed slot follows', async () => {
    const { acquire, asked } = scriptedStore([refused(1_000), refused(1_000)]);
    const queue = new BudgetQueue(acquire, DEFAULT_MAX_WAIT_MS);
    const places: Record<string, number[]> = { saved: [], empty: [], digest: [] };
    const first = queue.schedule('c', 'interactive', async () => 'saved', {
      demand: () => waiting(1, 0),
      onQueued: (position) => places.saved?.push(position),
    });
    await vi.waitFor(() => expect(asked).toHaveLength(1));
    const digest = queue.schedule('c', 'digest', async () => 'digest', {
      onQueued: (position) => places.digest?.push(position),
    });
    const empty = queue.schedule('c', 'interactive', async () => 'empty', {
      demand: () => waiting(1, 1),
      onQueued: (position) => places.empty?.push(position),
    });
    // Queued behind a refusal: told at once, counting the calls a freed slot goes to first.
    expect(places).toEqual({ saved: [1], empty: [1], digest: [2] });
    // Every one told again at the next refusal.
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.waitFor(() => expect(asked).toHaveLength(2));

    expect(places.empty?.at(-1)).toBe(1);
    expect(places.saved?.at(-1)).toBe(2);
    expect(places.digest?.at(-1)).toBe(3);
    await settle(Promise.all([first, digest, empty]));
    await queue.close();
  });

  it('counts a call whose demand cannot be read as one answer showing nothing', async () => {
    const { acquire, asked } = scriptedStore([refused(1_000)]);
    const queue = new BudgetQueue(acquire, DEFAULT_MAX_WAIT_MS);
    const { ran, job } = recorder();
    const saved = queue.schedule('c', 'interactive', job('saved'), { demand: () => waiting(1, 0) });
    await vi.waitFor(() => expect(asked).toHaveLength(1));
    const broken = queue.schedule('c', 'interactive', job('broken'), {
      demand: () => {
        throw new Error('listener gone');
      },
    });
    const nonsense = queue.schedule('c', 'interactive', job('nonsense'), {
      demand: () => ({ answers: Number.NaN, empty: 5 }),
    });

    await settle(Promise.all([saved, broken, nonsense]));
    expect(ran).toEqual(['broken', 'nonsense', 'saved']);
    await queue.close();
  });
});
