import { type IncomingMessage, Server, type ServerResponse } from 'node:http';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

/**
 * Acks before answers. Slack gives a request 3 s to be acked, and on one event loop the ack of a request that
 * just arrived waits behind whatever else runs: rendering another answer, parsing an upstream page. This counts
 * the Slack requests received but not yet answered on the HTTP server; work that runs after an ack (commands'
 * answers, digests) calls `yield()` at its checkpoints and goes on once none is waiting and none has arrived for
 * `quietMs` (a burst whose next requests are still being read: their 'request' event has not fired yet), or
 * after `maxWaitMs`, so that a steady stream of requests never starves it. Socket Mode has no HTTP server to
 * watch: there the checkpoints only give I/O one turn of the loop.
 */
export class AckPriority {
  private waitingAcks = 0;
  /** performance.now() of the last request or connection the server saw; -Infinity before any. */
  private lastArrival = Number.NEGATIVE_INFINITY;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly maxWaitMs = 50,
    /** How long without a new request counts as the end of a burst. */
    private readonly quietMs = 5,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Follows the POST requests of the server Bolt's HTTP receiver returned from `start()`; false if not one. */
  watch(server: unknown): boolean {
    if (!(server instanceof Server)) return false;
    // A new connection is a request on its way (a burst opens many at once).
    server.on('connection', () => {
      this.lastArrival = this.now();
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.method !== 'POST') return;
      this.lastArrival = this.now();
      this.waitingAcks += 1;
      let done = false;
      const end = () => {
        if (done) return;
        done = true;
        this.waitingAcks -= 1;
        if (this.waitingAcks === 0) this.release();
      };
      res.once('finish', end);
      res.once('close', end);
    });
    return true;
  }

  /** Requests received and not yet answered. */
  get waiting(): number {
    return this.waitingAcks;
  }

  /**
   * One turn of the event loop (requests whose bytes have arrived get their 'request' event), then waits until
   * none is waiting for its ack and none arrived for `quietMs`, at most `maxWaitMs` in all.
   */
  async yield(): Promise<void> {
    const deadline = this.now() + this.maxWaitMs;
    await nextTurn();
    for (;;) {
      const left = deadline - this.now();
      if (left <= 0) return;
      if (this.waitingAcks > 0) {
        await this.acked(left);
        continue;
      }
      const quietFor = this.now() - this.lastArrival;
      if (quietFor >= this.quietMs) return;
      await sleep(Math.min(left, this.quietMs - quietFor));
    }
  }

  /** Resolves once no request waits for its ack, or after `ms`. */
  private acked(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(go, ms);
      const waiters = this.waiters;
      function go() {
        clearTimeout(timer);
        waiters.delete(go);
        resolve();
      }
      waiters.add(go);
    });
  }

  private release(): void {
    for (const go of [...this.waiters]) go();
  }
}
