import type { RequestListener } from 'node:http';
import {
  type BufferedIncomingMessage,
  HTTPModuleFunctions,
  isValidSlackRequest,
  type ReceiverEvent,
} from '@slack/bolt';
import { type Clock, systemClock } from '../lib/clock.js';
import { orAfter } from '../lib/deadline.js';
import { errFields, type Logger } from '../lib/logger.js';
import {
  type Message,
  renderFormUnreadable,
  renderNotProcessed,
  renderStaleButton,
} from '../render/index.js';
import type { SeenRequests } from '../store/seen-requests.js';

/**
 * What stands between a receiver and the listeners, for every request whatever its kind:
 * - a signed request is refused (401) when its timestamp is more than 5 minutes in the future (Bolt only refuses
 *   old ones) or when its signature was already seen within the window (a replay), across replicas;
 * - an Events API event already taken in (Slack's own retry, `X-Slack-Retry-Num`) is acked and not processed again;
 * - every command and interaction is acked, whatever happens in its listener: a listener that throws before its
 *   ack, that matches nothing, or that has not acked by `ackDeadlineMs`, gets a fallback ack that tells the user
 *   nothing was done (a click no listener takes, a button of an older version, that the button no longer works).
 *   It sits in `processEvent`, the one door every receiver goes through, so nothing skips it.
 * In front of the HTTP receiver, `refuseNonObjectBodies` answers the bodies Bolt cannot be given at all.
 */

/** Slack's window for a signed request's timestamp, both ways. */
export const TIMESTAMP_WINDOW_SEC = 5 * 60;
/** Slack waits 3 s for an ack; the fallback goes out before that. */
export const ACK_DEADLINE_MS = 2_800;
/**
 * The most the replay and retry checks wait for the store. A `SET NX` answers in a millisecond or two; while Redis
 * is down ioredis keeps a command for its retries (about 5 s), which would eat Slack's 3 s: past this the check is
 * skipped and the request goes through, as when the store refuses.
 */
export const STORE_CHECK_MS = 300;

/** Headers the HTTP receiver passes along (as custom properties of the context) for the checks above. */
export interface SignedHeaders {
  slackSignature?: string;
  slackRequestTimestamp?: string;
}

export function signedHeaders(req: BufferedIncomingMessage): SignedHeaders {
  const header = (name: string) => {
    const value = req.headers[name];
    return typeof value === 'string' ? value : undefined;
  };
  const slackSignature = header('x-slack-signature');
  const slackRequestTimestamp = header('x-slack-request-timestamp');
  return {
    ...(slackSignature !== undefined && { slackSignature }),
    ...(slackRequestTimestamp !== undefined && { slackRequestTimestamp }),
  };
}

/** A signed request refused before any listener: answered 401, nothing processed. */
export class RejectedRequestError extends Error {
  readonly code = 'slack_request_rejected';
  /**
   * `replayed`, `future-timestamp`: refused before any ack (401). `acked-by-fallback`: the guard already told Slack
   * "Nada foi feito" for this request, so the listener's late ack stops it there.
   */
  constructor(readonly reason: 'replayed' | 'future-timestamp' | 'acked-by-fallback') {
    super(`Slack request refused: ${reason}`);
  }
}

export interface RequestGuardOptions {
  seen: SeenRequests;
  logger: Logger;
  /** Wall clock in ms (the signature's timestamp is wall-clock seconds). */
  now: () => number;
  ackDeadlineMs?: number;
  /** The clock of answers' first messages: the request's arrival is stamped on its monotonic time. */
  clock?: Clock;
}

type Body = Record<string, unknown>;

/** The context property (Bolt copies an event's customProperties into its context) the guard stamps. */
const RECEIVED_AT = 'receivedAt';

/** When the request behind a listener's context reached the app (monotonic ms of deps.clock), if the guard saw it. */
export function receivedAtOf(context: Record<string, unknown>): number | undefined {
  const value = context[RECEIVED_AT];
  return typeof value === 'number' ? value : undefined;
}

export class RequestGuard {
  private readonly logger: Logger;
  private storeWarned = false;
  /** The requests inside the guard, by their body (what Bolt hands its error handler): see authorizationFailed. */
  private readonly inFlight = new WeakMap<object, (error: unknown) => Promise<void>>();

  constructor(private readonly options: RequestGuardOptions) {
    this.logger = options.logger.child({ component: 'request-guard' });
  }

  /**
   * Runs `process` (Bolt's own processEvent) for `event` behind the checks and the fallback ack.
   *
   * The replay check's store round trip starts at once but, for the kinds whose listeners ack before any I/O
   * (commands, clicks, shortcuts), Bolt's processing (authorize, the listener up to its `ack()`) runs beside it:
   * only the ack waits for the verdict, and since those listeners do everything else after `await ack()`,
   * nothing of a replay's leaves either: its ack throws, the receiver answers 401. The other kinds (forms,
   * option lists, Events API events) may act before or without an ack, so they wait for the verdict first.
   */
  async process(event: ReceiverEvent, process: (event: ReceiverEvent) => Promise<void>): Promise<void> {
    // When the request reached the app (the clock's monotonic ms): listeners read it with receivedAtOf, and an
    // answer's first message counts from it.
    const receivedAt = (this.options.clock ?? systemClock).monotonic();
    const body = (event.body ?? {}) as Body;
    // Throws for a timestamp in the future (no store needed); otherwise the store's answer, started now.
    const verdict = this.replayVerdict(event);
    let acked = false;
    let ackedByFallback = false;
    let unauthorized = false;
    // Claimed before the verdict is known, so that the listener's ack and the fallback never both go out.
    const ack = async (response?: unknown) => {
      if (acked) {
        // Bolt's own empty ack after an authorization failure, which the fallback already answered.
        if (unauthorized) return;
        // A listener that acks after the fallback did: Slack has its answer already, and that answer said nothing
        // was done. A listener that acks before anything else (a command, a click, a shortcut) stops here, so
        // that it is true; the others (forms, events) may have acted already and finish as they are.
        if (ackedByFallback && ackBeforeAnything(body)) {
          this.logger.warn({ kind: kindOf(body) }, 'listener acked after the fallback; its work is not done');
          throw new RejectedRequestError('acked-by-fallback');
        }
        return;
      }
      acked = true;
      if (!(await verdict)) throw new RejectedRequestError('replayed');
      clearTimeout(timer);
      await event.ack(response);
    };
    const fallback = async (why: string, error?: unknown) => {
      if (acked) return;
      this.logger.warn(
        { why, kind: kindOf(body), ...(error !== undefined && errFields(error)) },
        'request acked by the fallback',
      );
      // Before the ack goes: a listener acking meanwhile must find the fallback's answer given.
      ackedByFallback = true;
      try {
        await ack(fallbackResponse(body));
      } catch (ackError) {
        if (ackError instanceof RejectedRequestError) return;
      }
      // A click no listener took is a button of an older version (or a forged one): trying again never works.
      const message = why === NO_LISTENER ? renderStaleButton() : renderNotProcessed();
      await tellUser(body, message, this.logger);
    };
    // Slack's 3 s run from the request's arrival: the checks below count against them too.
    const timer = setTimeout(() => {
      void fallback('no ack before the deadline');
    }, this.options.ackDeadlineMs ?? ACK_DEADLINE_MS);
    timer.unref?.();
    this.inFlight.set(body, async (error) => {
      unauthorized = true;
      await fallback(AUTHORIZATION_FAILED, error);
    });
    try {
      if (!ackBeforeAnything(body)) {
        const [first, fresh] = await Promise.all([verdict, this.firstDelivery(body)]);
        if (!first) {
          acked = true;
          throw this.refused(body);
        }
        if (!fresh) {
          this.logger.info(
            { eventId: body.event_id, retryNum: event.retryNum, retryReason: event.retryReason },
            'event already taken in: acked, not processed again',
          );
          await ack();
          return;
        }
      }
      try {
        await process({
          ...event,
          ack,
          customProperties: { ...event.customProperties, [RECEIVED_AT]: receivedAt },
        });
      } catch (error) {
        // A replay's ack threw inside the listener: answered below.
        if (!(error instanceof RejectedRequestError)) {
          await fallback('listener failed', error);
          throw error;
        }
      }
      if (!(await verdict)) {
        acked = true;
        throw this.refused(body);
      }
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(body);
    }
    await fallback(NO_LISTENER);
  }

  /**
   * Bolt could not authorize the request `body` came in (OAuth: the installation could not be read, the store
   * failing): it calls no listener and acks with nothing, which Slack shows as nothing at all (a command's empty
   * answer, a form that closes). Bolt's error handler calls this first: the request gets the fallback ack, "Não
   * consegui processar este pedido agora. Nada foi feito" (a form: a field error), and Bolt's empty ack after it
   * is dropped. A body the guard does not hold (already answered, or never seen) is left alone.
   */
  async authorizationFailed(body: unknown, error: unknown): Promise<void> {
    if (typeof body !== 'object' || body === null) return;
    await this.inFlight.get(body)?.(error);
  }

  /** A replay, refused: the receiver answers 401; nothing was or will be acked. */
  private refused(body: Body): RejectedRequestError {
    this.logger.warn({ kind: kindOf(body) }, 'signed request refused: replayed');
    return new RejectedRequestError('replayed');
  }

  /** False for a replay; true for a first sighting, an unsigned request (Socket Mode) or a store that cannot tell. */
  private replayVerdict(event: ReceiverEvent): Promise<boolean> {
    const { slackSignature, slackRequestTimestamp } = (event.customProperties ?? {}) as SignedHeaders;
    // Socket Mode requests are not signed: the socket is the app's own.
    if (slackSignature === undefined || slackRequestTimestamp === undefined) return Promise.resolve(true);
    const timestampSec = Number(slackRequestTimestamp);
    const nowSec = Math.floor(this.options.now() / 1000);
    if (timestampSec > nowSec + TIMESTAMP_WINDOW_SEC) {
      this.logger.warn(
        { aheadSec: timestampSec - nowSec },
        'signed request refused: timestamp in the future',
      );
      throw new RejectedRequestError('future-timestamp');
    }
    const acceptableForMs = (timestampSec + TIMESTAMP_WINDOW_SEC) * 1000 - this.options.now() + 1_000;
    return this.stored(() => this.options.seen.firstSighting(slackSignature, acceptableForMs));
  }

  /** False for an Events API event already taken in (Slack's retry); true for anything else. */
  private async firstDelivery(body: Body): Promise<boolean> {
    if (body.type !== 'event_callback' || typeof body.event_id !== 'string') return true;
    const eventId = body.event_id;
    return this.stored(() => this.options.seen.firstDelivery(eventId));
  }

  /**
   * A store that cannot answer lets the request through (a replay check must not turn a Redis outage into an
   * outage of every command); told once per outage.
   */
  private async stored(check: () => Promise<boolean>): Promise<boolean> {
    try {
      const first = await orAfter<boolean | typeof NO_ANSWER>(check(), STORE_CHECK_MS, () => NO_ANSWER);
      if (first === NO_ANSWER) throw new Error(`the store did not answer within ${STORE_CHECK_MS} ms`);
      this.storeWarned = false;
      return first;
    } catch (error) {
      if (!this.storeWarned) {
        this.storeWarned = true;
        this.logger.warn(errFields(error), 'replay check skipped: the store does not answer');
      }
      return true;
    }
  }
}

/** Why the fallback acks a request that Bolt processed to the end without any listener acking it. */
const NO_LISTENER = 'no listener acked';

/** Why the fallback acks a request Bolt could not authorize. */
const AUTHORIZATION_FAILED = 'authorization failed';

/** The store's check did not answer within STORE_CHECK_MS. */
const NO_ANSWER = Symbol('no answer');

/**
 * The kinds whose listeners all ack before any I/O (see commands/, actions/, the shortcuts): their processing may
 * run while the replay check is out, since everything they send waits behind their ack.
 */
function ackBeforeAnything(body: Body): boolean {
  if (typeof body.command === 'string') return true;
  return body.type === 'block_actions' || body.type === 'shortcut' || body.type === 'message_action';
}

function kindOf(body: Body): string {
  if (typeof body.command === 'string') return 'command';
  return typeof body.type === 'string' ? body.type : 'unknown';
}

/** What Slack accepts as the ack of each kind of request, telling the user nothing was done where it can. */
function fallbackResponse(body: Body): unknown {
  if (typeof body.command === 'string') return { response_type: 'ephemeral', ...renderNotProcessed() };
  if (body.type === 'view_submission') {
    const blockId = firstInputBlockId(body.view);
    return blockId === null
      ? undefined
      : { response_action: 'errors', errors: { [blockId]: renderFormUnreadable() } };
  }
  if (body.type === 'block_suggestion') return { options: [] };
  return undefined;
}

function firstInputBlockId(view: unknown): string | null {
  const blocks = (view as { blocks?: unknown } | null)?.blocks;
  if (!Array.isArray(blocks)) return null;
  for (const block of blocks) {
    const b = block as { type?: unknown; block_id?: unknown } | null;
    if (b?.type === 'input' && typeof b.block_id === 'string') return b.block_id;
  }
  return null;
}

/** A click has no ack body to show: the user is told through the click's response_url, when it has one. */
async function tellUser(body: Body, message: Message, logger: Logger): Promise<void> {
  if (body.type !== 'block_actions' || typeof body.response_url !== 'string') return;
  if (!/^https?:\/\//.test(body.response_url)) return;
  try {
    await fetch(body.response_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, ...message }),
      signal: AbortSignal.timeout(5_000),
    });
  } catch (error) {
    logger.warn(errFields(error), 'could not tell the user the click was not processed');
  }
}

/** The most a request to /slack/events may carry (Bolt's own default): past it, 413. */
export const SLACK_BODY_LIMIT = HTTPModuleFunctions.defaultBodyLimit;

export interface BodyCheckOptions {
  /** The receiver's endpoints (`/slack/events`): only POSTs to them are read here. */
  endpoints: string[];
  signingSecret: string;
  logger: Logger;
}

/**
 * Wraps the HTTP receiver's request listener: a signed POST whose body is JSON but not an object (`null`, `1`,
 * `"x"`, `[]`, `true`; the whole JSON body or a form's `payload`) is answered 400, as Bolt answers JSON it cannot
 * parse. Bolt reads `body.ssl_check` of what it parsed in a promise nobody awaits: for `null` that threw, an
 * unhandled rejection that stopped the process (until 2026-11-27); the other values reached the listeners as
 * nothing they know. The body is read here (up to SLACK_BODY_LIMIT, 413 past it) and handed on already read, so
 * Bolt does not read it again; anything else (an object, JSON Bolt cannot parse, a bad signature, `ssl_check`)
 * goes to Bolt as before, which answers it as before.
 */
export function refuseNonObjectBodies(listener: RequestListener, options: BodyCheckOptions): RequestListener {
  const logger = options.logger.child({ component: 'request-guard' });
  return (req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (req.method?.toUpperCase() !== 'POST' || !options.endpoints.includes(path)) {
      listener(req, res);
      return;
    }
    HTTPModuleFunctions.bufferIncomingMessage(req, SLACK_BODY_LIMIT).then(
      (buffered) => {
        if (!parsesToNonObject(buffered) || !signed(buffered, options.signingSecret)) {
          listener(buffered, res);
          return;
        }
        logger.warn('signed request refused: its body is not a JSON object');
        HTTPModuleFunctions.buildNoBodyResponse(res, 400);
      },
      (error: unknown) => {
        const status = HTTPModuleFunctions.isRawBodyError(error) ? error.statusCode : 400;
        logger.warn({ status, ...errFields(error) }, 'request refused: its body could not be read');
        HTTPModuleFunctions.buildNoBodyResponse(res, status);
      },
    );
  };
}

/** True when the body parses, as Bolt parses it, to something other than an object (null, a number, an array…). */
function parsesToNonObject(req: BufferedIncomingMessage): boolean {
  let body: unknown;
  try {
    body = HTTPModuleFunctions.parseHTTPRequestBody(req);
  } catch {
    // Not JSON at all: Bolt answers it (400) after checking its signature.
    return false;
  }
  return typeof body !== 'object' || body === null || Array.isArray(body);
}

function signed(req: BufferedIncomingMessage, signingSecret: string): boolean {
  const { slackSignature, slackRequestTimestamp } = signedHeaders(req);
  if (slackSignature === undefined || slackRequestTimestamp === undefined) return false;
  return isValidSlackRequest({
    signingSecret,
    body: req.rawBody.toString(),
    headers: {
      'x-slack-signature': slackSignature,
      'x-slack-request-timestamp': Number(slackRequestTimestamp),
    },
  });
}
