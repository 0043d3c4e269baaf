/**
 * What Slack sends to an app's Request URL, built the way Slack builds it: slash command forms,
 * block_actions and view_submission payloads, Events API envelopes.
 */
import { createHash } from 'node:crypto';
import type { ViewStateValue } from '@slack/bolt';
import { newTriggerIdString, randomHex, slackId } from './ids.js';
import { FAKE_APP, seedChannels, seedTeams, seedUsers } from './seed.js';
import type { FakeViewOutput } from './types.js';

export type { ViewStateValue } from '@slack/bolt';

type Obj = Record<string, unknown>;
export type ViewStateValues = Record<string, Record<string, ViewStateValue>>;

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function teamDomain(teamId: string): string {
  return seedTeams().find((t) => t.id === teamId)?.domain ?? teamId.toLowerCase();
}

export function userName(userId: string): string {
  return seedUsers().find((u) => u.id === userId)?.name ?? userId.toLowerCase();
}

export function channelName(channelId: string): string {
  if (channelId.startsWith('D')) return 'directmessage';
  return seedChannels().find((c) => c.id === channelId)?.name ?? channelId.toLowerCase();
}

export function botFor(teamId: string): { botUserId: string; botId: string } {
  const team = seedTeams().find((t) => t.id === teamId);
  return { botUserId: team?.botUserId ?? 'U00BOT001', botId: team?.botId ?? 'B00BOT001' };
}

export function teamJson(
  teamId: string,
  domain: string | undefined,
  enterpriseId?: string,
  enterpriseName?: string,
) {
  return {
    id: teamId,
    domain: domain ?? teamDomain(teamId),
    ...(enterpriseId === undefined
      ? {}
      : { enterprise_id: enterpriseId, enterprise_name: enterpriseName ?? enterpriseId }),
  };
}

export function enterpriseJson(enterpriseId?: string, enterpriseName?: string) {
  return enterpriseId === undefined ? null : { id: enterpriseId, name: enterpriseName ?? enterpriseId };
}

/** `action_ts`/`event_ts` style: `seconds.micros`. */
export function nowTs(): string {
  const micros = Date.now() * 1000;
  return `${Math.floor(micros / 1_000_000)}.${String(micros % 1_000_000).padStart(6, '0')}`;
}

// --- slash commands -------------------------------------------------------------------------------

export interface SlashCommandFields {
  command: string;
  text: string;
  teamId: string;
  userId: string;
  channelId: string;
  responseUrl: string;
  triggerId: string;
  enterpriseId?: string;
  enterpriseName?: string;
  userName?: string;
  channelName?: string;
  teamDomain?: string;
  isEnterpriseInstall?: boolean;
}

/** The form fields of a slash command, in Slack's order. */
export function buildSlashCommandBody(fields: SlashCommandFields): Record<string, string> {
  return {
    token: FAKE_APP.verificationToken,
    team_id: fields.teamId,
    team_domain: fields.teamDomain ?? teamDomain(fields.teamId),
    ...(fields.enterpriseId === undefined
      ? {}
      : {
          enterprise_id: fields.enterpriseId,
          enterprise_name: fields.enterpriseName ?? fields.enterpriseId,
        }),
    channel_id: fields.channelId,
    channel_name: fields.channelName ?? channelName(fields.channelId),
    user_id: fields.userId,
    user_name: fields.userName ?? userName(fields.userId),
    command: fields.command,
    text: fields.text,
    api_app_id: FAKE_APP.appId,
    is_enterprise_install: String(fields.isEnterpriseInstall ?? false),
    response_url: fields.responseUrl,
    trigger_id: fields.triggerId,
  };
}

// --- generated ids --------------------------------------------------------------------------------

const ID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A short id derived from a seed, like the `block_id`s (`XTkTR`) Slack makes up for blocks without one. */
function generatedId(seed: string, length: number): string {
  const digest = createHash('sha256').update(seed).digest();
  let id = '';
  for (let i = 0; i < length; i++) id += ID_CHARS[(digest[i] ?? 0) % ID_CHARS.length];
  return id;
}

function interactiveElements(block: Obj): Obj[] {
  const elements: unknown[] = [];
  if (Array.isArray(block.elements)) elements.push(...block.elements);
  if (block.accessory !== undefined) elements.push(block.accessory);
  if (block.element !== undefined) elements.push(block.element);
  return elements.filter((e): e is Obj => isObject(e) && e.type !== 'image' && typeof e.type === 'string');
}

/**
 * Blocks as Slack stores them: a block without `block_id` and an element without `action_id` get
 * ids Slack made up (stable for the same seed, so repeated clicks see the same ids).
 */
export function withGeneratedIds(blocks: readonly unknown[], seed: string): unknown[] {
  return blocks.map((block, i) => {
    if (!isObject(block)) return block;
    const copy: Obj = { ...block };
    if (typeof copy.block_id !== 'string') copy.block_id = generatedId(`${seed}:${i}`, 5);
    const fill = (el: unknown, j: number) =>
      isObject(el) && el.type !== 'image' && typeof el.action_id !== 'string'
        ? { ...el, action_id: generatedId(`${seed}:${i}:${j}`, 4) }
        : el;
    if (Array.isArray(copy.elements) && copy.type === 'actions') copy.elements = copy.elements.map(fill);
    if (copy.accessory !== undefined) copy.accessory = fill(copy.accessory, 0);
    if (copy.element !== undefined) copy.element = fill(copy.element, 0);
    return copy;
  });
}

function findElement(blocks: readonly unknown[], actionId: string, blockId?: string) {
  for (const block of blocks) {
    if (!isObject(block) || (blockId !== undefined && block.block_id !== blockId)) continue;
    const element = interactiveElements(block).find((e) => e.action_id === actionId);
    if (element !== undefined) return { block, element };
  }
  return undefined;
}

// --- block_actions ---------------------------------------------------------------------------------

/** The message a button sits on, as the fake records it (FakeMessage fits). */
export interface SourceMessage {
  ts: string;
  text?: string;
  blocks?: readonly unknown[];
  user?: string;
  botId?: string;
  teamId?: string;
  threadTs?: string;
}

export interface BlockActionInput {
  teamId: string;
  userId: string;
  channelId: string;
  responseUrl: string;
  triggerId: string;
  actionId: string;
  value?: string;
  blockId?: string;
  messageTs?: string;
  isEphemeral?: boolean;
  enterpriseId?: string;
  enterpriseName?: string;
  isEnterpriseInstall?: boolean;
  userName?: string;
  teamDomain?: string;
  channelName?: string;
  /** The message clicked: its blocks give the element's type, text and block_id, and fill `message`. */
  message?: SourceMessage;
  /** For an element inside a modal: the view (fake.views[i].view); the container becomes the view. */
  view?: FakeViewOutput;
  /** `state.values` of the surface (inputs next to the clicked element). */
  stateValues?: ViewStateValues;
  actionTs?: string;
  /** The option chosen in an external_select (its options are not in the view, so the label comes with it). */
  selectedOption?: { text: string; value: string };
}

export interface BlockActionPayload {
  type: 'block_actions';
  user: { id: string; username: string; name: string; team_id: string };
  api_app_id: string;
  token: string;
  container: Obj;
  trigger_id: string;
  team: { id: string; domain: string; enterprise_id?: string; enterprise_name?: string };
  enterprise: { id: string; name: string } | null;
  is_enterprise_install: boolean;
  channel?: { id: string; name: string };
  message?: Obj;
  view?: FakeViewOutput;
  state: { values: ViewStateValues };
  response_url?: string;
  actions: Obj[];
}

function actionJson(input: BlockActionInput, found: { block: Obj; element: Obj } | undefined): Obj {
  const element = found?.element;
  const type = typeof element?.type === 'string' ? element.type : 'button';
  const base = {
    type,
    action_id: input.actionId,
    block_id:
      input.blockId ?? (found?.block.block_id as string | undefined) ?? generatedId(input.actionId, 5),
    action_ts: input.actionTs ?? nowTs(),
  };
  if (type === 'external_select') {
    const chosen = input.selectedOption ?? { text: input.value ?? '', value: input.value ?? '' };
    return {
      ...base,
      selected_option: { text: { type: 'plain_text', text: chosen.text, emoji: true }, value: chosen.value },
      placeholder: element?.placeholder,
    };
  }
  if (type === 'overflow' || type === 'static_select' || type === 'radio_buttons') {
    const options = Array.isArray(element?.options) ? element.options.filter(isObject) : [];
    const selected = options.find((o) => o.value === input.value) ?? { value: input.value };
    return {
      ...base,
      selected_option: selected,
      ...(type === 'static_select' ? { placeholder: element?.placeholder } : {}),
    };
  }
  return {
    ...base,
    text: element?.text ?? { type: 'plain_text', text: input.actionId, emoji: true },
    value: input.value ?? element?.value,
    ...(element?.style === undefined ? {} : { style: element.style }),
  };
}

/** A block_actions payload for a click on a message (or modal) element, shaped like Slack's. */
export function buildBlockActionPayload(input: BlockActionInput): BlockActionPayload {
  const { teamId, userId } = input;
  const common = {
    type: 'block_actions' as const,
    user: {
      id: userId,
      username: input.userName ?? userName(userId),
      name: input.userName ?? userName(userId),
      team_id: teamId,
    },
    api_app_id: FAKE_APP.appId,
    token: FAKE_APP.verificationToken,
  };
  const team = teamJson(teamId, input.teamDomain, input.enterpriseId, input.enterpriseName);
  const tail = {
    trigger_id: input.triggerId,
    team,
    enterprise: enterpriseJson(input.enterpriseId, input.enterpriseName),
    is_enterprise_install: input.isEnterpriseInstall ?? false,
  };
  if (input.view !== undefined) {
    const blocks = withGeneratedIds(input.view.blocks, input.view.id);
    const found = findElement(blocks, input.actionId, input.blockId);
    const values = input.stateValues ?? {};
    return {
      ...common,
      container: { type: 'view', view_id: input.view.id },
      ...tail,
      view: { ...input.view, blocks, state: { values } },
      state: { values },
      actions: [actionJson(input, found)],
    };
  }
  const messageTs = input.messageTs ?? input.message?.ts ?? nowTs();
  const blocks = withGeneratedIds(input.message?.blocks ?? [], messageTs);
  const found = findElement(blocks, input.actionId, input.blockId);
  const bot = botFor(teamId);
  const isEphemeral = input.isEphemeral ?? false;
  return {
    ...common,
    container: {
      type: 'message',
      message_ts: messageTs,
      channel_id: input.channelId,
      is_ephemeral: isEphemeral,
    },
    ...tail,
    channel: { id: input.channelId, name: input.channelName ?? channelName(input.channelId) },
    ...(isEphemeral
      ? {}
      : {
          message: {
            user: input.message?.user ?? bot.botUserId,
            type: 'message',
            ts: messageTs,
            bot_id: input.message?.botId ?? bot.botId,
            app_id: FAKE_APP.appId,
            text: input.message?.text ?? '',
            team: input.message?.teamId ?? teamId,
            blocks,
            ...(input.message?.threadTs === undefined ? {} : { thread_ts: input.message.threadTs }),
          },
        }),
    state: { values: input.stateValues ?? {} },
    response_url: input.responseUrl,
    actions: [actionJson(input, found)],
  };
}

// --- view_submission -------------------------------------------------------------------------------

export interface ViewSubmissionInput {
  teamId: string;
  userId: string;
  callbackId: string;
  viewId: string;
  privateMetadata?: string;
  /** `state.values`: block_id → action_id → value (see `textInputValue`). */
  values: ViewStateValues;
  enterpriseId?: string;
  enterpriseName?: string;
  isEnterpriseInstall?: boolean;
  userName?: string;
  teamDomain?: string;
  /** Defaults to a fresh id the fake does not know; pass fake.newTriggerId(...) to let the bot push a view. */
  triggerId?: string;
  /** The view as the fake stored it (title, blocks, hash...); the submission keeps its fields. */
  view?: Partial<FakeViewOutput>;
  responseUrls?: { block_id: string; action_id: string; channel_id: string; response_url: string }[];
}

export interface ViewSubmissionPayload {
  type: 'view_submission';
  team: { id: string; domain: string; enterprise_id?: string; enterprise_name?: string };
  user: { id: string; username: string; name: string; team_id: string };
  api_app_id: string;
  token: string;
  trigger_id: string;
  view: FakeViewOutput;
  response_urls: { block_id: string; action_id: string; channel_id: string; response_url: string }[];
  is_enterprise_install: boolean;
  enterprise: { id: string; name: string } | null;
}

/** The value of a plain_text_input in `state.values`. */
export function textInputValue(value: string | null): ViewStateValue {
  return { type: 'plain_text_input', value };
}

/** A view_submission payload, shaped like Slack's. */
export function buildViewSubmissionPayload(input: ViewSubmissionInput): ViewSubmissionPayload {
  const { teamId, userId } = input;
  const bot = botFor(teamId);
  const name = input.userName ?? userName(userId);
  const stored = input.view ?? {};
  const view: FakeViewOutput = {
    id: input.viewId,
    team_id: teamId,
    type: 'modal',
    blocks: withGeneratedIds(stored.blocks ?? [], input.viewId),
    private_metadata: input.privateMetadata ?? stored.private_metadata ?? '',
    callback_id: input.callbackId,
    state: { values: input.values },
    hash: stored.hash ?? `${Math.floor(Date.now() / 1000)}.${randomHex(4)}`,
    title: stored.title ?? { type: 'plain_text', text: 'Modal', emoji: true },
    clear_on_close: stored.clear_on_close ?? false,
    notify_on_close: stored.notify_on_close ?? false,
    close: stored.close ?? null,
    submit: stored.submit ?? { type: 'plain_text', text: 'Enviar', emoji: true },
    previous_view_id: stored.previous_view_id ?? null,
    root_view_id: stored.root_view_id ?? input.viewId,
    app_id: FAKE_APP.appId,
    external_id: stored.external_id ?? '',
    app_installed_team_id: teamId,
    bot_id: stored.bot_id ?? bot.botId,
  };
  return {
    type: 'view_submission',
    team: teamJson(teamId, input.teamDomain, input.enterpriseId, input.enterpriseName),
    user: { id: userId, username: name, name, team_id: teamId },
    api_app_id: FAKE_APP.appId,
    token: FAKE_APP.verificationToken,
    trigger_id: input.triggerId ?? newTriggerIdString(),
    view,
    response_urls: input.responseUrls ?? [],
    is_enterprise_install: input.isEnterpriseInstall ?? false,
    enterprise: enterpriseJson(input.enterpriseId, input.enterpriseName),
  };
}

// --- Events API ------------------------------------------------------------------------------------

/**
 * An Events API envelope around `event`. `extra` overrides envelope fields (`authorizations`,
 * `enterprise_id`, `event_id`...).
 */
export function buildEventEnvelope(event: object, teamId: string, extra: object = {}): Obj {
  const eventTs = isObject(event) && typeof event.event_ts === 'string' ? event.event_ts : nowTs();
  return {
    token: FAKE_APP.verificationToken,
    team_id: teamId,
    api_app_id: FAKE_APP.appId,
    event: { ...event, event_ts: eventTs },
    type: 'event_callback',
    event_id: slackId('Ev', 12),
    event_time: Math.floor(Number(eventTs)),
    authorizations: [
      {
        enterprise_id: null,
        team_id: teamId,
        user_id: botFor(teamId).botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
    event_context: `4-${Buffer.from(JSON.stringify({ tid: teamId, aid: FAKE_APP.appId })).toString('base64url')}`,
    ...extra,
  };
}
