import { randomBytes } from 'node:crypto';
import { errFields, type Logger } from '../../lib/logger.js';
import type { FeedListenerStore } from '../../store/feed-listeners.js';
import {
  credentialOfLink,
  type LinkBreak,
  type LinkStore,
  type WorkspaceLink,
} from '../../store/link-store.js';
import type { SubscriptionStore } from '../../store/subscription-store.js';
import type { TokenManager } from '../../upstream/auth.js';
import {
  BudgetClosedError,
  BudgetExhaustedError,
  BudgetStoreUnavailableError,
} from '../../upstream/budget-errors.js';
import type { UpstreamClient } from '../../upstream/client.js';
import type { UpstreamCredential } from '../../upstream/credential.js';
import { AuthRejectedError, UpstreamRateLimitedError } from '../../upstream/errors.js';
import { persistently } from '../persist.js';

/*
 * A broken link keeps its sealed login and password, and is checked again now and then: a login with the stored
 * password (ExpireCurrentSession=true, as renewals log in) and the cheap call linking checks with
 * (GET /v1/almoxarifados), both at background priority (no slot an interactive user needs). When both work the link
 * is restored as it was, and the admin who linked is told once. The service refusing every valid token for a while
 * (a key rotation or an outage of the identity provider it checks JWTs against) thus breaks links for a while, not
 * until an admin links again.
 *
 * Who checks: the token keeper's tick (domain/links/token-keeper.ts, every replica, each minute) asks for the broken
 * links whose check is due (LinkStore.probesDue) and checks each under a claim in the store, so that one check of a
 * workspace runs at a time across replicas. A command that meets the broken link does not check it: it would gain
 * less than the tick's minute and make its answer wait for a login.
 */

/** The first check of a link broken by refused tokens: one refusal cooldown (REFUSAL_COOLDOWN_MS) after the break. */
export const PROBE_FIRST_DELAY_MS = 5 * 60_000;
/** Then each wait doubles, up to an hour: a login and a call an hour, about 170 checks in a week. */
export const PROBE_MAX_DELAY_MS = 60 * 60_000;
/**
 * A link broken before the reason was kept (it may have been a password refused as wrong): once a day, so that an
 * account the issuer may lock is asked 7 times at most. Until 2026-11-27 a login refused for another reason than
 * wrong credentials (`login_refused`) waited this long too: one passing refusal ("Serviço temporariamente
 * indisponível") stopped commands, digests and alerts for a day; it now follows the refused tokens' pace.
 */
export const PROBE_LOGIN_REFUSED_DELAY_MS = 24 * 60 * 60_000;
/** Checks end this long after the break: the refresh token's life; a link broken that long needs an admin. */
export const PROBE_FOR_MS = 7 * 24 * 60 * 60_000;
/** A check's claim: well past what a login and one call take with their retries (about 2 minutes at worst). */
export const PROBE_LEASE_MS = 5 * 60_000;
/** Due checks one tick takes on at most; the rest wait for the next tick. */
const DUE_PER_TICK = 50;

/**
 * The wait after `count` checks (0: after the break) of a link broken for `why`, or null when none is to come: a
 * password the issuer said is wrong is never sent again by the bot (an account lockout counts such tries). Refused
 * tokens and a login refused for another reason (a message not read as wrong credentials: AuthRejectedError
 * .wrongCredentials) are checked 5, 10, 20, 40 minutes apart, then hourly; a break of unknown reason daily.
 */
export function probeDelay(why: LinkBreak | undefined, count: number): number | null {
  if (why === 'password_refused') return null;
  if (why === 'tokens_refused' || why === 'login_refused')
    return Math.min(PROBE_MAX_DELAY_MS, PROBE_FIRST_DELAY_MS * 2 ** count);
  return PROBE_LOGIN_REFUSED_DELAY_MS;
}

/** When the next automatic check of the link is due (epoch ms); null when it is not broken or none is to come. */
export function nextProbeAt(link: Pick<WorkspaceLink, 'brokenAt' | 'brokenWhy' | 'probes'>): number | null {
  if (link.brokenAt === null) return null;
  if (link.probes) return link.probes.nextAt;
  const delay = probeDelay(link.brokenWhy, 0);
  return delay === null ? null : withinChecks(link.brokenAt, link.brokenAt + delay);
}

/** `at`, unless it falls past the checks' end (PROBE_FOR_MS after the break). */
function withinChecks(brokenAt: number, at: number): number | null {
  return at <= brokenAt + PROBE_FOR_MS ? at : null;
}

/** What one look at a workspace in the checks' schedule did. */
export type ProbeOutcome =
  /** The credentials work again: the link is restored (by this process) and its admin is told. */
  | 'healed'
  /** Checked, still not working: the next check is planned (or none, past the checks' end or for a wrong password). */
  | 'failed'
  /** No budget slot (or a 429 pause): nothing was asked, not counted; tried again later. */
  | 'busy'
  | 'not-due'
  /** Another process checks it now. */
  | 'claimed'
  /** Not broken (any more), unlinked, or linked again: nothing to check. */
  | 'not-broken'
  | 'unlinked'
  | 'replaced'
  /** Broken, and no check is to come. */
  | 'no-check';

export interface LinkHealerDeps {
  links: LinkStore;
  tokens: Pick<TokenManager, 'login'>;
  client: Pick<UpstreamClient, 'listStockrooms'>;
  /** Digests and the change feed's listeners paused by the break resume, as a new link resumes them. */
  subscriptions: Pick<SubscriptionStore, 'pauseWorkspace' | 'resumeWorkspace'>;
  feedListeners: Pick<FeedListenerStore, 'pauseWorkspace' | 'resumeWorkspace'>;
  logger: Logger;
  now: () => number;
  /** Told once per healed link, across processes: the admin who linked is to be told. Must not throw or wait. */
  onHealed?: (workspaceId: string, linkedBy: string) => void;
  /** This process in the claims (default a random id). */
  owner?: string;
  leaseMs?: number;
  /** How long what a heal changes besides the link is asked again of a store that refuses it. */
  storeRetryMs?: number;
}

/** Checks broken links again and restores those whose credentials work (see the comment at the top). */
export class LinkHealer {
  private readonly owner: string;

  constructor(private readonly deps: LinkHealerDeps) {
    this.owner = deps.owner ?? `p${process.pid}-${randomBytes(4).toString('hex')}`;
  }

  /** Checks the broken links due now (one after the other), at most DUE_PER_TICK of them. */
  async tick(): Promise<{ workspaceId: string; outcome: ProbeOutcome }[]> {
    const due = await this.deps.links.probesDue(this.deps.now(), DUE_PER_TICK);
    const done: { workspaceId: string; outcome: ProbeOutcome }[] = [];
    for (const workspaceId of due) {
      try {
        done.push({ workspaceId, outcome: await this.probe(workspaceId) });
      } catch (error) {
        // A link the keys cannot open, a store that does not answer: looked at again later, not at every tick.
        this.deps.logger.warn({ workspaceId, ...errFields(error) }, 'could not check the broken link');
        await this.deps.links
          .scheduleProbe(workspaceId, this.deps.now() + PROBE_MAX_DELAY_MS)
          .catch(() => undefined);
      }
    }
    return done;
  }

  /**
   * Enters a broken link found by the keeper's pass in the schedule, at its next check, unless it is there: a link
   * broken before this version, or whose entry the store did not take.
   */
  async enter(link: WorkspaceLink): Promise<void> {
    const at = nextProbeAt(link);
    if (at !== null) await this.deps.links.scheduleProbe(link.workspaceId, at, true);
  }

  /** Checks the workspace's broken link if its check is due and no other process checks it now. */
  async probe(workspaceId: string): Promise<ProbeOutcome> {
    const { links } = this.deps;
    if (!(await links.claimProbe(workspaceId, this.owner, this.deps.leaseMs ?? PROBE_LEASE_MS)))
      return 'claimed';
    try {
      // Read under the claim: a check another process made just before is seen, and not made again.
      const link = await links.get(workspaceId);
      if (!link || link.brokenAt === null) {
        await links.unscheduleProbe(workspaceId);
        return link ? 'not-broken' : 'unlinked';
      }
      const due = nextProbeAt(link);
      if (due === null) {
        await links.unscheduleProbe(workspaceId);
        return 'no-check';
      }
      if (due > this.deps.now()) {
        await links.scheduleProbe(workspaceId, due);
        return 'not-due';
      }
      return await this.check({ ...link, brokenAt: link.brokenAt });
    } finally {
      await links.releaseProbe(workspaceId, this.owner).catch(() => undefined);
    }
  }

  private async check(link: WorkspaceLink & { brokenAt: number }): Promise<ProbeOutcome> {
    const { links, now } = this.deps;
    const { workspaceId } = link;
    const log = this.deps.logger.child({ workspaceId });
    const count = link.probes?.count ?? 0;
    const credential: UpstreamCredential = credentialOfLink(link);
    try {
      await this.deps.tokens.login(credential, { expireCurrentSession: true, priority: 'background' });
      await this.deps.client.listStockrooms({
        credential,
        priority: 'background',
        correlationId: `link-check-${workspaceId}-${now()}`,
        renewOn401: false,
      });
    } catch (error) {
      const busyUntil = busy(error);
      if (busyUntil !== null) {
        // Nothing was asked (or the credential is paused): not a check; again once a slot may be free.
        const nextAt = withinChecks(link.brokenAt, Math.max(now() + PROBE_FIRST_DELAY_MS, busyUntil));
        await links.recordProbe(workspaceId, link.linkedAt, link.brokenAt, { count, nextAt });
        log.info({ ...errFields(error) }, 'broken link not checked: no budget slot now');
        return 'busy';
      }
      // The issuer refusing the login now is what the rest of the checks go by (a wrong password: none).
      const why =
        error instanceof AuthRejectedError
          ? error.wrongCredentials
            ? 'password_refused'
            : 'login_refused'
          : link.brokenWhy;
      const delay = probeDelay(why, count + 1);
      const nextAt = delay === null ? null : withinChecks(link.brokenAt, now() + delay);
      await links.recordProbe(workspaceId, link.linkedAt, link.brokenAt, { count: count + 1, nextAt }, why);
      log.warn(
        {
          check: count + 1,
          why: why ?? null,
          nextCheckAt: nextAt === null ? null : new Date(nextAt).toISOString(),
          ...errFields(error),
        },
        nextAt === null
          ? 'broken link checked, still not working: no further automatic check, an admin must link again'
          : 'broken link checked, still not working',
      );
      return 'failed';
    }
    // Restored only if it is still the link that broke: an unlink or a new link made meanwhile wins.
    const restored = await links.restore(workspaceId, link.linkedAt, link.brokenAt);
    if (restored !== 'restored') {
      log.info(
        { outcome: restored },
        'broken link checked and working, but unlinked or linked again meanwhile',
      );
      return restored;
    }
    await persistently(() => this.resume(workspaceId), this.deps.storeRetryMs ?? 5_000).catch(
      (error: unknown) =>
        log.error(errFields(error), 'link healed, but its digests and alerts could not all be resumed'),
    );
    log.info({ checks: count + 1, brokenForMs: now() - link.brokenAt }, 'link healed');
    this.deps.onHealed?.(workspaceId, link.linkedBy);
    return 'healed';
  }

  /** What the break paused resumes, as a new link resumes it; an unlink that landed meanwhile keeps its pause. */
  private async resume(workspaceId: string): Promise<void> {
    await this.deps.subscriptions.resumeWorkspace(workspaceId, 'unlinked');
    await this.deps.feedListeners.resumeWorkspace(workspaceId, 'unlinked');
    if ((await this.deps.links.get(workspaceId)) !== null) return;
    await this.deps.subscriptions.pauseWorkspace(workspaceId, 'unlinked');
    await this.deps.feedListeners.pauseWorkspace(workspaceId, 'unlinked');
  }
}

/** Until when a check that failed for the budget waits (0: a slot may come at once); null when it was not that. */
function busy(error: unknown): number | null {
  if (error instanceof BudgetExhaustedError) return error.retryAt;
  if (error instanceof BudgetClosedError || error instanceof BudgetStoreUnavailableError) return 0;
  if (error instanceof UpstreamRateLimitedError) return error.pausedUntil ?? 0;
  return null;
}
