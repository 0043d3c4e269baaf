import { randomBytes } from 'node:crypto';
import type { SecretBox } from './crypto.js';
import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

/** The newest token pair of one upstream credential. Secrets: never log a field of it but the two expiries. */
export interface TokenPair {
  token: string;
  refreshToken: string;
  jti: string;
  /** Epoch ms. */
  expiresAt: number;
  refreshExpiresAt: number;
  obtainedAt: number;
}

export type ReleaseLock = () => Promise<void>;

/**
 * Refusals (401) of tokens obtained moments before (TokenManager.refused): renewing again would get one refused
 * the same way, so no replica renews until `coolUntil`. A refusal counts as a new `episode` only once that cooldown
 * is over: two replicas, or two calls, refused within one cooldown are one episode.
 */
export interface TokenRefusals {
  episodes: number;
  /** Epoch ms. */
  coolUntil: number;
}

/**
 * How long the mark of a forgotten pair is kept: as long as a pair lives (the refresh token's 7 days), far past any
 * renewal in flight (a holder keeps the renewal lock 5 minutes at most).
 */
const FORGOTTEN_MARK_MS = 7 * 86_400_000;

/** Token pairs sealed with AES-256-GCM before they are stored; kept until the refresh token expires. */
export class TokenStore {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
    private readonly box: SecretBox,
    private readonly now: () => number = Date.now,
  ) {}

  async load(credentialId: string): Promise<TokenPair | null> {
    const sealed = await this.kv.get(this.keys.tokens(credentialId));
    return sealed === null ? null : this.open(credentialId, sealed);
  }

  private open(credentialId: string, sealed: string): TokenPair | null {
    try {
      return JSON.parse(this.box.open(sealed, `tokens:${credentialId}`)) as TokenPair;
    } catch {
      // Sealed under a key we no longer have: as good as none, the manager logs in again.
      return null;
    }
  }

  async save(credentialId: string, pair: TokenPair): Promise<void> {
    const ttlMs = Math.max(1_000, pair.refreshExpiresAt - this.now());
    await this.kv.set(
      this.keys.tokens(credentialId),
      this.box.seal(JSON.stringify(pair), `tokens:${credentialId}`),
      { ttlMs },
    );
  }

  /**
   * The mark of the last time the credential's pair was forgotten (clear), or null: read when a renewal or a login
   * begins, and handed to saveUnlessForgotten when it ends.
   */
  async forgottenMark(credentialId: string): Promise<string | null> {
    return this.kv.get(this.keys.tokensForgotten(credentialId));
  }

  /**
   * save, unless the pair was forgotten (clear) since `mark` was read (forgottenMark): a renewal that began before an
   * unlink must not leave a pair for the unlinked login. The mark is read again after the write, and a pair written
   * across a clear is taken back (only that pair: a newer one stays), so whichever of the two comes last, no pair is
   * left. True when the pair was kept.
   */
  async saveUnlessForgotten(credentialId: string, pair: TokenPair, mark: string | null): Promise<boolean> {
    if ((await this.forgottenMark(credentialId)) !== mark) return false;
    await this.save(credentialId, pair);
    if ((await this.forgottenMark(credentialId)) === mark) return true;
    const key = this.keys.tokens(credentialId);
    const sealed = await this.kv.get(key);
    if (sealed !== null && this.open(credentialId, sealed)?.token === pair.token)
      await this.kv.delIfEquals(key, sealed);
    return false;
  }

  /**
   * The pair and the record of refusals (unlink, a credential that can no longer be renewed). The mark goes first:
   * a renewal that stores its pair after the delete sees it and takes its pair back.
   */
  async clear(credentialId: string): Promise<void> {
    await this.kv.set(this.keys.tokensForgotten(credentialId), randomBytes(9).toString('hex'), {
      ttlMs: FORGOTTEN_MARK_MS,
    });
    await this.kv.del(this.keys.tokens(credentialId), this.keys.tokenRefusals(credentialId));
  }

  /**
   * clear, unless the stored pair is another than the one obtained at `obtainedAt` (null: none was stored): a pair
   * stored since (a new link of the same login) stays, and so does its record of refusals. True when cleared.
   */
  async clearIfUnchanged(credentialId: string, obtainedAt: number | null): Promise<boolean> {
    const key = this.keys.tokens(credentialId);
    const sealed = await this.kv.get(key);
    if (sealed !== null) {
      const pair = this.open(credentialId, sealed);
      if (pair !== null && pair.obtainedAt !== obtainedAt) return false;
      if (!(await this.kv.delIfEquals(key, sealed))) return false;
    }
    await this.kv.del(this.keys.tokenRefusals(credentialId));
    return true;
  }

  async refusals(credentialId: string): Promise<TokenRefusals | null> {
    const raw = await this.kv.get(this.keys.tokenRefusals(credentialId));
    if (raw === null) return null;
    try {
      const { episodes, coolUntil } = JSON.parse(raw) as Partial<TokenRefusals>;
      return typeof episodes === 'number' && typeof coolUntil === 'number' ? { episodes, coolUntil } : null;
    } catch {
      return null;
    }
  }

  /**
   * A refusal at `at`: a new episode with a cooldown of `cooldownMs`, unless one is cooling down still (then that
   * one, unchanged). The record is kept `keepMs` after its last episode. Two replicas that read it at the same
   * time write the same episode, so a race counts one episode once.
   */
  async recordRefusal(
    credentialId: string,
    at: number,
    cooldownMs: number,
    keepMs: number,
  ): Promise<TokenRefusals> {
    const current = await this.refusals(credentialId);
    if (current && at < current.coolUntil) return current;
    const next: TokenRefusals = { episodes: (current?.episodes ?? 0) + 1, coolUntil: at + cooldownMs };
    await this.kv.set(this.keys.tokenRefusals(credentialId), JSON.stringify(next), {
      ttlMs: Math.max(keepMs, cooldownMs),
    });
    return next;
  }

  async clearRefusals(credentialId: string): Promise<void> {
    await this.kv.del(this.keys.tokenRefusals(credentialId));
  }

  /**
   * Cross-process mutual exclusion for renewing one credential's tokens; null when another holder has it. While
   * held, the lock's TTL is extended every third of it (compare and extend), so a renewal slower than `ttlMs` (a
   * slow issuer, retries, a wait for a budget slot) keeps it: another process that renewed meanwhile would spend the
   * same single-use refresh token, be refused and log in again, ending the first one's session. A holder that
   * dies stops extending, and the lock expires after `ttlMs`; one that hangs keeps it at most `maxHoldMs`. A holder
   * may still be waiting for its budget slot past then: TokenManager reads the stored pair again right before its
   * token call leaves, and uses one renewed meanwhile.
   */
  async tryLock(credentialId: string, ttlMs: number, maxHoldMs = 5 * 60_000): Promise<ReleaseLock | null> {
    const key = this.keys.tokenRefreshLock(credentialId);
    const owner = randomBytes(12).toString('hex');
    if (!(await this.kv.set(key, owner, { ttlMs, onlyIfAbsent: true }))) return null;
    const takenAt = this.now();
    const heartbeat = setInterval(
      () => {
        if (this.now() - takenAt >= maxHoldMs) {
          clearInterval(heartbeat);
          return;
        }
        // A failed extension leaves the lock to expire, as if this process had died.
        this.kv.expireIfEquals(key, owner, ttlMs).catch(() => undefined);
      },
      Math.max(10, Math.floor(ttlMs / 3)),
    );
    heartbeat.unref();
    return async () => {
      clearInterval(heartbeat);
      await this.kv.delIfEquals(key, owner);
    };
  }
}
