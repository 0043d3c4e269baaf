import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ListenOptions } from 'node:net';
import {
  App,
  type AppOptions,
  type Logger as BoltLogger,
  type CustomRoute,
  HTTPModuleFunctions,
  HTTPReceiver,
  LogLevel,
  type ReceiverEvent,
  type ReceiverProcessEventErrorHandlerArgs,
} from '@slack/bolt';
import type { Config } from '../config.js';
import { errFields, type Logger } from '../lib/logger.js';
import type { SlackInstallationStore } from '../store/installation-store.js';
import type { KeyValue } from '../store/kv.js';
import { registerActions } from './actions/index.js';
import { registerCommands } from './commands/index.js';
import type { SlackDeps } from './deps.js';
import { registerChatHelp } from './events/chat-help.js';
import { registerUninstallEvents } from './events/uninstall.js';
import { RejectedRequestError, RequestGuard, signedHeaders } from './request-guard.js';
import { retryingFetch } from './response-url.js';
import { registerLinkModal } from './views/link-modal.js';
import { INTERACTIVE_WEB_CLIENT } from './web-clients.js';

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
  /** Overrides for tests: the signing secret and bot token when config has none. */
  signingSecret?: string;
  botToken?: string;
}

/**
 * Bolt wiring only: receivers do transport, listeners live in commands/, actions/, views/, events/.
 * HTTP receiver at POST /slack/events (GET /healthz beside it); Socket Mode when SLACK_APP_TOKEN is set;
 * one workspace with SLACK_BOT_TOKEN, or OAuth with installations kept in the store.
 */
export function buildSlackApp(options: SlackAppOptions): App {
  const { config, deps } = options;
  const customRoutes: CustomRoute[] = [
    { path: '/healthz', method: ['GET'], handler: healthHandler(options.kv) },
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
    : undefined;
  const common = {
    logger,
    clientOptions: {
      slackApiUrl: config.SLACK_API_URL,
      ...INTERACTIVE_WEB_CLIENT,
      // Bolt's respond() fetches through this: response_url posts are retried there (response-url.ts).
      fetch: retryingFetch({ webApiUrl: config.SLACK_API_URL }),
    },
    ...(!config.oauth && { token: options.botToken ?? config.SLACK_BOT_TOKEN }),
  };
  const guard = new RequestGuard({ seen: deps.seenRequests, logger: deps.logger, now: Date.now });
  const app = config.SLACK_APP_TOKEN
    ? new GuardedApp(guard, {
        ...common,
        ...oauthOptions,
        customRoutes,
        socketMode: true,
        appToken: config.SLACK_APP_TOKEN,
        // Socket Mode serves /healthz (and OAuth, if configured) on its own HTTP server, on PORT.
        ...(!config.oauth && { installerOptions: { port: config.PORT } }),
      })
    : new GuardedApp(guard, {
        ...common,
        // Built here rather than by Bolt: it hands the signature headers to the guard and answers its refusals 401.
        receiver: new HTTPReceiver({
          signingSecret: options.signingSecret ?? config.SLACK_SIGNING_SECRET ?? '',
          endpoints: '/slack/events',
          processBeforeResponse: false,
          customRoutes,
          logger,
          ...oauthOptions,
          customPropertiesExtractor: signedHeaders,
          processEventErrorHandler: refuseOr401,
        }),
      });

  registerCommands(app, deps);
  registerActions(app, deps);
  registerLinkModal(app, deps);
  registerUninstallEvents(app, deps, options.installations);
  registerChatHelp(app, deps);
  app.error(async (error) => {
    deps.logger.error(errFields(error), 'bolt error');
  });
  return app;
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
 * Starts the app (Bolt's `start` arguments: a port, or a listen options object) and, on the HTTP receiver,
 * has background work yield to requests waiting for their ack (see ack-priority.ts). Returns what Bolt's
 * `start` returned: the HTTP server, or Socket Mode's client.
 */
export async function startSlackApp(
  app: App,
  deps: Pick<SlackDeps, 'tasks'>,
  listen: number | ListenOptions,
): Promise<unknown> {
  const started: unknown = await app.start(listen);
  deps.tasks.priority.watch(started);
  return started;
}

function healthHandler(kv: KeyValue) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    kv.ping().then(
      (up) => {
        res.writeHead(up ? 200 : 503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: up, store: up ? 'up' : 'down' }));
      },
      () => {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: false, store: 'down' }));
      },
    );
  };
}

/** Bolt's logger interface over pino, so Bolt's own lines are structured too. */
function boltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: 'bolt' });
  let level: LogLevel = LogLevel.INFO;
  return {
    debug: (...msg: unknown[]) => child.debug(msg.map(String).join(' ')),
    info: (...msg: unknown[]) => child.info(msg.map(String).join(' ')),
    warn: (...msg: unknown[]) => child.warn(msg.map(String).join(' ')),
    error: (...msg: unknown[]) => child.error(msg.map(String).join(' ')),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
