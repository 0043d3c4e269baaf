import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FAKE_SEED } from '../../src/fake-slack/seed.js';
import { type FakeSlack, startFakeSlack } from '../../src/fake-slack/server.js';
import type { FakeMessage } from '../../src/fake-slack/types.js';
import {
  actions,
  button,
  clientFor,
  ErrorCode,
  postJson,
  section,
  slackError,
  WebClient,
} from './helpers.js';

const { channels, users } = FAKE_SEED;
const TOKEN = 'xoxb-111-222-fake';

describe('fake Slack Web API', () => {
  let fake: FakeSlack;

  beforeAll(async () => {
    fake = await startFakeSlack();
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  describe('authentication', () => {
    it('answers auth.test with the bot of the default workspace to a real WebClient', async () => {
      const result = await clientFor(fake, TOKEN).auth.test();
      expect(result).toMatchObject({
        ok: true,
        team_id: FAKE_SEED.teamId,
        team: FAKE_SEED.teamName,
        user_id: FAKE_SEED.botUserId,
        bot_id: FAKE_SEED.botId,
        url: `https://${FAKE_SEED.teamDomain}.slack.com/`,
        is_enterprise_install: false,
      });
    });

    it('answers not_authed without a token and invalid_auth for a token it does not accept, with HTTP 200', async () => {
      const missing = await postJson(fake, 'auth.test', {});
      expect(missing.status).toBe(200);
      expect(missing.json).toEqual({ ok: false, error: 'not_authed' });
      const userToken = await postJson(fake, 'auth.test', {}, 'xoxp-not-a-bot');
      expect(userToken.json).toEqual({ ok: false, error: 'invalid_auth' });
    });

    it('accepts only the configured bot tokens when botToken is set', async () => {
      const strict = await startFakeSlack({ botToken: 'xoxb-the-one' });
      try {
        expect((await postJson(strict, 'auth.test', {}, 'xoxb-the-one')).json.ok).toBe(true);
        expect((await postJson(strict, 'auth.test', {}, 'xoxb-another')).json.error).toBe('invalid_auth');
      } finally {
        await strict.close();
      }
    });

    it('takes the token from a form body as Slack does', async () => {
      const response = await fetch(`${fake.apiUrl}auth.test`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: TOKEN }).toString(),
      });
      expect(await response.json()).toMatchObject({ ok: true, user_id: FAKE_SEED.botUserId });
      expect(fake.calls[0]).toMatchObject({ method: 'auth.test', token: TOKEN, ok: true, status: 200 });
    });

    it('answers missing_scope when the token lacks the method scope', async () => {
      const narrow = await startFakeSlack({ botScopes: ['chat:write'] });
      try {
        const error = await slackError(clientFor(narrow, TOKEN).users.lookupByEmail({ email: 'x@y.z' }));
        expect(error).toBe('missing_scope');
      } finally {
        await narrow.close();
      }
    });

    it('answers unknown_method for a method it does not have', async () => {
      expect((await postJson(fake, 'chat.scheduleSomething', {}, TOKEN)).json).toEqual({
        ok: false,
        error: 'unknown_method',
      });
    });
  });

  describe('chat.postMessage', () => {
    it('posts what WebClient sends (form body, blocks JSON-encoded) and records it as people see it', async () => {
      const blocks = [section('*Solicitação 42*'), actions(button('Itens', 'items'))];
      const result = await clientFor(fake, TOKEN).chat.postMessage({
        channel: channels.general,
        text: 'Solicitação 42',
        blocks,
      });
      expect(result).toMatchObject({ ok: true, channel: channels.general });
      expect(result.ts).toMatch(/^\d{10}\.\d{6}$/);
      expect(result.message).toMatchObject({ text: 'Solicitação 42', bot_id: FAKE_SEED.botId, blocks });
      expect(fake.messages).toEqual([
        expect.objectContaining({
          ts: result.ts,
          channel: channels.general,
          teamId: FAKE_SEED.teamId,
          user: FAKE_SEED.botUserId,
          text: 'Solicitação 42',
          blocks,
          ephemeral: false,
          via: 'chat.postMessage',
        }),
      ]);
      const call = fake.calls.find((c) => c.method === 'chat.postMessage');
      expect(call).toMatchObject({ token: TOKEN, ok: true, args: { channel: channels.general, blocks } });
      expect(fake.limitViolations).toEqual([]);
    });

    it('takes a JSON body too and gives every message a new, increasing ts', async () => {
      const first = await postJson(
        fake,
        'chat.postMessage',
        { channel: channels.general, text: 'um' },
        TOKEN,
      );
      const second = await postJson(
        fake,
        'chat.postMessage',
        { channel: channels.general, text: 'dois' },
        TOKEN,
      );
      expect(first.json.ok).toBe(true);
      expect(Number(second.json.ts)).toBeGreaterThan(Number(first.json.ts));
    });

    it('refuses channels the bot cannot post to, with Slack error codes', async () => {
      const client = clientFor(fake, TOKEN);
      const post = (channel: string) => slackError(client.chat.postMessage({ channel, text: 'oi' }));
      expect(await post(channels.withoutBot)).toBe('not_in_channel');
      expect(await post('C0NOSUCH1')).toBe('channel_not_found');
      expect(await post(channels.archived)).toBe('is_archived');
      // A private channel without the bot, and another workspace's channel, are invisible to it.
      fake.channels.get(channels.private)?.members.delete(FAKE_SEED.botUserId);
      expect(await post(channels.private)).toBe('channel_not_found');
      expect(await post(channels.otherTeamGeneral)).toBe('channel_not_found');
      expect(fake.messages).toEqual([]);
    });

    it('posts to a public channel the bot is not in when the token has chat:write.public', async () => {
      const open = await startFakeSlack({ botScopes: ['chat:write', 'chat:write.public'] });
      try {
        const result = await clientFor(open, TOKEN).chat.postMessage({
          channel: channels.withoutBot,
          text: 'oi',
        });
        expect(result.ok).toBe(true);
      } finally {
        await open.close();
      }
    });

    it('posts to a user id in the DM between the bot and that user', async () => {
      const result = await clientFor(fake, TOKEN).chat.postMessage({
        channel: users.admin,
        text: 'Vínculo expirou',
      });
      expect(result.channel).toMatch(/^D/);
      expect(fake.channels.get(result.channel ?? '')).toMatchObject({ imUser: users.admin });
      const opened = await clientFor(fake, TOKEN).conversations.open({ users: users.admin });
      expect(opened.channel?.id).toBe(result.channel);
    });

    it('answers no_text for a message with neither text nor blocks', async () => {
      expect(
        await slackError(clientFor(fake, TOKEN).chat.postMessage({ channel: channels.general, text: '' })),
      ).toBe('no_text');
    });

    it('refuses blocks that break Slack limits with invalid_blocks and records every violation', async () => {
      const tooMany = Array.from({ length: 51 }, (_, i) => section(`linha ${i}`));
      const first = await postJson(
        fake,
        'chat.postMessage',
        { channel: channels.general, blocks: tooMany },
        TOKEN,
      );
      expect(first.json).toEqual({
        ok: false,
        error: 'invalid_blocks',
        response_metadata: { messages: ['[ERROR] no more than 50 items allowed [json-pointer:/blocks]'] },
      });
      const longButton = [actions(button('x'.repeat(76), 'long'))];
      const error = await slackError(
        clientFor(fake, TOKEN).chat.postMessage({ channel: channels.general, text: 't', blocks: longButton }),
      );
      expect(error).toBe('invalid_blocks');
      expect(fake.limitViolations).toEqual([
        `chat.postMessage ${channels.general}: no more than 50 items allowed [json-pointer:/blocks]`,
        `chat.postMessage ${channels.general}: must be less than 76 characters [json-pointer:/blocks/0/elements/0/text/text]`,
      ]);
      expect(fake.messages).toEqual([]);
    });

    it('answers a queued 429 with Retry-After, which WebClient honours and retries', async () => {
      fake.failNext('chat.postMessage', { status: 429, retryAfterSec: 7 });
      const raw = await postJson(fake, 'chat.postMessage', { channel: channels.general, text: 'oi' }, TOKEN);
      expect(raw.status).toBe(429);
      expect(raw.headers.get('retry-after')).toBe('7');
      expect(raw.json).toEqual({ ok: false, error: 'ratelimited' });

      fake.failNext('chat.postMessage', { status: 429, retryAfterSec: 3 });
      const rejecting = new WebClient(TOKEN, {
        slackApiUrl: fake.apiUrl,
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
      });
      await expect(
        rejecting.chat.postMessage({ channel: channels.general, text: 'oi' }),
      ).rejects.toMatchObject({
        code: ErrorCode.RateLimitedError,
        retryAfter: 3,
      });

      fake.failNext('chat.postMessage', { status: 429, retryAfterSec: 1 });
      const patient = clientFor(fake, TOKEN, { retries: 1 });
      const result = await patient.chat.postMessage({ channel: channels.general, text: 'depois' });
      expect(result.ok).toBe(true);
      const attempts = fake.calls.filter((c) => c.method === 'chat.postMessage').map((c) => c.status);
      expect(attempts).toEqual([429, 429, 429, 200]);
    });

    it('fails the next calls with a queued error or HTTP 500', async () => {
      fake.failNext('chat.postMessage', { error: 'fatal_error' }, 2);
      const client = clientFor(fake, TOKEN);
      expect(await slackError(client.chat.postMessage({ channel: channels.general, text: 'a' }))).toBe(
        'fatal_error',
      );
      expect(await slackError(client.chat.postMessage({ channel: channels.general, text: 'b' }))).toBe(
        'fatal_error',
      );
      expect((await client.chat.postMessage({ channel: channels.general, text: 'c' })).ok).toBe(true);

      fake.failNext('users.info', { status: 500 });
      await expect(client.users.info({ user: users.admin })).rejects.toMatchObject({
        code: ErrorCode.HTTPError,
        statusCode: 500,
      });
    });

    it('records when each answer went out: a late one once it goes, a dropped one never', async () => {
      const client = clientFor(fake, TOKEN);
      fake.failNext('users.info', { delayMs: 200 });
      const late = client.users.info({ user: users.admin });
      const call = await vi.waitFor(() => {
        const found = fake.calls.find((c) => c.method === 'users.info');
        if (!found) throw new Error('not arrived yet');
        return found;
      });
      // Arrived, and its answer waits.
      expect(call.answeredAt).toBeUndefined();
      await late;
      expect(call.answeredAt).toBeGreaterThanOrEqual(call.at);

      fake.failNext('users.info', { dropReply: true });
      await expect(client.users.info({ user: users.admin })).rejects.toThrow();
      expect(fake.calls.at(-1)).toMatchObject({ method: 'users.info', error: 'reply_dropped' });
      expect(fake.calls.at(-1)?.answeredAt).toBeUndefined();
    });
  });

  describe('holding a call', () => {
    it('holds a call until the test releases it: carried out and answered then, not before', async () => {
      const client = clientFor(fake, TOKEN);
      const hold = fake.holdNext('chat.postMessage');
      const held = client.chat.postMessage({ channel: channels.general, text: 'segurada' });
      const call = await hold.arrived;
      expect(call).toMatchObject({ method: 'chat.postMessage', args: { text: 'segurada' } });
      expect(call.answeredAt).toBeUndefined();
      // Not carried out while held; the next call of the method is not held.
      expect(fake.messages).toHaveLength(0);
      await client.chat.postMessage({ channel: channels.general, text: 'livre' });
      expect(fake.messages.map((m) => m.text)).toEqual(['livre']);
      hold.release();
      expect((await held).ok).toBe(true);
      expect(fake.messages.map((m) => m.text)).toEqual(['livre', 'segurada']);
      expect(call.answeredAt).toBeGreaterThanOrEqual(call.at);
    });

    it('holds the next calls one by one, in the order they arrive, queued with failNext', async () => {
      const client = clientFor(fake, TOKEN);
      fake.failNext('users.info', { error: 'user_not_found' });
      const first = fake.holdNext('users.info');
      const second = fake.holdNext('users.info');
      expect(await slackError(client.users.info({ user: users.admin }))).toBe('user_not_found');
      const a = client.users.info({ user: users.admin });
      const callA = await first.arrived;
      const b = client.users.info({ user: users.member });
      const callB = await second.arrived;
      expect([callA.args.user, callB.args.user]).toEqual([users.admin, users.member]);
      second.release();
      expect((await b).user?.id).toBe(users.member);
      expect(callA.answeredAt).toBeUndefined();
      first.release();
      expect((await a).user?.id).toBe(users.admin);
    });

    it('lets held calls go on reset, so nothing waits for a release that will not come', async () => {
      const client = clientFor(fake, TOKEN);
      const hold = fake.holdNext('users.info');
      const held = client.users.info({ user: users.admin });
      await hold.arrived;
      fake.reset();
      expect((await held).ok).toBe(true);
    });
  });

  describe('per-channel rate limit', () => {
    it('lets a short burst through, then answers 429 with Retry-After: 1 until a second passes', async () => {
      let clock = 1_700_000_000_000;
      const timed = await startFakeSlack({ now: () => clock });
      try {
        const post = (channel: string) => postJson(timed, 'chat.postMessage', { channel, text: 'x' }, TOKEN);
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) statuses.push((await post(channels.general)).status);
        expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
        const limited = await post(channels.general);
        expect(limited.headers.get('retry-after')).toBe('1');
        expect(limited.json.error).toBe('ratelimited');
        // Another channel has its own budget; a second later the first channel takes one more.
        expect((await post(channels.stockroom)).status).toBe(200);
        clock += 1_000;
        expect((await post(channels.general)).status).toBe(200);
        expect((await post(channels.general)).status).toBe(429);
        expect(timed.calls.filter((c) => c.status === 429)).toHaveLength(4);
        expect(timed.messages).toHaveLength(6);
      } finally {
        await timed.close();
      }
    });

    it('can be switched off', async () => {
      const free = await startFakeSlack({ enforceChannelRate: false });
      try {
        for (let i = 0; i < 10; i++) {
          const { status } = await postJson(
            free,
            'chat.postMessage',
            { channel: channels.general, text: 'x' },
            TOKEN,
          );
          expect(status).toBe(200);
        }
      } finally {
        await free.close();
      }
    });
  });

  describe('chat.postEphemeral, chat.update and chat.delete', () => {
    it('posts an ephemeral message only its user sees', async () => {
      const result = await clientFor(fake, TOKEN).chat.postEphemeral({
        channel: channels.general,
        user: users.member,
        text: 'Só você vê isto',
      });
      expect(result.message_ts).toMatch(/^\d+\.\d{6}$/);
      expect(fake.messages[0]).toMatchObject({
        ephemeral: true,
        visibleTo: users.member,
        via: 'chat.postEphemeral',
      });
      expect(fake.visibleMessages({ channel: channels.general, userId: users.member })).toHaveLength(1);
      expect(fake.visibleMessages({ channel: channels.general, userId: users.admin })).toHaveLength(0);
    });

    it('answers user_not_in_channel when the user is not a member', async () => {
      const error = await slackError(
        clientFor(fake, TOKEN).chat.postEphemeral({
          channel: channels.stockroom,
          user: users.outsider,
          text: 'x',
        }),
      );
      expect(error).toBe('user_not_in_channel');
    });

    it('updates a message: the old version is kept as replaced, people see the new one', async () => {
      const client = clientFor(fake, TOKEN);
      const posted = await client.chat.postMessage({ channel: channels.general, text: 'Carregando...' });
      const blocks = [section('Pronto')];
      const updated = await client.chat.update({
        channel: channels.general,
        ts: posted.ts ?? '',
        text: 'Pronto',
        blocks,
      });
      expect(updated).toMatchObject({ ok: true, channel: channels.general, ts: posted.ts, text: 'Pronto' });
      expect(fake.messages.map((m) => [m.via, m.text, m.replaced ?? false])).toEqual([
        ['chat.postMessage', 'Carregando...', true],
        ['chat.update', 'Pronto', false],
      ]);
      expect(fake.visibleMessages({ channel: channels.general })).toEqual([
        expect.objectContaining({ ts: posted.ts, text: 'Pronto', blocks }),
      ]);
    });

    it('answers message_not_found for an unknown ts or an ephemeral message', async () => {
      const client = clientFor(fake, TOKEN);
      expect(
        await slackError(client.chat.update({ channel: channels.general, ts: '1.000001', text: 'x' })),
      ).toBe('message_not_found');
      const ephemeral = await client.chat.postEphemeral({
        channel: channels.general,
        user: users.admin,
        text: 'e',
      });
      const error = await slackError(
        client.chat.update({ channel: channels.general, ts: ephemeral.message_ts ?? '', text: 'x' }),
      );
      expect(error).toBe('message_not_found');
    });

    it('refuses an update with invalid blocks and keeps the message as it was', async () => {
      const client = clientFor(fake, TOKEN);
      const posted = await client.chat.postMessage({ channel: channels.general, text: 'ok' });
      const fields = Array.from({ length: 11 }, (_, i) => ({ type: 'mrkdwn' as const, text: `campo ${i}` }));
      const error = await slackError(
        client.chat.update({
          channel: channels.general,
          ts: posted.ts ?? '',
          blocks: [{ type: 'section' as const, fields }],
        }),
      );
      expect(error).toBe('invalid_blocks');
      expect(fake.limitViolations[0]).toContain(
        'no more than 10 items allowed [json-pointer:/blocks/0/fields]',
      );
      expect(fake.visibleMessages({ channel: channels.general })[0]?.text).toBe('ok');
    });

    it('deletes a message', async () => {
      const client = clientFor(fake, TOKEN);
      const posted = await client.chat.postMessage({ channel: channels.general, text: 'apagar' });
      const deleted = await client.chat.delete({ channel: channels.general, ts: posted.ts ?? '' });
      expect(deleted).toMatchObject({ ok: true, channel: channels.general, ts: posted.ts });
      expect(fake.messages[0]?.deleted).toBe(true);
      expect(fake.visibleMessages()).toEqual([]);
      expect(await slackError(client.chat.delete({ channel: channels.general, ts: posted.ts ?? '' }))).toBe(
        'message_not_found',
      );
    });
  });

  describe('users, conversations and team', () => {
    it('answers users.info like Slack, and user_not_found for unknown or other-workspace users', async () => {
      const client = clientFor(fake, TOKEN);
      const result = await client.users.info({ user: users.admin, include_locale: true });
      expect(result.user).toMatchObject({
        id: users.admin,
        team_id: FAKE_SEED.teamId,
        name: 'ana.souza',
        real_name: 'Ana Souza',
        tz: 'America/Sao_Paulo',
        tz_offset: -10_800,
        is_admin: true,
        is_owner: false,
        is_bot: false,
        locale: 'pt-BR',
        profile: { email: FAKE_SEED.adminEmail, real_name: 'Ana Souza' },
      });
      expect(await slackError(client.users.info({ user: 'U0NOBODY1' }))).toBe('user_not_found');
      expect(await slackError(client.users.info({ user: users.otherTeamMember }))).toBe('user_not_found');
    });

    it("answers users.info for Slack Connect, stranger, guest and Enterprise Grid users with Slack's fields", async () => {
      const client = clientFor(fake, TOKEN);
      // A member of the other workspace in a channel shared with this workspace's bot: found, with their own team.
      fake.addChannel({
        id: 'C00SHARED9',
        name: 'compartilhado',
        members: new Set([users.otherTeamMember, FAKE_SEED.botUserId]),
        teamId: FAKE_SEED.teamId,
      });
      const connect = await client.users.info({ user: users.otherTeamMember });
      expect(connect.user).toMatchObject({
        id: users.otherTeamMember,
        team_id: FAKE_SEED.otherTeamId,
        is_admin: true,
      });
      expect(connect.user).not.toHaveProperty('is_stranger');
      fake.addUser({ id: 'U09STRANGE', teamId: 'T09ELSEWHR', isStranger: true });
      expect((await client.users.info({ user: 'U09STRANGE' })).user).toMatchObject({ is_stranger: true });
      fake.addUser({ id: 'U00GUEST01', isRestricted: true });
      expect((await client.users.info({ user: 'U00GUEST01' })).user).toMatchObject({ is_restricted: true });
      fake.addUser({
        id: 'U00GRID001',
        enterpriseId: 'E00ORG001',
        enterpriseTeams: ['T00OTHER9'],
        isOrgAdmin: true,
      });
      expect((await client.users.info({ user: 'U00GRID001' })).user?.enterprise_user).toEqual({
        id: 'U00GRID001',
        enterprise_id: 'E00ORG001',
        enterprise_name: 'E00ORG001',
        is_admin: true,
        is_owner: false,
        is_primary_owner: false,
        teams: [FAKE_SEED.teamId, 'T00OTHER9'],
      });
    });

    it('looks users up by e-mail, case-insensitively', async () => {
      const client = clientFor(fake, TOKEN);
      const found = await client.users.lookupByEmail({ email: 'Bruno.Lima@manutencao.example.com' });
      expect(found.user?.id).toBe(users.member);
      expect(await slackError(client.users.lookupByEmail({ email: 'ninguem@example.com' }))).toBe(
        'users_not_found',
      );
    });

    it('answers conversations.info, members (paginated) and join', async () => {
      const client = clientFor(fake, TOKEN);
      const info = await client.conversations.info({ channel: channels.stockroom });
      expect(info.channel).toMatchObject({
        id: channels.stockroom,
        name: 'almoxarifado',
        is_private: false,
        is_member: true,
      });
      const page = await client.conversations.members({ channel: channels.stockroom, limit: 2 });
      expect(page.members).toHaveLength(2);
      const rest = await client.conversations.members({
        channel: channels.stockroom,
        cursor: page.response_metadata?.next_cursor ?? '',
      });
      expect([...(page.members ?? []), ...(rest.members ?? [])]).toEqual([
        ...(fake.channels.get(channels.stockroom)?.members ?? []),
      ]);

      expect(await slackError(client.chat.postMessage({ channel: channels.withoutBot, text: 'x' }))).toBe(
        'not_in_channel',
      );
      await client.conversations.join({ channel: channels.withoutBot });
      expect((await client.chat.postMessage({ channel: channels.withoutBot, text: 'x' })).ok).toBe(true);
      expect(await slackError(client.conversations.join({ channel: channels.archived }))).toBe('is_archived');
    });

    it('answers team.info for the token workspace', async () => {
      const result = await clientFor(fake, TOKEN).team.info();
      expect(result.team).toMatchObject({
        id: FAKE_SEED.teamId,
        name: FAKE_SEED.teamName,
        domain: FAKE_SEED.teamDomain,
      });
    });

    it('gives each workspace its own token, bot and data', async () => {
      const other = clientFor(fake, fake.tokenFor(FAKE_SEED.otherTeamId));
      expect((await other.auth.test()).user_id).toBe(FAKE_SEED.otherBotUserId);
      expect((await other.chat.postMessage({ channel: channels.otherTeamGeneral, text: 'oi' })).ok).toBe(
        true,
      );
      expect(await slackError(other.chat.postMessage({ channel: channels.general, text: 'oi' }))).toBe(
        'channel_not_found',
      );
      expect(fake.messages[0]).toMatchObject({
        teamId: FAKE_SEED.otherTeamId,
        user: FAKE_SEED.otherBotUserId,
      });
    });
  });

  describe('state for tests and the playground', () => {
    it('streams messages to listeners until they unsubscribe', async () => {
      const seen: FakeMessage[] = [];
      const off = fake.on('message', (m) => seen.push(m));
      const client = clientFor(fake, TOKEN);
      await client.chat.postMessage({ channel: channels.general, text: 'um' });
      off();
      await client.chat.postMessage({ channel: channels.general, text: 'dois' });
      expect(seen.map((m) => m.text)).toEqual(['um']);
    });

    it('reset forgets what happened and restores the seed data', async () => {
      await clientFor(fake, TOKEN).chat.postMessage({ channel: channels.general, text: 'x' });
      fake.channels.get(channels.general)?.members.delete(FAKE_SEED.botUserId);
      fake.addUser({ id: 'U0TEMP001' });
      fake.reset();
      expect(fake.messages).toEqual([]);
      expect(fake.calls).toEqual([]);
      expect(fake.users.has('U0TEMP001')).toBe(false);
      expect(fake.channels.get(channels.general)?.members.has(FAKE_SEED.botUserId)).toBe(true);
    });
  });
});
