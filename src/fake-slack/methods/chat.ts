import { argString } from '../http.js';
import { checkMessageContent, isEmptyMessage } from '../messages.js';
import type { FakeMessage } from '../types.js';
import {
  type AuthedContext,
  checkCanPost,
  fail,
  failWithIssues,
  type MethodResult,
  type MethodSpec,
  messageJson,
  ok,
  recordIssues,
  resolveChannel,
} from './common.js';

const CHAT_WRITE = ['chat:write', 'chat:write:bot'];

function postMessage({ args, caller, state }: AuthedContext): MethodResult {
  const target = resolveChannel(state, caller, args);
  if (!target.ok) return target.result;
  const channel = target.value;
  const refused = checkCanPost(state, caller, channel);
  if (refused !== undefined) return refused;
  const content = checkMessageContent(args);
  if (!content.ok) {
    recordIssues(state, `chat.postMessage ${channel.id}`, content.issues);
    return failWithIssues(content.error, content.issues);
  }
  if (isEmptyMessage(content.text, content.blocks, args)) return fail('no_text');
  if (state.rate !== undefined && !state.rate.tryPost(channel.id)) {
    return { status: 429, headers: { 'retry-after': '1' }, body: { ok: false, error: 'ratelimited' } };
  }
  const bot = state.workspace.botUserFor(caller, channel);
  const message = state.log.post({
    channel: channel.id,
    teamId: channel.teamId ?? caller.team.id,
    user: bot,
    botId: caller.team.botId,
    text: content.text ?? '',
    blocks: content.blocks ?? [],
    ephemeral: false,
    via: 'chat.postMessage',
    threadTs: argString(args, 'thread_ts'),
  });
  return ok({ channel: channel.id, ts: message.ts, message: messageJson(message, caller) });
}

function postEphemeral({ args, caller, state }: AuthedContext): MethodResult {
  const userId = argString(args, 'user');
  if (userId === undefined || userId === '') return fail('user_not_found');
  const target = resolveChannel(state, caller, args);
  if (!target.ok) return target.result;
  const channel = target.value;
  const refused = checkCanPost(state, caller, channel);
  if (refused !== undefined) return refused;
  if (!channel.members.has(userId)) return fail('user_not_in_channel');
  const content = checkMessageContent(args);
  if (!content.ok) {
    recordIssues(state, `chat.postEphemeral ${channel.id}`, content.issues);
    return failWithIssues(content.error, content.issues);
  }
  if (isEmptyMessage(content.text, content.blocks, args)) return fail('no_text');
  const message = state.log.post({
    channel: channel.id,
    teamId: channel.teamId ?? caller.team.id,
    user: state.workspace.botUserFor(caller, channel),
    botId: caller.team.botId,
    text: content.text ?? '',
    blocks: content.blocks ?? [],
    ephemeral: true,
    visibleTo: userId,
    via: 'chat.postEphemeral',
    threadTs: argString(args, 'thread_ts'),
  });
  return ok({ message_ts: message.ts });
}

/** The app's own live, non-ephemeral message at channel + ts (what chat.update and chat.delete act on). */
function ownMessage(ctx: AuthedContext, verb: 'update' | 'delete'): { message: FakeMessage } | MethodResult {
  const { args, caller, state } = ctx;
  const target = resolveChannel(state, caller, args);
  if (!target.ok) return target.result;
  const ts = argString(args, 'ts');
  const message = ts === undefined ? undefined : state.log.current(target.value.id, ts);
  if (message === undefined || message.ephemeral) return fail('message_not_found');
  if (message.user !== state.workspace.botUserFor(caller, target.value)) return fail(`cant_${verb}_message`);
  if (verb === 'update' && target.value.isArchived) return fail('is_inactive');
  return { message };
}

function update(ctx: AuthedContext): MethodResult {
  const found = ownMessage(ctx, 'update');
  if (!('message' in found)) return found;
  const { args, caller, state } = ctx;
  const content = checkMessageContent(args);
  if (!content.ok) {
    recordIssues(state, `chat.update ${found.message.channel} ${found.message.ts}`, content.issues);
    return failWithIssues(content.error, content.issues);
  }
  // Omitted fields keep what the message had, as Slack documents for chat.update.
  const text = content.text ?? found.message.text;
  const blocks = content.blocks ?? found.message.blocks;
  if (isEmptyMessage(text, blocks, args)) return fail('no_text');
  const next = state.log.replace(found.message, { text, blocks, via: 'chat.update' });
  return ok({ channel: next.channel, ts: next.ts, text: next.text, message: messageJson(next, caller) });
}

function remove(ctx: AuthedContext): MethodResult {
  const found = ownMessage(ctx, 'delete');
  if (!('message' in found)) return found;
  ctx.state.log.delete(found.message);
  return ok({ channel: found.message.channel, ts: found.message.ts });
}

export const chatMethods: Record<string, MethodSpec> = {
  'chat.postMessage': { kind: 'authed', scopes: CHAT_WRITE, run: postMessage },
  'chat.postEphemeral': { kind: 'authed', scopes: CHAT_WRITE, run: postEphemeral },
  'chat.update': { kind: 'authed', scopes: CHAT_WRITE, run: update },
  'chat.delete': { kind: 'authed', scopes: CHAT_WRITE, run: remove },
};
