import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FeedEvent, NewRequestEvent, ReceiptEvent, StatusEvent } from '../../src/domain/feed/types.js';
import { decodeRoute } from '../../src/domain/routes.js';
import { FAKE_SEED, type FakeMessage, type FakeSlack, startFakeSlack } from '../../src/fake-slack/index.js';
import { checkMessageLimits, Limits } from '../../src/render/index.js';
import { classifyFeedError, SlackFeedPoster } from '../../src/slack/feed-poster.js';
import { createSlackClients } from '../../src/slack/slack-clients.js';
import { FeedListenerStore } from '../../src/store/feed-listeners.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import { buttonsOf, textOf } from '../helpers/bot-harness.js';
import { makeTestRedis, type TestRedis } from '../helpers/redis.js';
import { captureLogger } from '../helpers/upstream-stack.js';

/** The FeedPoster against the fake Slack: what one round's message looks like, where it goes, how Slack's refusals read. */

const WS = FAKE_SEED.teamId;
const CHANNELS = FAKE_SEED.channels;
const USERS = FAKE_SEED.users;
// 2026-11-23 14:00 in São Paulo.
const NOW = Date.UTC(2026, 10, 23, 17, 0);

let slack: FakeSlack;
let redis: TestRedis;
let listeners: FeedListenerStore;
let poster: SlackFeedPoster;
let sleeps: number[];
let logLines: string[];

beforeEach(async () => {
  slack = await startFakeSlack({ port: 0, enforceChannelRate: false });
  redis = await makeTestRedis();
  const kv = new RedisKeyValue(redis.redis);
  listeners = new FeedListenerStore(kv, redis.keys, () => NOW);
  sleeps = [];
  const { logger, lines } = captureLogger('debug');
  logLines = lines;
  poster = new SlackFeedPoster({
    clients: createSlackClients({ slackApiUrl: slack.apiUrl, logger, botToken: slack.tokenFor(WS) }),
    listeners,
    kv,
    keys: redis.keys,
    logger,
    timeZone: 'America/Sao_Paulo',
    now: () => NOW,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
});
afterEach(async () => {
  const violations = [...slack.limitViolations];
  await slack.close();
  await redis.cleanup();
  expect(violations).toEqual([]);
});

const base = (n: number) => ({ id: `ev-${n}`, workspaceId: WS, detectedAt: NOW - 60_000, stockroomId: 1 });

function created(n: number, overrides: Partial<NewRequestEvent> = {}): NewRequestEvent {
  return {
    ...base(n),
    kind: 'novas',
    requestId: 4200 + n,
    stockroomName: 'Almoxarifado Central',
    requesterName: 'Márcia Conceição',
    requesterEmail: 'marcia@exemplo.com.br',
    statusName: 'Aberta',
    ...overrides,
  };
}

function moved(n: number, overrides: Partial<StatusEvent> = {}): StatusEvent {
  return {
    ...base(n),
    kind: 'status',
    requestId: 4100 + n,
    fromStatus: 'Aguardando compra',
    toStatus: 'Entregue parcialmente',
    requesterEmail: null,
    ...overrides,
  };
}

function received(n: number, overrides: Partial<ReceiptEvent> = {}): ReceiptEvent {
  return {
    ...base(n),
    kind: 'recebimentos',
    purchaseId: 7000 + n,
    supplierName: 'Hidráulica São Jorge Ltda',
    complete: true,
    requestIds: [4105, 4221],
    ...overrides,
  };
}

function posted(): FakeMessage[] {
  return slack.messages.filter((m) => m.via === 'chat.postMessage' && !m.ephemeral);
}

describe('SlackFeedPoster.post', () => {
  it('one message per target: the rows as PRODUCT.md shows them, each with a button to its detail', async () => {
    const events: FeedEvent[] = [created(21), moved(5), received(12)];
    expect(await poster.post(WS, { kind: 'channel', channelId: CHANNELS.stockroom }, events)).toEqual({
      ok: true,
    });
    const [message, ...more] = posted();
    expect(more).toEqual([]);
    expect(message?.channel).toBe(CHANNELS.stockroom);
    const text = textOf(message!);
    expect(text).toContain('Nova solicitação *4221* — Almoxarifado Central — Márcia Conceição');
    expect(text).toContain('Solicitação *4105*: Aguardando compra → Entregue parcialmente');
    expect(text).toContain('Compra *7012* recebida (Hidráulica São Jorge Ltda)\nSolicitações: 4105, 4221');
    expect(buttonsOf(message!).map((b) => decodeRoute(b.value))).toEqual([
      { view: 'request', id: 4221, page: 1 },
      { view: 'request', id: 4105, page: 1 },
      { view: 'purchase', id: 7012, page: 1 },
    ]);
    expect(text).not.toContain('atraso');
  });

  it("logs each post with its events' ids and the message's ts, so a post made twice can be traced", async () => {
    const events: FeedEvent[] = [created(21), moved(5)];
    await poster.post(WS, { kind: 'channel', channelId: CHANNELS.stockroom }, events);
    const [message] = posted();
    const line = logLines.map((l) => JSON.parse(l)).find((entry) => entry.msg === 'feed posted');
    expect(line).toMatchObject({ events: 2, eventIds: ['ev-21', 'ev-5'], ts: message?.ts });
  });

  it('at most 10 rows and "e mais N", within Slack limits however many events a round has', async () => {
    const events: FeedEvent[] = Array.from({ length: 75 }, (_, i) =>
      i % 3 === 0 ? created(i) : i % 3 === 1 ? moved(i) : received(i),
    );
    await poster.post(WS, { kind: 'channel', channelId: CHANNELS.stockroom }, events);
    const [message] = posted();
    expect(buttonsOf(message!)).toHaveLength(10);
    expect(textOf(message!)).toContain('E mais 65 mudanças nesta rodada.');
    expect(message!.blocks.length).toBeLessThanOrEqual(Limits.messageBlocks);
    expect(checkMessageLimits({ text: message!.text, blocks: message!.blocks as never })).toEqual([]);
    // Unique action ids (Slack refuses duplicates).
    const ids = buttonsOf(message!).map((b) => b.action_id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('escapes every mention and link that arrives in upstream text', async () => {
    await poster.post(WS, { kind: 'channel', channelId: CHANNELS.stockroom }, [
      created(1, {
        stockroomName: '<!channel> Central',
        requesterName: '<@U00ADMIN01> & <https://x.example|clique>',
      }),
      moved(2, { fromStatus: '<!here>', toStatus: '<#C00GERAL01>' }),
      received(3, { supplierName: '<!subteam^S1|equipe> Ltda' }),
    ]);
    const [message] = posted();
    const all = JSON.stringify(message!.blocks) + message!.text;
    for (const raw of [
      '<!channel>',
      '<@U00ADMIN01>',
      '<https://x.example',
      '<!here>',
      '<#C00GERAL01>',
      '<!subteam',
    ])
      expect(all).not.toContain(raw);
    expect(textOf(message!)).toContain('&lt;!channel&gt; Central');
    expect(textOf(message!)).toContain('&lt;@U00ADMIN01&gt; &amp; &lt;https://x.example|clique&gt;');
  });

  it('a DM goes to the user, in the app’s DM with them', async () => {
    const result = await poster.post(WS, { kind: 'dm', userId: USERS.member }, [moved(5)]);
    expect(result).toEqual({ ok: true });
    const [message] = posted();
    expect(message?.channel).toMatch(/^D/);
    expect(slack.calls.find((c) => c.method === 'chat.postMessage')?.args.channel).toBe(USERS.member);
    expect(textOf(message!)).toContain('Novidades do que você acompanha');
  });

  it('says when the changes were detected, when detected late or posted late', async () => {
    const late = NOW - 40 * 60_000;
    await poster.post(WS, { kind: 'channel', channelId: CHANNELS.stockroom }, [
      moved(5, { detectedAt: late }),
    ]);
    expect(textOf(posted()[0]!)).toContain('Mudanças detectadas às 13:20, avisadas com atraso de 40 min.');

    await poster.post(WS, { kind: 'channel', channelId: CHANNELS.general }, [moved(6)], {
      lateSince: NOW - 3 * 3_600_000,
    });
    expect(textOf(posted()[1]!)).toContain(
      'Mudanças detectadas às 13:59, com atraso: a verificação anterior foi às 11:00',
    );
  });

  it('says it may repeat an earlier post whose outcome was not known', async () => {
    await poster.post(WS, { kind: 'channel', channelId: CHANNELS.stockroom }, [moved(7)], {
      mayRepeatSince: NOW - 30 * 60_000,
    });
    expect(textOf(posted()[0]!)).toContain(
      'Este aviso pode repetir parte de um enviado às 13:30: o envio anterior foi interrompido antes de o Slack confirmar.',
    );
    await poster.post(WS, { kind: 'channel', channelId: CHANNELS.general }, [moved(8)]);
    expect(textOf(posted()[1]!)).not.toContain('pode repetir');
  });

  it('nothing to say posts nothing', async () => {
    expect(await poster.post(WS, { kind: 'channel', channelId: CHANNELS.stockroom }, [])).toEqual({
      ok: true,
    });
    expect(slack.calls.filter((c) => c.method === 'chat.postMessage')).toEqual([]);
  });
});

describe('Slack refusals: lost, transient, unauthorized', () => {
  const channel = (channelId: string) => ({ kind: 'channel', channelId }) as const;

  it('a channel the bot left, or archived, is lost', async () => {
    expect(await poster.post(WS, channel(CHANNELS.withoutBot), [moved(1)])).toEqual({
      ok: false,
      lost: true,
      error: 'not_in_channel',
    });
    expect(await poster.post(WS, channel(CHANNELS.archived), [moved(1)])).toEqual({
      ok: false,
      lost: true,
      error: 'is_archived',
    });
    // Posting restricted there (a workspace preference, a read-only channel): as lasting as the setting.
    slack.failNext('chat.postMessage', { error: 'restricted_action_read_only_channel' });
    expect(await poster.post(WS, channel(CHANNELS.general), [moved(1)])).toEqual({
      ok: false,
      lost: true,
      error: 'restricted_action_read_only_channel',
    });
    expect(posted()).toEqual([]);
  });

  it('a DM Slack refuses for good is lost; the same word on a channel is not', async () => {
    for (const error of ['cannot_dm_bot', 'user_not_found', 'user_disabled']) {
      slack.failNext('chat.postMessage', { error });
      expect(await poster.post(WS, { kind: 'dm', userId: USERS.member }, [moved(1)])).toEqual({
        ok: false,
        lost: true,
        error,
      });
    }
    slack.failNext('chat.postMessage', { error: 'cannot_dm_bot' });
    expect(await poster.post(WS, channel(CHANNELS.stockroom), [moved(1)])).toMatchObject({
      ok: false,
      lost: false,
    });
  });

  it('a 5xx is transient: nothing lost, nothing paused; it may have been posted (Slack’s fatal_error)', async () => {
    slack.failNext('chat.postMessage', { status: 503 });
    expect(await poster.post(WS, channel(CHANNELS.stockroom), [moved(1)])).toEqual({
      ok: false,
      lost: false,
      error: 'http_503',
      mayHaveArrived: true,
    });
    expect(await listeners.pausedReason(WS)).toBeNull();
  });

  it('Slack’s fatal_error and internal_error (ok: false) may follow a post made: transient, and said so', async () => {
    // chat.postMessage's errors: "It's possible some aspect of the operation succeeded before the error was raised."
    for (const error of ['fatal_error', 'internal_error']) {
      slack.failNext('chat.postMessage', { error });
      expect(await poster.post(WS, channel(CHANNELS.stockroom), [moved(1)])).toEqual({
        ok: false,
        lost: false,
        error,
        mayHaveArrived: true,
      });
    }
    expect(await listeners.pausedReason(WS)).toBeNull();
  });

  it('a post whose reply was cut on the way may have arrived, and says so; one refused at once did not', async () => {
    slack.failNext('chat.postMessage', { dropReply: true });
    expect(await poster.post(WS, channel(CHANNELS.stockroom), [moved(1)])).toEqual({
      ok: false,
      lost: false,
      error: 'request_error',
      mayHaveArrived: true,
    });
    // Slack had it.
    expect(slack.messages.filter((m) => m.channel === CHANNELS.stockroom)).toHaveLength(1);
    // Refused with Slack's word: nothing was posted.
    slack.failNext('chat.postMessage', { error: 'org_login_required' });
    expect(await poster.post(WS, channel(CHANNELS.stockroom), [moved(2)])).not.toHaveProperty(
      'mayHaveArrived',
    );
  });

  it('a 429 is waited for as Retry-After says, then posted once; a long one is left to a later round', async () => {
    slack.failNext('chat.postMessage', { status: 429, retryAfterSec: 2 });
    expect(await poster.post(WS, channel(CHANNELS.stockroom), [moved(1)])).toEqual({ ok: true });
    expect(sleeps.filter((ms) => ms >= 1_000)).toEqual([2_000]);
    expect(posted()).toHaveLength(1);

    slack.failNext('chat.postMessage', { status: 429, retryAfterSec: 120 });
    expect(await poster.post(WS, channel(CHANNELS.general), [moved(1)])).toEqual({
      ok: false,
      lost: false,
      error: 'ratelimited 120000 ms',
    });
    expect(posted()).toHaveLength(1);
  });

  it('asks the guard before every attempt: claims lost during a 429 wait send nothing', async () => {
    const asked: number[] = [];
    slack.failNext('chat.postMessage', { status: 429, retryAfterSec: 2 });
    const guard = async () => {
      asked.push(slack.calls.filter((call) => call.method === 'chat.postMessage').length);
      // Allowed before the first attempt; by the second the claims have gone to another process.
      return asked.length === 1;
    };
    expect(await poster.post(WS, channel(CHANNELS.stockroom), [moved(1)], { guard })).toEqual({
      ok: false,
      lost: false,
      error: 'stopped',
    });
    expect(asked).toEqual([0, 1]);
    expect(posted()).toHaveLength(0);
  });

  it('a message Slack refuses for what it holds: a plain fallback naming the events instead; refused too, given up', async () => {
    slack.failNext('chat.postMessage', { error: 'invalid_blocks' });
    expect(await poster.post(WS, channel(CHANNELS.stockroom), [created(1), moved(2)])).toEqual({ ok: true });
    const [fallback] = posted();
    expect(fallback?.text).toContain('Novidades do estoque: o Slack recusou a mensagem');
    expect(fallback?.text).toContain('nova solicitação 4201; mudança de status na solicitação 4102');
    expect(fallback?.blocks ?? []).toEqual([]);
    const logged = logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 50,
        slackError: 'invalid_blocks',
        blocks: 3,
        textLength: expect.any(Number),
      }),
    );

    slack.failNext('chat.postMessage', { error: 'msg_too_long' }, 2);
    expect(await poster.post(WS, { kind: 'dm', userId: USERS.member }, [moved(3)])).toEqual({
      ok: false,
      lost: false,
      givenUp: true,
      error: 'msg_too_long',
    });
    expect(posted()).toHaveLength(1);
    // Neither the follows nor the workspace suffer for it.
    expect(await listeners.pausedReason(WS)).toBeNull();
    expect(logLines.some((line) => line.includes('the message is given up'))).toBe(true);
  });

  it('a token Slack no longer takes pauses the workspace feed (tokens_revoked), losing nothing', async () => {
    slack.failNext('chat.postMessage', { error: 'invalid_auth' });
    expect(await poster.post(WS, channel(CHANNELS.stockroom), [moved(1)])).toEqual({
      ok: false,
      lost: false,
      error: 'invalid_auth',
    });
    expect(await listeners.pausedReason(WS)).toBe('tokens_revoked');
  });

  it('an app Slack refuses (missing_scope: chat:write not granted) pauses the workspace feed too', async () => {
    slack.failNext('chat.postMessage', { error: 'missing_scope' });
    expect(await poster.post(WS, { kind: 'dm', userId: USERS.member }, [moved(1)])).toEqual({
      ok: false,
      lost: false,
      error: 'missing_scope',
    });
    expect(await listeners.pausedReason(WS)).toBe('tokens_revoked');
    expect(logLines.some((line) => line.includes('reinstall the app'))).toBe(true);
  });

  it('classifies by Slack’s documented codes', () => {
    const platform = (error: string) => ({ code: 'slack_webapi_platform_error', data: { error } });
    const dm = { kind: 'dm', userId: 'U1' } as const;
    const ch = { kind: 'channel', channelId: 'C1' } as const;
    expect(classifyFeedError(platform('account_inactive'), dm).kind).toBe('unauthorized');
    // chat.postMessage's errors, from Slack's method and common error lists: for the token or the app in the
    // workspace (every target alike), for the one channel or DM, or of the moment (until 2026-11-27 every one
    // after `team_access_not_granted` here was transient: retried every round, nobody told).
    const expected: Record<string, { channel: string; dm: string }> = {
      invalid_auth: { channel: 'unauthorized', dm: 'unauthorized' },
      token_expired: { channel: 'unauthorized', dm: 'unauthorized' },
      team_access_not_granted: { channel: 'unauthorized', dm: 'unauthorized' },
      missing_scope: { channel: 'unauthorized', dm: 'unauthorized' },
      not_allowed_token_type: { channel: 'unauthorized', dm: 'unauthorized' },
      accesslimited: { channel: 'unauthorized', dm: 'unauthorized' },
      enterprise_is_restricted: { channel: 'unauthorized', dm: 'unauthorized' },
      is_bot: { channel: 'unauthorized', dm: 'unauthorized' },
      two_factor_setup_required: { channel: 'unauthorized', dm: 'unauthorized' },
      no_permission: { channel: 'lost', dm: 'lost' },
      ekm_access_denied: { channel: 'lost', dm: 'lost' },
      // "Access to a resource specified in the request is denied": the one resource a post names is its channel.
      access_denied: { channel: 'lost', dm: 'lost' },
      // The message itself, for what it holds (until 2026-11-27 transient: posted again every round, for a week).
      msg_too_long: { channel: 'content', dm: 'content' },
      msg_blocks_too_long: { channel: 'content', dm: 'content' },
      invalid_blocks: { channel: 'content', dm: 'content' },
      invalid_blocks_format: { channel: 'content', dm: 'content' },
      too_many_attachments: { channel: 'content', dm: 'content' },
      no_text: { channel: 'content', dm: 'content' },
      invalid_arguments: { channel: 'content', dm: 'content' },
      // How the client encodes the call, the same for every message: mended by a fix of the bot, not given up.
      invalid_form_data: { channel: 'transient', dm: 'transient' },
      request_timeout: { channel: 'transient', dm: 'transient' },
      message_limit_exceeded: { channel: 'transient', dm: 'transient' },
      org_login_required: { channel: 'transient', dm: 'transient' },
      team_added_to_org: { channel: 'transient', dm: 'transient' },
      service_unavailable: { channel: 'transient', dm: 'transient' },
    };
    for (const [code, kinds] of Object.entries(expected)) {
      expect({ code, kind: classifyFeedError(platform(code), ch).kind }).toEqual({
        code,
        kind: kinds.channel,
      });
      expect({ code, kind: classifyFeedError(platform(code), dm).kind }).toEqual({ code, kind: kinds.dm });
    }
    expect(classifyFeedError(platform('channel_not_found'), ch).kind).toBe('lost');
    expect(classifyFeedError(platform('user_not_found'), dm).kind).toBe('lost');
    expect(classifyFeedError({ code: 'slack_webapi_rate_limited_error', retryAfter: 7 }, ch)).toEqual({
      kind: 'rate_limited',
      error: 'ratelimited',
      retryAfterMs: 7_000,
    });
    expect(classifyFeedError({ code: 'slack_webapi_request_error' }, ch).kind).toBe('transient');
    expect(classifyFeedError(new Error('boom'), ch).kind).toBe('transient');
  });
});

describe('SlackFeedPoster.tellFeedLost', () => {
  it('DMs who subscribed, naming the channel and how to subscribe again', async () => {
    await poster.tellFeedLost(WS, {
      workspaceId: WS,
      channelId: CHANNELS.archived,
      stockroomId: null,
      kinds: ['novas', 'status', 'recebimentos'],
      subscribedBy: USERS.member,
      createdAt: NOW,
      paused: null,
    });
    const [dm] = posted();
    expect(dm?.channel).toMatch(/^D/);
    expect(slack.calls.find((c) => c.method === 'chat.postMessage')?.args.channel).toBe(USERS.member);
    expect(textOf(dm!)).toContain(`Cancelei os alertas do estoque em <#${CHANNELS.archived}>`);
    expect(textOf(dm!)).toContain('/estoque alertas assinar');
  });

  it('says why when Slack said it, and offers no invitation that would not mend it', async () => {
    await poster.tellFeedLost(
      WS,
      {
        workspaceId: WS,
        channelId: CHANNELS.general,
        stockroomId: null,
        kinds: ['novas'],
        subscribedBy: USERS.member,
        createdAt: NOW,
        paused: null,
      },
      'restricted_action_read_only_channel',
    );
    const [dm] = posted();
    expect(textOf(dm!)).toContain('o canal só aceita mensagens de quem o administra');
    expect(textOf(dm!)).toContain('use `/estoque alertas assinar` lá');
    expect(textOf(dm!)).not.toContain('/invite');
  });
});
