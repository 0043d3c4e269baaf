import { argString, type Reply } from '../http.js';
import { randomDigits, randomHex } from '../ids.js';
import { FAKE_APP, FAKE_SEED } from '../seed.js';
import type { ApiArgs, FakeOAuthInstall, FakeSlackOptions } from '../types.js';
import type { Workspace } from '../workspace.js';
import {
  type AuthedContext,
  fail,
  type MethodResult,
  type MethodSpec,
  ok,
  type PublicContext,
} from './common.js';

/** An authorization code lives 10 minutes and works once. */
const CODE_TTL_MS = 10 * 60_000;
const ROTATED_TOKEN_TTL_SEC = 43_200;

interface IssuedCode {
  install: FakeOAuthInstall;
  at: number;
  used: boolean;
  redirectUri?: string;
}

/** Slack's side of the OAuth v2 flow: the authorize page, codes, and oauth.v2.access. */
export class OAuthIssuer {
  /** Defaults of the installs codes hand out; tests may change them (an org-wide install, other scopes). */
  install: FakeOAuthInstall;
  private readonly codes = new Map<string, IssuedCode>();
  private readonly refreshTokens = new Map<string, { teamId: string; install: FakeOAuthInstall }>();

  constructor(
    private readonly workspace: Workspace,
    private readonly now: () => number,
    private readonly options: NonNullable<FakeSlackOptions['oauth']> = {},
  ) {
    this.install = this.defaults();
  }

  reset(): void {
    this.codes.clear();
    this.refreshTokens.clear();
    this.install = this.defaults();
  }

  newCode(install: Partial<FakeOAuthInstall> = {}, redirectUri?: string): string {
    const code = `${randomDigits(12)}.${randomDigits(13)}.${randomHex(32)}`;
    this.codes.set(code, {
      install: { ...this.install, ...install },
      at: this.now(),
      used: false,
      redirectUri,
    });
    return code;
  }

  /** GET /oauth/v2/authorize: approves at once and redirects back with a code, as a consenting admin would. */
  authorize(query: URLSearchParams): Reply {
    const clientId = query.get('client_id');
    if (this.options.clientId !== undefined && clientId !== this.options.clientId) {
      return { status: 400, body: 'invalid_client_id' };
    }
    const redirectUri = query.get('redirect_uri');
    if (redirectUri === null || !URL.canParse(redirectUri)) return { status: 400, body: 'bad_redirect_uri' };
    const scopes = query.get('scope');
    const userScopes = query.get('user_scope');
    const code = this.newCode(
      {
        ...(scopes === null ? {} : { scopes: scopes.split(/[ ,]+/).filter(Boolean) }),
        ...(userScopes === null ? {} : { userScopes: userScopes.split(/[ ,]+/).filter(Boolean) }),
      },
      redirectUri,
    );
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    const state = query.get('state');
    if (state !== null) target.searchParams.set('state', state);
    return { status: 302, body: '', headers: { location: target.toString() } };
  }

  access({ args, basic }: PublicContext): MethodResult {
    const clientId = argString(args, 'client_id') ?? basic?.id;
    const clientSecret = argString(args, 'client_secret') ?? basic?.secret;
    if (clientId === undefined || clientId === '') return fail('invalid_client_id');
    if (this.options.clientId !== undefined && clientId !== this.options.clientId)
      return fail('invalid_client_id');
    if (this.options.clientSecret !== undefined && clientSecret !== this.options.clientSecret) {
      return fail('bad_client_secret');
    }
    if (argString(args, 'grant_type') === 'refresh_token') return this.refresh(args);
    const code = this.codes.get(argString(args, 'code') ?? '');
    if (code === undefined || code.used || this.now() - code.at > CODE_TTL_MS) return fail('invalid_code');
    const redirectUri = argString(args, 'redirect_uri');
    if (code.redirectUri !== undefined && redirectUri !== undefined && redirectUri !== code.redirectUri) {
      return fail('bad_redirect_uri');
    }
    code.used = true;
    return ok(this.grant(code.install));
  }

  private refresh(args: ApiArgs): MethodResult {
    const known = this.refreshTokens.get(argString(args, 'refresh_token') ?? '');
    if (known === undefined) return fail('invalid_refresh_token');
    return ok(this.grant(known.install));
  }

  /** Registers the workspace, its users and tokens, and builds the oauth.v2.access answer. */
  private grant(install: FakeOAuthInstall): Record<string, unknown> {
    const team =
      this.workspace.teams.get(install.teamId) ??
      this.workspace.addTeam({
        id: install.teamId,
        name: install.teamName,
        domain: install.teamId.toLowerCase(),
      });
    if (install.enterpriseId !== undefined) {
      team.enterpriseId = install.enterpriseId;
      team.enterpriseName = install.enterpriseName ?? install.enterpriseId;
    }
    if (!this.workspace.users.has(install.userId)) {
      this.workspace.addUser({ id: install.userId, teamId: team.id, isAdmin: true });
    }
    const grant = {
      teamId: team.id,
      enterpriseId: install.enterpriseId,
      isEnterpriseInstall: install.isEnterpriseInstall,
    };
    const accessToken = this.workspace.issueToken({ ...grant, scopes: install.scopes, kind: 'bot' });
    const rotation = install.tokenRotation ? this.rotation(team.id, install) : {};
    const authedUser: Record<string, unknown> = { id: install.userId };
    if (install.userScopes.length > 0) {
      authedUser.scope = install.userScopes.join(',');
      authedUser.access_token = this.workspace.issueToken({
        ...grant,
        scopes: install.userScopes,
        kind: 'user',
        userId: install.userId,
      });
      authedUser.token_type = 'user';
    }
    return {
      access_token: accessToken,
      token_type: 'bot',
      scope: install.scopes.join(','),
      bot_user_id: team.botUserId,
      app_id: FAKE_APP.appId,
      ...rotation,
      team: install.isEnterpriseInstall ? null : { id: team.id, name: team.name },
      enterprise:
        install.enterpriseId === undefined
          ? null
          : { id: install.enterpriseId, name: install.enterpriseName ?? install.enterpriseId },
      authed_user: authedUser,
      is_enterprise_install: install.isEnterpriseInstall,
    };
  }

  private rotation(teamId: string, install: FakeOAuthInstall): Record<string, unknown> {
    const refreshToken = `xoxe-1-${randomHex(24)}`;
    this.refreshTokens.set(refreshToken, { teamId, install });
    return { expires_in: ROTATED_TOKEN_TTL_SEC, refresh_token: refreshToken };
  }

  private defaults(): FakeOAuthInstall {
    return {
      teamId: FAKE_SEED.teamId,
      teamName: FAKE_SEED.teamName,
      isEnterpriseInstall: false,
      userId: FAKE_SEED.users.admin,
      scopes: [...this.workspace.botScopes],
      userScopes: [],
      tokenRotation: false,
      ...this.options.install,
    };
  }
}

function uninstall({ caller, state }: AuthedContext): MethodResult {
  state.workspace.revokeTeam(caller.team.id);
  state.workspace.revoke(caller.token);
  return ok();
}

export function oauthMethods(issuer: OAuthIssuer): Record<string, MethodSpec> {
  return {
    'oauth.v2.access': { kind: 'public', run: (ctx) => issuer.access(ctx) },
    'apps.uninstall': { kind: 'authed', run: uninstall },
  };
}
