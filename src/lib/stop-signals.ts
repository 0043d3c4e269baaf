import type { Clock } from './clock.js';

/**
 * What a stop signal means for a process: the first one stops it; its echo is ignored; one more while it stops ends
 * it at once (Ctrl-C twice, a supervisor that will not wait).
 */
export type StopSignalVerdict = 'stop' | 'ignore' | 'exit-now';

/**
 * How soon after the first signal the same signal is taken as its echo. One Ctrl-C on `npm start` reaches the
 * process twice: the terminal sends SIGINT to the whole foreground group (npm and node), and npm forwards its own
 * to node, a few milliseconds apart.
 */
export const SIGNAL_ECHO_MS = 1000;

/**
 * Decides, signal by signal, whether the process stops gracefully, ignores the signal or exits now. One repeat of
 * the first signal within SIGNAL_ECHO_MS is ignored (the npm echo); any other signal while stopping exits now, so a
 * real second Ctrl-C still does (under npm its own pair is the third signal).
 */
export function stopSignalTracker(clock: Pick<Clock, 'monotonic'>): (signal: string) => StopSignalVerdict {
  let first: { signal: string; at: number } | null = null;
  let echoIgnored = false;
  return (signal) => {
    if (!first) {
      first = { signal, at: clock.monotonic() };
      return 'stop';
    }
    if (!echoIgnored && signal === first.signal && clock.monotonic() - first.at < SIGNAL_ECHO_MS) {
      echoIgnored = true;
      return 'ignore';
    }
    return 'exit-now';
  };
}
