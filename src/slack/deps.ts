import type { WebClient } from '@slack/web-api';
import type { Config } from '../config.js';
import type { HomeService } from '../domain/home/home-service.js';
import type { MineSection } from '../domain/home/home-view.js';
import type { LinkService } from '../domain/links/link-service.js';
import type { MaterialSearchService } from '../domain/stock/material-search.js';
import type { Workspaces } from '../domain/workspace.js';
import type { Clock } from '../lib/clock.js';
import type { SerialCoalescer } from '../lib/coalescer.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics, MetricsExposition } from '../lib/metrics.js';
import type { SandboxChangeView } from '../render/sandbox.js';
import type { FeedListenerStore } from '../store/feed-listeners.js';
import type { FeedSnapshotStore } from '../store/feed-snapshot-store.js';
import type { HomeViewStore } from '../store/home-view-store.js';
import type { SeenRequests } from '../store/seen-requests.js';
import type { SubscriptionStore } from '../store/subscription-store.js';
import type { Answers } from './answers.js';
import type { BackgroundTasks } from './background.js';
import type { DigestSubscriptions } from './digest-subscriptions.js';
import type { FeedSubscriptions } from './feed-subscriptions.js';
import type { AnswerTiming } from './first-message.js';
import type { RequestWorkspace, SlackUserInfo } from './slack-users.js';

/** Local mode only: moves the linked company's sandbox data along (`/estoque sandbox avancar`). */
export interface SandboxMotion {
  advance(workspaceId: string, changes: number): Promise<SandboxChangeView[]>;
  /** After the reply: the change feed reports the advance's changes now (its round runs at once). */
  announce(workspaceId: string, changes: readonly SandboxChangeView[]): Promise<void>;
}

/**
 * What the help and the usage after a bad argument show: in local mode (the sandbox moves along in this process) they
 * name `/estoque sandbox avancar`.
 */
export function helpOptionsOf(deps: Pick<SlackDeps, 'sandbox'>): { localMode: boolean } {
  return { localMode: deps.sandbox !== undefined };
}

/** One build and publish of a user's App Home (home/home-publish.ts publishHome). */
export interface HomePublishRequest {
  client: WebClient;
  workspaceId: string;
  userId: string;
  /** The workspace the admin check is about (an org-wide install is the organisation). */
  workspace: RequestWorkspace;
  /** What `Atualizar` just read of the user's requests; unset, the Home shows what is saved. */
  mine?: MineSection;
  /** users.info's answer just had (a lookup that came late; `user` undefined when Slack named none); unset, asked. */
  slackUser?: { user: SlackUserInfo | undefined };
}

/** Per workspace and user, one at a time, what comes meanwhile merged (lib/coalescer.ts). */
export interface HomePublishes {
  /** Builds from saved data and publishes: openings, clicks, feed DMs, and a refresh once it has read. */
  builds: SerialCoalescer<HomePublishRequest>;
  /** `Atualizar`'s upstream reads, which openings never wait on. */
  refreshes: SerialCoalescer<HomePublishRequest>;
}

/** What the Slack listeners are built from (factories, no module globals: a test builds the app in one call). */
export interface SlackDeps {
  config: Pick<Config, 'BOT_ADMINS' | 'DIGEST_TZ' | 'UPSTREAM_RATE_LIMIT' | 'SLACK_API_URL'>;
  logger: Logger;
  answers: Answers;
  linkService: LinkService;
  digestSubscriptions: DigestSubscriptions;
  subscriptions: SubscriptionStore;
  /** The change feed's listeners (channel feeds, follows) and the commands and buttons that change them. */
  feedListeners: FeedListenerStore;
  /** What the change feed saw of each workspace (forgotten when the app is uninstalled). */
  feedSnapshots: Pick<FeedSnapshotStore, 'forget'>;
  feedSubscriptions: FeedSubscriptions;
  tasks: BackgroundTasks;
  /** Signatures and event ids already taken in (replays, Slack's retries), shared across replicas. */
  seenRequests: SeenRequests;
  now: () => number;
  /** The App Home and the shortcuts' modals. */
  home: HomeService;
  /** One Home build and publish per workspace and user at a time, what comes meanwhile merged (home-publish.ts). */
  homePublishes: HomePublishes;
  /** Per workspace and user, across replicas: the Home's build numbers and the hash of the one on screen. */
  homeViews: HomeViewStore;
  materials: MaterialSearchService;
  workspaces: Workspaces;
  /** Set in local mode only, where the sandbox runs in the same process. */
  sandbox?: SandboxMotion;
  /** This bot's metrics (its own registry), and what GET /metrics serves. */
  metrics: Metrics & MetricsExposition;
  /** Timers of first messages (first-message.ts); the system clock unless a test moves it by hand. */
  clock?: Clock;
  /** Deadline and first-message delays of interactive answers; DEFAULT_ANSWER_TIMING unless configured. */
  answerTiming?: AnswerTiming;
}
