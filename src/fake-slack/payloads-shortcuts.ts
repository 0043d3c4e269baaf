/**
 * The interaction payloads of shortcuts and external selects, shaped like Slack's: a global shortcut
 * (`shortcut`), a message shortcut (`message_action`) and the options request of an external_select
 * (`block_suggestion`).
 */
import {
  botFor,
  channelName,
  enterpriseJson,
  nowTs,
  type SourceMessage,
  teamJson,
  userName,
  withGeneratedIds,
} from './payloads.js';
import { FAKE_APP } from './seed.js';
import type { FakeViewOutput } from './types.js';

interface Common {
  teamId: string;
  userId: string;
  enterpriseId?: string;
  enterpriseName?: string;
  isEnterpriseInstall?: boolean;
  teamDomain?: string;
  userName?: string;
}

export interface GlobalShortcutInput extends Common {
  callbackId: string;
  triggerId: string;
}

/** A global shortcut (the shortcuts button, the composer's `/` menu). No channel, no response_url. */
export function buildGlobalShortcutPayload(input: GlobalShortcutInput) {
  const name = input.userName ?? userName(input.userId);
  return {
    type: 'shortcut' as const,
    token: FAKE_APP.verificationToken,
    action_ts: nowTs(),
    team: teamJson(input.teamId, input.teamDomain, input.enterpriseId, input.enterpriseName),
    user: { id: input.userId, username: name, team_id: input.teamId },
    is_enterprise_install: input.isEnterpriseInstall ?? false,
    enterprise: enterpriseJson(input.enterpriseId, input.enterpriseName),
    callback_id: input.callbackId,
    trigger_id: input.triggerId,
  };
}

export interface MessageShortcutInput extends Common {
  callbackId: string;
  triggerId: string;
  channelId: string;
  responseUrl: string;
  /** The message the shortcut was run on (a person's or a bot's). */
  message: SourceMessage & { text?: string };
  channelName?: string;
}

/** A message shortcut (a message's "…" menu): the message whole, its channel and a response_url. */
export function buildMessageShortcutPayload(input: MessageShortcutInput) {
  const name = input.userName ?? userName(input.userId);
  const { message } = input;
  const bot = botFor(input.teamId);
  return {
    type: 'message_action' as const,
    token: FAKE_APP.verificationToken,
    action_ts: nowTs(),
    team: teamJson(input.teamId, input.teamDomain, input.enterpriseId, input.enterpriseName),
    user: { id: input.userId, name, team_id: input.teamId },
    channel: { id: input.channelId, name: input.channelName ?? channelName(input.channelId) },
    is_enterprise_install: input.isEnterpriseInstall ?? false,
    enterprise: enterpriseJson(input.enterpriseId, input.enterpriseName),
    callback_id: input.callbackId,
    trigger_id: input.triggerId,
    response_url: input.responseUrl,
    message_ts: message.ts,
    message: {
      type: 'message',
      text: message.text ?? '',
      user: message.user ?? (message.botId ? bot.botUserId : input.userId),
      ts: message.ts,
      team: message.teamId ?? input.teamId,
      ...(message.botId === undefined ? {} : { bot_id: message.botId, app_id: FAKE_APP.appId }),
      ...(message.blocks === undefined ? {} : { blocks: withGeneratedIds(message.blocks, message.ts) }),
      ...(message.threadTs === undefined ? {} : { thread_ts: message.threadTs }),
    },
  };
}

export interface BlockSuggestionInput extends Common {
  /** The modal (or Home) the external_select is in, as the fake stored it. */
  view: FakeViewOutput;
  actionId: string;
  blockId?: string;
  /** What the person typed. */
  value: string;
}

/** An external_select asking for options: what was typed, in the view it sits in. */
export function buildBlockSuggestionPayload(input: BlockSuggestionInput) {
  const name = input.userName ?? userName(input.userId);
  const blocks = withGeneratedIds(input.view.blocks, input.view.id);
  const blockId =
    input.blockId ??
    (
      blocks.find(
        (b) =>
          typeof b === 'object' &&
          b !== null &&
          JSON.stringify(b).includes(`"action_id":${JSON.stringify(input.actionId)}`),
      ) as { block_id?: string } | undefined
    )?.block_id ??
    '';
  return {
    type: 'block_suggestion' as const,
    user: { id: input.userId, username: name, name, team_id: input.teamId },
    container: { type: 'view', view_id: input.view.id },
    api_app_id: FAKE_APP.appId,
    token: FAKE_APP.verificationToken,
    action_id: input.actionId,
    block_id: blockId,
    value: input.value,
    team: teamJson(input.teamId, input.teamDomain, input.enterpriseId, input.enterpriseName),
    enterprise: enterpriseJson(input.enterpriseId, input.enterpriseName),
    is_enterprise_install: input.isEnterpriseInstall ?? false,
    view: { ...input.view, blocks },
  };
}
