import { randomDigits, slackId } from './ids.js';
import { DEFAULT_BOT_SCOPES, FAKE_SEED, seedChannels, seedTeams, seedUsers } from './seed.js';
import type { FakeChannel, FakeTeam, FakeUser } from './types.js';

/** What a token grants: whose it is and what it may do. */
export interface TokenGrant {
  teamId: string;
  enterpriseId?: string;
  isEnterpriseInstall: boolean;
  scopes: readonly string[];
  kind: 'bot' | 'user';
  /** The user of a user token. */
  userId?: string;
}

/** A caller the Web API authenticated. */
export interface Caller extends TokenGrant {
  token: string;
  team: FakeTeam;
}

export type AuthOutcome = { ok: true; caller: Caller } | { ok: false; error: string };

export interface WorkspaceOptions {
  botToken?: string | readonly string[];
  botScopes?: readonly string[];
  seed?: boolean;
}

/**
 * The workspaces the fake knows: teams, users, channels and the tokens that reach them. The maps are
 * public and mutable so tests arrange any situation; `reset()` refills the same Map instances.
 */
export class Workspace {
  readonly teams = new Map<string, FakeTeam>();
  readonly users = new Map<string, FakeUser>();
  readonly channels = new Map<string, FakeChannel>();
  private readonly grants = new Map<string, TokenGrant>();
  private readonly revoked = new Set<string>();
  private readonly stableTokens = new Map<string, string>();
  readonly botScopes: readonly string[];
  private readonly acceptedBotTokens: readonly string[] | undefined;

  constructor(private readonly options: WorkspaceOptions) {
    this.botScopes = options.botScopes ?? DEFAULT_BOT_SCOPES;
    const { botToken } = options;
    this.acceptedBotTokens =
      botToken === undefined ? undefined : typeof botToken === 'string' ? [botToken] : botToken;
    this.reset();
  }

  reset(): void {
    this.teams.clear();
    this.users.clear();
    this.channels.clear();
    this.grants.clear();
    this.revoked.clear();
    this.stableTokens.clear();
    const teams = seedTeams();
    for (const team of this.options.seed === false ? teams.slice(0, 1) : teams) this.teams.set(team.id, team);
    if (this.options.seed === false) return;
    for (const user of seedUsers()) this.users.set(user.id, user);
    for (const channel of seedChannels()) this.channels.set(channel.id, channel);
  }

  /** The workspace of tokens nobody registered (any `xoxb-` token, or `botToken`). */
  defaultTeam(): FakeTeam {
    return this.teams.get(FAKE_SEED.teamId) ?? [...this.teams.values()][0]!;
  }

  /** Adds a workspace with its own bot user (also present in `users`). */
  addTeam(team: Partial<FakeTeam> & { id: string }): FakeTeam {
    const full: FakeTeam = {
      name: team.id,
      domain: team.id.toLowerCase(),
      botUserId: slackId('U'),
      botId: slackId('B'),
      ...team,
    };
    this.teams.set(full.id, full);
    if (!this.users.has(full.botUserId)) {
      this.addUser({
        id: full.botUserId,
        teamId: full.id,
        name: 'estoque',
        realName: 'Estoque',
        email: '',
        isBot: true,
      });
    }
    return full;
  }

  addUser(user: Partial<FakeUser> & { id: string }): FakeUser {
    const full: FakeUser = {
      teamId: this.defaultTeam().id,
      name: user.id.toLowerCase(),
      realName: user.id,
      email: `${user.id.toLowerCase()}@example.com`,
      tz: 'America/Sao_Paulo',
      isAdmin: false,
      isOwner: false,
      ...user,
    };
    this.users.set(full.id, full);
    return full;
  }

  addChannel(channel: Partial<FakeChannel> & { id: string; name: string }): FakeChannel {
    const full: FakeChannel = {
      members: new Set(),
      isArchived: false,
      isPrivate: false,
      teamId: this.defaultTeam().id,
      ...channel,
    };
    this.channels.set(full.id, full);
    return full;
  }

  /** Registers a new token for a workspace (what an OAuth install hands out). */
  issueToken(grant: TokenGrant): string {
    const team = this.teams.get(grant.teamId);
    const prefix = grant.kind === 'bot' ? 'xoxb' : 'xoxp';
    const token = `${prefix}-${randomDigits(11)}-${randomDigits(13)}-${slackId('', 24).toLowerCase()}`;
    this.grants.set(token, { ...grant, enterpriseId: grant.enterpriseId ?? team?.enterpriseId });
    return token;
  }

  /** A bot token of that workspace, the same on every call until reset. */
  tokenFor(teamId: string): string {
    const known = this.stableTokens.get(teamId);
    if (known !== undefined) return known;
    if (!this.teams.has(teamId)) throw new Error(`fake Slack: unknown team ${teamId}`);
    const token = this.issueToken({
      teamId,
      isEnterpriseInstall: false,
      scopes: this.botScopes,
      kind: 'bot',
    });
    this.stableTokens.set(teamId, token);
    return token;
  }

  /** Revokes every token of a workspace (apps.uninstall); they then answer `token_revoked`. */
  revokeTeam(teamId: string): void {
    for (const [token, grant] of this.grants) {
      if (grant.teamId !== teamId) continue;
      this.grants.delete(token);
      this.revoked.add(token);
    }
    this.stableTokens.delete(teamId);
  }

  /** Revokes one token; it then answers `token_revoked`. */
  revoke(token: string): void {
    this.grants.delete(token);
    this.revoked.add(token);
  }

  authenticate(token: string | undefined): AuthOutcome {
    if (token === undefined || token === '') return { ok: false, error: 'not_authed' };
    if (this.revoked.has(token)) return { ok: false, error: 'token_revoked' };
    const grant = this.grants.get(token);
    if (grant !== undefined) {
      const team = this.teams.get(grant.teamId);
      if (team === undefined) return { ok: false, error: 'account_inactive' };
      return { ok: true, caller: { ...grant, token, team } };
    }
    const accepted = this.acceptedBotTokens;
    if (accepted === undefined ? !token.startsWith('xoxb-') : !accepted.includes(token)) {
      return { ok: false, error: 'invalid_auth' };
    }
    const team = this.defaultTeam();
    return {
      ok: true,
      caller: {
        token,
        team,
        teamId: team.id,
        isEnterpriseInstall: false,
        scopes: this.botScopes,
        kind: 'bot',
      },
    };
  }

  /** Whether the caller's workspace (or its org, for an org-wide install) holds that team's data. */
  reaches(caller: Caller, teamId: string | undefined): boolean {
    if (teamId === undefined || teamId === caller.team.id) return true;
    const enterpriseId = caller.enterpriseId;
    return enterpriseId !== undefined && this.teams.get(teamId)?.enterpriseId === enterpriseId;
  }

  /** The bot user of the caller's app in the workspace that owns the channel. */
  botUserFor(caller: Caller, channel: FakeChannel): string {
    const team = channel.teamId === undefined ? caller.team : (this.teams.get(channel.teamId) ?? caller.team);
    return team.botUserId;
  }

  /** A channel the caller may see: its workspace's public channels and private ones the bot is in. */
  visibleChannel(caller: Caller, id: string): FakeChannel | undefined {
    const channel = this.channels.get(id);
    if (channel === undefined || !this.reaches(caller, channel.teamId)) return undefined;
    if (channel.isPrivate && !channel.members.has(this.botUserFor(caller, channel))) return undefined;
    return channel;
  }

  /**
   * A user the caller may look up: of its workspace (or org), a user of another workspace who shares a channel with
   * the caller's bot (Slack Connect: users.info answers with the user's own `team_id`), or a stranger.
   */
  visibleUser(caller: Caller, id: string): FakeUser | undefined {
    const user = this.users.get(id);
    if (user === undefined) return undefined;
    if (this.reaches(caller, user.teamId) || user.isStranger) return user;
    return this.sharesChannel(caller, user) ? user : undefined;
  }

  private sharesChannel(caller: Caller, user: FakeUser): boolean {
    for (const channel of this.channels.values()) {
      if (channel.members.has(user.id) && channel.members.has(caller.team.botUserId)) return true;
    }
    return false;
  }

  /** The DM between the bot and a user, created on first use (`D...`). */
  openIm(caller: Caller, user: FakeUser): FakeChannel {
    for (const channel of this.channels.values()) {
      if (channel.imUser === user.id && channel.teamId === user.teamId) return channel;
    }
    const team = this.teams.get(user.teamId) ?? caller.team;
    return this.addChannel({
      id: slackId('D'),
      name: user.id,
      members: new Set([user.id, team.botUserId]),
      isPrivate: true,
      teamId: user.teamId,
      imUser: user.id,
    });
  }
}

const TZ_OFFSETS: Record<string, { label: string; offset: number }> = {
  'America/Sao_Paulo': { label: 'Brasilia Standard Time', offset: -10_800 },
  'America/Manaus': { label: 'Amazon Standard Time', offset: -14_400 },
  UTC: { label: 'Coordinated Universal Time', offset: 0 },
};

/** A user as users.info answers it. */
export function userJson(user: FakeUser, includeLocale: boolean): Record<string, unknown> {
  const tz = TZ_OFFSETS[user.tz] ?? { label: user.tz, offset: 0 };
  return {
    id: user.id,
    team_id: user.teamId,
    name: user.name,
    deleted: user.deleted ?? false,
    color: '9f69e7',
    real_name: user.realName,
    tz: user.tz,
    tz_label: tz.label,
    tz_offset: tz.offset,
    profile: {
      real_name: user.realName,
      real_name_normalized: user.realName.normalize('NFD').replace(/\p{Diacritic}/gu, ''),
      display_name: user.name,
      display_name_normalized: user.name,
      email: user.isBot ? undefined : user.email,
      team: user.teamId,
      image_48: `https://avatars.example.com/${user.id}_48.png`,
    },
    is_admin: user.isAdmin,
    is_owner: user.isOwner,
    is_primary_owner: user.isOwner,
    is_restricted: user.isRestricted ?? false,
    is_ultra_restricted: false,
    is_bot: user.isBot ?? false,
    is_app_user: false,
    updated: 1_700_000_000,
    ...(includeLocale ? { locale: user.locale ?? 'pt-BR' } : {}),
    ...(user.enterpriseId === undefined
      ? {}
      : {
          enterprise_user: {
            id: user.id,
            enterprise_id: user.enterpriseId,
            enterprise_name: user.enterpriseId,
            is_admin: user.isOrgAdmin ?? false,
            is_owner: user.isOrgOwner ?? false,
            is_primary_owner: user.isOrgOwner ?? false,
            teams: [user.teamId, ...(user.enterpriseTeams ?? [])],
          },
        }),
    // Slack sends the field only when true.
    ...(user.isStranger ? { is_stranger: true } : {}),
  };
}

/** A channel as conversations.info answers it. */
export function channelJson(
  channel: FakeChannel,
  caller: Caller,
  numMembers: boolean,
): Record<string, unknown> {
  if (channel.imUser !== undefined) {
    return {
      id: channel.id,
      created: 1_700_000_000,
      is_im: true,
      is_org_shared: false,
      user: channel.imUser,
    };
  }
  const isMember = channel.members.has(caller.team.botUserId) || channel.members.has(caller.userId ?? '');
  return {
    id: channel.id,
    name: channel.name,
    is_channel: !channel.isPrivate,
    is_group: false,
    is_im: false,
    is_mpim: false,
    is_private: channel.isPrivate,
    created: 1_700_000_000,
    is_archived: channel.isArchived,
    is_general: channel.name === 'geral',
    name_normalized: channel.name,
    is_shared: false,
    is_org_shared: false,
    is_ext_shared: false,
    is_member: isMember,
    context_team_id: channel.teamId ?? caller.team.id,
    shared_team_ids: [channel.teamId ?? caller.team.id],
    topic: { value: '', creator: '', last_set: 0 },
    purpose: { value: '', creator: '', last_set: 0 },
    ...(numMembers ? { num_members: channel.members.size } : {}),
  };
}
