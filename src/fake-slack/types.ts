/** Public data shapes of the fake Slack: what tests and the local playground read. */

/** Arguments of a Web API call, from a JSON or form body (form values are strings). */
export type ApiArgs = Record<string, unknown>;

/** One request to the Web API or to a response_url, whatever its outcome. */
export interface FakeSlackCall {
  /** Web API method (`chat.postMessage`), or `response_url` for a POST to a response_url. */
  method: string;
  /** Bearer token (or form `token`); undefined when none was sent. */
  token?: string;
  args: ApiArgs;
  /** Clock time (ms) the request arrived. */
  at: number;
  /** HTTP status answered. */
  status: number;
  ok: boolean;
  /** Slack error code when not ok (`not_in_channel`, `ratelimited`, `expired_url`...). */
  error?: string;
  /** Clock time (ms) the answer went out; unset while a late answer waits (`delayMs`), or when none goes (`dropReply`). */
  answeredAt?: number;
}

export type MessageVia = 'chat.postMessage' | 'chat.postEphemeral' | 'response_url' | 'chat.update';

/**
 * A message as people would see it. Updates do not mutate a record: the old record is marked `replaced`
 * and a new one with the same `ts` is appended, so the history stays inspectable.
 */
export interface FakeMessage {
  ts: string;
  channel: string;
  teamId?: string;
  /** Author: the bot user of the workspace for everything the app posts. */
  user?: string;
  botId?: string;
  text: string;
  /** Blocks exactly as the app sent them. */
  blocks: unknown[];
  ephemeral: boolean;
  /** The only user who sees an ephemeral message. */
  visibleTo?: string;
  via: MessageVia;
  threadTs?: string;
  replaced?: boolean;
  deleted?: boolean;
  /** Clock time (ms) the record was made. */
  at: number;
}

export type ViewVia = 'views.open' | 'views.update' | 'views.push' | 'views.publish';

/** A view as Slack stores and returns it (`views.open` answer's `view`). */
export interface FakeViewOutput {
  id: string;
  team_id: string;
  type: string;
  blocks: unknown[];
  private_metadata: string;
  callback_id: string;
  state: { values: Record<string, Record<string, unknown>> };
  hash: string;
  title: unknown;
  clear_on_close: boolean;
  notify_on_close: boolean;
  close: unknown;
  submit: unknown;
  previous_view_id: string | null;
  root_view_id: string | null;
  app_id: string;
  external_id: string;
  app_installed_team_id: string;
  bot_id: string;
}

/** One views.open/update/push/publish that Slack accepted. */
export interface FakeView {
  /** Sequence number of the record (1, 2, ...). */
  id: number;
  viewId: string;
  triggerId?: string;
  view: FakeViewOutput;
  userId?: string;
  teamId: string;
  via: ViewVia;
  at: number;
}

export interface FakeTeam {
  id: string;
  name: string;
  domain: string;
  enterpriseId?: string;
  enterpriseName?: string;
  /** The app's bot user and bot id in this workspace. */
  botUserId: string;
  botId: string;
}

export interface FakeUser {
  id: string;
  teamId: string;
  name: string;
  realName: string;
  email: string;
  tz: string;
  isAdmin: boolean;
  isOwner: boolean;
  isBot?: boolean;
  deleted?: boolean;
  locale?: string;
  /** A guest (`is_restricted`; single-channel guests are also `is_ultra_restricted`). */
  isRestricted?: boolean;
  /**
   * Enterprise Grid: the org of the user (users.info then has `enterprise_user`), the org's workspaces the user is
   * a member of besides `teamId`, and the user's role in the org (not in any one workspace).
   */
  enterpriseId?: string;
  enterpriseTeams?: string[];
  isOrgAdmin?: boolean;
  isOrgOwner?: boolean;
  /**
   * A user of another workspace that no shared channel visible to the app holds: Slack still answers users.info
   * for such an id, with `is_stranger: true`.
   */
  isStranger?: boolean;
}

export interface FakeChannel {
  id: string;
  name: string;
  members: Set<string>;
  isArchived: boolean;
  isPrivate: boolean;
  /** Workspace the channel belongs to; a token of another workspace cannot see it. Unset: any workspace. */
  teamId?: string;
  /** Set for the DM the bot opens with a user. */
  imUser?: string;
}

/** What `failNext` makes the next calls of a method answer. */
export type FakeFailure =
  | { error: string }
  /** The call is carried out (a response_url post is shown), then the connection is cut before the reply. */
  | { dropReply: true }
  /** The call is carried out and answered as usual, `delayMs` (real time) late: a slow Slack. API methods only. */
  | { delayMs: number }
  | { status: 429; retryAfterSec: number }
  | { status: 500 | 502 | 503 }
  /**
   * The call waits, neither carried out nor answered, until `until` settles; then it is carried out and answered as
   * usual: a Slack (or a network) exactly as slow as the test says, with no real-time margin. API methods only;
   * `holdNext` builds one and says when the call arrived.
   */
  | { until: Promise<unknown> };

/** A call `holdNext` holds: it is carried out and answered once released. */
export interface FakeHold {
  /** The held call once it has arrived (in `calls`, its `answeredAt` unset until released and answered). */
  arrived: Promise<FakeSlackCall>;
  /** Lets the call go on: carried out now, then answered. Calling it again does nothing. */
  release(): void;
}

/** The installation `oauth.v2.access` hands out for a code. */
export interface FakeOAuthInstall {
  teamId: string;
  teamName: string;
  enterpriseId?: string;
  enterpriseName?: string;
  /** Org-wide install: `team` is null and `is_enterprise_install` true. */
  isEnterpriseInstall: boolean;
  /** The user who installed the app. */
  userId: string;
  scopes: string[];
  /** User scopes; when not empty, the answer carries a user token in `authed_user`. */
  userScopes: string[];
  /** Token rotation: the answer carries `refresh_token` and `expires_in`. */
  tokenRotation: boolean;
}

export interface FakeSlackOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Bot tokens accepted for the default workspace. Default: any `xoxb-` token. */
  botToken?: string | readonly string[];
  /** Per-channel limit of chat.postMessage (about 1 per second, a short burst allowed). Default true. */
  enforceChannelRate?: boolean;
  /** Messages a channel may take at once before the 1 per second rate applies. Default 4. */
  channelBurst?: number;
  /** Clock in ms (trigger and response_url expiry, rate limits, ts). Default Date.now. */
  now?: () => number;
  /** Scopes of the bot tokens. Default: what estoque-bot asks for (no chat:write.public). */
  botScopes?: readonly string[];
  /** Seed the demo workspaces, users and channels (see FAKE_SEED). Default true. */
  seed?: boolean;
  oauth?: {
    /** When set, oauth.v2.access checks them (`invalid_client_id`, `bad_client_secret`). */
    clientId?: string;
    clientSecret?: string;
    /** Defaults of the installations codes hand out. */
    install?: Partial<FakeOAuthInstall>;
  };
}
