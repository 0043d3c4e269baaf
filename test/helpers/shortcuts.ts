import {
  buildBlockActionPayload,
  buildBlockSuggestionPayload,
  buildGlobalShortcutPayload,
  buildMessageShortcutPayload,
  buildViewSubmissionPayload,
  type FakeView,
  interaction,
  type SlackRequestResult,
  type ViewStateValues,
} from '../../src/fake-slack/index.js';
import { CHANNELS, eventually, type Harness, TEAM, USERS } from './bot-harness.js';

/** Signed shortcut, block_suggestion, Home and modal interactions, built as Slack builds them. */

export function homeOpened(h: Harness, user: string = USERS.admin, tab = 'home', team = TEAM) {
  return h.event(
    { type: 'app_home_opened', user, channel: 'D00HOME01', tab, event_ts: `${Date.now() / 1000}` },
    team,
  );
}

/** The Home view last published for `user` after `since` views were recorded. */
export function publishedHome(h: Harness, user: string, since: number): Promise<FakeView> {
  return eventually(() =>
    h.slack.views.slice(since).findLast((v) => v.via === 'views.publish' && v.userId === user),
  );
}

/** The Home `user` sees once they open it (the view published after the event). */
export async function openHome(h: Harness, user: string): Promise<FakeView> {
  const since = h.slack.views.length;
  await homeOpened(h, user);
  return publishedHome(h, user, since);
}

export function nextView(h: Harness, since: number, via?: FakeView['via']): Promise<FakeView> {
  return eventually(() => h.slack.views.slice(since).find((v) => via === undefined || v.via === via));
}

/** A click on a button of a view (Home or modal), found by action id prefix. */
export function clickInView(
  h: Harness,
  view: FakeView,
  actionPrefix: string,
  user: string = USERS.admin,
  team = TEAM,
): Promise<SlackRequestResult> {
  const found = buttonsOfView(view).find((b) => b.action_id.startsWith(actionPrefix));
  if (!found) throw new Error(`no button ${actionPrefix} in view ${view.view.callback_id || view.view.type}`);
  const payload = buildBlockActionPayload({
    teamId: team,
    userId: user,
    channelId: '',
    responseUrl: '',
    triggerId: h.slack.newTriggerId({ userId: user, teamId: team, viewId: view.viewId }),
    actionId: found.action_id,
    ...(found.value !== undefined && { value: found.value }),
    view: view.view,
  });
  return interaction(h.target, payload);
}

export function chooseInView(
  h: Harness,
  view: FakeView,
  actionId: string,
  option: { text: string; value: string },
  user: string = USERS.admin,
) {
  const payload = buildBlockActionPayload({
    teamId: TEAM,
    userId: user,
    channelId: '',
    responseUrl: '',
    triggerId: h.slack.newTriggerId({ userId: user, teamId: TEAM, viewId: view.viewId }),
    actionId,
    view: view.view,
  });
  const [action] = payload.actions;
  payload.actions = [
    {
      type: 'external_select',
      action_id: actionId,
      block_id: action?.block_id,
      selected_option: { text: { type: 'plain_text', text: option.text, emoji: true }, value: option.value },
      action_ts: action?.action_ts,
    },
  ];
  return interaction(h.target, payload);
}

export function submitView(
  h: Harness,
  view: FakeView,
  values: ViewStateValues,
  options: {
    user?: string;
    responseUrls?: { block_id: string; action_id: string; channel_id: string; response_url: string }[];
    /**
     * Sent as an org-wide install of this enterprise sends it: no team, the enterprise as the user's and the
     * view's team (bolt-js#1720: Bolt's context.teamId is then the enterprise id).
     */
    orgInstall?: string;
  } = {},
) {
  const user = options.user ?? USERS.admin;
  const payload = buildViewSubmissionPayload({
    teamId: TEAM,
    userId: user,
    callbackId: view.view.callback_id,
    viewId: view.viewId,
    privateMetadata: view.view.private_metadata,
    values,
    view: view.view,
    ...(options.responseUrls && { responseUrls: options.responseUrls }),
    ...(options.orgInstall !== undefined && { enterpriseId: options.orgInstall, isEnterpriseInstall: true }),
  });
  const org = options.orgInstall;
  const sent =
    org === undefined
      ? payload
      : {
          ...payload,
          team: null,
          user: { ...payload.user, team_id: org },
          view: { ...payload.view, app_installed_team_id: org },
        };
  return interaction(h.target, sent);
}

/** `Compartilhar` of a material modal with the stockroom channel chosen, and the response_url Slack gives for it. */
export function shareInStockroom(
  h: Harness,
  view: FakeView,
  responseUrl = h.slack.newResponseUrl({ teamId: TEAM, channelId: CHANNELS.stockroom, userId: USERS.admin }),
) {
  return submitView(
    h,
    view,
    {
      share_channel: {
        channel: { type: 'conversations_select', selected_conversation: CHANNELS.stockroom },
      },
    } as never,
    {
      responseUrls: [
        {
          block_id: 'share_channel',
          action_id: 'channel',
          channel_id: CHANNELS.stockroom,
          response_url: responseUrl,
        },
      ],
    },
  );
}

export function globalShortcut(h: Harness, callbackId: string, user: string = USERS.admin) {
  const triggerId = h.slack.newTriggerId({ userId: user, teamId: TEAM });
  return interaction(
    h.target,
    buildGlobalShortcutPayload({ teamId: TEAM, userId: user, callbackId, triggerId }),
  );
}

export function messageShortcut(
  h: Harness,
  callbackId: string,
  text: string,
  options: { user?: string; channel: string; triggerId?: string; blocks?: object[]; fromBot?: boolean },
) {
  const user = options.user ?? USERS.member;
  const triggerId = options.triggerId ?? h.slack.newTriggerId({ userId: user, teamId: TEAM });
  const payload = buildMessageShortcutPayload({
    teamId: TEAM,
    userId: user,
    callbackId,
    triggerId,
    channelId: options.channel,
    responseUrl: h.slack.newResponseUrl({ teamId: TEAM, channelId: options.channel, userId: user }),
    message: {
      ts: `${Math.floor(Date.now() / 1000)}.000100`,
      text,
      ...(options.fromBot ? { botId: 'B00FAKEBOT' } : { user: USERS.owner }),
      ...(options.blocks && { blocks: options.blocks as never }),
    },
  });
  return interaction(h.target, payload);
}

export async function suggest(
  h: Harness,
  view: FakeView,
  actionId: string,
  value: string,
  user: string = USERS.admin,
) {
  const result = await interaction(
    h.target,
    buildBlockSuggestionPayload({ teamId: TEAM, userId: user, view: view.view, actionId, value }),
  );
  return {
    ...result,
    options:
      (JSON.parse(result.body || '{}') as { options?: { text: { text: string }; value: string }[] })
        .options ?? [],
  };
}

interface ButtonJson {
  action_id: string;
  value?: string;
  text?: { text?: string };
  type?: string;
}

export function buttonsOfView(view: FakeView): ButtonJson[] {
  const out: ButtonJson[] = [];
  for (const block of view.view.blocks as { accessory?: ButtonJson; elements?: ButtonJson[] }[]) {
    if (block.accessory?.type === 'button') out.push(block.accessory);
    for (const element of block.elements ?? []) if (element.type === 'button') out.push(element);
  }
  return out;
}

/** Everything a person reads in a view. */
export function viewText(view: FakeView): string {
  const parts: string[] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      if (typeof record.text === 'string') parts.push(record.text);
      for (const value of Object.values(record)) if (typeof value === 'object') walk(value);
    }
  };
  walk(view.view.blocks);
  return parts.join('\n');
}
