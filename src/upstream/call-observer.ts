/** Told where a call stands: waiting for a budget slot (and its place), then gone out. */
export interface CallObserver {
  queued?(position: number): void;
  started?(): void;
  /**
   * Whether the person this answer is for already sees data (saved data shown while the call waits). Among calls
   * that as many answers wait on, the budget gives a freed slot first to the one people looking at nothing wait on.
   */
  showingData?(): boolean;
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

  /** How many of the callers sharing the call already see data; the others wait with nothing on screen. */
  countShowingData(): number {
    let count = 0;
    for (const observer of this.observers) {
      try {
        if (observer.showingData?.() === true) count += 1;
      } catch {
        // a caller that cannot say counts as one that sees nothing
      }
    }
    return count;
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
