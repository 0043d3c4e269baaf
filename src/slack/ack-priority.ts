import { type IncomingMessage, Server, type ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Acks before answers. Slack gives a request 3 s to be acked, and on one event loop the ack of a request that
 * just arrived waits behind whatever else runs: rendering another answer, parsing an upstream page. This counts
 * the Slack requests received but not yet answered on the HTTP server; work that runs after an ack (commands'
 * answers, digests) calls `yield()` at its checkpoints and goes on once none is waiting, or after `maxWaitMs`,
 * so that a steady stream of requests never starves it. Socket Mode has no HTTP server to watch: there the
 * checkpoints only give I/O one turn of the loop.
 */
export class AckPriority {
  private waitingAcks = 0;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly maxWaitMs = 50) {}

  /** Follows the POST requests of the server Bolt's HTTP receiver returned from `start()`; false if not one. */
  watch(server: unknown): boolean {
    if (!(server instanceof Server)) return false;
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.method !== 'POST') return;
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
   * none is waiting for its ack, at most `maxWaitMs`.
   */
  async yield(): Promise<void> {
    await nextTurn();
    if (this.waitingAcks === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(go, this.maxWaitMs);
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
