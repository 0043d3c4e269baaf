import { argBool, argString } from '../http.js';
import { FAKE_APP } from '../seed.js';
import { channelJson, userJson } from '../workspace.js';
import {
  type AuthedContext,
  fail,
  type MethodResult,
  type MethodSpec,
  ok,
  resolveChannel,
} from './common.js';

const CONVERSATIONS_READ = ['channels:read', 'groups:read', 'im:read', 'mpim:read'];

function authTest({ caller, state }: AuthedContext): MethodResult {
  const { team } = caller;
  const userId = caller.kind === 'bot' ? team.botUserId : (caller.userId ?? '');
  const user = state.workspace.users.get(userId);
  return ok({
    url: `https://${team.domain}.slack.com/`,
    team: team.name,
    user: user?.name ?? FAKE_APP.botName,
    team_id: team.id,
    user_id: userId,
    ...(caller.kind === 'bot' ? { bot_id: team.botId } : {}),
    ...(caller.enterpriseId === undefined ? {} : { enterprise_id: caller.enterpriseId }),
    is_enterprise_install: caller.isEnterpriseInstall,
  });
}

function usersInfo({ args, caller, state }: AuthedContext): MethodResult {
  const user = state.workspace.visibleUser(caller, argString(args, 'user') ?? '');
  if (user === undefined) return fail('user_not_found');
  return ok({ user: userJson(user, argBool(args, 'include_locale')) });
}

function lookupByEmail({ args, caller, state }: AuthedContext): MethodResult {
  const email = (argString(args, 'email') ?? '').toLowerCase();
  for (const user of state.workspace.users.values()) {
    if (email !== '' && user.email.toLowerCase() === email && state.workspace.reaches(caller, user.teamId)) {
      return ok({ user: userJson(user, false) });
    }
  }
  return fail('users_not_found');
}

function conversationsInfo({ args, caller, state }: AuthedContext): MethodResult {
  const target = resolveChannel(state, caller, args);
  if (!target.ok) return target.result;
  return ok({ channel: channelJson(target.value, caller, argBool(args, 'include_num_members')) });
}

function conversationsMembers({ args, caller, state }: AuthedContext): MethodResult {
  const target = resolveChannel(state, caller, args);
  if (!target.ok) return target.result;
  const members = [...target.value.members];
  const limit = Number(argString(args, 'limit') ?? 100) || 100;
  const start = Number(argString(args, 'cursor') ?? 0) || 0;
  const page = members.slice(start, start + limit);
  const next = start + limit < members.length ? String(start + limit) : '';
  return ok({ members: page, response_metadata: { next_cursor: next } });
}

function conversationsJoin({ args, caller, state }: AuthedContext): MethodResult {
  const target = resolveChannel(state, caller, args);
  if (!target.ok) return target.result;
  const channel = target.value;
  if (channel.isPrivate || channel.imUser !== undefined) return fail('method_not_supported_for_channel_type');
  if (channel.isArchived) return fail('is_archived');
  const bot = state.workspace.botUserFor(caller, channel);
  const already = channel.members.has(bot);
  channel.members.add(bot);
  return ok({
    channel: channelJson(channel, caller, false),
    ...(already
      ? { warning: 'already_in_channel', response_metadata: { warnings: ['already_in_channel'] } }
      : {}),
  });
}

function conversationsOpen({ args, caller, state }: AuthedContext): MethodResult {
  const channelArg = argString(args, 'channel');
  if (channelArg !== undefined) {
    const target = resolveChannel(state, caller, args);
    return target.ok ? ok({ channel: { id: target.value.id } }) : target.result;
  }
  const users = (argString(args, 'users') ?? '').split(',').filter((u) => u !== '');
  if (users.length === 0) return fail('users_list_not_supplied');
  if (users.length > 1) return fail('method_not_supported_for_channel_type');
  const user = state.workspace.visibleUser(caller, users[0] ?? '');
  if (user === undefined) return fail('user_not_found');
  if (user.deleted) return fail('user_disabled');
  const im = state.workspace.openIm(caller, user);
  return ok({ channel: { id: im.id } });
}

function teamInfo({ args, caller, state }: AuthedContext): MethodResult {
  const teamId = argString(args, 'team') ?? caller.team.id;
  const team = state.workspace.reaches(caller, teamId) ? state.workspace.teams.get(teamId) : undefined;
  if (team === undefined) return fail('team_not_found');
  return ok({
    team: {
      id: team.id,
      name: team.name,
      domain: team.domain,
      email_domain: '',
      icon: { image_default: true },
      ...(team.enterpriseId === undefined
        ? {}
        : { enterprise_id: team.enterpriseId, enterprise_name: team.enterpriseName ?? team.enterpriseId }),
    },
  });
}

export const directoryMethods: Record<string, MethodSpec> = {
  'auth.test': { kind: 'authed', run: authTest },
  'users.info': { kind: 'authed', scopes: ['users:read'], run: usersInfo },
  'users.lookupByEmail': { kind: 'authed', scopes: ['users:read.email'], run: lookupByEmail },
  'conversations.info': { kind: 'authed', scopes: CONVERSATIONS_READ, run: conversationsInfo },
  'conversations.members': { kind: 'authed', scopes: CONVERSATIONS_READ, run: conversationsMembers },
  'conversations.join': {
    kind: 'authed',
    scopes: ['channels:join', 'channels:write'],
    run: conversationsJoin,
  },
  'conversations.open': { kind: 'authed', scopes: ['im:write', 'mpim:write'], run: conversationsOpen },
  'team.info': { kind: 'authed', scopes: ['team:read'], run: teamInfo },
};
