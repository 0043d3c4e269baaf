import { describe, expect, it } from 'vitest';
import { SerialCoalescer } from '../../src/lib/coalescer.js';

/** A run the test ends by hand. */
function held() {
  let end: () => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    end = resolve;
    fail = reject;
  });
  return { done, end: () => end(), fail: (error: unknown) => fail(error) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SerialCoalescer', () => {
  it('runs one at a time per key; what arrives meanwhile is merged into one run after it', async () => {
    const coalescer = new SerialCoalescer<string[]>((queued, next) => [...queued, ...next]);
    const runs: string[][] = [];
    const first = held();
    const work = async (request: string[]) => {
      runs.push(request);
      if (runs.length === 1) await first.done;
    };
    const settled: string[] = [];
    const a = coalescer.run('k', ['a'], work).then(() => settled.push('a'));
    const b = coalescer.run('k', ['b'], work).then(() => settled.push('b'));
    const c = coalescer.run('k', ['c'], work).then(() => settled.push('c'));
    await tick();
    expect(runs).toEqual([['a']]);
    expect(coalescer.busy('k')).toBe(true);
    first.end();
    await Promise.all([a, b, c]);
    expect(runs).toEqual([['a'], ['b', 'c']]);
    expect(settled).toEqual(['a', 'b', 'c']);
    expect(coalescer.busy('k')).toBe(false);
  });

  it('keys do not wait for each other', async () => {
    const coalescer = new SerialCoalescer<number>((_, next) => next);
    const slow = held();
    const runs: string[] = [];
    void coalescer.run('x', 1, async () => {
      runs.push('x');
      await slow.done;
    });
    await coalescer.run('y', 1, async () => {
      runs.push('y');
    });
    expect(runs).toEqual(['x', 'y']);
    slow.end();
  });

  it('a failed run fails its callers only, and the queued run still goes', async () => {
    const coalescer = new SerialCoalescer<number>((_, next) => next);
    const first = held();
    const runs: number[] = [];
    const work = async (n: number) => {
      runs.push(n);
      if (n === 1) await first.done;
    };
    const failing = coalescer.run('k', 1, work);
    const queued = coalescer.run('k', 2, work);
    first.fail(new Error('boom'));
    await expect(failing).rejects.toThrow('boom');
    await expect(queued).resolves.toBeUndefined();
    expect(runs).toEqual([1, 2]);
  });

  it('pending: whether a merged run waits behind the one going on', async () => {
    const coalescer = new SerialCoalescer<string[]>((queued, next) => [...queued, ...next]);
    const first = held();
    let runs = 0;
    const work = async () => {
      runs += 1;
      if (runs === 1) await first.done;
    };
    expect(coalescer.pending('k')).toBe(false);
    const a = coalescer.run('k', ['a'], work);
    await tick();
    expect(coalescer.busy('k')).toBe(true);
    expect(coalescer.pending('k')).toBe(false);
    const b = coalescer.run('k', ['b'], work);
    expect(coalescer.pending('k')).toBe(true);
    first.end();
    await Promise.all([a, b]);
    expect(coalescer.pending('k')).toBe(false);
    expect(coalescer.busy('k')).toBe(false);
  });
});
