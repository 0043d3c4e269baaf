import { describe, expect, it } from 'vitest';
import { persistently } from '../../src/lib/persist.js';

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
      async (ms) => {
        waits.push(ms);
      },
    );
    expect(calls).toBe(4);
    expect(waits).toEqual([100, 200, 400]);
  });

  it('gives up with the last error when the next wait would pass its time', async () => {
    let calls = 0;
    const failing = persistently(
      async () => {
        calls += 1;
        throw new Error(`refused ${calls}`);
      },
      0,
      async () => undefined,
    );
    await expect(failing).rejects.toThrow('refused 1');
    expect(calls).toBe(1);
  });
});
