import type { Dispatcher } from 'undici';
import { errFields, type Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import type { TokenPair, TokenStore } from '../store/token-store.js';
import type { Budget, Priority } from './budget.js';
import { isLastingRefusal } from './budget-errors.js';
import { DEFAULT_MAX_WAIT_MS } from './budget-policy.js';
import { RaisedPriority } from './budget-raise.js';
import type { UpstreamCredential } from './credential.js';
import {
  AuthRejectedError,
  CredentialsExpiredError,
  errorFromResponse,
  problemText,
  TokenRefusedError,
  UpstreamError,
  UpstreamRateLimitedError,
  UpstreamSchemaError,
  UpstreamTimeoutError,
} from './errors.js';
import { type HttpResult, sendOnce } from './http.js';
import { observeAttempt } from './metered.js';
import { persistently } from './persist.js';
import { backoffDelay, DEFAULT_RETRY_POLICY, type RetryPolicy, withRetry } from './retry.js';
import { authResponseSchema } from './schemas.js';

export interface TokenManagerOptions {
  authUrl: string;
  dispatcher: Dispatcher;
  budget: Budget;
  store: TokenStore;
  logger: Logger;
  now?: () => number;
  /** Renew this long before the access token expires (default 10 min; tokens live about 2 h). */
  refreshAheadMs?: number;
  timeoutMs?: number;
  retryPolicy?: RetryPolicy;
  /** How long a renewal may hold the cross-process lock, and how long others wait for it. */
  lockTtlMs?: number;
  lockWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Counts and times every token call by endpoint and status. */
  metrics?: Pick<Metrics, 'upstreamCall'>;
  /** How long no replica renews after a renewed token was refused (default REFUSAL_COOLDOWN_MS). */
  refusalCooldownMs?: number;
  /** How long a pair obtained is asked again of a store that cannot take it (default SAVE_RETRY_MS). */
  saveRetryMs?: number;
}

/** A token handed out for a call, and when its pair was obtained (on the clock of the process that obtained it). */
export interface TokenGrant {
  token: string;
  obtainedAt: number;
  /** Handed out by a renewal this call waited for (here or on another replica), not as it was kept. */
  renewed: boolean;
}

/** What a 401 calls for (TokenManager.refused): a renewal and one more try, or nothing until `until`. */
export type RefusalVerdict = { renew: true } | { renew: false; until: number; broken: boolean };

export interface LoginOptions {
  expireCurrentSession?: boolean;
  priority?: Priority;
}

const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

/** A token call's pair: the one it obtained (`sent`), or the one another process stored while it waited for a slot. */
interface TokenAnswer {
  pair: TokenPair;
  sent: boolean;
}

/**
 * The store's mark of the credential's last forget, read when a renewal or a login begins: its pair is kept only if
 * the mark has not changed when it arrives. `undefined`: the store did not answer, and the pair is stored as before.
 */
type ForgottenMark = string | null | undefined;

/** The pair another process stored since this renewal began, or null: read right before a token call leaves. */
type RenewedElsewhere = () => Promise<TokenPair | null>;

type Attempt = { elsewhere: TokenPair } | { answer: HttpResult };

/**
 * How a renewal's token calls wait for a budget slot: at a priority that callers joining the renewal may raise, and
 * at most `maxWaitMs` (default: the budget's wait for that priority when the renewal began).
 */
interface SlotWait {
  raised: RaisedPriority;
  maxWaitMs?: number;
}

/** What a caller that needs a renewal waits for at most: its answer's deadline (epoch ms), and its abort signal. */
export interface TokenWait {
  deadline?: number;
  signal?: AbortSignal;
}

/** The label of a wait for a renewal cut by its caller's deadline (UpstreamTimeoutError). */
const RENEWAL_WAIT = 'token renewal';

const LOGIN_ENDPOINT = 'POST /v1/auth/';
const REFRESH_ENDPOINT = 'POST /v1/auth/refresh';

/** A token this close to expiry is treated as expired: a call made with it could land after it dies. */
const EXPIRY_MARGIN_MS = 15_000;

/**
 * After a token handed out by a renewal was refused (401), no replica renews for this long (the API document: do not
 * retry a 401 automatically). A command meanwhile sends the token held, refused or not, once, with no renewal and no
 * retry (a 401 gives the 401's message), so answers come back as soon as the service takes it again; one whose token
 * has expired fails at once.
 */
export const REFUSAL_COOLDOWN_MS = 5 * 60_000;

/**
 * The episode of such refusals, each after the cooldown of the one before with no call let through between, at which
 * the credential counts as expired: the link is reported broken and the admin who linked is told. Three: a refusal
 * that lasts two cooldowns (10 minutes) is no passing glitch of the service, and costs about 7 calls in all.
 */
export const REFUSALS_TO_BREAK = 3;

/** A record of refusals is forgotten this long after its last episode, or at the first call let through. */
const REFUSALS_KEPT_MS = 3_600_000;

/**
 * How long a pair just obtained is asked again of a store that cannot take it (a Redis restart: ioredis refuses
 * commands after about a second of reconnecting). The refresh token it replaced is spent: a pair that never reaches
 * the store leaves the other replicas the spent one, refused, and their login ends this session.
 */
const SAVE_RETRY_MS = 5_000;

/** The document's lifetimes: the token "about 2 hours", the refresh token "about 7 days". */
const TOKEN_LIFETIME_MS = 2 * 3_600_000;
const REFRESH_TOKEN_LIFETIME_MS = 7 * 86_400_000;

/**
 * Access tokens per credential: cached until near expiry, renewed ahead of it, one renewal at a time across
 * processes (a Redis lock; the others wait for the stored pair), refresh first and login with the stored
 * password when the refresh token is dead. Every pair obtained is stored at once, since refresh tokens rotate.
 */
export class TokenManager {
  private readonly memory = new Map<string, TokenPair>();
  private readonly rejected = new Map<string, string>();
  /** Per credential: until when renewals rest after a fresh token was refused, as this process last read it. */
  private readonly resting = new Map<string, number>();
  /** Credentials with a record of refusals in the store, as far as this process knows: a call let through clears it. */
  private readonly refusalsKnown = new Set<string>();
  private readonly refusalCooldownMs: number;
  private readonly saveRetryMs: number;
  /**
   * The renewal under way per credential, and its priority: raised to that of the most urgent caller that joins it
   * (a command that needs a token does not wait at the place in the budget queue of the digest that started it).
   */
  private readonly renewing = new Map<string, { job: Promise<TokenPair>; priority: RaisedPriority }>();
  /** Credentials whose issuer gave an expiry that could not be trusted: warned once per process. */
  private readonly expiryWarned = new Set<string>();
  private readonly now: () => number;
  private readonly refreshAheadMs: number;
  private readonly timeoutMs: number;
  private readonly retryPolicy: RetryPolicy;
  private readonly lockTtlMs: number;
  private readonly lockWaitMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly loginUrl: string;
  private readonly refreshUrl: string;

  constructor(private readonly options: TokenManagerOptions) {
    this.now = options.now ?? Date.now;
    this.refreshAheadMs = options.refreshAheadMs ?? 10 * 60_000;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.retryPolicy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
    this.lockTtlMs = options.lockTtlMs ?? 30_000;
    this.lockWaitMs = options.lockWaitMs ?? 20_000;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.refusalCooldownMs = options.refusalCooldownMs ?? REFUSAL_COOLDOWN_MS;
    this.saveRetryMs = options.saveRetryMs ?? SAVE_RETRY_MS;
    const base = options.authUrl.replace(/\/+$/, '');
    this.loginUrl = `${base}/v1/auth/`;
    this.refreshUrl = `${base}/v1/auth/refresh`;
  }

  /** A token good for a call now. Renews (refresh, else login) when it is expired or close to it. */
  async accessToken(
    credential: UpstreamCredential,
    priority: Priority,
    wait: TokenWait = {},
  ): Promise<string> {
    return (await this.grant(credential, priority, wait)).token;
  }

  /**
   * accessToken, with when its pair was obtained. While renewals rest after a fresh token was refused (refused), the
   * token held is handed out even though refused, and without one still in its lifetime TokenRefusedError comes at
   * once.
   *
   * A token expired or refused is renewed at interactive priority, whoever asks: every call of the credential on
   * every replica waits for it (the lock), and a digest's or the feed's place in the budget queue would hold them
   * all (a few renewals a day). The caller waits for it until its `wait` ends (UpstreamTimeoutError at the
   * deadline, the signal's reason on abort); the renewal goes on for the others. A renewal ahead of expiry keeps
   * the caller's priority, and waits for its slot no longer than the current token stays good.
   */
  async grant(credential: UpstreamCredential, priority: Priority, wait: TokenWait = {}): Promise<TokenGrant> {
    let pair = this.memory.get(credential.id);
    if (!pair) {
      pair = (await this.options.store.load(credential.id)) ?? undefined;
      if (pair) this.memory.set(credential.id, pair);
    }
    if (pair && this.usable(credential.id, pair)) {
      if (pair.expiresAt - this.now() > this.refreshAheadMs) return grantOf(pair, false);
      // Inside the refresh-ahead zone: renew in the background; the current token is still good. Past the time it
      // stays good, its renewal must not hold the lock that callers with an expired token wait for.
      const goodForMs = Math.max(0, pair.expiresAt - EXPIRY_MARGIN_MS - this.now());
      const maxWaitMs = Math.min(DEFAULT_MAX_WAIT_MS[priority], goodForMs);
      this.renew(credential, priority, { maxWaitMs }).catch((error: unknown) => {
        this.options.logger.warn(
          { credential: credential.id, ...errFields(error) },
          'token renewal ahead of expiry failed',
        );
      });
      return grantOf(pair, false);
    }
    const until = await this.restingUntil(credential.id);
    if (until !== null) {
      // No renewal while renewals rest. A refused token still in its lifetime is sent all the same, one call a
      // command: the moment the service takes it again (a passing fault of its own), answers come back, where
      // failing at once would keep them away until the cooldown ends.
      if (pair && pair.expiresAt - this.now() > EXPIRY_MARGIN_MS) return grantOf(pair, false);
      throw new TokenRefusedError(until);
    }
    return grantOf(await this.within(this.renew(credential, 'interactive'), wait), true);
  }

  /**
   * The token to send now for a call granted `granted` before it waited for its budget slot: the pair in this
   * process's memory when it is still good (the granted one, or a newer one a renewal brought meanwhile), else the
   * granted one. Read inside the slot, right before the call leaves.
   */
  current(credentialId: string, granted: TokenGrant): TokenGrant {
    const pair = this.memory.get(credentialId);
    if (!pair || pair.token === granted.token || !this.usable(credentialId, pair)) return granted;
    return grantOf(pair, false);
  }

  /** After a 401 with `token`: the next accessToken renews instead of handing it out again. */
  invalidate(credential: UpstreamCredential, token: string): void {
    this.rejected.set(credential.id, token);
  }

  /**
   * After a 401 with `sent`: whether a renewal and one more try may cure it. A newer pair stored by another process
   * (a renewal, a new link) may: the retry takes it. Any other token is taken as expired early, or revoked: renew,
   * unless `sent` was handed out by a renewal this very call waited for (`sent.renewed`: its token had expired, or
   * the call met a 401 already). That token, obtained moments before (here or by another replica), is refused for
   * the login's access itself, and another renewal would only get one refused the same way: the refusal is recorded
   * for every replica, no renewal is tried until the cooldown ends (REFUSAL_COOLDOWN_MS), and `broken` comes at the
   * REFUSALS_TO_BREAK-th episode. The refused token is never handed out again.
   */
  async refused(credential: UpstreamCredential, sent: TokenGrant): Promise<RefusalVerdict> {
    this.rejected.set(credential.id, sent.token);
    const stored = await this.options.store.load(credential.id).catch(() => null);
    if (
      stored &&
      stored.token !== sent.token &&
      stored.obtainedAt > sent.obtainedAt &&
      this.usable(credential.id, stored)
    ) {
      this.memory.set(credential.id, stored);
      return { renew: true };
    }
    if (!sent.renewed) {
      // Renewals rest (a fresh token was refused moments ago): this 401 is the same refusal, not a new episode.
      const until = await this.restingUntil(credential.id);
      return until === null ? { renew: true } : { renew: false, until, broken: false };
    }
    const now = this.now();
    const refusals = await this.options.store
      .recordRefusal(credential.id, now, this.refusalCooldownMs, REFUSALS_KEPT_MS)
      .catch((error: unknown) => {
        // Kept in this process at least: the other replicas each spend a call or two more.
        this.options.logger.warn(
          { credential: credential.id, ...errFields(error) },
          'a refusal of a fresh token could not be recorded in the store',
        );
        return { episodes: 1, coolUntil: now + this.refusalCooldownMs };
      });
    this.resting.set(credential.id, refusals.coolUntil);
    this.refusalsKnown.add(credential.id);
    const broken = refusals.episodes >= REFUSALS_TO_BREAK;
    this.options.logger.warn(
      {
        credential: credential.id,
        episode: refusals.episodes,
        of: REFUSALS_TO_BREAK,
        restingUntil: new Date(refusals.coolUntil).toISOString(),
      },
      broken
        ? 'a token obtained moments before was refused again, after every cooldown: the link is reported broken'
        : 'a token obtained moments before was refused: no renewal until the cooldown ends',
    );
    return { renew: false, until: refusals.coolUntil, broken };
  }

  /** A call of the credential was let through: a record of refusals this process knows of is forgotten. */
  async accepted(credentialId: string): Promise<void> {
    if (!this.refusalsKnown.has(credentialId)) return;
    this.refusalsKnown.delete(credentialId);
    // The token it sent is good again (or a newer one was): nothing is held against it any more.
    this.rejected.delete(credentialId);
    this.resting.delete(credentialId);
    await this.options.store.clearRefusals(credentialId).catch(() => undefined);
  }

  /**
   * forget, after the stored password was refused, unless a pair was stored since the renewal read `base`: a new
   * link of the same login (its new password) while this renewal ran with the old one. That pair stays.
   */
  private async forgetUnlessRenewed(credentialId: string, base: TokenPair | null): Promise<void> {
    this.memory.delete(credentialId);
    const cleared = await this.options.store
      .clearIfUnchanged(credentialId, base?.obtainedAt ?? null)
      .catch(() => false);
    if (!cleared) return;
    this.rejected.delete(credentialId);
    this.resting.delete(credentialId);
    this.refusalsKnown.delete(credentialId);
  }

  /** Forget everything about a credential (unlink). */
  async forget(credentialId: string): Promise<void> {
    this.memory.delete(credentialId);
    this.rejected.delete(credentialId);
    this.resting.delete(credentialId);
    this.refusalsKnown.delete(credentialId);
    await this.options.store.clear(credentialId);
  }

  /** Expiries of the current pair, for the status command; no secret leaves. */
  async expiries(credentialId: string): Promise<{ expiresAt: number; refreshExpiresAt: number } | null> {
    const pair = this.memory.get(credentialId) ?? (await this.options.store.load(credentialId));
    return pair ? { expiresAt: pair.expiresAt, refreshExpiresAt: pair.refreshExpiresAt } : null;
  }

  /**
   * Keeps the refresh chain alive while the bot runs: renews when the refresh token would die within `withinMs`
   * (an idle workspace would otherwise need its password on the next call). Background priority.
   */
  async keepAlive(credential: UpstreamCredential, withinMs = 24 * 3_600_000): Promise<boolean> {
    const pair = this.memory.get(credential.id) ?? (await this.options.store.load(credential.id));
    if (!pair || pair.refreshExpiresAt - this.now() > withinMs) return false;
    await this.renew(credential, 'background', { forceRefresh: true });
    return true;
  }

  /**
   * Logs in and stores the pair (linking). Throws AuthRejectedError with the issuer's message when it refuses. A
   * person's new link starts with no record of refusals.
   */
  async login(credential: UpstreamCredential, options: LoginOptions = {}): Promise<TokenPair> {
    const slot = { raised: new RaisedPriority(options.priority ?? 'interactive') };
    const mark = await this.forgottenMark(credential.id);
    const pair = (await this.logIn(credential, options.expireCurrentSession ?? false, slot, mark)).pair;
    this.resting.delete(credential.id);
    this.refusalsKnown.delete(credential.id);
    await this.options.store.clearRefusals(credential.id).catch(() => undefined);
    return pair;
  }

  private async logIn(
    credential: UpstreamCredential,
    expireCurrentSession: boolean,
    slot: SlotWait,
    mark: ForgottenMark,
    renewedElsewhere?: RenewedElsewhere,
  ): Promise<TokenAnswer> {
    const form = new FormData();
    form.set('login', credential.login);
    form.set('Password', credential.password);
    form.set('Plataform', '6');
    form.set('ExpireCurrentSession', expireCurrentSession ? 'true' : 'false');
    form.set('StayConnected', 'true');
    const answer = await this.tokenCall(
      credential,
      slot,
      LOGIN_ENDPOINT,
      this.loginUrl,
      form,
      renewedElsewhere,
    );
    if (!answer.sent) return answer;
    await this.store(credential.id, answer.pair, mark);
    this.options.logger.info(
      { credential: credential.id, expiresAt: new Date(answer.pair.expiresAt).toISOString() },
      'upstream login succeeded',
    );
    return answer;
  }

  /** `job`, or the end of the caller's wait, whichever comes first; the job goes on for whoever else waits on it. */
  private within<T>(job: Promise<T>, wait: TokenWait): Promise<T> {
    const { deadline, signal } = wait;
    if (deadline === undefined && signal === undefined) return job;
    return new Promise<T>((resolve, reject) => {
      const started = this.now();
      const onAbort = () => {
        settle();
        reject(signal?.reason);
      };
      const timer =
        deadline === undefined
          ? undefined
          : setTimeout(
              () => {
                settle();
                reject(new UpstreamTimeoutError(RENEWAL_WAIT, this.now() - started));
              },
              Math.max(0, deadline - started),
            );
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      job.then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
    });
  }

  /**
   * Until when renewals of the credential rest after a fresh token was refused (refused), or null: read from the
   * store unless this process knows already; a store that does not answer lets the renewal go on.
   */
  private async restingUntil(credentialId: string): Promise<number | null> {
    const now = this.now();
    const known = this.resting.get(credentialId);
    if (known !== undefined && known > now) return known;
    const refusals = await this.options.store.refusals(credentialId).catch(() => null);
    if (!refusals) return null;
    this.refusalsKnown.add(credentialId);
    if (refusals.coolUntil <= now) return null;
    this.resting.set(credentialId, refusals.coolUntil);
    return refusals.coolUntil;
  }

  private usable(credentialId: string, pair: TokenPair): boolean {
    return this.rejected.get(credentialId) !== pair.token && pair.expiresAt - this.now() > EXPIRY_MARGIN_MS;
  }

  private fresh(credentialId: string, pair: TokenPair): boolean {
    return this.usable(credentialId, pair) && pair.expiresAt - this.now() > this.refreshAheadMs;
  }

  private renew(
    credential: UpstreamCredential,
    priority: Priority,
    options: { forceRefresh?: boolean; maxWaitMs?: number } = {},
  ): Promise<TokenPair> {
    const running = this.renewing.get(credential.id);
    if (running) {
      // Its token call, still waiting for a budget slot, moves to this caller's place if that is more urgent.
      running.priority.raise(priority);
      return running.job;
    }
    const raised = new RaisedPriority(priority);
    const slot: SlotWait = {
      raised,
      ...(options.maxWaitMs !== undefined && { maxWaitMs: options.maxWaitMs }),
    };
    const job = this.renewAcrossProcesses(credential, slot, options.forceRefresh ?? false).finally(() =>
      this.renewing.delete(credential.id),
    );
    this.renewing.set(credential.id, { job, priority: raised });
    return job;
  }

  private async renewAcrossProcesses(
    credential: UpstreamCredential,
    slot: SlotWait,
    forceRefresh: boolean,
  ): Promise<TokenPair> {
    const deadline = this.now() + this.lockWaitMs;
    let warned = false;
    for (;;) {
      const release = await this.options.store.tryLock(credential.id, this.lockTtlMs);
      if (release) {
        try {
          return await this.renewHoldingLock(credential, slot, forceRefresh);
        } finally {
          await release().catch(() => undefined);
        }
      }
      // Another process renews: wait for the pair it stores.
      await this.sleep(200);
      const stored = await this.options.store.load(credential.id);
      if (
        stored &&
        (forceRefresh
          ? stored.obtainedAt > (this.memory.get(credential.id)?.obtainedAt ?? 0)
          : this.fresh(credential.id, stored))
      ) {
        this.memory.set(credential.id, stored);
        return stored;
      }
      if (!warned && this.now() > deadline) {
        warned = true;
        // The holder may have died; its lock expires with lockTtlMs and the next round takes it.
        this.options.logger.warn(
          { credential: credential.id },
          'still waiting for another process to renew tokens',
        );
      }
    }
  }

  private async renewHoldingLock(
    credential: UpstreamCredential,
    slot: SlotWait,
    forceRefresh: boolean,
  ): Promise<TokenPair> {
    // Read before anything is asked: an unlink from now on leaves no pair of this renewal in the store.
    const mark = await this.forgottenMark(credential.id);
    // The newer of the stored pair and this process's: a pair whose save failed (store) is only in memory, and the
    // refresh token stored beside the older one is spent.
    const stored = newer(this.memory.get(credential.id), await this.options.store.load(credential.id));
    if (stored && !forceRefresh && this.fresh(credential.id, stored)) {
      this.memory.set(credential.id, stored);
      return stored;
    }
    // The wait for a budget slot may outlive the lock (a holder keeps it at most TokenStore.tryLock's maxHoldMs), and
    // another process may renew meanwhile: the refresh token read above would then be one it has rotated, refused,
    // and the login that follows would end that process's session. So the stored pair is read again inside the
    // slot, right before the call leaves (one GET), and a pair renewed elsewhere is used instead of sending.
    const renewedElsewhere: RenewedElsewhere = async () => {
      const latest = await this.options.store.load(credential.id);
      return latest &&
        latest.refreshToken !== stored?.refreshToken &&
        latest.obtainedAt > (stored?.obtainedAt ?? 0)
        ? latest
        : null;
    };
    if (stored && stored.refreshExpiresAt - this.now() > EXPIRY_MARGIN_MS) {
      try {
        const answer = await this.refresh(credential, stored, slot, renewedElsewhere);
        if (!answer.sent) return this.renewedByAnother(credential.id, answer.pair);
        const pair = answer.pair;
        await this.store(credential.id, pair, mark);
        this.options.logger.info(
          { credential: credential.id, expiresAt: new Date(pair.expiresAt).toISOString() },
          'upstream token refreshed',
        );
        return pair;
      } catch (error) {
        if (!refreshUnusable(error)) throw error;
        this.options.logger.warn(
          { credential: credential.id, ...errFields(error) },
          error instanceof AuthRejectedError
            ? 'refresh refused; logging in again'
            : 'refresh answered what no retry will mend; logging in again',
        );
      }
    }
    try {
      // The credential is the bot's: a session still open is its own earlier one, so end it.
      const answer = await this.logInConfirmingRefusal(credential, slot, mark, renewedElsewhere);
      return answer.sent ? answer.pair : this.renewedByAnother(credential.id, answer.pair);
    } catch (error) {
      if (error instanceof AuthRejectedError) {
        await this.forgetUnlessRenewed(credential.id, stored);
        throw new CredentialsExpiredError(
          'neither refresh nor login with the stored password renewed the token',
          error,
        );
      }
      throw error;
    }
  }

  /**
   * A renewal's login with the stored password. A refusal the issuer does not word as wrong credentials
   * (AuthRejectedError.wrongCredentials: "Serviço temporariamente indisponível", or no message) may be passing, and
   * breaking the link on it stops the workspace's commands, digests and alerts until the link heals: it is
   * confirmed once, by one more login after a short backoff, and only a second refusal is returned. A refusal worded
   * as wrong credentials is returned at once: that password is never sent again (an account lockout counts such
   * tries). Until 2026-11-27 the first refusal of any kind broke the link.
   */
  private async logInConfirmingRefusal(
    credential: UpstreamCredential,
    slot: SlotWait,
    mark: ForgottenMark,
    renewedElsewhere: RenewedElsewhere,
  ): Promise<TokenAnswer> {
    try {
      return await this.logIn(credential, true, slot, mark, renewedElsewhere);
    } catch (error) {
      if (!(error instanceof AuthRejectedError) || error.wrongCredentials) throw error;
      const delayMs = backoffDelay(this.retryPolicy, 1);
      this.options.logger.warn(
        { credential: credential.id, delayMs, ...errFields(error) },
        'renewal login refused, not as wrong credentials; asking once more before the link is taken as broken',
      );
      await this.sleep(delayMs);
      return this.logIn(credential, true, slot, mark, renewedElsewhere);
    }
  }

  private renewedByAnother(credentialId: string, pair: TokenPair): TokenPair {
    this.memory.set(credentialId, pair);
    this.options.logger.info(
      { credential: credentialId, expiresAt: new Date(pair.expiresAt).toISOString() },
      'another process renewed the tokens while this one waited for a budget slot; using its pair',
    );
    return pair;
  }

  private refresh(
    credential: UpstreamCredential,
    current: TokenPair,
    slot: SlotWait,
    renewedElsewhere: RenewedElsewhere,
  ): Promise<TokenAnswer> {
    const form = new URLSearchParams();
    form.set('Token', current.token);
    form.set('RefreshToken', current.refreshToken);
    return this.tokenCall(credential, slot, REFRESH_ENDPOINT, this.refreshUrl, form, renewedElsewhere);
  }

  /** The store's mark of the credential's last forget (TokenStore.forgottenMark); `undefined` when it did not answer. */
  private async forgottenMark(credentialId: string): Promise<ForgottenMark> {
    return this.options.store.forgottenMark(credentialId).catch(() => undefined);
  }

  /**
   * Keeps a pair just obtained: in memory, then in the store, asked again for saveRetryMs. A store that still cannot
   * take it is logged, and the pair goes to the caller all the same: the token works, and this process renews from
   * it (renewHoldingLock takes the newer pair). A pair whose credential was forgotten since `mark` was read (the
   * workspace was unlinked while this renewal or login ran) is not stored: it still goes to the caller, whose call
   * was made for the old link, and stays in this process's memory only (as the pair another replica held at the
   * unlink does), so that the caller's next call sends it rather than log in again. Until 2026-11-27 it stayed in
   * the store until its refresh token died.
   */
  private async store(credentialId: string, pair: TokenPair, mark: ForgottenMark): Promise<void> {
    this.memory.set(credentialId, pair);
    this.rejected.delete(credentialId);
    let kept = true;
    await persistently(async () => {
      if (mark === undefined) await this.options.store.save(credentialId, pair);
      else kept = await this.options.store.saveUnlessForgotten(credentialId, pair, mark);
    }, this.saveRetryMs).catch((error: unknown) => {
      this.options.logger.error(
        { credential: credentialId, ...errFields(error) },
        'token pair obtained but not stored: other replicas hold the refresh token it replaced',
      );
    });
    if (kept) return;
    this.options.logger.info(
      { credential: credentialId },
      'token pair obtained after its login was unlinked: not kept',
    );
  }

  private async tokenCall(
    credential: UpstreamCredential,
    slot: SlotWait,
    endpoint: string,
    url: string,
    body: FormData | URLSearchParams,
    renewedElsewhere?: RenewedElsewhere,
  ): Promise<TokenAnswer> {
    const outcome = await withRetry(
      async () => {
        const attempt = await this.options.budget.schedule(
          credential.id,
          slot.raised.priority,
          async (): Promise<Attempt> => {
            // Inside the slot, right before the call leaves (renewHoldingLock says why). The slot is spent either way.
            const elsewhere = renewedElsewhere ? await renewedElsewhere() : null;
            if (elsewhere) return { elsewhere };
            return {
              answer: await observeAttempt(this.options.metrics, endpoint, () =>
                sendOnce(this.options.dispatcher, {
                  method: 'POST',
                  url,
                  body,
                  timeoutMs: this.timeoutMs,
                  // A token answer is a few hundred bytes; anything near this is not one.
                  maxBytes: MAX_TOKEN_RESPONSE_BYTES,
                  endpoint,
                }),
              ),
            };
          },
          { raisable: slot.raised, ...(slot.maxWaitMs !== undefined && { maxWaitMs: slot.maxWaitMs }) },
        );
        // A 5xx is retried like a timeout (the API document: retry 429 and 5xx with backoff); a 429 is not
        // retried here: it pauses the credential below, and the caller's retry waits for the pause.
        if ('answer' in attempt && attempt.answer.status >= 500 && attempt.answer.status <= 599) {
          const { answer } = attempt;
          throw errorFromResponse(answer.status, answer.body, answer.headers, endpoint);
        }
        return attempt;
      },
      {
        policy: this.retryPolicy,
        shouldRetry: retryableTransport,
        sleep: this.sleep,
        onRetry: (error, attempt, delayMs) => {
          this.options.logger.warn(
            { credential: credential.id, endpoint, attempt, delayMs, ...errFields(error) },
            'token call failed; retrying',
          );
        },
      },
    );
    if ('elsewhere' in outcome) return { pair: outcome.elsewhere, sent: false };
    const result = outcome.answer;
    if (result.status === 429) {
      // Token calls count in the same limit: a 429 pauses the credential on every replica, as for data calls,
      // so that no replica asks again before it ends. The caller's retry waits for the pause.
      const limited = errorFromResponse(result.status, result.body, result.headers, endpoint);
      const retryAfterMs = limited instanceof UpstreamRateLimitedError ? limited.retryAfterMs : undefined;
      const pauseMs = await this.options.budget.pauseAfter429(credential.id, retryAfterMs);
      throw new UpstreamRateLimitedError(endpoint, retryAfterMs, this.now() + pauseMs, {
        traceId: limited.traceId,
      });
    }
    return {
      pair: this.parseTokenResponse(credential.id, result.status, result.body, result.headers, endpoint),
      sent: true,
    };
  }

  private parseTokenResponse(
    credentialId: string,
    status: number,
    body: unknown,
    headers: Record<string, string | string[] | undefined>,
    endpoint: string,
  ): TokenPair {
    const parsed = authResponseSchema.safeParse(body);
    if (status >= 200 && status < 300) {
      if (!parsed.success)
        throw new UpstreamSchemaError(endpoint, 'token response does not match the documented shape');
      const { success, message, hasActiveSession, authToken } = parsed.data;
      if (!success || !authToken) throw new AuthRejectedError(message ?? null, hasActiveSession ?? false);
      const now = this.now();
      const expires = this.expiryOnArrival(authToken.expiresIn, now, TOKEN_LIFETIME_MS);
      const refreshExpires = this.expiryOnArrival(authToken.refreshExpiresIn, now, REFRESH_TOKEN_LIFETIME_MS);
      if (expires.assumed || refreshExpires.assumed) {
        // Expiries are not secrets; the token, refresh token and jti never reach this line.
        const fields = {
          credential: credentialId,
          endpoint,
          expiresIn: authToken.expiresIn ?? null,
          refreshExpiresIn: authToken.refreshExpiresIn ?? null,
          assumedExpiresAt: new Date(expires.at).toISOString(),
          assumedRefreshExpiresAt: new Date(refreshExpires.at).toISOString(),
        };
        const first = !this.expiryWarned.has(credentialId);
        this.expiryWarned.add(credentialId);
        this.options.logger[first ? 'warn' : 'debug'](
          fields,
          'token answer without an expiry, or with one already due on arrival (issuer clock behind ours, or a ' +
            'local time without a zone?): assuming the documented lifetime from now',
        );
      }
      return {
        token: authToken.token,
        refreshToken: authToken.refreshToken,
        jti: authToken.jti,
        expiresAt: expires.at,
        refreshExpiresAt: refreshExpires.at,
        obtainedAt: now,
      };
    }
    // The issuer refuses credentials or a dead refresh token with 400/401 (sometimes with its own message).
    if (status === 400 || status === 401 || status === 403) {
      const message = parsed.success ? (parsed.data.message ?? null) : problemText(body);
      const active = parsed.success ? (parsed.data.hasActiveSession ?? false) : false;
      throw new AuthRejectedError(message, active);
    }
    throw errorFromResponse(status, body, headers, endpoint);
  }

  /**
   * When a token from the issuer expires, on our clock. Missing, or already due for renewal on arrival (the issuer's
   * clock behind ours, or a local wall time without a zone read as UTC), it is not trusted: the documented lifetime
   * from now is assumed. Trusted, every data call would renew first (a token call per data call, half the budget);
   * a token that really lives shorter is caught by its 401, which renews. The answer's Date header is not used to
   * correct a skew: the document names no header, it may come from a proxy's clock rather than the issuer's, and
   * it does not mend a wall time without a zone.
   */
  private expiryOnArrival(
    value: string | null | undefined,
    now: number,
    lifetimeMs: number,
  ): { at: number; assumed: boolean } {
    const at = value == null ? null : parseUtc(value);
    if (at === null || at - now <= this.refreshAheadMs) return { at: now + lifetimeMs, assumed: true };
    return { at, assumed: false };
  }
}

/** The pair obtained last (obtainedAt), of two that may be missing. */
function newer(a: TokenPair | undefined, b: TokenPair | null): TokenPair | null {
  if (!a) return b;
  if (!b) return a;
  return b.obtainedAt >= a.obtainedAt ? b : a;
}

function grantOf(pair: TokenPair, renewed: boolean): TokenGrant {
  return { token: pair.token, obtainedAt: pair.obtainedAt, renewed };
}

/**
 * A refresh that failed in a way only a login can get past: refused (the refresh token is dead), or answered with
 * something that is not a token answer (a 404, an HTML page, a body of another shape). A transient failure (5xx,
 * 429, timeout, network: already retried) or a spent budget is thrown as it is: a login would meet the same.
 */
function refreshUnusable(error: unknown): boolean {
  return error instanceof AuthRejectedError || isLastingRefusal(error);
}

function retryableTransport(error: unknown): boolean {
  return error instanceof UpstreamError && error.retryable;
}

const TOKEN_ENDPOINTS: ReadonlySet<string> = new Set([LOGIN_ENDPOINT, REFRESH_ENDPOINT]);

/**
 * A token call's failure that tokenCall has already retried under its retry policy (a 5xx, a timeout, a network
 * error): a caller that retries it again multiplies the attempts (4 logins for each of a data call's 4
 * attempts). A 429 is not one: tokenCall pauses the credential and leaves the wait and the retry to its caller.
 */
export function retriedByTokenManager(error: unknown): boolean {
  return (
    error instanceof UpstreamError &&
    error.retryable &&
    !(error instanceof UpstreamRateLimitedError) &&
    error.endpoint !== undefined &&
    TOKEN_ENDPOINTS.has(error.endpoint)
  );
}

/** The issuer says UTC; a value without a zone designator is read as UTC, not local time. */
function parseUtc(value: string): number | null {
  const text = /([zZ]|[+-]\d\d:?\d\d)$/.test(value) ? value : `${value}Z`;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}
