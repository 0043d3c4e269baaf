/** Told where a call stands: waiting for a budget slot (and its place), then gone out. */
export interface CallObserver {
  queued?(position: number): void;
  started?(): void;
}

/**
 * One call's events told to every caller that waits on it: the one that started it and those that joined it in
 * flight (InFlight). A caller that joins hears at once where the call stands (its place in the queue, or that it
 * went out), so a command that shares another's call gets the same first message as if the call were its own.
 */
export class SharedCallObserver implements CallObserver {
  private readonly observers = new Set<CallObserver>();
  private position: number | null = null;
  private out = false;

  add(observer: CallObserver | undefined): void {
    if (observer === undefined) return;
    this.observers.add(observer);
    if (this.position !== null) observer.queued?.(this.position);
    else if (this.out) observer.started?.();
  }

  readonly queued = (position: number): void => {
    this.position = position;
    this.tell((observer) => observer.queued?.(position));
  };

  readonly started = (): void => {
    this.position = null;
    this.out = true;
    this.tell((observer) => observer.started?.());
  };

  /** Every observer is told, even when one throws; the first failure is then rethrown to the caller. */
  private tell(event: (observer: CallObserver) => void): void {
    let failure: { error: unknown } | null = null;
    for (const observer of this.observers) {
      try {
        event(observer);
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure !== null) throw failure.error;
  }
}
