import type { FakeSlack } from '../server.js';
import {
  buildBlockSuggestionPayload,
  buildGlobalShortcutPayload,
  buildMessageShortcutPayload,
  eventCallback,
  interaction,
  type SlackRequestTarget,
} from '../signer.js';
import type { FakeMessage, FakeViewOutput } from '../types.js';
import type { PlaygroundShortcut } from './commands.js';
import {
  type Answer,
  badRequest,
  isRecord,
  notFound,
  parseJsonObject,
  slackFailure,
  stringField,
} from './route-helpers.js';

/**
 * The playground routes of the App Home and the shortcuts, each reaching the bot as Slack does:
 *
 *   POST /playground/home              {}                              app_home_opened (tab home)
 *   POST /playground/shortcut          { callbackId }                  a global shortcut
 *   POST /playground/message-shortcut  { callbackId, channel, ts }     a message shortcut on a message of the page
 *   POST /playground/suggest           { viewId, actionId, blockId, value }   an external_select's block_suggestion
 */
export interface HomeRoutesContext {
  fake: FakeSlack;
  target: SlackRequestTarget;
  teamId: string;
  userId: string;
  shortcuts: readonly PlaygroundShortcut[];
  findView(viewId: string): FakeViewOutput | undefined;
  liveMessage(channel: string, ts: string): FakeMessage | undefined;
  /** A trigger_id for a request of the page `body` names (routes.ts): the modal it opens shows in that page only. */
  newTrigger(body: Record<string, unknown>): string;
}

type Handler = (body: Record<string, unknown>) => Promise<Answer>;

export function homeRoutes(ctx: HomeRoutesContext): Record<string, Handler> {
  const { fake, target, teamId, userId } = ctx;
  const done = (status: number, ms: number, extra: Record<string, unknown> = {}): Answer => {
    const failure = slackFailure(status, ms);
    return { status: 200, body: failure ? { ok: false, error: failure } : { ok: true, ...extra } };
  };
  const shortcut = (body: Record<string, unknown>, type: PlaygroundShortcut['type']) => {
    const callbackId = stringField(body, 'callbackId');
    return ctx.shortcuts.find((s) => s.type === type && s.callbackId === callbackId);
  };

  return {
    '/playground/home': async () => {
      const dm = [...fake.channels.values()].find((c) => c.imUser === userId)?.id ?? 'D00HOME01';
      const result = await eventCallback(
        target,
        { type: 'app_home_opened', user: userId, channel: dm, tab: 'home' },
        teamId,
      );
      return done(result.status, result.ms);
    },
    '/playground/shortcut': async (body) => {
      const found = shortcut(body, 'global');
      if (!found) return badRequest('unknown shortcut');
      const payload = buildGlobalShortcutPayload({
        teamId,
        userId,
        callbackId: found.callbackId,
        triggerId: ctx.newTrigger(body),
      });
      const result = await interaction(target, payload);
      return done(result.status, result.ms);
    },
    '/playground/message-shortcut': async (body) => {
      const found = shortcut(body, 'message');
      if (!found) return badRequest('unknown shortcut');
      const message = ctx.liveMessage(stringField(body, 'channel') ?? '', stringField(body, 'ts') ?? '');
      if (!message) return notFound('message');
      const payload = buildMessageShortcutPayload({
        teamId,
        userId,
        callbackId: found.callbackId,
        triggerId: ctx.newTrigger(body),
        channelId: message.channel,
        responseUrl: fake.newResponseUrl({ teamId, channelId: message.channel, userId }),
        message,
      });
      const result = await interaction(target, payload);
      return done(result.status, result.ms);
    },
    '/playground/suggest': async (body) => {
      const view = ctx.findView(stringField(body, 'viewId') ?? '');
      const actionId = stringField(body, 'actionId');
      if (!view) return notFound('view');
      if (actionId === undefined) return badRequest('actionId is required');
      const blockId = stringField(body, 'blockId');
      const payload = buildBlockSuggestionPayload({
        teamId,
        userId,
        view,
        actionId,
        ...(blockId !== undefined && { blockId }),
        value: (stringField(body, 'value') ?? '').slice(0, 200),
      });
      const result = await interaction(target, payload);
      const answer = parseJsonObject(result.body);
      const options = isRecord(answer) && Array.isArray(answer.options) ? answer.options.slice(0, 100) : [];
      return done(result.status, result.ms, { options });
    },
  };
}
