import { describe, expect, it } from 'vitest';
import { persistently } from '../../src/upstream/persist.js';

describe('persistently', () => {
  it('asks again with waits doubling from 100 ms until the write goes through', async () => {
    const waits: number[] = [];
    let calls = 0;
    await persistently(
      async () => {
        calls += 1;
        if (calls < 4) throw new Error('store restarting');
      },
      60_000,
      {
        sleep: async (ms) => {
          waits.push(ms);
        },
        now: () => 0,
      },
    );
    expect(calls).toBe(4);
    expect(waits).toEqual([100, 200, 400]);
  });

  it('gives up with the last error once the next wait would pass its time, on the clock it is given', async () => {
    let now = 0;
    let calls = 0;
    const failing = persistently(
      async () => {
        calls += 1;
        throw new Error(`refused ${calls}`);
      },
      1_000,
      {
        sleep: async (ms) => {
          now += ms;
        },
        now: () => now,
      },
    );
    // 100 + 200 + 400 = 700 ms slept; the next wait (800) would end past 1 s.
    await expect(failing).rejects.toThrow('refused 4');
    expect(now).toBe(700);
  });

  it('gives up at once when it has no time', async () => {
    let calls = 0;
    const failing = persistently(
      async () => {
        calls += 1;
        throw new Error(`refused ${calls}`);
      },
      0,
      { sleep: async () => undefined, now: () => 0 },
    );
    await expect(failing).rejects.toThrow('refused 1');
    expect(calls).toBe(1);
  });
});
