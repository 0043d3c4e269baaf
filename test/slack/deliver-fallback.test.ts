import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeFailure } from '../../src/fake-slack/index.js';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import {
  CHANNELS,
  eventually,
  type Harness,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../helpers/bot-harness.js';

/**
 * An answer whose response_url post fails is not lost (src/slack/deliver.ts): retried, then an ephemeral message
 * in the channel, then a DM; one log line says which. Over real HTTP with the fake Slack's staged failures.
 */

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

const NOT_LINKED = /ainda não está vinculado/;
const calls = (method: string) => h.slack.calls.filter((c) => c.method === method);
const logged = (text: string) => h.logs.filter((l) => l.includes(text));

describe('an answer whose response_url post fails', () => {
  it('is retried on a 5xx, and arrives through the response_url', async () => {
    h.slack.failNext('response_url', { status: 503 }, 1);
    const result = await h.command('/estoque', 'almoxarifados');
    const answer = await h.nextMessage(result.sentAt, { userId: USERS.member });
    expect(answer.via).toBe('response_url');
    expect(textOf(answer)).toMatch(NOT_LINKED);
    expect(calls('response_url').map((c) => c.status)).toEqual([503, 200]);
  });

  it('honours a short Retry-After on a 429 and arrives through the response_url', async () => {
    h.slack.failNext('response_url', { status: 429, retryAfterSec: 1 }, 1);
    const result = await h.command('/estoque', 'almoxarifados');
    const answer = await h.nextMessage(result.sentAt, { userId: USERS.member });
    expect(answer.via).toBe('response_url');
    expect(calls('response_url').map((c) => c.status)).toEqual([429, 200]);
  });

  it('arrives as an ephemeral message in the channel when the response_url is dead', async () => {
    h.slack.failNext('response_url', { error: 'expired_url' }, 1);
    const result = await h.command('/estoque', 'almoxarifados');
    const answer = await h.nextMessage(result.sentAt, { userId: USERS.member });
    expect(answer.via).toBe('chat.postEphemeral');
    expect(answer.ephemeral).toBe(true);
    expect(answer.visibleTo).toBe(USERS.member);
    expect(answer.channel).toBe(CHANNELS.stockroom);
    expect(textOf(answer)).toMatch(NOT_LINKED);
    // A 404 is not retried; one line tells what happened.
    expect(calls('response_url')).toHaveLength(1);
    await eventually(() => logged('answer delivered another way').length === 1);
    expect(logged('"deliveredBy":"chat.postEphemeral"')).toHaveLength(1);
  });

  it('arrives in a DM when the bot cannot post in the channel either', async () => {
    h.slack.failNext('response_url', { error: 'expired_url' }, 1);
    // The bot is not a member there: chat.postEphemeral answers not_in_channel.
    const result = await h.command('/estoque', 'almoxarifados', { channel: CHANNELS.withoutBot });
    const answer = await h.nextMessage(result.sentAt, { userId: USERS.member });
    expect(answer.via).toBe('chat.postMessage');
    expect(answer.channel).toMatch(/^D/);
    expect(textOf(answer)).toMatch(NOT_LINKED);
    await eventually(() => logged('"deliveredBy":"dm"').length === 1);
    expect(logged('chat.postEphemeral: not_in_channel')).toHaveLength(1);
  });

  it('is logged once as lost when every way fails', async () => {
    h.slack.failNext('response_url', { error: 'expired_url' }, 1);
    h.slack.failNext('chat.postEphemeral', { error: 'channel_not_found' }, 1);
    h.slack.failNext('chat.postMessage', { error: 'cannot_dm_bot' }, 1);
    await h.command('/estoque', 'almoxarifados');
    await eventually(() => logged('answer lost').length === 1);
    expect(logged('response_url post failed')).toHaveLength(0);
    expect(h.slack.messages).toHaveLength(0);
  });

  it('the answer of a feed command too (/estoque alertas listar), as the digest commands’ answers', async () => {
    h.slack.failNext('response_url', { error: 'expired_url' }, 1);
    const result = await h.command('/estoque', 'alertas listar');
    const answer = await h.nextMessage(result.sentAt, { userId: USERS.member });
    expect(answer.via).toBe('chat.postEphemeral');
    expect(answer.visibleTo).toBe(USERS.member);
    expect(textOf(answer)).toMatch(/Nenhum canal deste workspace recebe alertas/);
  });

  it('the list of follows too (/solicitacao acompanhando, an answer of its own)', async () => {
    h.slack.failNext('response_url', { error: 'expired_url' }, 1);
    const result = await h.command('/solicitacao', 'acompanhando');
    const answer = await h.nextMessage(result.sentAt, { userId: USERS.member });
    expect(answer.via).toBe('chat.postEphemeral');
    expect(answer.visibleTo).toBe(USERS.member);
    expect(textOf(answer)).toMatch(/Você não acompanha nenhuma solicitação/);
  });

  it('the link confirmation too: it arrives as an ephemeral message when its response_url is dead', async () => {
    h.slack.failNext('response_url', { error: 'expired_url' }, 1);
    const since = Date.now();
    const { login, password } = DEMO_FACTS.company1;
    const result = await h.submitLink({ login, password, company: '1' }, { user: USERS.admin });
    expect(JSON.parse(result.body)).toEqual({ response_action: 'clear' });
    const confirmation = await h.nextMessage(since, { userId: USERS.admin });
    expect(confirmation.via).toBe('chat.postEphemeral');
    expect(textOf(confirmation)).toMatch(/vinculad/i);
  });

  it('a shared answer whose post reached Slack but whose reply was lost is not posted in the channel again', async () => {
    await h.link(TEAM);
    const [id] = DEMO_FACTS.company1.requestsWithItemsBelowMinimum;
    const asked = await h.command('/solicitacao', String(id));
    const detail = await h.nextMessage(asked.sentAt, { userId: USERS.member });
    const since = Date.now();
    h.slack.failNext('response_url', { dropReply: true }, 1);
    await h.click(detail, { text: 'Compartilhar no canal' });
    const shared = await h.nextMessage(since, { channel: CHANNELS.stockroom, ephemeral: false });
    expect(textOf(shared)).toContain(`Solicitação ${id}`);
    // The person who shared still gets the answer for sure, to them alone.
    const toThem = await h.nextMessage(since, { userId: USERS.member, ephemeral: true });
    expect(toThem.via).toBe('chat.postEphemeral');
    await eventually(() => logged('shared answer may have reached Slack').length === 1);
    const inChannel = h.slack.messages.filter((m) => m.channel === CHANNELS.stockroom && !m.ephemeral);
    expect(inChannel).toHaveLength(1);
    // One post to the response_url: the share, not sent again after its reply was lost.
    expect(calls('response_url').filter((c) => c.at >= since)).toHaveLength(1);
  });

  it('the reply to Acompanhar too: the follow is kept and the person told in the channel', async () => {
    await h.link(TEAM);
    const [id] = DEMO_FACTS.company1.requestsWithItemsBelowMinimum;
    const asked = await h.command('/solicitacao', String(id));
    const detail = await h.nextMessage(asked.sentAt, { userId: USERS.member });
    h.slack.failNext('response_url', { error: 'expired_url' }, 1);
    const since = Date.now();
    await h.click(detail, { text: 'Acompanhar' });
    const told = await h.nextMessage(since, { userId: USERS.member });
    expect(told.via).toBe('chat.postEphemeral');
    expect(textOf(told)).toMatch(/acompanh/i);
    expect(await h.container.feedListeners.getFollow(TEAM, USERS.member, id as number)).not.toBeNull();
  });
});

describe('a shared answer whose fallback post in the channel may have reached Slack', () => {
  /** Shares a request's detail while its response_url is dead and chat.postMessage fails as `failure`. */
  async function shareFailing(failure: FakeFailure) {
    await h.link(TEAM);
    const [id] = DEMO_FACTS.company1.requestsWithItemsBelowMinimum;
    const asked = await h.command('/solicitacao', String(id));
    const detail = await h.nextMessage(asked.sentAt, { userId: USERS.member });
    const since = Date.now();
    h.slack.failNext('response_url', { error: 'expired_url' }, 1);
    h.slack.failNext('chat.postMessage', failure, 1);
    await h.click(detail, { text: 'Compartilhar no canal' });
    const toThem = await h.nextMessage(since, { userId: USERS.member, ephemeral: true });
    return { since, toThem, id };
  }

  it.each([
    ['ok:false fatal_error', { error: 'fatal_error' }],
    ['ok:false internal_error', { error: 'internal_error' }],
    ['an HTTP 500', { status: 500 }],
    ['a reply lost after the post', { dropReply: true }],
  ] as [string, FakeFailure][])(
    '%s: is not posted in the channel again; the person who shared gets it, and the log says it may be there',
    async (_, failure) => {
      const { since, toThem, id } = await shareFailing(failure);
      expect(toThem.via).toBe('chat.postEphemeral');
      expect(textOf(toThem)).toContain(`Solicitação ${id}`);
      expect(calls('chat.postMessage').filter((c) => c.at >= since)).toHaveLength(1);
      const inChannel = h.slack.messages.filter((m) => m.channel === CHANNELS.stockroom && !m.ephemeral);
      expect(inChannel.length).toBeLessThanOrEqual(1);
      await eventually(() => logged('shared answer may have reached Slack').length === 1);
      expect(logged('answer delivered another way')).toHaveLength(0);
    },
  );

  it('a refusal (not_in_channel) is no doubt: the person who shared gets it, logged as delivered another way', async () => {
    const { toThem } = await shareFailing({ error: 'not_in_channel' });
    expect(toThem.via).toBe('chat.postEphemeral');
    await eventually(() => logged('answer delivered another way').length === 1);
    expect(logged('shared answer may have reached Slack')).toHaveLength(0);
  });
});
