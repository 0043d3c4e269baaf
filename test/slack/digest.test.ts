import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

let h: Harness;

beforeEach(async () => {
  h = await startHarness();
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

const subscription = () => h.container.subscriptions.get(TEAM, CHANNELS.stockroom);

/** `/estoque resumo assinar 07:30 dias:uteis` in the stockroom channel, until the subscription is stored. */
async function subscribe() {
  const result = await h.command('/estoque', 'resumo assinar 07:30 dias:uteis');
  expect(result.status).toBe(200);
  const confirmation = await h.nextMessage(result.sentAt, { channel: CHANNELS.stockroom, ephemeral: false });
  return { confirmation, subscription: await eventually(subscription) };
}

describe('/estoque resumo', () => {
  it('subscribes the channel with a confirmation posted in it', async () => {
    const { confirmation, subscription: sub } = await subscribe();
    expect(textOf(confirmation)).toMatch(/07:30/);
    expect(sub).toMatchObject({
      hour: 7,
      minute: 30,
      weekdaysOnly: true,
      subscribedBy: USERS.member,
      stockroomId: null,
    });
  });

  it('says how to invite the bot where it cannot post, and subscribes nothing', async () => {
    const result = await h.command('/estoque', 'resumo assinar', { channel: CHANNELS.withoutBot });
    const answer = await h.nextMessage(result.sentAt, { userId: USERS.member, ephemeral: true });
    expect(textOf(answer)).toContain('/invite @estoque-bot');
    expect(await h.container.subscriptions.get(TEAM, CHANNELS.withoutBot)).toBeNull();
  });

  it('lists the workspace subscriptions', async () => {
    await subscribe();
    const result = await h.command('/estoque', 'resumo listar');
    const answer = await h.nextMessage(result.sentAt, { userId: USERS.member, ephemeral: true });
    expect(textOf(answer)).toContain(`<#${CHANNELS.stockroom}>`);
    expect(textOf(answer)).toMatch(/07:30/);
  });

  it('posts this channel digest now', async () => {
    await subscribe();
    const result = await h.command('/estoque', 'resumo agora');
    const digest = await eventually(() =>
      h.slack.messages.find(
        (m) =>
          m.at >= result.sentAt &&
          m.channel === CHANNELS.stockroom &&
          !m.ephemeral &&
          /[Rr]esumo/.test(m.text),
      ),
    );
    expect(textOf(digest)).toMatch(/[Ss]olicitaç/);
  });

  it('names the materials below their minimum by the name seen in a request detail', async () => {
    await subscribe();
    // Nothing is new since the last post, so the digest reads no request items itself: all it knows of stock
    // comes from the detail below.
    const now = Date.now();
    await h.container.subscriptions.markPosted(TEAM, CHANNELS.stockroom, {
      day: '2000-01-01',
      postedAt: now,
      coveredUntil: now,
    });
    const [id] = DEMO_FACTS.company1.requestsWithItemsBelowMinimum;
    const asked = await h.command('/solicitacao', String(id));
    const detail = await h.nextMessage(asked.sentAt, { userId: USERS.member, ephemeral: true });
    const below = (detail.blocks as { text?: { text?: string } }[])
      .map((block) => block.text?.text ?? '')
      .filter((text) => text.includes('abaixo do mínimo'))
      .map((text) => /^\*([^*]+)\*/.exec(text)?.[1]);
    expect(below.length).toBeGreaterThan(0);

    const result = await h.command('/estoque', 'resumo agora');
    const digest = await eventually(() =>
      h.slack.messages.find(
        (m) =>
          m.at >= result.sentAt && m.channel === CHANNELS.stockroom && !m.ephemeral && /Resumo/.test(m.text),
      ),
    );
    const text = textOf(digest);
    expect(text).toMatch(/Materiais abaixo do mínimo:\* \d/);
    expect(text).not.toMatch(/\*Material \d+\*/);
    for (const name of below.slice(0, 5)) expect(text).toContain(`*${name}* — saldo`);
  });

  it('a stockroom digest (almox:) lists the materials below minimum a request detail of that stockroom showed', async () => {
    const [id] = DEMO_FACTS.company1.requestsWithItemsBelowMinimum;
    const stockroomId = h.sandbox.data.company(1)?.requests.find((r) => r.record.solicitacaoMaterialId === id)
      ?.record.almoxarifado;
    const subscribed = await h.command('/estoque', `resumo assinar almox:${stockroomId}`);
    await h.nextMessage(subscribed.sentAt, { channel: CHANNELS.stockroom, ephemeral: false });
    expect(await eventually(subscription)).toMatchObject({ stockroomId });
    // Nothing is new since the last post: the digest reads no request items itself.
    const now = Date.now();
    await h.container.subscriptions.markPosted(TEAM, CHANNELS.stockroom, {
      day: '2000-01-01',
      postedAt: now,
      coveredUntil: now,
    });
    const asked = await h.command('/solicitacao', String(id));
    const detail = await h.nextMessage(asked.sentAt, { userId: USERS.member, ephemeral: true });
    const below = (detail.blocks as { text?: { text?: string } }[])
      .map((block) => block.text?.text ?? '')
      .filter((text) => text.includes('abaixo do mínimo'))
      .map((text) => /^\*([^*]+)\*/.exec(text)?.[1]);
    expect(below.length).toBeGreaterThan(0);

    const result = await h.command('/estoque', 'resumo agora');
    const digest = await eventually(() =>
      h.slack.messages.find(
        (m) =>
          m.at >= result.sentAt && m.channel === CHANNELS.stockroom && !m.ephemeral && /Resumo/.test(m.text),
      ),
    );
    const text = textOf(digest);
    // Until 2026-11-27: "nenhum entre os saldos conhecidos", while a digest of every stockroom listed them.
    expect(text).toMatch(/Materiais abaixo do mínimo:\* \d/);
    for (const name of below.slice(0, 5)) expect(text).toContain(`*${name}* — saldo`);
  });

  it('Slack refusing the app (missing_scope): who asks is told an admin must reinstall it, not to retry', async () => {
    await subscribe();
    h.slack.failNext('chat.postMessage', { error: 'missing_scope' }, 2);
    // The digest now, and subscribing another channel: Slack refuses both posts for the app, not the channel.
    // The answer that says why nothing was posted (a progress note may come first, and is replaced).
    const answerTo = (sentAt: number) =>
      eventually(() =>
        h.slack.messages.find(
          (m) =>
            m.at >= sentAt &&
            m.ephemeral &&
            m.visibleTo === USERS.member &&
            !m.replaced &&
            /postar neste canal/.test(m.text),
        ),
      );
    const now = await h.command('/estoque', 'resumo agora');
    const nowAnswer = await answerTo(now.sentAt);
    const again = await h.command('/estoque', 'resumo assinar', { channel: CHANNELS.general });
    const againAnswer = await answerTo(again.sentAt);
    for (const answer of [nowAnswer, againAnswer]) {
      expect(textOf(answer)).toContain('o Slack não aceita mais o app neste workspace (`missing_scope`)');
      expect(textOf(answer)).toContain('reinstale o app');
      // Until 2026-11-27: "Tente de novo em instantes", which could never work.
      expect(textOf(answer)).not.toContain('Tente de novo');
    }
    expect(await h.container.subscriptions.get(TEAM, CHANNELS.general)).toBeNull();
  });

  it('desvincular pauses the digests and a new link resumes them', async () => {
    await subscribe();
    await h.container.linkService.unlink(TEAM);
    expect((await subscription())?.paused).toBe('unlinked');
    await h.link(TEAM);
    expect((await subscription())?.paused).toBeNull();
  });

  it('cancels the subscription', async () => {
    await subscribe();
    const result = await h.command('/estoque', 'resumo cancelar');
    await h.nextMessage(result.sentAt, { userId: USERS.member, ephemeral: true });
    expect(await subscription()).toBeNull();
  });

  it('app_uninstalled removes every subscription of the workspace', async () => {
    await subscribe();
    await h.event({ type: 'app_uninstalled', event_ts: `${Date.now() / 1000}` });
    await eventually(async () => (await h.container.subscriptions.listWorkspace(TEAM)).length === 0);
    expect(await h.container.subscriptions.listWorkspace(TEAM)).toEqual([]);
  });
});

describe('tokens_revoked', () => {
  it('pauses the workspace digests, and a new install resumes them', async () => {
    const { SlackInstallationStore } = await import('../../src/store/installation-store.js');
    const { RedisKeyValue } = await import('../../src/store/kv.js');
    const store = new SlackInstallationStore(new RedisKeyValue(h.redis.redis), h.redis.keys, h.box, (ws) =>
      h.container.subscriptions.resumeWorkspace(ws, 'tokens_revoked'),
    );
    const install = () =>
      store.storeInstallation({
        team: { id: TEAM },
        enterprise: undefined,
        user: { id: USERS.admin, token: undefined, scopes: undefined },
        bot: { token: h.slack.tokenFor(TEAM), scopes: ['commands'], id: 'B00BOT001', userId: 'U00BOT001' },
        isEnterpriseInstall: false,
        tokenType: 'bot',
        authVersion: 'v2',
      });
    await subscribe();
    await h.event({
      type: 'tokens_revoked',
      tokens: { bot: ['U00BOT001'] },
      event_ts: `${Date.now() / 1000}`,
    });
    await eventually(async () => (await subscription())?.paused === 'tokens_revoked');
    await install();
    expect((await subscription())?.paused).toBeNull();
  });
});

describe('resumo assinar: what the confirmation promises', () => {
  /** The answer: the confirmation in the channel, or a refusal to the person (not the "Consultando…" before it). */
  async function subscribeWith(text: string, who: { channel?: string; channelName?: string } = {}) {
    const channel = who.channel ?? CHANNELS.stockroom;
    const result = await h.command('/estoque', `resumo assinar${text}`, who);
    return eventually(() =>
      h.slack.messages.find(
        (m) =>
          m.at >= result.sentAt &&
          m.channel === channel &&
          (!m.ephemeral || (m.visibleTo === USERS.member && !m.text.includes('Consultando'))),
      ),
    );
  }

  it('refuses an almox: that is not among the active stockrooms, subscribing nothing', async () => {
    // Until 2026-11-27 `almox:999` was confirmed, and every digest read a stockroom that does not exist.
    const refused = await subscribeWith(' almox:999');
    expect(refused.ephemeral).toBe(true);
    expect(textOf(refused)).toContain('O almoxarifado 999 não está entre os ativos desta empresa');
    expect(await subscription()).toBeNull();
    const confirmed = await subscribeWith(' almox:3');
    expect(confirmed.ephemeral).toBe(false);
    expect(textOf(confirmed)).toContain('almoxarifado 3');
    expect(await eventually(subscription)).toMatchObject({ stockroomId: 3 });
  });

  it('while the workspace is not linked, the confirmation says the digest starts once an admin links it', async () => {
    await h.container.linkService.unlink(TEAM);
    const confirmed = await subscribeWith('');
    expect(confirmed.ephemeral).toBe(false);
    expect(textOf(confirmed)).toContain('ainda não está vinculado');
    expect(textOf(confirmed)).toContain(
      'o resumo diário começa quando um administrador do workspace vincular',
    );
    expect(await eventually(subscription)).not.toBeNull();
  });

  it('in a DM or a group DM Slack refuses, the answer says to use the command in a channel', async () => {
    for (const who of [
      { channel: 'D0SOMEDM1' },
      { channel: 'G0SOMEMP1', channelName: 'mpdm-ana--bia--caio-1' },
    ]) {
      const answer = await subscribeWith('', who);
      expect(textOf(answer)).toContain('use o comando em um canal');
      expect(textOf(answer)).not.toContain('/invite');
      expect(await h.container.subscriptions.get(TEAM, who.channel)).toBeNull();
    }
  });
});
