import { describe, expect, it } from 'vitest';
import { stopSignalTracker } from '../../src/lib/stop-signals.js';

function fakeClock() {
  let t = 10_000;
  return {
    monotonic: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

describe('stop signals', () => {
  it('one Ctrl-C under npm (SIGINT twice, the echo within 1 s) stops once and does not exit now', () => {
    const clock = fakeClock();
    const verdict = stopSignalTracker(clock);
    expect(verdict('SIGINT')).toBe('stop');
    clock.advance(40);
    expect(verdict('SIGINT')).toBe('ignore');
  });

  it('a real second Ctrl-C later exits now, even after an echo was ignored', () => {
    const clock = fakeClock();
    const verdict = stopSignalTracker(clock);
    expect(verdict('SIGINT')).toBe('stop');
    clock.advance(5);
    expect(verdict('SIGINT')).toBe('ignore');
    clock.advance(2_000);
    expect(verdict('SIGINT')).toBe('exit-now');
  });

  it('a second Ctrl-C under npm within the first second exits now (its echo pair is the third signal)', () => {
    const clock = fakeClock();
    const verdict = stopSignalTracker(clock);
    expect(verdict('SIGINT')).toBe('stop');
    expect(verdict('SIGINT')).toBe('ignore');
    clock.advance(300);
    expect(verdict('SIGINT')).toBe('exit-now');
  });

  it('a second signal after the window, or a different signal at once, exits now', () => {
    const clock = fakeClock();
    const later = stopSignalTracker(clock);
    expect(later('SIGTERM')).toBe('stop');
    clock.advance(1_000);
    expect(later('SIGTERM')).toBe('exit-now');

    const other = stopSignalTracker(clock);
    expect(other('SIGTERM')).toBe('stop');
    expect(other('SIGINT')).toBe('exit-now');
  });
});
