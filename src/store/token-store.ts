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
    if (sealed === null) return null;
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

  async clear(credentialId: string): Promise<void> {
    await this.kv.del(this.keys.tokens(credentialId));
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
