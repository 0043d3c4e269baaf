import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { JSON_TYPE, type Reply, validationProblem } from './http-util.js';
import { parseBool, parseInt32 } from './query.js';

/** A login the issuer knows. */
export interface Account {
  login: string;
  password: string;
  /** The user id (`usuario`), the token's `sub`. */
  usuario: number;
  /** The company of the token. */
  empresa: number;
  /** Companies the user may read (an EmpresaId header outside this list is a 403). */
  empresas: number[];
  /** The issuer always reports an open session for this login unless ExpireCurrentSession=true. */
  alwaysActiveSession?: boolean;
}

export interface TokenClaims {
  sub: string;
  login: string;
  empresa: number;
  jti: string;
  sid: string;
  iat: number;
  exp: number;
  iss: string;
}

export type TokenCheck =
  | { ok: true; claims: TokenClaims; account: Account }
  | { ok: false; reason: 'malformed' | 'signature' | 'expired' | 'revoked'; claims: TokenClaims | null };

interface Session {
  id: string;
  login: string;
  ended: boolean;
  refreshToken: string;
  refreshExpiresAt: number;
}

interface IssuedToken {
  sessionId: string;
  login: string;
  expiresAt: number;
}

export interface IssuerOptions {
  tokenTtlMs: number;
  refreshTtlMs: number;
  now: () => number;
}

/** Field names of forms are matched case-insensitively (ASP.NET binding); values are taken literally. */
export type FormFields = Map<string, string>;

const ISSUER = 'estoque-sandbox';
export const INVALID_CREDENTIALS = 'Usuário ou senha inválidos.';
export const ACTIVE_SESSION =
  'Já existe uma sessão ativa para este usuário. Envie ExpireCurrentSession=true para encerrá-la.';
export const REFRESH_EXPIRED = 'Refresh token expirado. Faça login novamente.';

function base64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

function authReply(
  status: number,
  success: boolean,
  message: string | null,
  hasActiveSession: boolean,
  authToken: unknown = null,
): Reply {
  return { status, body: { success, message, hasActiveSession, authToken }, contentType: JSON_TYPE };
}

/**
 * The token issuer: logins open sessions, each session has one live refresh token (rotated on every refresh)
 * and issues HS256 JWTs signed with a secret of this server instance.
 */
export class TokenIssuer {
  private readonly secret = randomBytes(32);
  private readonly sessions = new Map<string, Session>();
  private readonly tokens = new Map<string, IssuedToken>();
  private readonly accounts: Map<string, Account>;

  constructor(
    accounts: Account[],
    private readonly options: IssuerOptions,
  ) {
    this.accounts = new Map(accounts.map((a) => [a.login, a]));
  }

  /** POST /v1/auth/ with the multipart fields already read. */
  login(fields: FormFields, instance: string): Reply {
    const login = fields.get('login');
    const password = fields.get('password');
    const platform = fields.get('plataform');
    if (login === undefined || login === '')
      return validationProblem('login', 'The login field is required.', instance);
    if (password === undefined || password === '') {
      return validationProblem('Password', 'The Password field is required.', instance);
    }
    if (platform === undefined || platform === '') {
      return validationProblem('Plataform', 'The Plataform field is required.', instance);
    }
    if (parseInt32(platform) === null) {
      return validationProblem('Plataform', `The value '${platform}' is not valid for Plataform.`, instance);
    }
    if (parseInt32(platform) !== 6) {
      return validationProblem(
        'Plataform',
        'Plataforma inválida para integrações: use Plataform=6 (API).',
        instance,
      );
    }
    const flags: Record<string, boolean> = {};
    for (const [key, name] of [
      ['expirecurrentsession', 'ExpireCurrentSession'],
      ['stayconnected', 'StayConnected'],
    ] as const) {
      const raw = fields.get(key);
      const value = raw === undefined || raw === '' ? false : parseBool(raw);
      if (value === null)
        return validationProblem(name, `The value '${raw}' is not valid for ${name}.`, instance);
      flags[key] = value;
    }
    const expireCurrent = flags.expirecurrentsession === true;

    const account = this.accounts.get(login);
    if (!account || account.password !== password) return authReply(401, false, INVALID_CREDENTIALS, false);

    const open = this.liveSessions(login).length > 0;
    if (account.alwaysActiveSession && !expireCurrent) return authReply(200, false, ACTIVE_SESSION, true);
    if (expireCurrent) this.endSessions(login);

    const session: Session = { id: randomUUID(), login, ended: false, refreshToken: '', refreshExpiresAt: 0 };
    this.sessions.set(session.id, session);
    return authReply(
      200,
      true,
      null,
      open || account.alwaysActiveSession === true,
      this.issue(account, session),
    );
  }

  /** POST /v1/auth/refresh with the urlencoded fields already read. */
  refresh(fields: FormFields, instance: string): Reply {
    const token = fields.get('token');
    const refreshToken = fields.get('refreshtoken');
    if (token === undefined || token === '')
      return validationProblem('Token', 'The Token field is required.', instance);
    if (refreshToken === undefined || refreshToken === '') {
      return validationProblem('RefreshToken', 'The RefreshToken field is required.', instance);
    }
    const session = [...this.sessions.values()].find((s) => s.refreshToken === refreshToken);
    if (!session) return authReply(401, false, 'Refresh token inválido.', false);
    if (session.ended) return authReply(401, false, 'Sessão encerrada. Faça login novamente.', false);
    if (session.refreshExpiresAt <= this.options.now()) return authReply(401, false, REFRESH_EXPIRED, false);
    // The access token may be expired, but it must be one of ours, of this very session.
    const claims = this.verifySignature(token);
    const issued = claims ? this.tokens.get(claims.jti) : undefined;
    if (!claims || !issued || issued.sessionId !== session.id) {
      return authReply(401, false, 'Token inválido para este refresh token.', false);
    }
    const account = this.accounts.get(session.login);
    if (!account) return authReply(401, false, INVALID_CREDENTIALS, false);
    return authReply(200, true, null, true, this.issue(account, session));
  }

  /** Checks a bearer token for a data call. */
  verify(token: string): TokenCheck {
    const claims = this.verifySignature(token);
    if (!claims)
      return { ok: false, reason: token.split('.').length === 3 ? 'signature' : 'malformed', claims: null };
    const issued = this.tokens.get(claims.jti);
    const session = issued ? this.sessions.get(issued.sessionId) : undefined;
    const account = this.accounts.get(claims.login);
    if (!issued || !session || session.ended || !account) return { ok: false, reason: 'revoked', claims };
    if (issued.expiresAt <= this.options.now()) return { ok: false, reason: 'expired', claims };
    return { ok: true, claims, account };
  }

  /** The login a correctly signed token names (even an expired one), for rate limiting and the call log. */
  loginOf(token: string): string | null {
    return this.verifySignature(token)?.login ?? null;
  }

  expireAccessTokens(login?: string): void {
    const past = this.options.now() - 1;
    for (const issued of this.tokens.values()) {
      if (login === undefined || issued.login === login) issued.expiresAt = Math.min(issued.expiresAt, past);
    }
  }

  expireRefreshTokens(login?: string): void {
    const past = this.options.now() - 1;
    for (const session of this.sessions.values()) {
      if (login === undefined || session.login === login) {
        session.refreshExpiresAt = Math.min(session.refreshExpiresAt, past);
      }
    }
  }

  endSessions(login?: string): void {
    for (const session of this.sessions.values()) {
      if (login === undefined || session.login === login) session.ended = true;
    }
  }

  private liveSessions(login: string): Session[] {
    const now = this.options.now();
    return [...this.sessions.values()].filter(
      (s) => s.login === login && !s.ended && s.refreshExpiresAt > now,
    );
  }

  /** A new access token and a new refresh token for the session; the previous refresh token dies. */
  private issue(account: Account, session: Session) {
    const now = this.options.now();
    const expiresAt = now + this.options.tokenTtlMs;
    const jti = randomUUID();
    const claims: TokenClaims = {
      sub: String(account.usuario),
      login: account.login,
      empresa: account.empresa,
      jti,
      sid: session.id,
      iat: Math.floor(now / 1000),
      exp: Math.floor(expiresAt / 1000),
      iss: ISSUER,
    };
    const unsigned = `${base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${base64url(JSON.stringify(claims))}`;
    const token = `${unsigned}.${this.sign(unsigned)}`;
    session.refreshToken = randomBytes(48).toString('base64url');
    session.refreshExpiresAt = now + this.options.refreshTtlMs;
    this.tokens.set(jti, { sessionId: session.id, login: account.login, expiresAt });
    return {
      jti,
      token,
      refreshToken: session.refreshToken,
      expiresIn: new Date(expiresAt).toISOString(),
      refreshExpiresIn: new Date(session.refreshExpiresAt).toISOString(),
    };
  }

  private sign(unsigned: string): string {
    return createHmac('sha256', this.secret).update(unsigned).digest('base64url');
  }

  private verifySignature(token: string): TokenClaims | null {
    const parts = token.split('.');
    if (parts.length !== 3) return null;
    const [header = '', payload = '', signature = ''] = parts;
    const expected = Buffer.from(this.sign(`${header}.${payload}`));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenClaims;
      return typeof claims.jti === 'string' && typeof claims.login === 'string' ? claims : null;
    } catch {
      return null;
    }
  }
}
