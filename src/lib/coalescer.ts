interface Queued<T> {
  request: T;
  work: (request: T) => Promise<void>;
  settle: { resolve: () => void; reject: (error: unknown) => void };
  done: Promise<void>;
}

/**
 * Per key, one run at a time; the requests that arrive while a run goes on are merged into ONE run after it, so
 * the last run always starts after the last request (nothing built from older state lands last). Each caller's
 * promise settles when a run that started after its request ends. In process only: replicas each have their own.
 */
export class SerialCoalescer<T> {
  /** The keys with a run going on, and what is queued behind it (merged). */
  private readonly keys = new Map<string, { next: Queued<T> | null }>();

  constructor(
    /** Two requests as one: `queued` arrived first, `next` after it. */
    private readonly merge: (queued: T, next: T) => T,
  ) {}

  run(key: string, request: T, work: (request: T) => Promise<void>): Promise<void> {
    const slot = this.keys.get(key);
    if (!slot) {
      const fresh = { next: null };
      this.keys.set(key, fresh);
      return this.drain(key, fresh, request, work);
    }
    if (slot.next) {
      slot.next.request = this.merge(slot.next.request, request);
      // The newest caller's work (its client...) runs the merged request.
      slot.next.work = work;
      return slot.next.done;
    }
    let settle: Queued<T>['settle'] = { resolve: () => undefined, reject: () => undefined };
    const done = new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
    });
    slot.next = { request, work, settle, done };
    return done;
  }

  /** Whether a run of `key` is going on (what arrives now is merged into the next one). */
  busy(key: string): boolean {
    return this.keys.has(key);
  }

  /** Whether a run of `key` waits behind the one going on (it will start after it, with what was merged). */
  pending(key: string): boolean {
    return (this.keys.get(key)?.next ?? null) !== null;
  }

  private async drain(
    key: string,
    slot: { next: Queued<T> | null },
    request: T,
    work: (request: T) => Promise<void>,
  ): Promise<void> {
    try {
      await work(request);
    } finally {
      const next = slot.next;
      slot.next = null;
      if (next) this.drain(key, slot, next.request, next.work).then(next.settle.resolve, next.settle.reject);
      else this.keys.delete(key);
    }
  }
}
