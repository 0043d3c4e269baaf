import { type IncomingMessage, Server, type ServerResponse } from 'node:http';

/**
 * Acks before answers. Slack gives a request 3 s to be acked, and on one event loop the ack of a request that
 * just arrived waits behind whatever else runs: rendering another answer, parsing an upstream page. This counts
 * the Slack requests received but not yet answered on the HTTP server; work that runs after an ack (commands'
 * answers, digests) calls `yield()` at its checkpoints and goes on once none is waiting, or after `maxWaitMs`,
 * so that a steady stream of requests never starves it. Socket Mode has no HTTP server to watch: there the
 * checkpoints only give I/O one turn of the loop.
 *
 * Work waiting at a checkpoint goes on **one piece per turn of the event loop**, in arrival order: between two
 * pieces the loop reads its sockets, so a request that arrives while a hundred answers are ready to go on is
 * seen (its `request` event fires) after at most one of them, not after all. (Let go together, as a Redis reply
 * that answers many commands at once would let them, the hundred would run back to back and the request would
 * wait for all of them.)
 */
export class AckPriority {
  private waitingAcks = 0;
  /** Work waiting at a checkpoint, oldest first, with when it came (performance.now()). */
  private readonly queue: { go: () => void; since: number }[] = [];
  private turnScheduled = false;
  private holdTimer: ReturnType<typeof setTimeout> | undefined;

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
        if (this.waitingAcks === 0) this.scheduleTurn();
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

  /** Work waiting at a checkpoint. */
  get queued(): number {
    return this.queue.length;
  }

  /**
   * Resolves on a later turn of the event loop (requests whose bytes have arrived get their `request` event
   * first), once no request waits for its ack or this has waited `maxWaitMs`, and after the work that came to a
   * checkpoint before it, one piece per turn.
   */
  yield(): Promise<void> {
    return new Promise<void>((go) => {
      this.queue.push({ go, since: performance.now() });
      this.scheduleTurn();
    });
  }

  private scheduleTurn(): void {
    if (this.turnScheduled || this.queue.length === 0) return;
    this.turnScheduled = true;
    setImmediate(() => this.turn());
  }

  /** One turn: lets the oldest waiting piece of work go, unless acks wait and it has not waited its maximum. */
  private turn(): void {
    this.turnScheduled = false;
    const head = this.queue[0];
    if (!head) return;
    if (this.waitingAcks > 0) {
      const left = head.since + this.maxWaitMs - performance.now();
      if (left > 0) {
        // Held: the last ack to go out schedules the next turn, or the oldest piece's maximum wait does.
        clearTimeout(this.holdTimer);
        this.holdTimer = setTimeout(() => this.scheduleTurn(), Math.ceil(left));
        return;
      }
    }
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    this.queue.shift();
    head.go();
    this.scheduleTurn();
  }
}
