import { randomBytes } from 'node:crypto';
import type { Keys } from '../../store/keys.js';
import type { KeyValue } from '../../store/kv.js';

/**
 * Who posts a subscription's digest of a local day, across every replica. One key per (workspace, channel,
 * local day) holds one of two states:
 *
 * - `posting:<owner>:<nonce>`: a process is building and posting it. Short lease (2 min), renewed while the
 *   work goes on. A process that dies leaves it to expire, and a later tick of any replica claims the day again:
 *   the digest is not lost.
 * - `posted:<postedAt>:<coveredUntil>`: Slack accepted the post. Kept 3 days, longer than any local day lasts,
 *   so no replica claims that day again, however often they tick or restart: the digest is not doubled.
 *
 * Only `set(onlyIfAbsent, ttl)` and `delIfEquals` are used, so the embedded store of local mode implements it
 * too. Renewal is `delIfEquals` then `set(onlyIfAbsent)`: never an overwrite, so a renewal cannot take back a
 * claim that expired and went to another process; in the instant between the two calls another process may
 * take it, and then the renewal fails and this process stops (that other process posts instead). For the same
 * reason the scheduler never renews while a message may be on its way to Slack (it renews right before sending,
 * which leaves a whole lease for the call) and never runs two renewals of one claim at once.
 */

export const CLAIM_LEASE_MS = 120_000;
export const POSTED_KEEP_MS = 3 * 86_400_000;

export type ClaimState =
  | { state: 'posting'; owner: string }
  | { state: 'posted'; postedAt: number; coveredUntil: number | null };

export interface HeldClaim {
  readonly key: string;
  readonly day: string;
  /** Extends the lease; false when it was lost (expired and taken, or gone): stop, do not post. */
  renew(): Promise<boolean>;
  /** Records that Slack accepted the post. Call it right after Slack's answer, before anything else. */
  markPosted(postedAt: number, coveredUntil: number): Promise<void>;
  /** Gives the day back (the work failed before anything was posted): a later tick retries it. */
  release(): Promise<void>;
  /**
   * A post of this day was attempted then and its outcome is not known (its process died before Slack's reply, or
   * the reply was lost, or Slack answered 5xx): Slack may have shown it. Null when there was none.
   */
  previousAttempt(): Promise<number | null>;
  /** Notes the attempt about to go (right before sending): kept until the outcome is known. */
  noteAttempt(at: number): Promise<void>;
  /** The attempt is known not to have reached Slack: what was in doubt before it (`before`) still is, or nothing. */
  settleAttempt(before: number | null): Promise<void>;
}

export type ClaimResult =
  | { acquired: true; claim: HeldClaim }
  | { acquired: false; current: ClaimState | null };

export class DigestClaims {
  private readonly leaseMs: number;
  private readonly postedKeepMs: number;

  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
    /** Names this process in claims (logs and debugging only). */
    private readonly owner: string = `p${process.pid}-${randomBytes(3).toString('hex')}`,
    options: { leaseMs?: number; postedKeepMs?: number } = {},
  ) {
    this.leaseMs = options.leaseMs ?? CLAIM_LEASE_MS;
    this.postedKeepMs = options.postedKeepMs ?? POSTED_KEEP_MS;
  }

  get leaseLength(): number {
    return this.leaseMs;
  }

  async acquire(workspaceId: string, channelId: string, day: string): Promise<ClaimResult> {
    const key = this.keys.digestClaim(workspaceId, channelId, day);
    const value = `posting:${this.owner}:${randomBytes(6).toString('hex')}`;
    if (await this.kv.set(key, value, { ttlMs: this.leaseMs, onlyIfAbsent: true })) {
      const attemptKey = this.keys.digestPostAttempt(workspaceId, channelId, day);
      return { acquired: true, claim: this.held(key, day, value, attemptKey) };
    }
    return { acquired: false, current: parseClaim(await this.kv.get(key)) };
  }

  async read(workspaceId: string, channelId: string, day: string): Promise<ClaimState | null> {
    return parseClaim(await this.kv.get(this.keys.digestClaim(workspaceId, channelId, day)));
  }

  private held(key: string, day: string, value: string, attemptKey: string): HeldClaim {
    const { kv, leaseMs, postedKeepMs } = this;
    let gone = false;
    return {
      key,
      day,
      async renew() {
        if (gone) return false;
        if (!(await kv.delIfEquals(key, value))) {
          gone = true;
          return false;
        }
        if (!(await kv.set(key, value, { ttlMs: leaseMs, onlyIfAbsent: true }))) gone = true;
        return !gone;
      },
      async markPosted(postedAt, coveredUntil) {
        // Unconditional: Slack has the message, whatever happened to the lease meanwhile. Until the write is through
        // the claim is still renewed (a store restarting refuses it for a moment): its lease must not run out.
        await kv.set(key, `posted:${postedAt}:${coveredUntil}`, { ttlMs: postedKeepMs });
        gone = true;
      },
      async release() {
        if (gone) return;
        gone = true;
        await kv.delIfEquals(key, value);
      },
      async previousAttempt() {
        const at = Number(await kv.get(attemptKey));
        return Number.isFinite(at) && at > 0 ? at : null;
      },
      async noteAttempt(at) {
        await kv.set(attemptKey, String(at), { ttlMs: postedKeepMs });
      },
      async settleAttempt(before) {
        if (before === null) await kv.del(attemptKey);
        else await kv.set(attemptKey, String(before), { ttlMs: postedKeepMs });
      },
    };
  }
}

export function parseClaim(raw: string | null): ClaimState | null {
  if (raw === null) return null;
  if (raw.startsWith('posted:')) {
    const [, postedAt, coveredUntil] = raw.split(':');
    const covered = Number(coveredUntil);
    return {
      state: 'posted',
      postedAt: Number(postedAt) || 0,
      coveredUntil: Number.isFinite(covered) && covered > 0 ? covered : null,
    };
  }
  const [, owner = ''] = raw.split(':');
  return { state: 'posting', owner };
}
