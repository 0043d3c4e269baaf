import type { WebClient } from '@slack/web-api';
import type { HomeView } from '../../domain/home/home-view.js';
import { type Clock, systemClock } from '../../lib/clock.js';
import { SerialCoalescer } from '../../lib/coalescer.js';
import { errFields, type Logger, newCorrelationId } from '../../lib/logger.js';
import { renderHome } from '../../render/home.js';
import { slackErrorCode } from '../deliver.js';
import type { HomePublishes, HomePublishRequest, SlackDeps } from '../deps.js';
import { slackCallFailure } from '../paced-post.js';
import {
  type AdminVerdict,
  adminVerdictOf,
  emailOf,
  type RequestWorkspace,
  type SlackUserInfo,
  slackUserInfo,
  workspaceOfId,
} from '../slack-users.js';
import { afterConflict, recordPublished, takeTurn } from './home-order.js';

/**
 * How long a Home build waits for users.info (the admin check, and the e-mail when the user's match must be made
 * again). Slack wants the Home within 3 s of the opening; users.info answers in a few hundred ms when well, and the
 * store reads and views.publish take the rest. A lookup that has not answered by then is decided without it (the
 * admin verdict remembered, the last match), and the Home is published again once it answers, if that changes it.
 */
export const HOME_LOOKUP_BUDGET_MS = 1_000;

/**
 * The longest Retry-After a Home publish answered 429 waits for before it is built and published once more.
 * views.publish is Tier 4 (100+ a minute per workspace): its Retry-After is a few seconds, and a person who opened
 * the Home sees it that much later instead of never. A longer wait is not made: by then the person has likely left
 * the tab and their next opening publishes it, and the wait would hold the user's publishes (and a shutdown's grace).
 */
export const HOME_RATE_LIMIT_WAIT_MAX_MS = 10_000;

/**
 * How many times one publish is refused `hash_conflict` before it stops: each refusal means another publish landed
 * in between, and a person's Home is not published that often.
 */
const HOME_HASH_CONFLICTS_MAX = 3;

/** How long a Home remembers that a person was found to be an admin, for when the check cannot be made. */
const ADMIN_MEMORY_MS = 60 * 60_000;

/** Per process (the deps of one app), when each person was last found to be an admin: key workspace:user. */
const adminSeenAt = new WeakMap<SlackDeps, Map<string, number>>();

/**
 * Builds merge into one run after the one going on (a refresh's reading kept, and a users.info answer had);
 * refreshes likewise (`Atualizar` clicked twice reads once).
 */
export function createHomePublishes(): HomePublishes {
  return {
    builds: new SerialCoalescer<HomePublishRequest>((queued, next) => ({
      ...next,
      mine: next.mine ?? queued.mine,
      slackUser: next.slackUser ?? queued.slackUser,
    })),
    refreshes: new SerialCoalescer<HomePublishRequest>((_queued, next) => next),
  };
}

/**
 * Builds one user's Home and publishes it. Opening reads only the store and the cache (never upstream, so never
 * a wait on the budget), and waits for Slack's users.info at most HOME_LOOKUP_BUDGET_MS. `refresh` (`Atualizar`)
 * reads the user's requests from upstream at interactive priority first, on a path of its own: an opening meanwhile
 * publishes at once from what is saved (until 2026-11-27 it waited for the refresh's upstream read), and the refresh
 * publishes again when it has read.
 *
 * One build and publish per workspace and user at a time: what is asked meanwhile (30 openings, a click on
 * `Deixar de acompanhar`, the refresh done) waits and is merged into one rerun after it, so the Home published last
 * is built after the last change asked for, and Slack gets one publish, not one per event.
 */
export async function publishHome(
  deps: SlackDeps,
  client: WebClient,
  workspaceId: string,
  userId: string,
  options: {
    refresh?: boolean;
    /** The request's workspace as Bolt's context has it (org installs); default what the id stands for. */
    workspace?: RequestWorkspace;
  } = {},
): Promise<void> {
  const request: HomePublishRequest = {
    client,
    workspaceId,
    userId,
    workspace: options.workspace ?? workspaceOfId(workspaceId),
  };
  if (!options.refresh) {
    await publishNow(deps, request);
    return;
  }
  await deps.homePublishes.refreshes.run(homeKey(request), request, async (asked) => {
    const correlationId = newCorrelationId();
    // The person clicked and waits for it: the e-mail, when needed, is asked with the listeners' retries.
    const user = { id: asked.userId, email: () => emailOf(asked.client, asked.userId) };
    const mine = await deps.home.refreshMine(asked.workspaceId, user, correlationId);
    await publishNow(deps, { ...asked, mine });
  });
}

function homeKey(request: HomePublishRequest): string {
  return `${request.workspaceId}:${request.userId}`;
}

function publishNow(deps: SlackDeps, request: HomePublishRequest): Promise<void> {
  const key = homeKey(request);
  if (deps.homePublishes.builds.busy(key))
    deps.logger.debug({ workspaceId: request.workspaceId }, 'home publish merged into the next one');
  return deps.homePublishes.builds.run(key, request, (merged) => buildAndPublish(deps, merged));
}

/**
 * Whether the Home shows the admin controls. A check that could not be made (users.info 429/5xx, or slower than
 * an opening waits) keeps the last verdict of the hour, so an admin keeps them through Slack's hiccup, and nobody
 * else ever gets them (the actions behind them check again anyway); never checked, they stay hidden.
 */
function adminOnHome(deps: SlackDeps, key: string, verdict: AdminVerdict): boolean {
  let seen = adminSeenAt.get(deps);
  if (!seen) {
    seen = new Map();
    adminSeenAt.set(deps, seen);
  }
  const now = deps.now();
  if (verdict.allowed) seen.set(key, now);
  else if (verdict.reason !== 'lookup-failed') seen.delete(key);
  else {
    const at = seen.get(key);
    return at !== undefined && now - at < ADMIN_MEMORY_MS;
  }
  return verdict.allowed;
}

type Lookup =
  | { state: 'answered'; user: SlackUserInfo | undefined }
  | { state: 'failed'; error: unknown }
  | { state: 'late' };

/** users.info within `budgetMs` (`late` past it), and its outcome whenever it comes (`settled`). */
function lookUpUser(
  client: WebClient,
  userId: string,
  clock: Clock,
  budgetMs: number,
): { inTime: Promise<Lookup>; settled: Promise<Lookup> } {
  const settled: Promise<Lookup> = slackUserInfo(client, userId).then(
    (user) => ({ state: 'answered', user }),
    (error: unknown) => ({ state: 'failed', error }),
  );
  let timer: ReturnType<Clock['setTimeout']> | undefined;
  const late = new Promise<Lookup>((resolve) => {
    timer = clock.setTimeout(() => resolve({ state: 'late' }), budgetMs);
  });
  const inTime = Promise.race([settled, late]).finally(() => {
    if (timer !== undefined) clock.clearTimeout(timer);
  });
  return { inTime, settled };
}

class LookupLateError extends Error {
  override readonly name = 'LookupLateError';
  constructor() {
    super('users.info did not answer within the Home build budget');
  }
}

async function buildAndPublish(deps: SlackDeps, request: HomePublishRequest): Promise<void> {
  const { client, workspaceId, userId, workspace } = request;
  const correlationId = newCorrelationId();
  const logger = deps.logger.child({ correlationId, workspaceId, surface: 'home' });
  const key = homeKey(request);
  const clock = deps.clock ?? systemClock;
  const started = deps.now();
  try {
    // One users.info for both the admin check and the e-mail, waited for a bounded time.
    const lookup = request.slackUser ? null : lookUpUser(client, userId, clock, HOME_LOOKUP_BUDGET_MS);
    const seen: Lookup = lookup ? await lookup.inTime : { state: 'answered', user: request.slackUser?.user };
    const verdictOf = (user: SlackUserInfo | undefined) =>
      adminVerdictOf(user, userId, deps.config.BOT_ADMINS, workspace);
    const verdict: AdminVerdict =
      seen.state === 'answered' ? verdictOf(seen.user) : { allowed: false, reason: 'lookup-failed' };
    const isAdmin = adminOnHome(deps, key, verdict);
    let emailAsked = false;
    const email = async () => {
      emailAsked = true;
      if (seen.state === 'answered') return seen.user?.profile?.email ?? null;
      throw seen.state === 'late' ? new LookupLateError() : seen.error;
    };
    const build = () =>
      deps.home.build(workspaceId, { id: userId, email, isAdmin }, { mine: request.mine, correlationId });
    const view = await build();
    const published = await publishView(deps, request, view, build, logger);
    if (published)
      logger.info(
        {
          ms: deps.now() - started,
          refresh: request.mine !== undefined,
          mine: published.mine.state,
          lookup: seen.state,
        },
        'home published',
      );
    if (lookup && seen.state === 'late') {
      // Published without users.info: once it answers, published again if that changes the Home.
      void deps.tasks.run('home after a late users.info', async () => {
        const settled = await lookup.settled;
        if (settled.state !== 'answered') return;
        const admin = adminOnHome(deps, key, verdictOf(settled.user));
        if (admin === isAdmin && !emailAsked) return;
        logger.info('users.info answered after the Home was published; publishing it again');
        await publishNow(deps, { ...request, slackUser: { user: settled.user } });
      });
    }
  } catch (error) {
    logger.error(errFields(error), 'home not published');
  }
}

/**
 * Publishes the Home, in order with the person's other publishes (home-order.ts): with the hash of the Home last
 * recorded, giving way on `hash_conflict` to a newer build, publishing again over an older one. A 429 whose
 * Retry-After is at most HOME_RATE_LIMIT_WAIT_MAX_MS is waited for, then the Home is built again from what is saved
 * by then and published once more (unless a build asked meanwhile comes next: it publishes). Until 2026-11-27 a 429
 * left the person with no Home, and only a log line. The view published, or null when none was (logged).
 */
async function publishView(
  deps: SlackDeps,
  request: HomePublishRequest,
  first: HomeView,
  build: () => Promise<HomeView>,
  logger: Logger,
): Promise<HomeView | null> {
  let view = first;
  let turn = await takeTurn(deps, request, logger);
  let rateLimited = false;
  let conflicts = 0;
  for (;;) {
    try {
      const answer = await request.client.views.publish({
        user_id: request.userId,
        view: renderHome(
          view,
          { timeZone: deps.config.DIGEST_TZ, now: deps.now() },
          {
            budget: {
              limit: deps.config.UPSTREAM_RATE_LIMIT.count,
              windowMs: deps.config.UPSTREAM_RATE_LIMIT.windowMs,
            },
          },
        ),
        ...(turn !== null && turn.hash !== null && { hash: turn.hash }),
      });
      if (turn)
        await recordPublished(deps, request, { build: turn.build, hash: answer.view?.hash ?? null }, logger);
      return view;
    } catch (error) {
      if (turn && slackErrorCode(error) === 'hash_conflict' && ++conflicts <= HOME_HASH_CONFLICTS_MAX) {
        turn = await afterConflict(deps, request, turn, logger);
        if (!turn) return null;
        continue;
      }
      const failure = slackCallFailure(error);
      const waitMs = failure.kind === 'rate_limited' ? failure.retryAfterMs : null;
      if (rateLimited || waitMs === null || waitMs > HOME_RATE_LIMIT_WAIT_MAX_MS) {
        logger.error({ ...errFields(error), conflicts }, 'home not published');
        return null;
      }
      rateLimited = true;
      logger.warn({ retryAfterMs: waitMs }, 'home publish rate limited; publishing again after the wait');
      await new Promise<void>((resolve) => (deps.clock ?? systemClock).setTimeout(resolve, waitMs));
      if (deps.homePublishes.builds.pending(homeKey(request))) {
        logger.info('home asked again during the wait; that build publishes it');
        return null;
      }
      view = await build();
      turn = await takeTurn(deps, request, logger);
    }
  }
}
