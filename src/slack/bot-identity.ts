import type { Authorize } from '@slack/bolt';
import { errFields, type Logger } from '../lib/logger.js';

/** Who the bot is in its workspace, as `auth.test` says: what Bolt's ignoreSelf and the chat help compare with. */
export interface BotIds {
  teamId?: string;
  botUserId?: string;
  botId?: string;
}

/** How long a failed `auth.test` is the answer: a Slack outage costs one call per this, not one per request. */
export const BOT_IDS_FAILURE_KEPT_MS = 5_000;

export interface BotIdentityOptions {
  /** One `auth.test` with the bot token (a client of IDENTITY_WEB_CLIENT's bounds, web-clients.ts). */
  ask: () => Promise<BotIds>;
  /** What the replica's start-up check already read (redis-bot.ts); unset when it could not ask Slack. */
  known?: BotIds | null;
  logger: Logger;
  /** Epoch ms: when a failure stops being the answer. */
  now: () => number;
  failureKeptMs?: number;
}

/**
 * The bot's ids in a single-workspace install (SLACK_BOT_TOKEN): the start-up check's, or asked once when a request
 * needs them. One call at a time is shared; a success is kept for good (a token's bot does not change), a failure
 * for BOT_IDS_FAILURE_KEPT_MS, so that a Slack outage neither makes every request pay a timeout nor stops asking.
 */
export class BotIdentity {
  private ids: BotIds | null;
  private asking: Promise<BotIds> | null = null;
  private failed: { error: unknown; until: number } | null = null;
  private readonly logger: Logger;

  constructor(private readonly options: BotIdentityOptions) {
    this.ids = options.known?.botUserId !== undefined ? options.known : null;
    this.logger = options.logger.child({ component: 'bot-identity' });
  }

  /** The ids if known now; never waits. */
  known(): BotIds | null {
    return this.ids;
  }

  /** The ids: known, or asked (one call shared); a recent failure is thrown again at once. */
  lookup(): Promise<BotIds> {
    if (this.ids) return Promise.resolve(this.ids);
    if (this.failed && this.options.now() < this.failed.until) return Promise.reject(this.failed.error);
    this.asking ??= this.options.ask().then(
      (ids) => {
        this.asking = null;
        this.failed = null;
        this.ids = ids;
        this.logger.info({ botUserId: ids.botUserId, botId: ids.botId }, "bot's ids read (auth.test)");
        return ids;
      },
      (error: unknown) => {
        this.asking = null;
        if (!this.failed)
          this.logger.warn(errFields(error), "could not read the bot's ids (auth.test); retrying");
        this.failed = {
          error,
          until: this.options.now() + (this.options.failureKeptMs ?? BOT_IDS_FAILURE_KEPT_MS),
        };
        throw error;
      },
    );
    return this.asking;
  }
}

/**
 * Bolt's authorization for a single-workspace install. What Bolt needs of it depends on the request: a command, a
 * click, a shortcut, a form or an option list needs the bot token alone (their listeners read no bot id); an Events
 * API event also needs the bot's ids, for Bolt's ignoreSelf and the chat help to tell the bot's own messages from a
 * person's (without them the bot would answer itself). So the first never wait on Slack: they go on with the ids if
 * known and without them if not (a lookup starts beside them, for the events that follow); an event waits for the
 * ids (one attempt, IDENTITY_WEB_CLIENT's bounds) and fails alone when Slack cannot give them. Until 2026-11-27
 * every request waited for `auth.test` until the ids were known, on the listeners' client (5 s an attempt, 3
 * attempts), and a failure was forgotten at once: with Slack slow or away, `/estoque` itself was acked by the
 * request guard's fallback ("Nada foi feito") or late.
 *
 * Bolt's own authorization (given the token) asks `auth.test` as it is built and keeps that promise: a Slack
 * unreachable at start-up was an unhandled rejection that stopped the process.
 */
export function singleWorkspaceAuthorize(identity: BotIdentity, botToken: string): Authorize<boolean> {
  return async ({ isEnterpriseInstall }, body) => {
    const known = identity.known();
    if (known) return { isEnterpriseInstall, botToken, botId: known.botId, botUserId: known.botUserId };
    if (!isEvent(body)) {
      identity.lookup().catch(() => undefined);
      return { isEnterpriseInstall, botToken };
    }
    const ids = await identity.lookup();
    return { isEnterpriseInstall, botToken, botId: ids.botId, botUserId: ids.botUserId };
  };
}

function isEvent(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'event' in body;
}
