import type { FakeChannel, FakeTeam, FakeUser } from './types.js';

/** Ids of the app itself, the same in every workspace (as one Slack app is). */
export const FAKE_APP = {
  appId: 'A00FAKEAPP',
  /** The deprecated verification token Slack still puts in every payload. */
  verificationToken: 'fakeVerificationToken0001',
  botName: 'estoque',
} as const;

/** Scopes of the bot tokens unless FakeSlackOptions.botScopes says otherwise. */
export const DEFAULT_BOT_SCOPES: readonly string[] = [
  'commands',
  'chat:write',
  'users:read',
  'users:read.email',
  'channels:read',
  'groups:read',
  'im:write',
  'channels:join',
  'team:read',
];

/**
 * The demo data: two workspaces (the second for isolation tests), their people and channels. Tests can
 * name them through these constants instead of repeating literal ids.
 */
export const FAKE_SEED = {
  teamId: 'T00FAKE01',
  teamName: 'Manutenção Predial',
  teamDomain: 'manutencao-predial',
  botUserId: 'U00BOT001',
  botId: 'B00BOT001',
  otherTeamId: 'T00FAKE02',
  otherBotUserId: 'U00BOT002',
  /**
   * The admin is the person at the playground's page. Her e-mail is that of a requester in the sandbox's demo data
   * (Fernanda Oliveira, company 1, with several requests in the last 30 days), so that `/solicitacao minhas`, which
   * matches the Slack e-mail to an upstream user, answers with data in local mode. The fake imports nothing of the
   * sandbox: test/local/playground-local-mode.test.ts checks that the two still meet.
   */
  adminEmail: 'fernanda.oliveira@exemplo.com.br',
  users: {
    admin: 'U00ADMIN1',
    owner: 'U00OWNER1',
    member: 'U00USER01',
    outsider: 'U00USER02',
    otherTeamMember: 'U02USER01',
  },
  channels: {
    /** Public, everyone and the bot. */
    general: 'C00GERAL1',
    /** Public, the bot and two people. */
    stockroom: 'C00ALMOX1',
    /** Public, without the bot. */
    withoutBot: 'C00SEMBOT',
    /** Private, the bot and the admin. */
    private: 'C00PRIV01',
    /** Archived, the bot was a member. */
    archived: 'C00ARQUIV',
    /** Public channel of the other workspace, with its bot. */
    otherTeamGeneral: 'C02GERAL1',
  },
} as const;

export function seedTeams(): FakeTeam[] {
  return [
    {
      id: FAKE_SEED.teamId,
      name: FAKE_SEED.teamName,
      domain: FAKE_SEED.teamDomain,
      botUserId: FAKE_SEED.botUserId,
      botId: FAKE_SEED.botId,
    },
    {
      id: FAKE_SEED.otherTeamId,
      name: 'Condomínio Aurora',
      domain: 'condominio-aurora',
      botUserId: FAKE_SEED.otherBotUserId,
      botId: 'B00BOT002',
    },
  ];
}

function person(
  id: string,
  teamId: string,
  name: string,
  realName: string,
  roles: { isAdmin?: boolean; isOwner?: boolean } = {},
): FakeUser {
  return {
    id,
    teamId,
    name,
    realName,
    email: `${name}@${teamId === FAKE_SEED.teamId ? 'manutencao' : 'aurora'}.example.com`,
    tz: 'America/Sao_Paulo',
    isAdmin: roles.isAdmin ?? false,
    isOwner: roles.isOwner ?? false,
    locale: 'pt-BR',
  };
}

export function seedUsers(): FakeUser[] {
  const { users } = FAKE_SEED;
  return [
    {
      ...person(users.admin, FAKE_SEED.teamId, 'ana.souza', 'Ana Souza', { isAdmin: true }),
      email: FAKE_SEED.adminEmail,
    },
    person(users.owner, FAKE_SEED.teamId, 'carlos.pereira', 'Carlos Pereira', {
      isAdmin: true,
      isOwner: true,
    }),
    person(users.member, FAKE_SEED.teamId, 'bruno.lima', 'Bruno Lima'),
    person(users.outsider, FAKE_SEED.teamId, 'daniela.rocha', 'Daniela Rocha'),
    person(users.otherTeamMember, FAKE_SEED.otherTeamId, 'eduardo.alves', 'Eduardo Alves', { isAdmin: true }),
    {
      ...person(FAKE_SEED.botUserId, FAKE_SEED.teamId, FAKE_APP.botName, 'Estoque'),
      email: '',
      isBot: true,
    },
    {
      ...person(FAKE_SEED.otherBotUserId, FAKE_SEED.otherTeamId, FAKE_APP.botName, 'Estoque'),
      email: '',
      isBot: true,
    },
  ];
}

export function seedChannels(): FakeChannel[] {
  const { users, channels } = FAKE_SEED;
  const channel = (
    id: string,
    name: string,
    members: string[],
    extra: Partial<FakeChannel> = {},
  ): FakeChannel => ({
    id,
    name,
    members: new Set(members),
    isArchived: false,
    isPrivate: false,
    teamId: FAKE_SEED.teamId,
    ...extra,
  });
  const everyone = [users.admin, users.owner, users.member, users.outsider];
  return [
    channel(channels.general, 'geral', [...everyone, FAKE_SEED.botUserId]),
    channel(channels.stockroom, 'almoxarifado', [users.admin, users.member, FAKE_SEED.botUserId]),
    channel(channels.withoutBot, 'manutencao', everyone),
    channel(channels.private, 'compras-privado', [users.admin, FAKE_SEED.botUserId], { isPrivate: true }),
    channel(channels.archived, 'antigo', [users.admin, FAKE_SEED.botUserId], { isArchived: true }),
    channel(channels.otherTeamGeneral, 'geral', [users.otherTeamMember, FAKE_SEED.otherBotUserId], {
      teamId: FAKE_SEED.otherTeamId,
    }),
  ];
}
