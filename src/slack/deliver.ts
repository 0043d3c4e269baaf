import type { RespondFn } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Route } from '../domain/routes.js';
import { systemClock } from '../lib/clock.js';
import { orAfter } from '../lib/deadline.js';
import { errFields, newCorrelationId } from '../lib/logger.js';
import { type AnswerSource, secondsSince } from '../lib/metrics.js';
import { type Message, type RenderContext, renderRestarting, renderTimeout } from '../render/index.js';
import { UpstreamErrorCode } from '../upstream/errors.js';
import type { AnswerRequest } from './answers.js';
import type { SlackDeps } from './deps.js';
import { failureMessage } from './failures.js';
import { AnswerProgress, DEFAULT_ANSWER_TIMING, firstMessageThenAnswer } from './first-message.js';
import { slackCallFailure } from './paced-post.js';
import { ResponseUrlOutcomeUnknownError } from './response-url.js';
import { answerOutcome } from './slack-metrics.js';
import { emailOf } from './slack-users.js';
import { type PolicyClientDeps, singleAttemptClient } from './web-clients.js';

export type DeliveryMode =
  /** A new ephemeral answer (a command): it replaces its own first message, if one was shown. */
  | 'new'
  /**
   * A new ephemeral answer to a button on a message everyone sees (a shared answer, a digest, an alert): never
   * `replace_original`, which would replace that message, for everyone, with this person's answer. A first
   * message shown meanwhile stays above the answer.
   */
  | 'beside'
  /** Replaces the ephemeral message the button was on (paging, items/history). */
  | 'replace'
  /** Posts in the channel for everyone, naming who shared. */
  | 'share';

export interface Delivery {
  route: Route;
  workspaceId: string;
  userId: string;
  client: WebClient;
  respond: RespondFn;
  mode: DeliveryMode;
  bypassCache?: boolean;
  /** For the metrics: a slash command (default) or a button. */
  source?: AnswerSource;
  /** Where the command was typed or the button clicked: where the answer goes when the response_url fails. */
  channelId?: string | undefined;
  /** Set once a first message ("consultando…", saved data) is on screen: a restart notice then replaces it. */
  shown?: ShownState;
  /** When the command or click reached the app (monotonic ms of deps.clock); default: when this delivery starts. */
  receivedAt?: number | undefined;
}

export interface ShownState {
  firstMessage: boolean;
  /** A message on its way to the screen: a restart notice waits for it, to replace it rather than land beside it. */
  sending?: Promise<void> | undefined;
  /**
   * The person was told the bot is restarting (respondRestarting): whatever this answer still comes to (a failure
   * as the process closes its connections) is not sent, so the notice and its Tentar de novo stay.
   */
  abandoned?: boolean;
}

/** Who an answer is for, when its response_url cannot take it. */
export interface Recipient {
  client: WebClient;
  userId: string;
  channelId?: string | undefined;
}

/**
 * Answers a route and sends it through response_url; failures become a clear message, never silence. A slow
 * answer is preceded by a first message that it then replaces in place (first-message.ts); a shared answer is
 * posted once, when it is ready.
 */
/**
 * Answers a route. Resolves false only for a share that was not posted in the channel (the answer failed and the
 * person was told instead, or the answer was abandoned): the click may be made again.
 */
export async function deliverRoute(deps: SlackDeps, delivery: Delivery): Promise<boolean> {
  const correlationId = newCorrelationId();
  const logger = deps.logger.child({
    correlationId,
    workspaceId: delivery.workspaceId,
    route: delivery.route.view,
  });
  const clock = deps.clock ?? systemClock;
  // The first message's notice times count from the request's arrival, before the checks and the ack.
  const arrivedAt = delivery.receivedAt ?? clock.monotonic();
  const started = deps.now();
  const timer = performance.now();
  let outcome = answerOutcome(undefined);
  const timing = deps.answerTiming ?? DEFAULT_ANSWER_TIMING;
  const render: RenderContext = {
    timeZone: deps.config.DIGEST_TZ,
    now: started,
    ...(delivery.mode === 'share' && { shared: { byUserId: delivery.userId } }),
  };
  const recipient: Recipient = {
    client: delivery.client,
    userId: delivery.userId,
    channelId: delivery.channelId,
  };
  const progress = new AnswerProgress();
  const request: AnswerRequest = {
    workspaceId: delivery.workspaceId,
    userId: delivery.userId,
    correlationId,
    render,
    bypassCache: delivery.bypassCache ?? false,
    userEmail: () => emailOf(delivery.client, delivery.userId),
    calls: { deadline: started + timing.deadlineMs, observer: progress },
  };
  let failed = false;
  const answer = (async (): Promise<Message> => {
    let message: Message;
    try {
      message = await deps.answers.answer(delivery.route, {
        ...request,
        render: { ...render, now: deps.now() },
      });
    } catch (error) {
      failed = true;
      outcome = answerOutcome(error);
      const { count, windowMs } = deps.config.UPSTREAM_RATE_LIMIT;
      message = failureMessage(
        error,
        delivery.route,
        correlationId,
        { ...render, shared: undefined },
        logger,
        {
          limit: count,
          windowMs,
        },
      );
    }
    // The message is built; requests that came in meanwhile get their ack before it is sent (and no first message
    // goes out for it while it waits).
    progress.built();
    await deps.tasks.checkpoint();
    return message;
  })();

  if (delivery.mode === 'share') {
    const message = await answer;
    if (delivery.shown?.abandoned) return false;
    // A failure is told to the one who asked, never shared in the channel.
    await sendResponse(
      deps,
      delivery.respond,
      message,
      { response_type: failed ? 'ephemeral' : 'in_channel', replace_original: false },
      logger,
      recipient,
    );
    logger.info({ ms: deps.now() - started, failed }, 'answered');
    deps.metrics.answer(delivery.source ?? 'command', delivery.route.view, outcome, secondsSince(timer));
    return !failed;
  }

  const { notices } = await firstMessageThenAnswer({
    clock,
    timing,
    progress,
    arrivedAt,
    logger,
    answer,
    saved: async () => {
      try {
        return await deps.answers.answer(delivery.route, {
          ...request,
          render: { ...render, now: deps.now(), refreshing: true },
          calls: { savedOnly: true },
        });
      } catch {
        return null;
      }
    },
    timedOut: () => {
      failed = true;
      outcome = UpstreamErrorCode.Timeout;
      // No call went out (the store not answering, a read another replica makes): not upstream's slowness.
      if (!progress.calling) logger.warn('answer past its deadline before any upstream call');
      return renderTimeout(delivery.route, correlationId, { upstream: progress.calling });
    },
    send: async (message, replacing) => {
      if (delivery.shown?.abandoned) {
        logger.info('answer after the restart notice; not sent');
        return;
      }
      const sent = sendResponse(
        deps,
        delivery.respond,
        message,
        {
          response_type: 'ephemeral',
          replace_original: delivery.mode === 'replace' || (replacing && delivery.mode === 'new'),
        },
        logger,
        recipient,
      );
      await (delivery.shown ? showing(delivery.shown, sent) : sent);
    },
  });
  logger.info({ ms: deps.now() - started, failed, ...(notices.length > 0 && { notices }) }, 'answered');
  deps.metrics.answer(delivery.source ?? 'command', delivery.route.view, outcome, secondsSince(timer));
  return true;
}

/**
 * Posts through response_url (retried under `respond`, see response-url.ts). When that fails for good, or there is
 * no response_url (`respond` undefined: a click on the Home, a global shortcut), and the recipient is known, the
 * answer still reaches the person: a shared answer is posted in the channel (one attempt), anything else as an
 * ephemeral message in the channel, and failing that (or with no channel) in a DM. One log line tells what happened.
 */
export async function sendResponse(
  deps: Pick<SlackDeps, 'logger' | 'metrics'>,
  respond: RespondFn | undefined,
  message: Message,
  options: { response_type: 'ephemeral' | 'in_channel'; replace_original: boolean },
  logger = deps.logger,
  recipient?: Recipient,
): Promise<void> {
  let failure: unknown;
  if (respond) {
    try {
      await respond({ text: message.text, blocks: message.blocks, ...options });
      return;
    } catch (error) {
      failure = error;
    }
  }
  if (!recipient) {
    if (respond) logger.error(errFields(failure), 'response_url post failed');
    else logger.error('answer lost: no response_url and nobody to tell');
    return;
  }
  // A shared answer that may already be in the channel (the response_url's outcome unknown, or the post in the
  // channel failed after it may have been made) is not posted there again: the person who shared it gets it for
  // sure, to them alone.
  const responseUrlInDoubt = failure instanceof ResponseUrlOutcomeUnknownError;
  const { deliveredBy, failures, channelPostInDoubt } = await deliverElsewhere(
    recipient,
    message,
    responseUrlInDoubt ? 'ephemeral' : options.response_type,
    deps,
  );
  const inDoubt = responseUrlInDoubt || channelPostInDoubt;
  const fields = {
    ...(respond ? errFields(failure) : { responseUrl: 'none' }),
    userId: recipient.userId,
    fallbackFailures: failures,
  };
  if (deliveredBy && inDoubt)
    logger.warn(
      { ...fields, deliveredBy },
      'shared answer may have reached Slack; shown to the person who shared it, not posted in the channel again',
    );
  else if (deliveredBy && !respond)
    logger.info({ ...fields, deliveredBy }, 'no response_url; answer delivered another way');
  else if (deliveredBy)
    logger.warn({ ...fields, deliveredBy }, 'response_url post failed; answer delivered another way');
  else if (inDoubt)
    logger.error(fields, 'shared answer may have reached Slack; the person who shared it could not be told');
  else logger.error(fields, 'answer lost: response_url, channel and DM all failed');
}

/**
 * A short notice to one person beside whatever they were doing (a refusal, a modal Slack would not open): ephemeral
 * through the response_url when there is one, else sendResponse's fallback (ephemeral in the channel, or a DM).
 */
export function tellPerson(
  deps: Pick<SlackDeps, 'logger' | 'metrics'>,
  respond: RespondFn | undefined,
  message: Message,
  recipient: Recipient,
  logger = deps.logger,
): Promise<void> {
  return sendResponse(
    deps,
    respond,
    message,
    { response_type: 'ephemeral', replace_original: false },
    logger,
    recipient,
  );
}

/** How long a restart notice waits for a message still on its way, so that it replaces it. */
const SENDING_WAIT_MS = 1_500;

/** Keeps `sent` in `shown` while it is on its way; once it is through, a message is on screen. */
export async function showing(shown: ShownState, sent: Promise<void>): Promise<void> {
  shown.sending = sent;
  try {
    await sent;
    shown.firstMessage = true;
  } finally {
    if (shown.sending === sent) shown.sending = undefined;
  }
}

/**
 * Whether a restart notice replaces what is on screen: a message on its way is waited for (at most
 * SENDING_WAIT_MS), else the notice would land beside it, or under it when the notice got there first.
 */
export async function onScreen(shown: ShownState): Promise<boolean> {
  const sending = shown.sending;
  if (sending)
    await orAfter(
      sending.catch(() => undefined),
      SENDING_WAIT_MS,
      () => undefined,
    );
  return shown.firstMessage || shown.sending !== undefined;
}

/**
 * The process is stopping before this answer could be given (SIGTERM, BackgroundTasks.shutdown): the person who
 * asked is told so, ephemerally, with a button that asks again (another replica, or this one restarted, answers).
 */
export async function respondRestarting(
  deps: Pick<SlackDeps, 'logger' | 'metrics'>,
  respond: RespondFn,
  route: Route,
  shown?: ShownState,
  /** The delivery's mode: a click on a message everyone sees ('beside') never replaces it. */
  mode: DeliveryMode = 'new',
): Promise<void> {
  // Whatever the answer still comes to is not sent after this notice.
  if (shown) shown.abandoned = true;
  // A first message on screen ("consultando…") is replaced, not left beside the notice.
  const replacing = shown !== undefined && mode !== 'beside' && (await onScreen(shown));
  return sendResponse(deps, respond, renderRestarting(route), {
    response_type: 'ephemeral',
    replace_original: replacing,
  });
}

/**
 * The answer by the first way that takes it. `channelPostInDoubt`: the post in the channel (a shared answer) failed
 * in a way after which it may be there all the same (Slack's fatal_error or internal_error, a 5xx, a reply lost on
 * the way: slackCallFailure's `mayHaveArrived`); it is not tried again, and the next way shows the answer to the
 * person alone, as when the response_url's outcome is unknown. The posts in the channel and the DM are made once
 * (singleAttemptClient): a retry after a failure in doubt would show the message twice; the ephemeral one is
 * retried (twice to one person, at worst).
 */
async function deliverElsewhere(
  recipient: Recipient,
  message: Message,
  responseType: 'ephemeral' | 'in_channel',
  deps: PolicyClientDeps,
): Promise<{ deliveredBy: string | null; failures: string[]; channelPostInDoubt: boolean }> {
  const { client, userId, channelId } = recipient;
  const content = { text: message.text, blocks: message.blocks };
  const poster = singleAttemptClient(client, deps);
  const ways: [string, () => Promise<unknown>][] = [];
  if (channelId && responseType === 'in_channel')
    ways.push(['chat.postMessage', () => poster.chat.postMessage({ channel: channelId, ...content })]);
  if (channelId)
    ways.push([
      'chat.postEphemeral',
      () => client.chat.postEphemeral({ channel: channelId, user: userId, ...content }),
    ]);
  // A bot posting to a user id writes in its DM with that user.
  ways.push(['dm', () => poster.chat.postMessage({ channel: userId, ...content })]);
  const failures: string[] = [];
  let channelPostInDoubt = false;
  for (const [name, post] of ways) {
    try {
      await post();
      return { deliveredBy: name, failures, channelPostInDoubt };
    } catch (error) {
      failures.push(`${name}: ${slackErrorCode(error)}`);
      if (name === 'chat.postMessage') {
        const why = slackCallFailure(error);
        channelPostInDoubt = why.kind === 'transport' && why.mayHaveArrived;
      }
    }
  }
  return { deliveredBy: null, failures, channelPostInDoubt };
}

/** Slack's error code (`not_in_channel`, `slack_webapi_rate_limited_error`...), never a message with data in it. */
export function slackErrorCode(error: unknown): string {
  const e = error as { data?: { error?: unknown }; code?: unknown } | null;
  if (typeof e?.data?.error === 'string') return e.data.error;
  return typeof e?.code === 'string' ? e.code : 'unknown';
}
