import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basicCredentials, bearerToken, parseApiBody, type Reply, readBody, writeReply } from './http.js';
import { TsClock } from './ids.js';
import { MessageLog } from './messages.js';
import { chatMethods } from './methods/chat.js';
import { type FakeState, fail, type MethodResult, type MethodSpec } from './methods/common.js';
import { directoryMethods } from './methods/directory.js';
import { OAuthIssuer, oauthMethods } from './methods/oauth.js';
import { viewMethods } from './methods/views.js';
import { ChannelRateLimiter } from './rate-limit.js';
import { type ResponseUrlContext, ResponseUrls } from './response-url.js';
import type {
  ApiArgs,
  FakeChannel,
  FakeFailure,
  FakeHold,
  FakeMessage,
  FakeOAuthInstall,
  FakeSlackCall,
  FakeSlackOptions,
  FakeTeam,
  FakeUser,
  FakeView,
} from './types.js';
import { type TriggerContext, TriggerRegistry, ViewRegistry } from './views.js';
import { Workspace } from './workspace.js';

export type {
  FakeChannel,
  FakeFailure,
  FakeHold,
  FakeMessage,
  FakeOAuthInstall,
  FakeSlackCall,
  FakeSlackOptions,
  FakeTeam,
  FakeUser,
  FakeView,
} from './types.js';

export interface FakeSlack {
  /** `http://127.0.0.1:PORT/api/`: the bot's SLACK_API_URL, Bolt's `clientOptions.slackApiUrl`. */
  apiUrl: string;
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** The OAuth authorize page (Bolt's `installerOptions.authorizationUrl`); it approves at once. */
  authorizeUrl: string;
  /** A response_url the fake accepts, tied to a user and channel (and to the clicked message). */
  newResponseUrl(context: ResponseUrlContext): string;
  /** A trigger_id that views.open/push accept once, within 3 s. */
  newTriggerId(context?: TriggerContext): string;
  /** An OAuth code oauth.v2.access exchanges once, within 10 minutes, for this installation. */
  newOAuthCode(install?: Partial<FakeOAuthInstall>): string;
  /** Changes the installation the authorize page and later codes hand out (an org-wide install...). */
  setOAuthInstall(install: Partial<FakeOAuthInstall>): void;
  /** A bot token of that workspace (stable until reset). */
  tokenFor(teamId: string): string;
  calls: FakeSlackCall[];
  messages: FakeMessage[];
  views: FakeView[];
  /** Every Slack limit broken by a message or view received; tests assert it stays empty. */
  limitViolations: string[];
  users: Map<string, FakeUser>;
  channels: Map<string, FakeChannel>;
  teams: Map<string, FakeTeam>;
  addUser(user: Partial<FakeUser> & { id: string }): FakeUser;
  addChannel(channel: Partial<FakeChannel> & { id: string; name: string }): FakeChannel;
  addTeam(team: Partial<FakeTeam> & { id: string }): FakeTeam;
  /** What a person sees now: live messages, ephemeral ones only when they are `userId`'s. */
  visibleMessages(filter?: { channel?: string; userId?: string }): FakeMessage[];
  /**
   * The next `times` calls of a Web API method (or `response_url`) fail: `{ error }` answers
   * `{ ok: false, error }` (a response_url: HTTP 404 with that text), 429 carries Retry-After, 5xx is
   * an HTTP error.
   */
  failNext(method: string, failure: FakeFailure, times?: number): void;
  /**
   * The next call of a Web API method (queued after the failures and holds already queued for it) waits until the
   * test calls `release()`: it arrives (`arrived`), and is carried out and answered only then. A publish held is
   * one that reaches Slack late; a read held, one Slack answers late. `reset()` and `close()` release what is held.
   */
  holdNext(method: string): FakeHold;
  /** Drops the failures still queued (of one method, or all), leaving everything else as it is. */
  clearFailures(method?: string): void;
  /** Forgets calls, messages, views, violations, failures and tokens; restores the seed data. */
  reset(): void;
  on(event: 'message', listener: (message: FakeMessage) => void): () => void;
  on(event: 'view', listener: (view: FakeView) => void): () => void;
  on(event: 'message' | 'view', listener: (x: FakeMessage | FakeView) => void): () => void;
  /**
   * Serves more routes on the fake's port (the local playground). A route answers when it returns true;
   * the Web API, response_url and OAuth paths come first. Returns a function that unmounts it.
   */
  mount(route: ExtraRoute): () => void;
  close(): Promise<void>;
}

export type ExtraRoute = (req: IncomingMessage, res: ServerResponse, url: URL) => boolean | Promise<boolean>;

/** Arguments that arrive JSON-encoded in form bodies; calls record them decoded. */
const JSON_ARGS = ['blocks', 'attachments', 'view', 'metadata'];

function decodeArgs(args: ApiArgs): ApiArgs {
  const decoded: ApiArgs = { ...args };
  delete decoded.token;
  for (const name of JSON_ARGS) {
    const value = decoded[name];
    if (typeof value !== 'string') continue;
    try {
      decoded[name] = JSON.parse(value);
    } catch {
      // Left as is: the method answers invalid_blocks_format / invalid_arguments.
    }
  }
  return decoded;
}

type AnsweredFailure = Exclude<FakeFailure, { dropReply: true } | { delayMs: number } | { until: unknown }>;

function failureResult(failure: AnsweredFailure): MethodResult {
  if ('error' in failure) return fail(failure.error);
  if (failure.status === 429) {
    return {
      status: 429,
      headers: { 'retry-after': String(failure.retryAfterSec) },
      body: { ok: false, error: 'ratelimited' },
    };
  }
  return { status: failure.status, body: { ok: false, error: 'fatal_error' } };
}

interface QueuedFailure {
  failure: FakeFailure;
  remaining: number;
  /** Told the call that took it (holdNext's `arrived`). */
  onTaken?: (call: FakeSlackCall) => void;
}

class FailureQueue {
  private readonly queued = new Map<string, QueuedFailure[]>();

  add(method: string, failure: FakeFailure, times: number, onTaken?: (call: FakeSlackCall) => void): void {
    const list = this.queued.get(method) ?? [];
    list.push({ failure, remaining: times, ...(onTaken && { onTaken }) });
    this.queued.set(method, list);
  }

  take(method: string, call: FakeSlackCall): FakeFailure | undefined {
    const next = this.queued.get(method)?.[0];
    if (next === undefined) return undefined;
    next.remaining -= 1;
    if (next.remaining <= 0) this.queued.get(method)?.shift();
    next.onTaken?.(call);
    return next.failure;
  }

  clear(method?: string): void {
    if (method === undefined) this.queued.clear();
    else this.queued.delete(method);
  }
}

/** Starts the fake Slack (Web API, response_url, OAuth authorize) on a local port. */
export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const now = options.now ?? Date.now;
  const messageListeners = new Set<(message: FakeMessage) => void>();
  const viewListeners = new Set<(view: FakeView) => void>();
  const workspace = new Workspace(options);
  const state: FakeState = {
    now,
    workspace,
    log: new MessageLog(new TsClock(now), now, (m) => {
      for (const listener of messageListeners) listener(m);
    }),
    views: new ViewRegistry(now, (v) => {
      for (const listener of viewListeners) listener(v);
    }),
    triggers: new TriggerRegistry(now),
    rate:
      options.enforceChannelRate === false
        ? undefined
        : new ChannelRateLimiter(options.channelBurst ?? 4, now),
    violations: [],
  };
  const oauth = new OAuthIssuer(workspace, now, options.oauth);
  const responseUrls = new ResponseUrls(state);
  const methods: Record<string, MethodSpec> = {
    ...chatMethods,
    ...viewMethods,
    ...directoryMethods,
    ...oauthMethods(oauth),
  };
  const failures = new FailureQueue();
  /** Releases of the holds not yet released, for reset() and close(). */
  const holds = new Set<() => void>();
  const calls: FakeSlackCall[] = [];
  const extraRoutes = new Set<ExtraRoute>();

  function dispatch(
    method: string,
    args: ApiArgs,
    token: string | undefined,
    req: IncomingMessage,
    failure: FakeFailure | undefined,
  ): MethodResult {
    if (failure === undefined || 'until' in failure) return carryOut(method, args, token, req);
    if ('delayMs' in failure) return { ...carryOut(method, args, token, req), delayMs: failure.delayMs };
    if ('dropReply' in failure) return { ...carryOut(method, args, token, req), dropReply: true };
    return failureResult(failure);
  }

  function carryOut(
    method: string,
    args: ApiArgs,
    token: string | undefined,
    req: IncomingMessage,
  ): MethodResult {
    const spec = methods[method];
    if (spec === undefined) return fail('unknown_method');
    if (spec.kind === 'public') return spec.run({ args, basic: basicCredentials(req), state });
    const auth = workspace.authenticate(token);
    if (!auth.ok) return fail(auth.error);
    const { caller } = auth;
    const scopeHeaders = {
      'x-oauth-scopes': caller.scopes.join(','),
      'x-accepted-oauth-scopes': (spec.scopes ?? []).join(','),
    };
    if (spec.scopes !== undefined && !spec.scopes.some((s) => caller.scopes.includes(s))) {
      const result = fail('missing_scope', { needed: spec.scopes[0], provided: caller.scopes.join(',') });
      return { ...result, headers: scopeHeaders };
    }
    const result = spec.run({ args, caller, state });
    return { ...result, headers: { ...scopeHeaders, ...result.headers } };
  }

  async function handleApi(
    method: string,
    req: IncomingMessage,
    res: ServerResponse,
    query: URLSearchParams,
  ) {
    const parsed = parseApiBody(req.headers['content-type'], await readBody(req), query);
    const rawArgs = parsed.kind === 'error' ? {} : parsed.args;
    const bodyToken = parsed.kind === 'form' && typeof rawArgs.token === 'string' ? rawArgs.token : undefined;
    const token = bearerToken(req) ?? bodyToken;
    const args = decodeArgs(rawArgs);
    const call: FakeSlackCall = { method, token, args, at: now(), status: 200, ok: false };
    calls.push(call);
    const failure = parsed.kind === 'error' ? undefined : failures.take(method, call);
    // Held (holdNext): arrived, and carried out only once released, whenever that is.
    if (failure !== undefined && 'until' in failure) await failure.until.catch(() => undefined);
    const result = parsed.kind === 'error' ? fail(parsed.error) : dispatch(method, args, token, req, failure);
    call.status = result.status ?? 200;
    call.ok = result.body.ok === true;
    if (typeof result.body.error === 'string') call.error = result.body.error;
    if (result.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, result.delayMs));
    if (result.dropReply) {
      // Carried out, but the caller never hears so (failNext with dropReply).
      call.error = 'reply_dropped';
      res.socket?.destroy();
      return;
    }
    call.answeredAt = now();
    writeReply(res, { status: call.status, body: result.body, headers: result.headers });
  }

  async function handleResponseUrl(id: string, req: IncomingMessage, res: ServerResponse) {
    const raw = await readBody(req);
    const call: FakeSlackCall = { method: 'response_url', args: {}, at: now(), status: 200, ok: false };
    calls.push(call);
    let reply: Reply;
    const taken = failures.take('response_url', call);
    // holdNext is for API methods: a hold queued for response_url is not waited for.
    const failure = taken !== undefined && 'until' in taken ? undefined : taken;
    const body = parseResponseBody(req.headers['content-type'], raw);
    if (failure !== undefined && 'dropReply' in failure && body !== undefined) {
      call.args = body;
      const shown = responseUrls.post(id, body);
      call.status = shown.status;
      call.ok = shown.status === 200;
      call.error = 'reply_dropped';
      res.socket?.destroy();
      return;
    }
    if (failure !== undefined && 'delayMs' in failure)
      await new Promise((resolve) => setTimeout(resolve, failure.delayMs));
    if (failure !== undefined && !('dropReply' in failure) && !('delayMs' in failure)) {
      const result = failureResult(failure);
      reply =
        'error' in failure
          ? { status: 404, body: failure.error }
          : { status: result.status ?? 200, body: result.body, headers: result.headers };
    } else if (body === undefined) {
      reply = { status: 400, body: 'invalid_payload' };
    } else {
      call.args = body;
      reply = responseUrls.post(id, body);
    }
    call.status = reply.status;
    call.ok = reply.status === 200;
    if (!call.ok) call.error = typeof reply.body === 'string' ? reply.body : 'fatal_error';
    writeReply(res, reply);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake-slack.local');
    const path = url.pathname;
    if (path.startsWith('/api/') && (req.method === 'POST' || req.method === 'GET')) {
      return handleApi(decodeURIComponent(path.slice('/api/'.length)), req, res, url.searchParams);
    }
    if (path.startsWith('/response/') && req.method === 'POST') {
      return handleResponseUrl(decodeURIComponent(path.slice('/response/'.length)), req, res);
    }
    if (path === '/oauth/v2/authorize' && req.method === 'GET')
      return writeReply(res, oauth.authorize(url.searchParams));
    for (const route of extraRoutes) if (await route(req, res, url)) return;
    writeReply(res, { status: 404, body: 'not_found' });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (res.headersSent) res.destroy();
      else writeReply(res, { status: 500, body: { ok: false, error: 'fatal_error' } });
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const publicHost =
    host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const baseUrl = `http://${publicHost}:${port}`;

  function on(event: 'message', listener: (message: FakeMessage) => void): () => void;
  function on(event: 'view', listener: (view: FakeView) => void): () => void;
  function on(event: 'message' | 'view', listener: (x: FakeMessage | FakeView) => void): () => void;
  function on(event: 'message' | 'view', listener: (x: never) => void): () => void {
    const set = (event === 'message' ? messageListeners : viewListeners) as Set<(x: never) => void>;
    set.add(listener);
    return () => set.delete(listener);
  }

  return {
    apiUrl: `${baseUrl}/api/`,
    url: baseUrl,
    authorizeUrl: `${baseUrl}/oauth/v2/authorize`,
    newResponseUrl: (context) => `${baseUrl}/response/${encodeURIComponent(responseUrls.create(context))}`,
    newTriggerId: (context) => state.triggers.issue(context),
    newOAuthCode: (install) => oauth.newCode(install),
    setOAuthInstall: (install) => {
      oauth.install = { ...oauth.install, ...install };
    },
    tokenFor: (teamId) => workspace.tokenFor(teamId),
    calls,
    messages: state.log.messages,
    views: state.views.records,
    limitViolations: state.violations,
    users: workspace.users,
    channels: workspace.channels,
    teams: workspace.teams,
    addUser: (user) => workspace.addUser(user),
    addChannel: (channel) => workspace.addChannel(channel),
    addTeam: (team) => workspace.addTeam(team),
    visibleMessages: (filter) => state.log.visible(filter),
    failNext: (method, failure, times = 1) => failures.add(method, failure, times),
    holdNext: (method) => {
      let release: () => void = () => undefined;
      const until = new Promise<void>((resolve) => {
        release = () => {
          holds.delete(release);
          resolve();
        };
      });
      holds.add(release);
      let arrive: (call: FakeSlackCall) => void = () => undefined;
      const arrived = new Promise<FakeSlackCall>((resolve) => {
        arrive = resolve;
      });
      failures.add(method, { until }, 1, arrive);
      return { arrived, release };
    },
    clearFailures: (method) => failures.clear(method),
    reset: () => {
      for (const release of [...holds]) release();
      calls.length = 0;
      state.log.clear();
      state.views.clear();
      state.triggers.clear();
      state.violations.length = 0;
      state.rate?.reset();
      failures.clear();
      responseUrls.clear();
      workspace.reset();
      oauth.reset();
    },
    on,
    mount: (route) => {
      extraRoutes.add(route);
      return () => extraRoutes.delete(route);
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const release of [...holds]) release();
        messageListeners.clear();
        viewListeners.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** A response_url body: JSON, or a form with `payload=<JSON>` (both work on Slack's hooks). */
function parseResponseBody(contentType: string | undefined, raw: string): ApiArgs | undefined {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  try {
    const json =
      type === 'application/x-www-form-urlencoded' ? (new URLSearchParams(raw).get('payload') ?? '') : raw;
    const parsed: unknown = JSON.parse(json);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as ApiArgs)
      : undefined;
  } catch {
    return undefined;
  }
}
