import type { Config } from '../config.js';
import type { LinkService } from '../domain/links/link-service.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { SeenRequests } from '../store/seen-requests.js';
import type { SubscriptionStore } from '../store/subscription-store.js';
import type { Answers } from './answers.js';
import type { BackgroundTasks } from './background.js';
import type { DigestSubscriptions } from './digest-subscriptions.js';
import type { AnswerTiming } from './first-message.js';

/** What the Slack listeners are built from (factories, no module globals: a test builds the app in one call). */
export interface SlackDeps {
  config: Pick<Config, 'BOT_ADMINS' | 'DIGEST_TZ' | 'UPSTREAM_RATE_LIMIT'>;
  logger: Logger;
  answers: Answers;
  linkService: LinkService;
  digestSubscriptions: DigestSubscriptions;
  subscriptions: SubscriptionStore;
  tasks: BackgroundTasks;
  /** Signatures and event ids already taken in (replays, Slack's retries), shared across replicas. */
  seenRequests: SeenRequests;
  now: () => number;
  /** Timers of first messages (first-message.ts); the system clock unless a test moves it by hand. */
  clock?: Clock;
  /** Deadline and first-message delays of interactive answers; DEFAULT_ANSWER_TIMING unless configured. */
  answerTiming?: AnswerTiming;
}
