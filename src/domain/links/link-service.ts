import { errFields, type Logger } from '../../lib/logger.js';
import type { CacheStore } from '../../store/cache-store.js';
import type { FeedListenerStore } from '../../store/feed-listeners.js';
import type { LinkStore, WorkspaceLink } from '../../store/link-store.js';
import type { StockStore } from '../../store/stock-store.js';
import type { SubscriptionStore } from '../../store/subscription-store.js';
import type { UserMatchStore } from '../../store/user-match-store.js';
import type { TokenManager } from '../../upstream/auth.js';
import type { Budget } from '../../upstream/budget.js';
import { BudgetExhaustedError, BudgetStoreUnavailableError } from '../../upstream/budget-errors.js';
import type { UpstreamClient } from '../../upstream/client.js';
import { credentialIdOf, type UpstreamCredential } from '../../upstream/credential.js';
import {
  AuthRejectedError,
  UpstreamForbiddenError,
  UpstreamRateLimitedError,
} from '../../upstream/errors.js';
import type { FeedStatus } from '../feed/engine.js';
import { persistently } from '../persist.js';
import type { LinkStatusView } from '../views.js';
import { nextProbeAt } from './link-healer.js';

export interface LinkInput {
  login: string;
  password: string;
  empresaId: number;
  unidadeId: number | null;
  endActiveSession: boolean;
}

export type LinkField = 'login' | 'password' | 'company' | 'unit' | 'endSession';

export type LinkOutcome =
  | { ok: true; stockroomCount: number }
  | { ok: false; field: LinkField; message: string }
  | { ok: false; field: null; reason: 'busy' | 'unavailable' | 'store' | 'bot_store'; retryAt?: number };

/**
 * How long the link, once the login and its check went through, is asked again of a store that cannot take it (a
 * Redis restart): the login was spent for it, and the admin waits for its outcome.
 */
export const LINK_STORE_RETRY_MS = 5_000;

export interface LinkServiceDeps {
  authUrl: string;
  links: LinkStore;
  tokens: TokenManager;
  client: UpstreamClient;
  budget: Budget;
  cache: CacheStore;
  userMatches: UserMatchStore;
  /** Last known stock and names: kept across a new link to the same company, forgotten otherwise. */
  stock: Pick<StockStore, 'forget'>;
  /** Digests of an unlinked workspace are paused, and resumed by the next link. */
  subscriptions: Pick<SubscriptionStore, 'pauseWorkspace' | 'resumeWorkspace'>;
  /** The change feed's listeners, likewise. */
  feedListeners: Pick<FeedListenerStore, 'pauseWorkspace' | 'resumeWorkspace'>;
  logger: Logger;
  now: () => number;
  /** The change feed's state, for `/estoque status` (absent: the feed is off). */
  feed?: {
    status(workspaceId: string): Promise<FeedStatus>;
    /** A link to another company: the old company's follows end now, their followers told (FeedEngine). */
    linkedAnotherCompany?(workspaceId: string, empresaId: number | null): Promise<void>;
  } | null;
}

/** Linking a workspace to an upstream login (admins only; the Slack layer checks who asks). */
export class LinkService {
  constructor(private readonly deps: LinkServiceDeps) {}

  /** Logs in, checks the link with one cheap call, then stores it. Nothing is stored when a step fails. */
  async link(
    workspaceId: string,
    input: LinkInput,
    byUserId: string,
    correlationId?: string,
  ): Promise<LinkOutcome> {
    // Every line of the attempt names its workspace and the correlation id of its upstream calls.
    const log = this.deps.logger.child({ workspaceId, ...(correlationId && { correlationId }) });
    const credential: UpstreamCredential = {
      id: credentialIdOf(this.deps.authUrl, input.login),
      login: input.login.trim(),
      password: input.password,
      empresaId: input.empresaId,
      unidadeId: input.unidadeId,
    };
    try {
      await this.deps.tokens.login(credential, {
        expireCurrentSession: input.endActiveSession,
        priority: 'interactive',
      });
    } catch (error) {
      if (error instanceof AuthRejectedError) {
        if (error.hasActiveSession) {
          refused(log, 'active_session', error);
          return {
            ok: false,
            field: 'endSession',
            message:
              'Já existe uma sessão ativa para este login. Marque esta opção para encerrá-la e envie de novo.',
          };
        }
        refused(log, 'login_refused', error);
        return {
          ok: false,
          field: 'password',
          message: error.upstreamMessage ?? 'Login ou senha não aceitos pelo sistema.',
        };
      }
      return this.unavailable(error, 'login', log);
    }
    let stockroomCount: number;
    try {
      const stockrooms = await this.deps.client.listStockrooms({
        credential,
        priority: 'interactive',
        ...(correlationId && { correlationId }),
      });
      stockroomCount = stockrooms.length;
    } catch (error) {
      if (error instanceof UpstreamForbiddenError) {
        refused(log, 'company_forbidden', error);
        return {
          ok: false,
          field: 'company',
          message: `Este login não tem acesso à empresa ${input.empresaId}.`,
        };
      }
      return this.unavailable(error, 'check', log);
    }
    // The store may not answer for a moment (a Redis restart): asked again rather than the link lost, and if it
    // still cannot take it, the admin is told nothing was linked (never a link said made and not kept).
    let previous: WorkspaceLink | null = null;
    try {
      await persistently(async () => {
        previous = await this.deps.links.get(workspaceId).catch(() => null);
        await this.deps.links.save({
          workspaceId,
          credentialId: credential.id,
          login: credential.login,
          password: credential.password,
          empresaId: credential.empresaId,
          unidadeId: credential.unidadeId,
          linkedBy: byUserId,
          linkedAt: this.deps.now(),
          brokenAt: null,
        });
      }, LINK_STORE_RETRY_MS);
    } catch (error) {
      log.error(errFields(error), 'link not stored: the store does not answer');
      return { ok: false, field: null, reason: 'store' };
    }
    await persistently(() => this.afterLink(workspaceId, previous, credential), LINK_STORE_RETRY_MS).catch(
      (error: unknown) =>
        log.error(errFields(error), 'workspace linked, but what the old link left could not all be cleared'),
    );
    log.info({ credential: credential.id }, 'workspace linked');
    return { ok: true, stockroomCount };
  }

  /** What a new link changes besides itself; each step may run again. */
  private async afterLink(
    workspaceId: string,
    previous: WorkspaceLink | null,
    credential: UpstreamCredential,
  ): Promise<void> {
    // A new link may point to another company: nothing cached under the old one may show.
    await this.forgetWorkspaceData(workspaceId);
    // What was seen of materials is slow to learn again and stays true for the same company; another company has
    // other materials under the same ids.
    if (previous && previous.empresaId !== credential.empresaId) {
      await this.deps.stock.forget({ workspaceId, empresaId: previous.empresaId });
      // The request numbers followed name the old company's requests: those follows end now, not at the next
      // feed round (which ends what this misses). Until 2026-11-27 only that round did, and it ended the follows
      // made since the new link too.
      await this.deps.feed?.linkedAnotherCompany?.(workspaceId, credential.empresaId);
    }
    // Another login: the old one's token pair (a refresh token alive for 7 days) goes, as an unlink's does.
    if (previous && previous.credentialId !== credential.id)
      await this.deps.tokens.forget(previous.credentialId);
    // PRODUCT.md: unlink, a broken link and tokens_revoked pause digests and alerts, a new link resumes them. A
    // Slack token that still does not work pauses them again at the next post (tokens_revoked).
    for (const reason of ['unlinked', 'tokens_revoked'] as const) {
      await this.deps.subscriptions.resumeWorkspace(workspaceId, reason);
      await this.deps.feedListeners.resumeWorkspace(workspaceId, reason);
    }
  }

  async unlink(workspaceId: string): Promise<boolean> {
    const link = await this.deps.links.get(workspaceId).catch(() => null);
    await this.deps.links.delete(workspaceId);
    await this.forgetWorkspaceData(workspaceId);
    // The next link may be to another company: nothing seen under this one may show then.
    if (link) await this.deps.stock.forget({ workspaceId, empresaId: link.empresaId });
    if (link) await this.deps.tokens.forget(link.credentialId);
    await this.deps.subscriptions.pauseWorkspace(workspaceId, 'unlinked');
    await this.deps.feedListeners.pauseWorkspace(workspaceId, 'unlinked');
    this.deps.logger.info({ workspaceId }, 'workspace unlinked');
    return link !== null;
  }

  async status(workspaceId: string): Promise<LinkStatusView> {
    const link = await this.deps.links.get(workspaceId);
    const [expiries, usage, cache, feed] = await Promise.all([
      link ? this.deps.tokens.expiries(link.credentialId) : null,
      link ? this.deps.budget.usage(link.credentialId) : null,
      this.deps.cache.stats(workspaceId),
      link && this.deps.feed ? this.deps.feed.status(workspaceId).catch(() => null) : null,
    ]);
    return {
      linked: link !== null,
      broken: link?.brokenAt != null,
      checks: link ? checksOf(link) : null,
      linkedBy: link?.linkedBy ?? null,
      linkedAt: link?.linkedAt ?? null,
      login: link?.login ?? null,
      empresaId: link?.empresaId ?? null,
      unidadeId: link?.unidadeId ?? null,
      tokenExpiresAt: expiries?.expiresAt ?? null,
      refreshExpiresAt: expiries?.refreshExpiresAt ?? null,
      budget: usage
        ? {
            limit: usage.limit,
            windowMs: usage.windowMs,
            used: usage.used,
            remaining: usage.remaining,
            pausedUntil: usage.pausedUntil,
          }
        : null,
      cache,
      feed:
        feed && usage
          ? {
              listening: feed.listening,
              intervalMs: feed.intervalMs,
              stretchedBy: feed.stretchedBy,
              used: usage.feed.used,
              cap: usage.feed.cap,
              saturated: usage.feed.saturated,
              shareCap: usage.feed.shareCap,
            }
          : null,
    };
  }

  private async forgetWorkspaceData(workspaceId: string): Promise<void> {
    await Promise.all([
      this.deps.cache.clear(workspaceId),
      this.deps.userMatches.clearWorkspace(workspaceId),
    ]);
  }

  private unavailable(error: unknown, step: string, log: Logger): LinkOutcome {
    log.warn({ step, ...errFields(error) }, 'link attempt failed');
    if (error instanceof BudgetExhaustedError)
      return { ok: false, field: null, reason: 'busy', retryAt: error.retryAt };
    // The bot's own store did not answer during the wait for a slot: neither the limit nor upstream.
    if (error instanceof BudgetStoreUnavailableError) return { ok: false, field: null, reason: 'bot_store' };
    // The upstream (or its token issuer) refused for its limit: the credential is paused until then.
    if (error instanceof UpstreamRateLimitedError && error.pausedUntil !== undefined)
      return { ok: false, field: null, reason: 'busy', retryAt: error.pausedUntil };
    return { ok: false, field: null, reason: 'unavailable' };
  }
}

/**
 * Why the upstream refused a link attempt (the admin sees it on the form's field): the issuer refused the login
 * (`login_refused`: a wrong password, an unknown login...), it has a session open elsewhere (`active_session`), or
 * the login cannot see the company (`company_forbidden`).
 */
type LinkRefusal = 'login_refused' | 'active_session' | 'company_forbidden';

/** One info line per refused attempt (its workspace and correlation id are on `log`); errors never hold a password. */
function refused(log: Logger, reason: LinkRefusal, error: unknown): void {
  log.info({ reason, ...errFields(error) }, 'link attempt failed');
}

/** What `/estoque status` and the Home say of a broken link's automatic checks. */
function checksOf(link: WorkspaceLink): LinkStatusView['checks'] {
  if (link.brokenAt === null) return null;
  const nextAt = nextProbeAt(link);
  if (nextAt !== null) return { nextAt };
  return { nextAt: null, ended: link.brokenWhy === 'password_refused' ? 'password' : 'ended' };
}
