import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ExtraRoute, FakeSlack } from '../server.js';
import {
  blockAction,
  buildBlockActionPayload,
  buildViewSubmissionPayload,
  type SlackRequestTarget,
  slashCommand,
  viewSubmission,
  withGeneratedIds,
} from '../signer.js';
import type { FakeMessage, FakeViewOutput } from '../types.js';
import { PLAYGROUND_HTML } from './assets/page.js';
import { PLAYGROUND_SCRIPT } from './assets/script.js';
import { PLAYGROUND_CSS } from './assets/styles.js';
import { PLAYGROUND_COMMANDS, PLAYGROUND_SHORTCUTS, type PlaygroundCommand } from './commands.js';
import { homeRoutes } from './home-routes.js';
import { clientIdOf, ModalOwners } from './modal-owners.js';
import {
  type Answer,
  badRequest,
  immediateAnswer,
  inputsOf,
  isRecord,
  notFound,
  parseJsonObject,
  postToResponseUrl,
  readJsonRequest,
  send,
  sendAsset,
  slackFailure,
  stringField,
  unexpected,
} from './route-helpers.js';
import { buildStateValues, clientSideErrors, submissionResponseUrls } from './view-state.js';

/**
 * The playground: a page on the fake Slack's port where a person plays Slack's part. The page talks only to these
 * routes; they reach the bot the way Slack does (signed requests to /slack/events, built and signed here on the
 * server, so the browser never holds the signing secret), and the bot answers through the fake's Web API and
 * response_urls, whose messages and views the page receives as server-sent events.
 *
 *   GET  /                    the page
 *   GET  /playground/app.js   its script; /playground/app.css its styles
 *   GET  /playground/events   server-sent events: `hello` (who, where, the messages so far that are not
 *                             ephemeral), `message`, `view` (the modals of this page only), `home`;
 *                             `?client=ID` names the page (modal-owners.ts)
 *   POST /playground/command  { command, text }
 *   POST /playground/action   { channel, ts, actionId, blockId, value } or { viewId, actionId, blockId, value, inputs }
 *   POST /playground/submit   { viewId, inputs }
 *   (every POST may name its page with `client`: a modal its trigger opens shows in that page only)
 *   POST /playground/home, /shortcut, /message-shortcut, /suggest: the App Home and the shortcuts (home-routes.ts)
 *   GET  /healthz             the bot's /healthz, relayed
 */

export interface PlaygroundOptions {
  /** The bot's Request URL and its signing secret (kept on the server). */
  target: SlackRequestTarget;
  teamId: string;
  /** The person at the page. */
  userId: string;
  /** The channel the page shows. */
  channelId: string;
  /** The bot's /healthz, relayed at GET /healthz; without it /healthz answers 200 while the fake runs. */
  healthUrl?: string;
  commands?: readonly PlaygroundCommand[];
}

export interface Playground {
  /** The page's address. */
  url: string;
  unmount(): void;
}

interface ClientMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: unknown[];
  ephemeral: boolean;
  deleted: boolean;
  directMessage: boolean;
  at: number;
}

interface ClientView {
  id: string;
  type: string;
  title: unknown;
  submit: unknown;
  close: unknown;
  blocks: unknown[];
}

export function mountPlayground(fake: FakeSlack, options: PlaygroundOptions): Playground {
  const { teamId, userId, channelId, target } = options;
  const commands = options.commands ?? PLAYGROUND_COMMANDS;
  /** Views a view_submission answer pushed or updated (`response_action`): Slack keeps them, the fake does not. */
  const answeredViews = new Map<string, FakeViewOutput>();
  /** The open event streams, each a page (a Slack client) or, without `?client=`, a client that named none. */
  const streams = new Set<{ client: string | null; send: (event: string, data: unknown) => void }>();
  const modalOwners = new ModalOwners();
  /** A trigger_id for a request of the page `body` names: a modal opened with it shows in that page only. */
  const newTrigger = (body: Record<string, unknown>, context: { viewId?: string } = {}): string => {
    const triggerId = fake.newTriggerId({ userId, teamId, ...context });
    modalOwners.issued(triggerId, clientIdOf(body.client));
    return triggerId;
  };
  const isDirectMessage = (channel: string) => fake.channels.get(channel)?.imUser === userId;
  const visible = (m: FakeMessage) =>
    (m.teamId === undefined || m.teamId === teamId) &&
    (m.channel === channelId || isDirectMessage(m.channel)) &&
    (!m.ephemeral || m.visibleTo === userId);

  const toClient = (m: FakeMessage): ClientMessage => ({
    channel: m.channel,
    ts: m.ts,
    text: m.text,
    // The ids Slack makes up for blocks and elements without one, as the payload builders use them.
    blocks: withGeneratedIds(m.blocks, m.ts),
    ephemeral: m.ephemeral,
    deleted: m.deleted === true,
    directMessage: isDirectMessage(m.channel),
    at: m.at,
  });

  const viewToClient = (view: FakeViewOutput): ClientView => ({
    id: view.id,
    type: view.type,
    title: view.title,
    submit: view.submit,
    close: view.close,
    blocks: withGeneratedIds(view.blocks, view.id),
  });

  // One listener for every stream, so that each view record is given its page once. As in Slack, the App Home is
  // the user's in every client; a modal is the client's that opened it.
  const offViews = fake.on('view', (record) => {
    if (record.teamId !== teamId || record.userId !== userId) return;
    if (record.view.type === 'modal') {
      const owner = modalOwners.ownerOf(record);
      const event = { via: record.via, view: viewToClient(record.view) };
      for (const stream of streams) if (owner === null || owner === stream.client) stream.send('view', event);
    } else if (record.view.type === 'home') {
      const home = viewToClient(record.view);
      for (const stream of streams) stream.send('home', home);
    }
  });

  const findView = (viewId: string): FakeViewOutput | undefined => {
    const answered = answeredViews.get(viewId);
    if (answered) return answered;
    for (let i = fake.views.length - 1; i >= 0; i--) {
      const record = fake.views[i];
      if (record?.viewId === viewId && record.teamId === teamId && record.userId === userId)
        return record.view;
    }
    return undefined;
  };

  const liveMessage = (channel: string, ts: string): FakeMessage | undefined =>
    fake.messages.find(
      (m) => m.channel === channel && m.ts === ts && !m.replaced && !m.deleted && visible(m),
    );

  function hello() {
    const team = fake.teams.get(teamId);
    const user = fake.users.get(userId);
    const channel = fake.channels.get(channelId);
    const botUser = team ? fake.users.get(team.botUserId) : undefined;
    return {
      team: { id: teamId, name: team?.name ?? teamId },
      user: { id: userId, name: user?.realName ?? userId },
      channel: { id: channelId, name: channel?.name ?? channelId },
      bot: { name: botUser?.realName ?? 'estoque-bot' },
      // Names for <@U…> mentions.
      users: Object.fromEntries(
        [...fake.users.values()].filter((u) => u.teamId === teamId).map((u) => [u.id, u.realName]),
      ),
      commands,
      shortcuts: PLAYGROUND_SHORTCUTS,
      // What a Slack client loads when it opens: the channel's history and DMs. Ephemeral messages live only in the
      // client that showed them, so a reload of the page loses them (and so does a reconnect of its event stream).
      messages: fake.messages
        .filter((m) => !m.replaced && !m.deleted && !m.ephemeral && visible(m))
        .map(toClient),
    };
  }

  function events(req: IncomingMessage, res: ServerResponse, client: string | null): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const send = (event: string, data: unknown) => {
      if (!res.writableEnded) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    send('hello', hello());
    const offMessage = fake.on('message', (m) => {
      if (visible(m)) send('message', toClient(m));
    });
    const stream = { client, send };
    streams.add(stream);
    const keepAlive = setInterval(() => res.write(': ping\n\n'), 15_000);
    keepAlive.unref();
    req.on('close', () => {
      clearInterval(keepAlive);
      offMessage();
      streams.delete(stream);
    });
  }

  async function command(body: Record<string, unknown>): Promise<Answer> {
    const name = typeof body.command === 'string' ? body.command.trim().toLowerCase() : '';
    const text = typeof body.text === 'string' ? body.text.slice(0, 4_000) : '';
    if (!commands.some((c) => c.command === name))
      return { status: 200, body: { ok: false, error: 'not_a_command' } };
    const context = { teamId, channelId, userId };
    const result = await slashCommand(target, {
      command: name,
      text,
      teamId,
      userId,
      channelId,
      responseUrl: fake.newResponseUrl(context),
      triggerId: newTrigger(body),
    });
    const failure = slackFailure(result.status, result.ms);
    if (failure) return { status: 200, body: { ok: false, error: failure } };
    // Slack shows a command's immediate answer (the body of the ack) as a message, ephemeral unless in_channel.
    const immediate = immediateAnswer(result.body);
    if (immediate) await postToResponseUrl(fake.newResponseUrl(context), immediate);
    return { status: 200, body: { ok: true } };
  }

  async function action(body: Record<string, unknown>): Promise<Answer> {
    const actionId = stringField(body, 'actionId');
    const blockId = stringField(body, 'blockId');
    const value = stringField(body, 'value');
    if (actionId === undefined) return badRequest('actionId is required');
    const viewId = stringField(body, 'viewId');
    let payload: object;
    if (viewId !== undefined) {
      const view = findView(viewId);
      if (!view) return notFound('view');
      payload = buildBlockActionPayload({
        teamId,
        userId,
        channelId,
        responseUrl: '',
        triggerId: newTrigger(body, { viewId }),
        actionId,
        ...(blockId !== undefined && { blockId }),
        ...(value !== undefined && { value }),
        ...(value !== undefined && {
          selectedOption: { text: stringField(body, 'selectedText') ?? value, value },
        }),
        view,
        stateValues: buildStateValues(withGeneratedIds(view.blocks, view.id), inputsOf(body)),
      });
    } else {
      const message = liveMessage(stringField(body, 'channel') ?? '', stringField(body, 'ts') ?? '');
      if (!message) return notFound('message');
      payload = buildBlockActionPayload({
        teamId,
        userId,
        channelId: message.channel,
        responseUrl: fake.newResponseUrl({
          teamId,
          channelId: message.channel,
          userId,
          messageTs: message.ts,
        }),
        triggerId: newTrigger(body),
        actionId,
        ...(blockId !== undefined && { blockId }),
        ...(value !== undefined && { value }),
        messageTs: message.ts,
        isEphemeral: message.ephemeral,
        message,
      });
    }
    const result = await blockAction(target, payload);
    const failure = slackFailure(result.status, result.ms);
    return { status: 200, body: failure ? { ok: false, error: failure } : { ok: true } };
  }

  async function submit(body: Record<string, unknown>): Promise<Answer> {
    const viewId = stringField(body, 'viewId');
    const view = viewId === undefined ? undefined : findView(viewId);
    if (!view || viewId === undefined) return notFound('view');
    const blocks = withGeneratedIds(view.blocks, view.id);
    const values = buildStateValues(blocks, inputsOf(body));
    const checked = clientSideErrors(blocks, values);
    if (Object.keys(checked).length > 0)
      return { status: 200, body: { ok: true, action: 'errors', errors: checked } };
    const payload = buildViewSubmissionPayload({
      teamId,
      userId,
      callbackId: view.callback_id,
      viewId,
      privateMetadata: view.private_metadata,
      values,
      view,
      triggerId: newTrigger(body, { viewId }),
      responseUrls: submissionResponseUrls(blocks, values, (channel) =>
        fake.newResponseUrl({ teamId, channelId: channel, userId }),
      ),
    });
    const result = await viewSubmission(target, payload);
    const failure = slackFailure(result.status, result.ms);
    if (failure) return { status: 200, body: { ok: false, error: failure } };
    return { status: 200, body: { ok: true, ...submissionOutcome(result.body, view) } };
  }

  /** What Slack does with a view_submission answer: close, show errors, update or push a view. */
  function submissionOutcome(raw: string, current: FakeViewOutput): Record<string, unknown> {
    const answer = parseJsonObject(raw);
    const responseAction = answer?.response_action;
    if (responseAction === 'errors') return { action: 'errors', errors: answer?.errors ?? {} };
    if (responseAction === 'clear') return { action: 'clear' };
    if ((responseAction === 'update' || responseAction === 'push') && isRecord(answer?.view)) {
      const next = answer.view;
      const id = responseAction === 'update' ? current.id : `V${Date.now().toString(36).toUpperCase()}`;
      const stored: FakeViewOutput = {
        ...current,
        id,
        type: typeof next.type === 'string' ? next.type : current.type,
        blocks: Array.isArray(next.blocks) ? next.blocks : [],
        title: next.title ?? current.title,
        submit: next.submit ?? null,
        close: next.close ?? null,
        callback_id: typeof next.callback_id === 'string' ? next.callback_id : current.callback_id,
        private_metadata: typeof next.private_metadata === 'string' ? next.private_metadata : '',
        previous_view_id: responseAction === 'push' ? current.id : current.previous_view_id,
      };
      answeredViews.set(id, stored);
      return { action: responseAction, view: viewToClient(stored) };
    }
    return { action: 'close' };
  }

  async function health(res: ServerResponse): Promise<void> {
    if (!options.healthUrl) return send(res, 200, JSON.stringify({ ok: true }), 'application/json');
    try {
      const response = await fetch(options.healthUrl, { signal: AbortSignal.timeout(2_000) });
      send(res, response.status, await response.text(), 'application/json');
    } catch {
      send(res, 503, JSON.stringify({ ok: false, bot: 'down' }), 'application/json');
    }
  }

  const route: ExtraRoute = async (req, res, url) => {
    const { pathname } = url;
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (pathname === '/' || pathname === '/index.html') return sendAsset(res, PLAYGROUND_HTML, 'text/html');
      if (pathname === '/playground/app.js') return sendAsset(res, PLAYGROUND_SCRIPT, 'text/javascript');
      if (pathname === '/playground/app.css') return sendAsset(res, PLAYGROUND_CSS, 'text/css');
      if (pathname === '/playground/events') {
        events(req, res, clientIdOf(url.searchParams.get('client')));
        return true;
      }
      if (pathname === '/favicon.ico') {
        res.writeHead(204).end();
        return true;
      }
      if (pathname === '/healthz') {
        await health(res);
        return true;
      }
      return false;
    }
    const handlers: Record<string, (body: Record<string, unknown>) => Promise<Answer>> = {
      '/playground/command': command,
      '/playground/action': action,
      '/playground/submit': submit,
      ...homeRoutes({
        fake,
        target,
        teamId,
        userId,
        shortcuts: PLAYGROUND_SHORTCUTS,
        findView,
        liveMessage,
        newTrigger,
      }),
    };
    const handler = req.method === 'POST' ? handlers[pathname] : undefined;
    if (!handler) return false;
    const read = await readJsonRequest(req);
    const answer = 'error' in read ? read.error : await handler(read.body).catch(unexpected);
    send(res, answer.status, JSON.stringify(answer.body), 'application/json');
    return true;
  };

  const unmountRoute = fake.mount(route);
  const unmount = () => {
    unmountRoute();
    offViews();
  };
  return { url: `${fake.url}/`, unmount };
}
