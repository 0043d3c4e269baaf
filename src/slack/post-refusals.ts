import { CHANNEL_GONE_ERRORS } from '../domain/digest/publisher.js';

/**
 * What Slack's `ok: false` answers to chat.postMessage mean for the bot's posts (digests, the feed's channel posts and
 * DMs), by the error code Slack documents: one table for both, read by classifyPostFailure (paced-post.ts). From
 * Slack's method and common error lists (docs.slack.dev, chat.postMessage, "Errors").
 */

/**
 * Refusals that hold for the workspace's token or the app, not for one channel: no post in that workspace can succeed
 * until the app is reinstalled (OAuth) or given a new token (SLACK_BOT_TOKEN). Callers pause the workspace's digests
 * and alerts (`tokens_revoked`), which a reinstall, or a replica that starts with a token Slack accepts, resumes:
 * - the token is gone or refused: `invalid_auth` (an invalid token, or a request from an IP address the workspace
 *   disallows), `not_authed`, `account_inactive` (a deleted user or workspace), `token_revoked`, `token_expired`;
 * - the token does not reach this workspace: `team_access_not_granted`, `enterprise_is_restricted` (the method
 *   cannot be called from an Enterprise), `accesslimited` (the method is limited on the bot's network);
 * - the app or token cannot post at all: `missing_scope` (chat:write not granted), `not_allowed_token_type` (not
 *   a bot token), `is_bot` (a legacy bot's token), `two_factor_setup_required` ("Two factor setup is required":
 *   the workspace requires it of the user the token acts for, in every channel).
 * Until 2026-11-27 every one after `team_access_not_granted` was retried: digests were built again all day, every
 * day, and alerts read upstream every round, none of them ever posted, nobody told.
 */
export const UNAUTHORIZED_ERRORS: ReadonlySet<string> = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'team_access_not_granted',
  'enterprise_is_restricted',
  'accesslimited',
  'missing_scope',
  'not_allowed_token_type',
  'is_bot',
  'two_factor_setup_required',
]);

/**
 * Refusals of the message itself, for what it holds: Slack refuses the same message again however often it is sent,
 * so it is never retried (until 2026-11-27 it was, every tick or round, each digest retry building it again from
 * upstream). The poster sends a short plain fallback instead, once (PacedPoster.postOrFallback):
 * `invalid_blocks` ("Blocks submitted with this message are not valid"), `invalid_blocks_format` ("not a valid JSON
 * object or doesn't match the Block Kit syntax"), `msg_too_long` ("Message text is too long"), `msg_blocks_too_long`
 * ("Blocks submitted with this message are too long"), `no_text` ("No message text provided"), `too_many_attachments`,
 * `attachment_payload_limit_exceeded`, `too_many_contact_cards`, `invalid_metadata_format`, `invalid_metadata_schema`,
 * `metadata_too_large`, and `invalid_arguments` ("some detail about the arguments passed is invalid, which is more
 * likely when using complex arguments like blocks or attachments").
 * Left out, and so retried: how the client library encodes the call (`invalid_arg_name`, `invalid_array_arg`,
 * `invalid_charset`, `invalid_form_data`, `invalid_post_type`, `missing_post_type`), the same for every call whatever
 * it holds and mended by a fix of the bot, not of one message; and `request_timeout` ("the POST data was either
 * missing or truncated"), which a connection cut on the way also gives.
 */
export const CONTENT_REFUSED_ERRORS: ReadonlySet<string> = new Set([
  'invalid_blocks',
  'invalid_blocks_format',
  'msg_too_long',
  'msg_blocks_too_long',
  'no_text',
  'too_many_attachments',
  'attachment_payload_limit_exceeded',
  'too_many_contact_cards',
  'invalid_metadata_format',
  'invalid_metadata_schema',
  'metadata_too_large',
  'invalid_arguments',
]);

/** Refusals after which the bot can never post in that channel again: the channel's subscription or feed goes. */
const CHANNEL_LOST_ERRORS: ReadonlySet<string> = new Set(CHANNEL_GONE_ERRORS);

/** Refusals after which the bot can never DM that user (a post to the user id): their follows end. */
const DM_LOST_ERRORS: ReadonlySet<string> = new Set([
  'cannot_dm_bot',
  'user_not_found',
  'user_disabled',
  'user_not_visible',
  'messages_tab_disabled',
  ...CHANNEL_GONE_ERRORS,
]);

/** Where a post goes: a channel (by id), or a person (a DM, posted to the user id). */
export type PostTarget = 'channel' | 'dm';

/**
 * What Slack's error code says: `unauthorized` (the token or the app, UNAUTHORIZED_ERRORS), `lost` (this channel or
 * this person can never be posted to again), `content` (this message, CONTENT_REFUSED_ERRORS) or `other` (of the
 * moment, or not known: a later tick or round tries again; `org_login_required` and `team_added_to_org` while a
 * workspace migrates to an Enterprise org, `service_unavailable`, `message_limit_exceeded`...).
 */
export function refusalOf(code: string, target: PostTarget): 'unauthorized' | 'lost' | 'content' | 'other' {
  if (UNAUTHORIZED_ERRORS.has(code)) return 'unauthorized';
  if ((target === 'channel' ? CHANNEL_LOST_ERRORS : DM_LOST_ERRORS).has(code)) return 'lost';
  if (CONTENT_REFUSED_ERRORS.has(code)) return 'content';
  return 'other';
}
