import { errFields, type Logger, newCorrelationId } from '../../lib/logger.js';
import type { FeedListenerStore } from '../../store/feed-listeners.js';
import type { SubscriptionStore } from '../../store/subscription-store.js';
import { NoSavedDataError } from '../cached-reader.js';
import { looksClosed, newestFirst } from '../digest/digest-service.js';
import {
  LinkBrokenError,
  NotLinkedError,
  UserEmailUnavailableError,
  UserNotMatchedError,
} from '../errors.js';
import type { LinkService } from '../links/link-service.js';
import { LIST_BLOCK_SIZE, type RequestService, type SlackUserRef } from '../requests/request-service.js';
import type { Workspaces } from '../workspace.js';
import type { HomeView, MineSection } from './home-view.js';

export interface HomeServiceDeps {
  workspaces: Workspaces;
  linkService: Pick<LinkService, 'status'>;
  requests: Pick<RequestService, 'mine'>;
  subscriptions: Pick<SubscriptionStore, 'listWorkspace'>;
  feedListeners: Pick<FeedListenerStore, 'listFollows' | 'getOwnFollow' | 'listChannels' | 'pausedReason'>;
  logger: Logger;
  /** Epoch ms; default Date.now. */
  now?: () => number;
}

/** The Home's store reads, in the order `build` makes them, for the log line of those that failed. */
const READ_NAMES = ['link', 'digests', 'follows', 'ownFollow', 'alerts', 'paused'] as const;

/**
 * `Atualizar` asks upstream unless the user's requests were read this recently: a double click, or a click right
 * after another, spends no second call of the shared budget on the same answer.
 */
export const HOME_REFRESH_REUSE_MS = 30_000;

/**
 * The App Home of one user. Opening it reads the store and the cache only, never upstream, so it never waits on
 * the budget: what is cached shows with its age, what is not says so. `refreshMine` (the Home's `Atualizar`) reads
 * the user's requests from upstream at interactive priority, like `/solicitacao minhas`, and caches them for both;
 * the Home built with what it read is then built like any other, from the store.
 */
export class HomeService {
  constructor(private readonly deps: HomeServiceDeps) {}

  async build(
    workspaceId: string,
    user: SlackUserRef & { isAdmin: boolean },
    /** `mine`: what `refreshMine` just read; unset, the section is built from what is saved. */
    options: { mine?: MineSection; correlationId?: string } = {},
  ): Promise<HomeView> {
    const feed = this.deps.feedListeners;
    // Each read on its own: one that fails (a Redis hiccup) leaves its section unavailable, not the whole Home
    // unpublished (until 2026-11-27 a first opener then saw an empty Home, others a stale one).
    const reads = await Promise.allSettled([
      this.deps.linkService.status(workspaceId),
      this.deps.subscriptions.listWorkspace(workspaceId),
      feed.listFollows(workspaceId, user.id),
      feed.getOwnFollow(workspaceId, user.id),
      feed.listChannels(workspaceId),
      feed.pausedReason(workspaceId),
    ] as const);
    const [status, digests, follows, ownFollow, alerts, paused] = reads;
    const failed = READ_NAMES.filter((_, i) => reads[i]?.status === 'rejected');
    if (failed.length > 0) {
      const first = reads.find((read) => read.status === 'rejected');
      this.deps.logger.warn(
        {
          workspaceId,
          ...(options.correlationId && { correlationId: options.correlationId }),
          reads: failed,
          ...errFields(first?.status === 'rejected' ? first.reason : undefined),
        },
        'home: some reads failed; those sections shown as unavailable',
      );
    }
    const value = <T>(read: PromiseSettledResult<T>): T | null =>
      read.status === 'fulfilled' ? read.value : null;
    const link = value(status);
    // The link unread: the requests are still tried (resolving the workspace reads the link again, and says why).
    const mine =
      link === null || link.linked
        ? (options.mine ?? (await this.mine(workspaceId, user, false, options.correlationId)))
        : ({ state: 'not_linked' } as const);
    return {
      userId: user.id,
      isAdmin: user.isAdmin,
      status: link,
      mine,
      digests: value(digests),
      feed: {
        follows: ownFollow.status === 'fulfilled' ? value(follows) : null,
        ownFollowEmail: value(ownFollow)?.email ?? null,
        alerts: value(alerts),
        paused: paused.status === 'fulfilled' ? paused.value : 'unknown',
      },
    };
  }

  /** `Atualizar`: the user's requests read from upstream (unless read in the last 30 s), as the Home shows them. */
  refreshMine(workspaceId: string, user: SlackUserRef, correlationId?: string): Promise<MineSection> {
    return this.mine(workspaceId, user, true, correlationId);
  }

  private async mine(
    workspaceId: string,
    user: SlackUserRef,
    refresh: boolean,
    correlationId?: string,
  ): Promise<MineSection> {
    try {
      const ws = await this.deps.workspaces.resolve(workspaceId, 'interactive', correlationId);
      // The whole block read (one call, the cache entry `/solicitacao minhas` pages through), not its first page
      // of 10: the open requests are looked for among every row read (until 2026-11-27 among the first 10 only, so
      // 10 newer closed ones hid every open one).
      const answer = await this.deps.requests.mine(
        ws,
        user,
        {},
        1,
        refresh ? { freshSince: (this.deps.now ?? Date.now)() - HOME_REFRESH_REUSE_MS } : { savedOnly: true },
        LIST_BLOCK_SIZE,
      );
      const { list, mine } = answer.data;
      return {
        state: 'list',
        upstreamUserName: mine?.upstreamUserName ?? null,
        open: newestFirst(list.rows.filter((row) => !looksClosed(row))),
        totalRows: list.totalRows,
        rowsRead: list.rows.length,
        allRead: list.totalUnknown !== true && list.rows.length >= list.totalRows,
        freshness: answer.freshness,
      };
    } catch (error) {
      if (error instanceof NotLinkedError) return { state: 'not_linked' };
      if (error instanceof LinkBrokenError) return { state: 'broken' };
      if (error instanceof UserNotMatchedError) return { state: 'no_match', email: error.email };
      // An opening that could not have the e-mail (and had no match to fall back on) does not know the user yet;
      // `Atualizar` that could not says it could not read.
      if (error instanceof UserEmailUnavailableError && !refresh) return { state: 'unknown' };
      if (error instanceof NoSavedDataError) {
        // The users list is read first: without it the user is not matched yet.
        return error.endpoint === 'users'
          ? { state: 'unknown' }
          : { state: 'not_cached', upstreamUserName: null };
      }
      // Logged once, with the correlation id the Home names to the user (until 2026-11-27 it had none).
      const id = correlationId ?? newCorrelationId();
      const raw = (error as { code?: unknown } | null)?.code;
      const code = typeof raw === 'string' ? raw : 'unexpected';
      this.deps.logger.warn(
        { workspaceId, correlationId: id, code, ...errFields(error) },
        'home: requests of the user unavailable',
      );
      return { state: 'unavailable', code, error, correlationId: id };
    }
  }
}
