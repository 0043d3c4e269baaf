import { describe, expect, it } from 'vitest';
import type { CallObserver } from '../../src/upstream/call-observer.js';
import { InFlight } from '../../src/upstream/in-flight.js';

/** An observer that writes down what it was told, in order. */
function recorder(name: string, log: string[]): CallObserver {
  return {
    queued: (position) => log.push(`${name} queued ${position}`),
    started: () => log.push(`${name} started`),
  };
}

/** A job the test settles, handing out the observer InFlight gave it. */
function heldJob() {
  let observer: CallObserver | undefined;
  let finish = (_value: string) => {};
  const start = (shared: CallObserver) => {
    observer = shared;
    return new Promise<string>((resolve) => {
      finish = resolve;
    });
  };
  return { start, observer: () => observer as CallObserver, finish: (value: string) => finish(value) };
}

describe('InFlight: callers that join a job in flight hear where it stands', () => {
  it('a caller that joins a queued job is told its place at once, then every later event, like the first caller', async () => {
    const inflight = new InFlight<string>();
    const log: string[] = [];
    const held = heldJob();
    const first = inflight.run('k', 'interactive', held.start, recorder('first', log));
    held.observer().queued?.(3);
    const second = inflight.run('k', 'interactive', () => Promise.resolve('never'), recorder('second', log));
    expect(second.shared).toBe(true);
    held.observer().queued?.(2);
    held.observer().started?.();
    held.finish('data');
    expect(await first.job).toBe('data');
    expect(await second.job).toBe('data');
    expect(log).toEqual([
      'first queued 3',
      'second queued 3',
      'first queued 2',
      'second queued 2',
      'first started',
      'second started',
    ]);
  });

  it('a caller that joins a job already out is told it started', () => {
    const inflight = new InFlight<string>();
    const log: string[] = [];
    const held = heldJob();
    inflight.run('k', 'interactive', held.start);
    held.observer().queued?.(1);
    held.observer().started?.();
    inflight.run('k', 'interactive', held.start, recorder('late', log));
    expect(log).toEqual(['late started']);
  });

  it("a caller that does not share (a command behind a digest's job) hears only its own job", () => {
    const inflight = new InFlight<string>();
    const log: string[] = [];
    const digest = heldJob();
    const command = heldJob();
    inflight.run('k', 'digest', digest.start, recorder('digest', log));
    const own = inflight.run('k', 'interactive', command.start, recorder('command', log));
    expect(own.shared).toBe(false);
    digest.observer().queued?.(5);
    command.observer().queued?.(1);
    expect(log).toEqual(['digest queued 5', 'command queued 1']);
  });
});
