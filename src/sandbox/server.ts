import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADMIN_PREFIX, isAdminPath, serveAdmin } from './admin.js';
import { type FormFields, TokenIssuer } from './auth-issuer.js';
import type { AdvanceRequest, SandboxChange } from './changes.js';
import { type AutoAdvance, SandboxControl } from './control.js';
import { buildDemoData } from './data.js';
import { FaultQueue, type FaultSpec, type SandboxFaults } from './faults.js';
import {
  JSON_TYPE,
  PROBLEM_TYPE,
  problem,
  type Reply,
  ReplyError,
  readBody,
  unexpectedError,
  writeReply,
} from './http-util.js';
import type { SandboxData } from './model.js';
import type { PageLimit } from './query.js';
import { SlidingWindowLimiter } from './rate-limit.js';
import { bearerToken, matchDataRoute, serveData } from './routes.js';

export type {
  AdvanceRequest,
  ChangeKind,
  NewRequestChange,
  ReceiptChange,
  SandboxChange,
  StatusChange,
} from './changes.js';
export { CHANGE_KINDS } from './changes.js';
export type { AutoAdvance } from './control.js';
export { SandboxControlError } from './control.js';
export type { FaultSpec, FaultStatus, SandboxFaults } from './faults.js';
export type { SandboxData } from './model.js';

export interface SandboxOptions {
  /** 0 = a free port (default). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Per credential (login), sliding window, counting login, refresh and data calls. Default 250 per hour. */
  rateLimit?: { count: number; windowMs: number };
  /** Access token lifetime, default 2 h. */
  tokenTtlMs?: number;
  /** Refresh token lifetime, default 7 days. */
  refreshTtlMs?: number;
  /** Clock, default Date.now; tests may move time. Demo data dates are offsets from its value at start. */
  now?: () => number;
  /** Artificial latency of every data call, default 0. */
  latencyMs?: number;
  /**
   * Generated companies besides the demo ones (default 0, at most 10,000): empresa 3 .. 2 + N, each with the
   * login `empresaN` / `empresaN` and a small dataset of its own, built on its first use.
   */
  extraCompanies?: number;
  /** Seed of every advance's choices (default 1): same seed and same advances, same changes. */
  seed?: number;
  /** Advances the data by itself at this period (default never); see `autoAdvance` for what each tick does. */
  advanceEveryMs?: number;
  /** What each automatic tick does: one company picked (seeded) among `empresaIds`, `changes` changes. */
  autoAdvance?: AutoAdvance;
  /**
   * Told of every advance made (in-process, over the admin route or by the timer), with the clock's time it was
   * made at: with the same `now` at start and the same seed, making them again in order gives the same data.
   */
  onAdvance?: (request: AdvanceRequest, at: number) => void;
}

export interface SandboxCall {
  at: number;
  method: string;
  /** Path without the query string. */
  path: string;
  /** Path with the query string, as received. */
  url: string;
  /** The login the call is attributed to: from the token for data and refresh calls, from the form for logins. */
  login: string | null;
  /** Status answered; 0 while pending or when the connection was dropped by a fault. */
  status: number;
  kind: 'login' | 'refresh' | 'data';
  /** For a staged `huge` answer: body bytes written, and whether the client went away before the end. */
  streamed?: { bytes: number; complete: boolean };
}

export interface Sandbox {
  /** The service `{base_url}` (UPSTREAM_BASE_URL). */
  baseUrl: string;
  /** The token issuer `{auth_url}` (UPSTREAM_AUTH_URL): login is POST /auth/v1/auth/, refresh POST /auth/v1/auth/refresh. */
  authUrl: string;
  port: number;
  /** Every request received, in order. */
  calls: SandboxCall[];
  faults: SandboxFaults;
  /** The data served (read it to find ids; change it only through `advance`). */
  data: SandboxData;
  /** The sandbox-only control routes: POST `${adminUrl}/advance`, GET `${adminUrl}/changes?since=SEQ`. */
  adminUrl: string;
  /**
   * Moves a company's data along (default company 1, one change of any kind) and returns what changed, also
   * appended to `changes`. Throws SandboxControlError (status 400 or 404) for a bad request.
   */
  advance(request?: AdvanceRequest): SandboxChange[];
  /** Every change made so far, by `advance`, the admin route or the timer, in order (seq 1, 2, ...). */
  readonly changes: readonly SandboxChange[];
  /**
   * Serves at most `rows` rows a page of the paginated lists, whatever PageSize asks (null: as asked), as a service
   * may: the allowed range of PageSize on the stockroom lists is not documented. Rows keep their rowNumber and
   * totalRows, and Page counts pages of the size served. `over: 'refuse'` answers a larger PageSize with a 400
   * ProblemDetails naming PageSize instead, as another service may.
   */
  servePagesOf(rows: number | null, over?: PageLimit['over']): void;
  /**
   * The request list states `total` as the totalRows of every row, whatever the true total (null: the true one), as
   * a service whose count is wrong or stale may; the rows and their rowNumber stay true.
   */
  stateTotalRows(total: number | null): void;
  expireAccessTokens(login?: string): void;
  expireRefreshTokens(login?: string): void;
  endSessions(login?: string): void;
  close(): Promise<void>;
}

const AUTH_PREFIX = '/auth';
const HOUR = 3_600_000;

function trimSlash(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

function kindOf(path: string): SandboxCall['kind'] {
  if (path === `${AUTH_PREFIX}/v1/auth`) return 'login';
  if (path === `${AUTH_PREFIX}/v1/auth/refresh`) return 'refresh';
  return 'data';
}

function formFields(entries: Iterable<[string, unknown]>): FormFields {
  const fields: FormFields = new Map();
  for (const [name, value] of entries) {
    const key = name.toLowerCase();
    if (!fields.has(key) && typeof value === 'string') fields.set(key, value);
  }
  return fields;
}

function parsingError(expected: string, instance: string): ReplyError {
  return new ReplyError(
    problem(400, `Falha ao ler o corpo da requisição: o formato esperado é ${expected}.`, instance, {
      title: 'Erro de leitura (parsing) da requisição.',
    }),
  );
}

/** Reads the token calls' forms: login takes multipart/form-data only, refresh urlencoded only. */
async function readForm(
  req: IncomingMessage,
  kind: 'login' | 'refresh',
  instance: string,
): Promise<FormFields> {
  const contentType = req.headers['content-type'] ?? '';
  const body = await readBody(req);
  if (kind === 'refresh') {
    if (!/^application\/x-www-form-urlencoded\b/i.test(contentType)) {
      throw parsingError('application/x-www-form-urlencoded', instance);
    }
    return formFields(new URLSearchParams(body.toString('utf8')));
  }
  if (!/^multipart\/form-data\b/i.test(contentType)) throw parsingError('multipart/form-data', instance);
  try {
    const form = await new Request('http://sandbox.local/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    }).formData();
    return formFields(form.entries());
  } catch {
    throw parsingError('multipart/form-data', instance);
  }
}

function faultReply(fault: FaultSpec, status: number, instance: string): Reply {
  const headers = fault.headers;
  if (fault.body !== undefined) {
    return {
      status,
      body: fault.body,
      contentType: fault.contentType ?? (status === 500 ? JSON_TYPE : PROBLEM_TYPE),
      headers,
    };
  }
  const base = status === 500 ? unexpectedError() : problem(status, 'Falha simulada pelo sandbox.', instance);
  return { ...base, contentType: fault.contentType ?? base.contentType, headers };
}

/**
 * A staged huge answer: a JSON array of about `bytes` bytes written chunk by chunk, waiting for the client to read
 * (backpressure), so that a client that stops reading early is seen as such in `call.streamed`.
 */
async function streamHuge(
  res: ServerResponse,
  call: SandboxCall,
  huge: NonNullable<FaultSpec['huge']>,
): Promise<void> {
  const row = JSON.stringify(huge.row ?? { filler: 'x'.repeat(200) });
  const rows = Math.max(1, Math.floor((huge.bytes - 2) / (row.length + 1)));
  const total = 2 + rows * row.length + (rows - 1);
  const streamed = { bytes: 0, complete: false };
  call.streamed = streamed;
  res.writeHead(200, {
    'Content-Type': JSON_TYPE,
    ...(huge.declareLength ? { 'Content-Length': total } : {}),
  });
  const perChunk = Math.max(1, Math.floor(65_536 / (row.length + 1)));
  let written = 0;
  const write = (text: string) =>
    new Promise<boolean>((resolve) => {
      if (res.destroyed) return resolve(false);
      streamed.bytes += Buffer.byteLength(text);
      if (res.write(text)) return resolve(true);
      const done = (ok: boolean) => {
        res.off('drain', onDrain);
        res.off('close', onClose);
        resolve(ok);
      };
      const onDrain = () => done(true);
      const onClose = () => done(false);
      res.on('drain', onDrain);
      res.on('close', onClose);
    });
  if (!(await write('['))) return;
  while (written < rows) {
    const count = Math.min(perChunk, rows - written);
    const chunk = `${written === 0 ? '' : ','}${Array(count).fill(row).join(',')}`;
    written += count;
    if (!(await write(chunk))) return;
  }
  if (!(await write(']'))) return;
  res.end();
  streamed.complete = true;
}

/** Starts the sandbox upstream: the token issuer under /auth and the stockroom endpoints under /v1. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const now = options.now ?? Date.now;
  const data = buildDemoData(now(), { extraCompanies: options.extraCompanies ?? 0 });
  const control = new SandboxControl(data, options.seed ?? 1, now, options.onAdvance);
  const issuer = new TokenIssuer(data.accounts, {
    tokenTtlMs: options.tokenTtlMs ?? 2 * HOUR,
    refreshTtlMs: options.refreshTtlMs ?? 7 * 24 * HOUR,
    now,
  });
  const limit = options.rateLimit ?? { count: 250, windowMs: HOUR };
  const limiter = new SlidingWindowLimiter(limit.count, limit.windowMs, now);
  const faults = new FaultQueue();
  const calls: SandboxCall[] = [];
  const timers = new Set<NodeJS.Timeout>();
  /** Sandbox.servePagesOf. */
  let pageLimit: PageLimit | null = null;
  /** Sandbox.stateTotalRows. */
  let statedTotalRows: number | null = null;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  async function dispatch(
    req: IncomingMessage,
    call: SandboxCall,
    url: URL,
  ): Promise<Reply | 'dropped' | { huge: NonNullable<FaultSpec['huge']> }> {
    const path = trimSlash(url.pathname);
    const instance = url.pathname;
    const route = call.kind === 'data' ? matchDataRoute(path) : null;
    let fields: FormFields | null = null;
    if (call.kind === 'data') {
      const token = bearerToken(req.headers);
      call.login = token === null ? null : issuer.loginOf(token);
    } else if (req.method === 'POST') {
      fields = await readForm(req, call.kind, instance);
      call.login =
        call.kind === 'login' ? (fields.get('login') ?? null) : issuer.loginOf(fields.get('token') ?? '');
    }

    if (call.login !== null && !limiter.tryAcquire(call.login)) {
      return problem(
        429,
        'Limite de requisições excedido para esta credencial. Tente novamente mais tarde.',
        instance,
      );
    }
    const fault = faults.take(call.method, url.pathname, url.search);
    if (fault?.delayMs) await sleep(fault.delayMs);
    if (fault?.release) await fault.release.catch(() => undefined);
    if (fault?.dropConnection) return 'dropped';
    if (fault?.huge) return { huge: fault.huge };
    if (fault?.status !== undefined) return faultReply(fault, fault.status, instance);

    if (call.kind !== 'data') {
      if (req.method !== 'POST' || fields === null) return problem(405, 'Use POST.', instance);
      return call.kind === 'login' ? issuer.login(fields, instance) : issuer.refresh(fields, instance);
    }
    if (!route) return problem(404, `Recurso ${url.pathname} não encontrado.`, instance);
    if (req.method !== 'GET' && req.method !== 'HEAD') return problem(405, 'Somente GET é aceito.', instance);
    if (options.latencyMs) await sleep(options.latencyMs);
    return serveData(
      {
        route: route.route,
        rawId: route.rawId,
        headers: req.headers,
        params: url.searchParams,
        path: instance,
        now: now(),
        pageLimit,
        statedTotalRows,
      },
      issuer,
      data,
    );
  }

  async function handleAdmin(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    let reply: Reply;
    try {
      reply = await serveAdmin(req, url, trimSlash(url.pathname), control);
    } catch (error) {
      if (error instanceof ReplyError) reply = error.reply;
      else {
        process.stderr.write(
          `sandbox: unexpected error on ${req.method} ${url.pathname}: ${String(error)}\n`,
        );
        reply = unexpectedError();
      }
    }
    if (!res.destroyed && !res.writableEnded) writeReply(req, res, reply);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://sandbox.local');
    if (isAdminPath(trimSlash(url.pathname))) return handleAdmin(req, res, url);
    const call: SandboxCall = {
      at: now(),
      method: req.method ?? 'GET',
      path: url.pathname,
      url: `${url.pathname}${url.search}`,
      login: null,
      status: 0,
      kind: kindOf(trimSlash(url.pathname)),
    };
    calls.push(call);
    let reply: Reply | 'dropped' | { huge: NonNullable<FaultSpec['huge']> };
    try {
      reply = await dispatch(req, call, url);
    } catch (error) {
      if (error instanceof ReplyError) reply = error.reply;
      else {
        process.stderr.write(`sandbox: unexpected error on ${call.method} ${call.path}: ${String(error)}\n`);
        reply = unexpectedError();
      }
    }
    if (reply === 'dropped') {
      req.socket.destroy();
      return;
    }
    if ('huge' in reply) {
      call.status = 200;
      await streamHuge(res, call, reply.huge);
      return;
    }
    call.status = reply.status;
    if (!res.destroyed && !res.writableEnded) writeReply(req, res, reply);
  }

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  // Checked before listening, so that bad options leave nothing open.
  if (options.advanceEveryMs !== undefined) control.start(options.advanceEveryMs, options.autoAdvance);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    control.stop();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    baseUrl: origin,
    authUrl: `${origin}${AUTH_PREFIX}`,
    port,
    calls,
    faults,
    data,
    adminUrl: `${origin}${ADMIN_PREFIX}`,
    advance: (request) => control.advance(request),
    get changes() {
      return control.changes;
    },
    servePagesOf: (rows, over = 'serve') => {
      pageLimit = rows === null ? null : { rows, over };
    },
    stateTotalRows: (total) => {
      statedTotalRows = total;
    },
    expireAccessTokens: (login) => issuer.expireAccessTokens(login),
    expireRefreshTokens: (login) => issuer.expireRefreshTokens(login),
    endSessions: (login) => issuer.endSessions(login),
    close: () =>
      new Promise<void>((resolve, reject) => {
        control.stop();
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
