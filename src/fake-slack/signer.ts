/**
 * Playing Slack toward the bot: requests to its `POST /slack/events`, signed with the signing secret
 * exactly as Slack signs them.
 */
import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { buildEventEnvelope, buildSlashCommandBody, type SlashCommandFields } from './payloads.js';
import { FAKE_APP } from './seed.js';

export {
  type BlockActionInput,
  type BlockActionPayload,
  buildBlockActionPayload,
  buildEventEnvelope,
  buildSlashCommandBody,
  buildViewSubmissionPayload,
  type SlashCommandFields,
  type SourceMessage,
  textInputValue,
  type ViewStateValue,
  type ViewStateValues,
  type ViewSubmissionInput,
  type ViewSubmissionPayload,
  withGeneratedIds,
} from './payloads.js';
export {
  type BlockSuggestionInput,
  buildBlockSuggestionPayload,
  buildGlobalShortcutPayload,
  buildMessageShortcutPayload,
  type GlobalShortcutInput,
  type MessageShortcutInput,
} from './payloads-shortcuts.js';

export interface SlackRequestTarget {
  /** The bot's Request URL, e.g. `http://127.0.0.1:3000/slack/events`. */
  eventsUrl: string;
  signingSecret: string;
  /** Clock in seconds for `x-slack-request-timestamp` (stale-timestamp tests). Default: now. */
  now?: () => number;
}

export interface SlackRequestResult {
  status: number;
  /** The bot's answer as text (JSON for view_submission response_action, the challenge...). */
  body: string;
  /** Time from sending to the whole answer, in ms. */
  ms: number;
  headers: Record<string, string>;
}

export interface SendOptions {
  /** Sign with this timestamp instead of the target's clock. */
  timestampSec?: number;
  /** Send this `x-slack-signature` instead of the right one (bad-signature tests). */
  signature?: string;
  /** Extra headers, e.g. `x-slack-retry-num` for an Events API retry. */
  headers?: Record<string, string>;
}

/** `v0=` + hex HMAC-SHA256(secret, `v0:${timestamp}:${rawBody}`): Slack's `x-slack-signature`. */
export function signBody(secret: string, rawBody: string, timestampSec: number): string {
  const digest = createHmac('sha256', secret).update(`v0:${timestampSec}:${rawBody}`).digest('hex');
  return `v0=${digest}`;
}

/** Sends a raw body signed as Slack does (or deliberately wrong, through `options`). */
export async function sendSigned(
  target: SlackRequestTarget,
  rawBody: string,
  contentType: string,
  options: SendOptions = {},
): Promise<SlackRequestResult> {
  const timestamp = options.timestampSec ?? Math.floor(target.now?.() ?? Date.now() / 1000);
  const started = performance.now();
  const response = await fetch(target.eventsUrl, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': contentType,
      'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
      accept: 'application/json,*/*',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': options.signature ?? signBody(target.signingSecret, rawBody, timestamp),
      ...options.headers,
    },
    body: rawBody,
  });
  const body = await response.text();
  return {
    status: response.status,
    body,
    ms: performance.now() - started,
    headers: Object.fromEntries(response.headers),
  };
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/** A slash command, form-encoded like Slack's. */
export function slashCommand(
  target: SlackRequestTarget,
  fields: SlashCommandFields,
  options?: SendOptions,
): Promise<SlackRequestResult> {
  return sendSigned(target, new URLSearchParams(buildSlashCommandBody(fields)).toString(), FORM, options);
}

/** Any interaction payload (block_actions, view_submission, view_closed, shortcut) as `payload=<JSON>`. */
export function interaction(target: SlackRequestTarget, payload: object, options?: SendOptions) {
  return sendSigned(
    target,
    new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
    FORM,
    options,
  );
}

export function blockAction(target: SlackRequestTarget, payload: object, options?: SendOptions) {
  return interaction(target, payload, options);
}

/** The bot's answer (`{ response_action: 'errors' | 'update' | 'push' | 'clear' }` or empty) is in `body`. */
export function viewSubmission(target: SlackRequestTarget, payload: object, options?: SendOptions) {
  return interaction(target, payload, options);
}

/** An Events API `event_callback` with `event` inside (see buildEventEnvelope for `extra`). */
export function eventCallback(
  target: SlackRequestTarget,
  event: object,
  teamId: string,
  extra?: object,
  options?: SendOptions,
): Promise<SlackRequestResult> {
  return sendSigned(target, JSON.stringify(buildEventEnvelope(event, teamId, extra)), JSON_TYPE, options);
}

/** Slack's Request URL check: the bot must answer with the challenge. */
export function urlVerification(target: SlackRequestTarget, challenge: string, options?: SendOptions) {
  const body = { token: FAKE_APP.verificationToken, challenge, type: 'url_verification' };
  return sendSigned(target, JSON.stringify(body), JSON_TYPE, options);
}
