import { type IncomingMessage, Server, type ServerResponse } from 'node:http';
import type { ListenOptions } from 'node:net';
import {
  App,
  type AppOptions,
  AuthorizationError,
  type Authorize,
  type CustomRoute,
  HTTPModuleFunctions,
  HTTPReceiver,
  type ReceiverEvent,
  type ReceiverProcessEventErrorHandlerArgs,
  SocketModeReceiver,
  webApi,
} from '@slack/bolt';
import type { Config } from '../config.js';
import { systemClock } from '../lib/clock.js';
import { errFields } from '../lib/logger.js';
import { OutageLog } from '../lib/outage-log.js';
import type { SlackInstallationStore } from '../store/installation-store.js';
import type { KeyValue } from '../store/kv.js';
import { registerActions } from './actions/index.js';
import { BotIdentity, type BotIds, singleWorkspaceAuthorize } from './bot-identity.js';
import { registerCommands } from './commands/index.js';
import type { SlackDeps } from './deps.js';
import { registerChatHelp } from './events/chat-help.js';
import { registerUninstallEvents } from './events/uninstall.js';
import { registerHome } from './home/index.js';
import {
  RejectedRequestError,
  RequestGuard,
  refuseNonObjectBodies,
  SLACK_BODY_LIMIT,
  signedHeaders,
} from './request-guard.js';
import { retryingFetch } from './response-url.js';
import { boltLogger, socketConnectionLogger, webApiLogger } from './slack-logger.js';
import { meteredFetch, metricsHandler, timeAcks } from './slack-metrics.js';
import { registerLinkModal } from './views/link-modal.js';
import { IDENTITY_WEB_CLIENT, INTERACTIVE_WEB_CLIENT } from './web-clients.js';

/** The scopes the bot uses, and no more (manifest.yml lists the same, and says why each). */
export const BOT_SCOPES = [
  'commands',
  'chat:write',
  'users:read',
  'users:read.email',
  'app_mentions:read',
  'im:history',
];

export interface SlackAppOptions {
  config: Config;
  deps: SlackDeps;
  /** Storage whose health `/healthz` reports. */
  kv: KeyValue;
  installations: SlackInstallationStore | null;
  /** True once the replica stops (SIGTERM): `/healthz` answers 503 at once while the server still drains. */
  stopping?: () => boolean;
  /**
   * Single-workspace install: the bot's ids as the replica's start-up check read them (`auth.test`), so that no
   * request asks again; unset, they are asked when a request first needs them (bot-identity.ts).
   */
  botIds?: BotIds | null;
  /** Overrides for tests: the signing secret and bot token when config has none. */
  signingSecret?: string;
  botToken?: string;
}

/**
 * Bolt wiring only: receivers do transport, listeners live in commands/, actions/, views/, events/.
 * HTTP receiver at POST /slack/events (GET /healthz, /livez and /metrics beside it); Socket Mode when SLACK_APP_TOKEN is set;
 * one workspace with SLACK_BOT_TOKEN, or OAuth with installations kept in the store.
 */
export function buildSlackApp(options: SlackAppOptions): App {
  const { config, deps } = options;
  // Socket Mode: healthy only while the websocket is connected (HTTP mode: while the server serves, trivially).
  const socket = { connected: false };
  const socketMode = Boolean(config.SLACK_APP_TOKEN);
  const customRoutes: CustomRoute[] = [
    {
      path: '/healthz',
      method: ['GET'],
      handler: healthHandler(options.kv, socketMode ? () => socket.connected : () => true, options.stopping),
    },
    { path: '/livez', method: ['GET'], handler: liveHandler },
    { path: '/metrics', method: ['GET'], handler: metricsHandler(deps.metrics, config.METRICS_TOKEN) },
  ];
  const logger = boltLogger(deps.logger);
  const oauthOptions = config.oauth
    ? {
        clientId: config.SLACK_CLIENT_ID,
        clientSecret: config.SLACK_CLIENT_SECRET,
        stateSecret: config.SLACK_STATE_SECRET,
        scopes: BOT_SCOPES,
        installationStore: options.installations ?? undefined,
        installerOptions: {
          directInstall: true,
          installPath: '/slack/install',
          redirectUriPath: '/slack/oauth_redirect',
          clientOptions: { slackApiUrl: config.SLACK_API_URL },
          // The authorize page lives beside the Web API: slack.com/oauth/v2/authorize, slack-gov.com/...
          authorizationUrl: new URL('../oauth/v2/authorize', config.SLACK_API_URL).toString(),
          port: config.PORT,
        },
      }
    : null;
  const clientOptions = {
    slackApiUrl: config.SLACK_API_URL,
    ...INTERACTIVE_WEB_CLIENT,
    // Bolt's Web API clients and respond() fetch through this: response_url posts are retried there
    // (response-url.ts), and every attempt's Slack error is counted by method (slack-metrics.ts).
    fetch: retryingFetch({
      webApiUrl: config.SLACK_API_URL,
      fetch: meteredFetch(deps.metrics, config.SLACK_API_URL),
    }),
  };
  const common = {
    logger,
    // Bolt gives its clients its logger (`logger` above) itself.
    clientOptions,
    // app.error gets the request's body: an authorization failure is answered through the guard (below).
    extendedErrorHandler: true,
    ...(oauthOptions ?? { authorize: singleWorkspace(options) }),
  };
  const guard = new RequestGuard({
    seen: deps.seenRequests,
    logger: deps.logger,
    now: Date.now,
    ...(deps.clock && { clock: deps.clock }),
  });
  let app: App;
  if (config.SLACK_APP_TOKEN) {
    const outage = new OutageLog({
      logger: deps.logger.child({ component: 'socket-mode' }),
      clock: deps.clock ?? systemClock,
      messages: {
        first:
          'cannot reach Slack to open the Socket Mode connection (apps.connections.open, SLACK_API_URL); retrying',
        reminder:
          'still cannot reach Slack to open the Socket Mode connection (apps.connections.open, SLACK_API_URL)',
        ended: 'Socket Mode connected: Slack reached again',
      },
    });
    // Built here rather than by Bolt so that /healthz can see the websocket's state.
    const receiver = new SocketModeReceiver({
      appToken: config.SLACK_APP_TOKEN,
      // The socket client's and its Web API client's lines: apps.connections.open's failed attempts are one outage.
      logger: socketConnectionLogger(deps.logger, outage, () => socket.connected),
      customRoutes,
      // Socket Mode serves /healthz (and OAuth, if configured) on its own HTTP server, on PORT. Bolt hands
      // installerOptions.clientOptions to the socket client too: its apps.connections.open goes to SLACK_API_URL,
      // as every other call does (without it, slack.com, whatever SLACK_API_URL said).
      installerOptions: oauthOptions?.installerOptions ?? {
        port: config.PORT,
        clientOptions: { slackApiUrl: config.SLACK_API_URL },
      },
      ...(oauthOptions && {
        clientId: oauthOptions.clientId,
        clientSecret: oauthOptions.clientSecret,
        stateSecret: oauthOptions.stateSecret,
        scopes: oauthOptions.scopes,
        installationStore: oauthOptions.installationStore,
      }),
    });
    receiver.client.on('connected', () => {
      socket.connected = true;
      outage.recovered();
    });
    for (const state of ['disconnecting', 'disconnected', 'reconnecting', 'connecting'])
      receiver.client.on(state, () => {
        socket.connected = false;
      });
    app = new GuardedApp(guard, { ...common, receiver });
  } else {
    const signingSecret = options.signingSecret ?? config.SLACK_SIGNING_SECRET ?? '';
    const endpoints = ['/slack/events'];
    // Built here rather than by Bolt: it hands the signature headers to the guard and answers its refusals 401.
    const receiver = new HTTPReceiver({
      signingSecret,
      endpoints,
      processBeforeResponse: false,
      customRoutes,
      logger,
      ...oauthOptions,
      bodyLimit: SLACK_BODY_LIMIT,
      customPropertiesExtractor: signedHeaders,
      processEventErrorHandler: refuseOr401,
    });
    // A body Bolt cannot be given (JSON null) is refused before it reads it: see request-guard.ts.
    receiver.requestListener = refuseNonObjectBodies(receiver.requestListener, {
      endpoints,
      signingSecret,
      logger: deps.logger,
    });
    app = new GuardedApp(guard, { ...common, receiver });
  }

  timeAcks(app, deps.metrics);
  registerCommands(app, deps);
  registerActions(app, deps);
  registerLinkModal(app, deps);
  registerUninstallEvents(app, deps, options.installations);
  registerChatHelp(app, deps);
  registerHome(app, deps);
  app.error(async ({ error, body }: { error: Error; body: unknown }) => {
    // A replay's ack, refused in the listener: the guard logged it and the receiver answers 401.
    if (error instanceof RejectedRequestError) return;
    deps.logger.error(errFields(error), 'bolt error');
    // Bolt acks it with nothing once this returns: the guard tells the user nothing was done first.
    if (error instanceof AuthorizationError) await guard.authorizationFailed(body, error);
  });
  return app;
}

/** One workspace's authorization (SLACK_BOT_TOKEN): see bot-identity.ts. */
function singleWorkspace(options: SlackAppOptions): Authorize<boolean> {
  const { config, deps } = options;
  const botToken = options.botToken ?? config.SLACK_BOT_TOKEN ?? '';
  const client = new webApi.WebClient(botToken, {
    slackApiUrl: config.SLACK_API_URL,
    ...IDENTITY_WEB_CLIENT,
    fetch: meteredFetch(deps.metrics, config.SLACK_API_URL),
    // BotIdentity says a failure once per outage; the client's line for each attempt is debug.
    logger: webApiLogger(deps.logger, { quiet: true }),
  });
  const identity = new BotIdentity({
    ask: async () => {
      const answer = await client.auth.test();
      return { teamId: answer.team_id, botUserId: answer.user_id, botId: answer.bot_id };
    },
    known: options.botIds ?? null,
    logger: deps.logger,
    now: deps.now,
  });
  return singleWorkspaceAuthorize(identity, botToken);
}

/** Bolt's App, with every event going through the guard first (see request-guard.ts). */
class GuardedApp extends App {
  constructor(
    private readonly guard: RequestGuard,
    options: AppOptions,
  ) {
    super(options);
  }

  override processEvent(event: ReceiverEvent): Promise<void> {
    return this.guard.process(event, (guarded) => super.processEvent(guarded));
  }
}

/** A request the guard refused gets 401, as a bad signature does; anything else goes to Bolt's handler. */
async function refuseOr401(args: ReceiverProcessEventErrorHandlerArgs): Promise<boolean> {
  if (args.error instanceof RejectedRequestError && !args.response.headersSent) {
    args.response.writeHead(401);
    args.response.end();
    return true;
  }
  return HTTPModuleFunctions.defaultProcessEventErrorHandler(args);
}

/**
 * How long the HTTP server keeps an idle connection open: longer than the idle timeout of the load balancers in front
 * (60 s on AWS ALB, GCP and nginx's upstream keepalive), so that the balancer, not the bot, closes an idle
 * connection. Node's 5 s closed it while a balancer could be sending a request on it: a 502 now and then.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * Starts the app (Bolt's `start` arguments: a port, or a listen options object) and, on the HTTP receiver,
 * has background work yield to requests waiting for their ack (see ack-priority.ts) and keeps idle connections
 * for KEEP_ALIVE_TIMEOUT_MS. Returns what Bolt's `start` returned: the HTTP server, or Socket Mode's client.
 */
export async function startSlackApp(
  app: App,
  deps: Pick<SlackDeps, 'tasks'>,
  listen: number | ListenOptions,
): Promise<unknown> {
  const started: unknown = await app.start(listen);
  if (started instanceof Server) {
    started.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    // Above the keep-alive timeout, or Node may close a connection whose next request's headers are on their way.
    started.headersTimeout = KEEP_ALIVE_TIMEOUT_MS + 1_000;
  }
  deps.tasks.priority.watch(started);
  return started;
}

/**
 * Liveness: `200 {"ok":true}` whenever the process answers at all (its event loop runs), whatever Redis, Slack or the
 * upstream do. `/healthz` is readiness: it fails while Redis is away, and a liveness probe on it would restart every
 * replica through a Redis outage.
 */
export function liveHandler(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ ok: true }));
}

/**
 * `200 {"ok":true,"store":"up"}` while the store answers (and, in Socket Mode, the websocket is connected);
 * `503 {"ok":false,"stopping":true}` at once once the replica stops, so that load balancers take it out of rotation
 * while it still answers.
 */
export function healthHandler(
  kv: KeyValue,
  transportUp: () => boolean = () => true,
  stopping: () => boolean = () => false,
) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    if (stopping()) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: false, stopping: true }));
      return;
    }
    const answer = (store: boolean) => {
      const socket = transportUp();
      const ok = store && socket;
      res.writeHead(ok ? 200 : 503, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ ok, store: store ? 'up' : 'down', ...(!socket && { socket: 'disconnected' }) }),
      );
    };
    kv.ping().then(answer, () => answer(false));
  };
}
