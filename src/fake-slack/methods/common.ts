import { argString } from '../http.js';
import { formatIssue, type LimitIssue } from '../limits.js';
import type { MessageLog } from '../messages.js';
import type { ChannelRateLimiter } from '../rate-limit.js';
import { FAKE_APP } from '../seed.js';
import type { ApiArgs, FakeChannel, FakeMessage } from '../types.js';
import type { TriggerRegistry, ViewRegistry } from '../views.js';
import type { Caller, Workspace } from '../workspace.js';

/** Everything the Web API handlers share. */
export interface FakeState {
  now: () => number;
  workspace: Workspace;
  log: MessageLog;
  views: ViewRegistry;
  triggers: TriggerRegistry;
  /** Undefined when the per-channel rate is not enforced. */
  rate: ChannelRateLimiter | undefined;
  violations: string[];
}

export interface MethodResult {
  body: Record<string, unknown>;
  status?: number;
  headers?: Record<string, string>;
  /** Carried out, then the connection is cut before the reply (failNext with `dropReply`). */
  dropReply?: boolean;
  /** Answered this late, in ms of real time (failNext with `delayMs`). */
  delayMs?: number;
}

export interface AuthedContext {
  args: ApiArgs;
  caller: Caller;
  state: FakeState;
}

export interface AuthedMethod {
  kind: 'authed';
  /** The caller needs one of these scopes (`missing_scope` otherwise). */
  scopes?: readonly string[];
  run(ctx: AuthedContext): MethodResult;
}

export interface PublicContext {
  args: ApiArgs;
  /** Credentials from `Authorization: Basic`, for oauth.v2.access. */
  basic?: { id: string; secret: string };
  state: FakeState;
}

/** A method that takes no token (oauth.v2.access authenticates with the client id and secret). */
export interface PublicMethod {
  kind: 'public';
  run(ctx: PublicContext): MethodResult;
}

export type MethodSpec = AuthedMethod | PublicMethod;

export function ok(body: Record<string, unknown> = {}): MethodResult {
  return { body: { ok: true, ...body } };
}

export function fail(error: string, extra: Record<string, unknown> = {}): MethodResult {
  return { body: { ok: false, error, ...extra } };
}

/** A failure with Slack's `[ERROR] ... [json-pointer:...]` messages. */
export function failWithIssues(error: string, issues: LimitIssue[]): MethodResult {
  if (issues.length === 0) return fail(error);
  return fail(error, { response_metadata: { messages: issues.map((i) => `[ERROR] ${formatIssue(i)}`) } });
}

/** Keeps every broken limit, naming where it came from, for tests to assert the list stays empty. */
export function recordIssues(state: FakeState, where: string, issues: LimitIssue[]): void {
  for (const issue of issues) state.violations.push(`${where}: ${formatIssue(issue)}`);
}

export type Resolved<T> = { ok: true; value: T } | { ok: false; result: MethodResult };

/**
 * The conversation a `channel` argument names: a channel id, a `#name`, or a user id (the bot's DM with
 * that user, as chat.postMessage allows).
 */
export function resolveChannel(state: FakeState, caller: Caller, args: ApiArgs): Resolved<FakeChannel> {
  const raw = argString(args, 'channel');
  if (raw === undefined || raw === '') return { ok: false, result: fail('channel_not_found') };
  const { workspace } = state;
  if (/^[UW][A-Z0-9]+$/.test(raw)) {
    const user = workspace.visibleUser(caller, raw);
    if (user === undefined || user.deleted) return { ok: false, result: fail('channel_not_found') };
    return { ok: true, value: workspace.openIm(caller, user) };
  }
  const byId = workspace.visibleChannel(caller, raw);
  if (byId !== undefined) return { ok: true, value: byId };
  const name = raw.replace(/^#/, '');
  for (const channel of workspace.channels.values()) {
    if (channel.name !== name || channel.imUser !== undefined) continue;
    const visible = workspace.visibleChannel(caller, channel.id);
    if (visible !== undefined) return { ok: true, value: visible };
  }
  return { ok: false, result: fail('channel_not_found') };
}

/** Whether the app can post there: archived channels refuse, and the bot must be a member. */
export function checkCanPost(
  state: FakeState,
  caller: Caller,
  channel: FakeChannel,
): MethodResult | undefined {
  if (channel.isArchived) return fail('is_archived');
  const bot = state.workspace.botUserFor(caller, channel);
  if (channel.members.has(bot)) return undefined;
  if (!channel.isPrivate && caller.scopes.includes('chat:write.public')) return undefined;
  return fail(channel.isPrivate ? 'channel_not_found' : 'not_in_channel');
}

/** A message as chat.postMessage and chat.update return it. */
export function messageJson(message: FakeMessage, caller: Caller): Record<string, unknown> {
  return {
    type: 'message',
    text: message.text,
    user: message.user,
    bot_id: message.botId,
    app_id: FAKE_APP.appId,
    ts: message.ts,
    team: message.teamId,
    blocks: message.blocks,
    ...(message.threadTs === undefined ? {} : { thread_ts: message.threadTs }),
    bot_profile: {
      id: caller.team.botId,
      app_id: FAKE_APP.appId,
      name: FAKE_APP.botName,
      team_id: caller.team.id,
      deleted: false,
      updated: 1_700_000_000,
    },
  };
}
