import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { buttonsOf, type Harness, startHarness, TEAM, textOf, USERS } from '../helpers/bot-harness.js';

const C1 = DEMO_FACTS.company1;

describe('when the budget is spent', () => {
  let h: Harness;
  beforeEach(async () => {
    // 4 calls a minute: linking takes 2 (login + check), the first detail 2 (items + history).
    h = await startHarness({ rateLimit: { count: 4, windowMs: 60_000 } });
    await h.link(TEAM);
  });
  afterEach(async () => {
    await h.close();
  });

  it('serves cached data with its age, and says when the budget frees otherwise; upstream never sees a 429', async () => {
    const [id] = C1.requestsWithItemsBelowMinimum;
    const first = await h.command('/solicitacao', String(id));
    const detail = await h.nextMessage(first.sentAt, { userId: USERS.member });
    expect(textOf(detail)).toContain(`Solicitação ${id}`);
    // Atualizar bypasses the fresh cache, but the budget is spent: the cached answer comes back, marked.
    const since = Date.now();
    await h.click(detail, { text: 'Atualizar' });
    const cached = await h.nextMessage(since, { userId: USERS.member });
    expect(textOf(cached)).toContain(`Solicitação ${id}`);
    expect(textOf(cached)).toMatch(/[Ll]imite de consultas/);
    // Nothing cached for this one: the answer says when to try again.
    const other = await h.command('/estoque', 'tipos');
    expect(textOf(await h.nextMessage(other.sentAt, { userId: USERS.member }))).toMatch(
      /tente de novo às \d\d:\d\d/,
    );
    expect(h.sandbox.calls.filter((c) => c.status === 429)).toEqual([]);
    const status = await h.command('/estoque', 'status');
    expect(textOf(await h.nextMessage(status.sentAt, { userId: USERS.member }))).toMatch(/4 de 4/);
  });
});

describe('when commands are refused slots', () => {
  let h: Harness;
  beforeEach(async () => {
    // 10 calls a minute: the feed's share (20 %) is 2 calls, 1 while commands are refused slots. Linking takes 2.
    h = await startHarness({ rateLimit: { count: 10, windowMs: 60_000 }, answerTiming: { deadline: '3s' } });
    await h.link(TEAM);
  });
  afterEach(async () => {
    await h.close();
  });

  const statusText = async () => {
    const status = await h.command('/estoque', 'status');
    return textOf(await h.nextMessage(status.sentAt, { userId: USERS.member }));
  };

  it('/estoque status shows the change feed held to its smaller share', async () => {
    expect(await statusText()).toContain('0 de 2 consultas da cota dos alertas usadas na janela');
    // Four details of two calls each fill the window; the fifth is refused its slots.
    const [a, b, c, d, e] = C1.requestsWithItemsBelowMinimum;
    for (const id of [a, b, c, d]) {
      const sent = await h.command('/solicitacao', String(id));
      expect(textOf(await h.nextMessage(sent.sentAt, { userId: USERS.member }))).toContain(
        `Solicitação ${id}`,
      );
    }
    const refused = await h.command('/solicitacao', String(e));
    expect(textOf(await h.nextMessage(refused.sentAt, { userId: USERS.member }))).toMatch(
      /[Ll]imite|tente de novo/,
    );
    expect(await statusText()).toContain(
      '0 de 1 consultas da cota dos alertas usadas na janela (cota reduzida: comandos esperaram por consultas nesta janela)',
    );
  });
});

describe('secrets', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('never reach logs, Redis in plain text, Slack messages or button values', async () => {
    const password = C1.password;
    const since = Date.now();
    await h.submitLink({ login: C1.login, password, company: '1' }, { user: USERS.admin });
    await h.nextMessage(since, { userId: USERS.admin });
    for (const [command, text] of [
      ['/solicitacao', String(C1.requestsWithItemsBelowMinimum[0])],
      ['/compras', 'pendentes'],
      ['/estoque', 'status'],
      ['/solicitacao', ''],
    ] as const) {
      const result = await h.command(command, text);
      await h.nextMessage(result.sentAt, { userId: USERS.member });
    }
    h.sandbox.expireAccessTokens(C1.login);
    const refreshed = await h.command('/estoque', 'tipos');
    await h.nextMessage(refreshed.sentAt, { userId: USERS.member });

    const link = await h.container.links.get(TEAM);
    const sealedTokens = (await h.redis.redis.get(h.redis.keys.tokens(link?.credentialId ?? ''))) ?? '';
    const tokens = JSON.parse(h.box.open(sealedTokens, `tokens:${link?.credentialId}`)) as Record<
      string,
      string
    >;
    const secrets = [tokens.token, tokens.refreshToken, tokens.jti].filter(
      (s): s is string => typeof s === 'string' && s.length > 8,
    );
    expect(secrets).toHaveLength(3);

    const logs = h.logs.join('\n');
    for (const secret of secrets) expect(logs).not.toContain(secret);
    expect(logs).not.toMatch(new RegExp(`"(password|Password|senha)":"${password}"`));

    for (const key of await h.redis.redis.keys(`${h.redis.prefix}*`)) {
      const type = await h.redis.redis.type(key);
      const value =
        type === 'string'
          ? await h.redis.redis.get(key)
          : type === 'hash'
            ? JSON.stringify(await h.redis.redis.hgetall(key))
            : JSON.stringify(await h.redis.redis.zrange(key, 0, -1));
      for (const secret of secrets) expect(value ?? '').not.toContain(secret);
      expect(value ?? '').not.toMatch(/"password"/i);
    }

    const slackText = JSON.stringify(h.slack.calls.map((c) => c.args));
    for (const secret of secrets) expect(slackText).not.toContain(secret);
    for (const message of h.slack.messages) {
      for (const button of buttonsOf(message)) {
        for (const secret of [...secrets, `"${password}"`]) expect(button.value ?? '').not.toContain(secret);
      }
    }
    expect(h.slack.limitViolations).toEqual([]);
  });
});
