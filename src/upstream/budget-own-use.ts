/**
 * What one process remembers of its own use of the shared budget (budget-redis.ts): its calls that still count,
 * each as the log holds it (member id, score on the Redis clock, whether the feed's log holds it too), and the
 * pauses it set or was told about. Redis is where the budget lives; this is what the process can put back when
 * Redis loses it (a restart without persistence, a failover to a replica that lagged, a FLUSH). Bounded: at most
 * COUNT calls and one pause per credential, each forgotten once it no longer counts.
 */

export interface OwnCall {
  /** The log's member id: re-added with ZADD NX, so replicas that put back the same call count it once. */
  member: string;
  /** Its score: the call's start on the Redis clock (ms). */
  score: number;
  feed: boolean;
  /** This process's monotonic clock when the grant arrived: the call is forgotten a span after it. */
  seenAt: number;
}

export class OwnUse {
  /** Per credential, oldest first. */
  private readonly calls = new Map<string, OwnCall[]>();
  /** Per credential, the monotonic instant the pause in force ends, never later than it truly does. */
  private readonly pauses = new Map<string, number>();

  constructor(
    private readonly spanMs: number,
    private readonly maxCalls: number,
  ) {}

  record(credentialId: string, call: OwnCall): void {
    const calls = this.calls.get(credentialId) ?? [];
    calls.push(call);
    if (calls.length > this.maxCalls) calls.splice(0, calls.length - this.maxCalls);
    this.calls.set(credentialId, calls);
  }

  /** The calls of the credential that may still count at `now` (monotonic), oldest first. */
  live(credentialId: string, now: number): readonly OwnCall[] {
    const calls = this.calls.get(credentialId);
    if (calls === undefined) return [];
    let gone = 0;
    while (gone < calls.length && (calls[gone]?.seenAt ?? 0) + this.spanMs <= now) gone += 1;
    if (gone > 0) calls.splice(0, gone);
    if (calls.length === 0) this.calls.delete(credentialId);
    return calls;
  }

  newest(credentialId: string, now: number): OwnCall | undefined {
    const calls = this.live(credentialId, now);
    return calls[calls.length - 1];
  }

  /** A pause of the credential known to last at least until `endsAt` (monotonic). */
  notePause(credentialId: string, endsAt: number): void {
    if (endsAt > (this.pauses.get(credentialId) ?? 0)) this.pauses.set(credentialId, endsAt);
  }

  pausedMs(credentialId: string, now: number): number {
    const end = this.pauses.get(credentialId);
    if (end === undefined) return 0;
    if (end > now) return end - now;
    this.pauses.delete(credentialId);
    return 0;
  }

  /** The credentials with a call that may still count or a pause in force. */
  tracked(now: number): string[] {
    const ids = new Set([...this.calls.keys(), ...this.pauses.keys()]);
    return [...ids].filter((id) => this.live(id, now).length > 0 || this.pausedMs(id, now) > 0);
  }
}
