import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  buildBlockActionPayload,
  buildEventEnvelope,
  buildSlashCommandBody,
  buildViewSubmissionPayload,
  FAKE_SEED,
  sendSigned,
  viewSubmission,
} from '../../src/fake-slack/index.js';
import { renderLinkModal } from '../../src/render/index.js';
import {
  CHANNELS,
  eventually,
  findButton,
  type Harness,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../helpers/bot-harness.js';

/**
 * The guard in front of every listener (src/slack/request-guard.ts), over real HTTP: signed requests into
 * /slack/events, answers seen in the fake Slack.
 */

const FORM = 'application/x-www-form-urlencoded';
let h: Harness;

beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

function commandBody(command: string, text: string): string {
  return new URLSearchParams(
    buildSlashCommandBody({
      command,
      text,
      teamId: TEAM,
      userId: USERS.member,
      channelId: CHANNELS.stockroom,
      responseUrl: h.slack.newResponseUrl({
        teamId: TEAM,
        channelId: CHANNELS.stockroom,
        userId: USERS.member,
      }),
      triggerId: h.slack.newTriggerId({ userId: USERS.member, teamId: TEAM }),
    }),
  ).toString();
}

describe('every command and interaction is acked', () => {
  it('/estoque constructor and __proto__ are acked and answered like any search', async () => {
    for (const text of ['constructor', '__proto__', 'toString']) {
      const result = await h.command('/estoque', text);
      expect(result.status, text).toBe(200);
      const answer = await h.nextMessage(result.sentAt, { userId: USERS.member });
      // Not linked yet: the search gets the not-linked answer, as any other search.
      expect(textOf(answer)).toContain('/estoque vincular');
    }
  });

  it('hostile texts are acked on every command: prototype words, control characters, entities, 100 KB', async () => {
    const texts = [
      'resumo constructor',
      '__proto__:1 valueOf',
      'constructor almox:__proto__',
      '\u0000\u0007\u001b[31m',
      '&lt;script&gt; &amp;amp; \u202e',
      'cabo '.repeat(20_000),
    ];
    for (const command of ['/estoque', '/solicitacao', '/compras']) {
      for (const text of texts) {
        const result = await h.command(command, text);
        expect(result.status, `${command} ${text.slice(0, 30)}`).toBe(200);
      }
    }
  });

  it('a listener that throws before its ack still gets the request acked, with a clear message', async () => {
    h.app.command('/quebrado', async () => {
      throw new Error('boom');
    });
    const result = await h.command('/quebrado', 'x');
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body).text).toMatch(/Não consegui processar/);
  });

  it('a listener that returns without acking gets the fallback ack', async () => {
    h.app.command('/mudo', async () => undefined);
    const result = await h.command('/mudo', '');
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body).response_type).toBe('ephemeral');
  });

  it('a command whose listener acks after the fallback said "Nada foi feito" does nothing', async () => {
    let worked = false;
    h.app.command('/tardio', async ({ ack }) => {
      // Past the fallback's deadline (Bolt's authorize or the store was slow), then the usual ack-first listener.
      await new Promise((resolve) => setTimeout(resolve, 3_300));
      await ack();
      worked = true;
    });
    const result = await h.command('/tardio', '');
    expect(JSON.parse(result.body).text).toMatch(/Nada foi feito/);
    await eventually(() => h.logs.some((line) => line.includes('its work is not done')));
    expect(worked).toBe(false);
  });

  it('a click no listener takes is acked, and the user is told the button no longer works', async () => {
    const since = Date.now();
    const payload = buildBlockActionPayload({
      teamId: TEAM,
      userId: USERS.member,
      channelId: CHANNELS.stockroom,
      responseUrl: h.slack.newResponseUrl({
        teamId: TEAM,
        channelId: CHANNELS.stockroom,
        userId: USERS.member,
      }),
      triggerId: h.slack.newTriggerId({ userId: USERS.member, teamId: TEAM }),
      actionId: 'constructor',
      value: '__proto__',
    });
    const result = await sendSigned(
      h.target,
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      FORM,
    );
    expect(result.status).toBe(200);
    const told = await h.nextMessage(since, { userId: USERS.member });
    // Trying again in a moment, as "Não consegui processar" says, never works for a button nothing handles.
    expect(textOf(told)).toContain('Este botão não funciona mais');
  });

  it('a button of an older version (an action id no listener takes now): the stale-button answer', async () => {
    await h.link(TEAM);
    const list = await h.command('/solicitacao', '');
    const message = await h.nextMessage(list.sentAt, { userId: USERS.member });
    const next = findButton(message, { text: 'Próxima' });
    if (!next) throw new Error('no Próxima');
    next.action_id = 'page:next';
    const since = Date.now();
    expect((await h.click(message, { text: 'Próxima' })).status).toBe(200);
    const told = await h.nextMessage(since, { userId: USERS.member });
    expect(textOf(told)).toContain('Este botão não funciona mais');
    expect(told).toMatchObject({ ephemeral: true, visibleTo: USERS.member });
    // Beside the list, which stays as it was.
    expect(h.slack.messages.find((m) => m.ts === message.ts)?.replaced).toBeFalsy();
  });

  it('a link form submitted with state.values null is acked with a field error', async () => {
    const payload = buildViewSubmissionPayload({
      teamId: TEAM,
      userId: USERS.admin,
      callbackId: 'link-credentials',
      viewId: 'VNULLVALS1',
      privateMetadata: '{}',
      values: {},
      view: { blocks: renderLinkModal().blocks },
    }) as unknown as { view: { state: { values: unknown } } };
    payload.view.state.values = null;
    const result = await viewSubmission(h.target, payload);
    expect(result.status).toBe(200);
    const answer = JSON.parse(result.body) as { response_action?: string; errors?: Record<string, string> };
    expect(answer.response_action).toBe('errors');
    // Every required field is named, as for an empty form.
    expect(Object.keys(answer.errors ?? {}).sort()).toEqual(['link_company', 'link_login', 'link_password']);
  });
});

describe('the installation cannot be read (OAuth, the store failing)', () => {
  const storeDown = () =>
    vi
      .spyOn(h.installations, 'fetchInstallation')
      .mockRejectedValue(new Error('Reached the max retries per request limit (which is 3)'));

  it('a command is answered "Nada foi feito", not with an empty 200', async () => {
    storeDown();
    const result = await h.command('/estoque', 'almoxarifados');
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body)).toMatchObject({
      response_type: 'ephemeral',
      text: expect.stringMatching(/Não consegui processar este pedido agora. Nada foi feito/),
    });
    expect(h.logs.some((l) => l.includes('"why":"authorization failed"'))).toBe(true);
  });

  it('a form gets a field error instead of closing as if it had been taken', async () => {
    storeDown();
    const payload = buildViewSubmissionPayload({
      teamId: TEAM,
      userId: USERS.admin,
      callbackId: 'link-credentials',
      viewId: 'VSTOREDOWN1',
      privateMetadata: '{}',
      values: {},
      view: { blocks: renderLinkModal().blocks },
    });
    const result = await viewSubmission(h.target, payload);
    expect(result.status).toBe(200);
    const answer = JSON.parse(result.body) as { response_action?: string; errors?: Record<string, string> };
    expect(answer.response_action).toBe('errors');
    expect(Object.values(answer.errors ?? {}).join(' ')).toContain('Não consegui ler o formulário');
  });

  it('a click is told through its response_url that nothing was done (not that the button is stale)', async () => {
    await h.link(TEAM);
    const list = await h.command('/solicitacao', '');
    const message = await h.nextMessage(list.sentAt, { userId: USERS.member });
    storeDown();
    const since = Date.now();
    expect((await h.click(message, { text: 'Próxima' })).status).toBe(200);
    const told = await h.nextMessage(since, { userId: USERS.member });
    expect(textOf(told)).toContain('Não consegui processar este pedido agora');
    expect(told).toMatchObject({ ephemeral: true, visibleTo: USERS.member });
  });
});

describe('bodies that are not a JSON object', () => {
  it('a signed body of JSON null, a number, a string, an array or a boolean is refused 400, and the bot goes on', async () => {
    for (const value of ['null', '1', '"x"', '[]', 'true']) {
      const json = await sendSigned(h.target, value, 'application/json');
      expect(json.status, `JSON ${value}`).toBe(400);
      expect(json.body).toBe('');
      const form = await sendSigned(h.target, new URLSearchParams({ payload: value }).toString(), FORM);
      expect(form.status, `payload=${value}`).toBe(400);
    }
    expect(h.logs.filter((l) => l.includes('its body is not a JSON object'))).toHaveLength(10);
    // Until 2026-11-27 JSON null stopped the process (an unhandled rejection in Bolt's receiver): still here.
    const after = await h.command('/estoque', 'ajuda');
    expect(after.status).toBe(200);
    expect(JSON.parse(after.body).text).toBeTruthy();
  });

  it("unsigned, the same body gets Bolt's 401; JSON that does not parse its 400; an SSL check its 200", async () => {
    const unsigned = await sendSigned(h.target, 'null', 'application/json', { signature: 'v0=00' });
    expect(unsigned.status).toBe(401);
    expect((await sendSigned(h.target, '{"type":', 'application/json')).status).toBe(400);
    expect((await sendSigned(h.target, 'ssl_check=1&token=x', FORM, { signature: 'v0=00' })).status).toBe(
      200,
    );
    expect(h.logs.some((l) => l.includes('its body is not a JSON object'))).toBe(false);
  });

  it('a body over 4 MB is refused 413, as Bolt refused it', async () => {
    const huge = await sendSigned(h.target, `{"pad":"${'x'.repeat(4 * 1024 * 1024)}"}`, 'application/json');
    expect(huge.status).toBe(413);
  });
});

describe('replays and Slack retries', () => {
  it('refuses a signed request replayed within the window (401), and answers the first one only', async () => {
    const body = commandBody('/estoque', 'ajuda');
    const timestampSec = Math.floor(Date.now() / 1000);
    const first = await sendSigned(h.target, body, FORM, { timestampSec });
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body).text).toBeTruthy();
    const replay = await sendSigned(h.target, body, FORM, { timestampSec });
    expect(replay.status).toBe(401);
    expect(replay.body).toBe('');
  });

  it('the same signed command twice at once (both processed while their checks are out): one 200, one 401, one answer', async () => {
    await h.link(TEAM);
    const body = commandBody('/solicitacao', '1');
    const timestampSec = Math.floor(Date.now() / 1000);
    const since = Date.now();
    const both = await Promise.all([
      sendSigned(h.target, body, FORM, { timestampSec }),
      sendSigned(h.target, body, FORM, { timestampSec }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 401]);
    const answer = await h.nextMessage(since, { userId: USERS.member });
    expect(textOf(answer)).toContain('Solicitação 1');
    // The refused one's listener stopped at its ack: no task of its own was started, nothing else is on its way.
    await h.container.tasks.drain(5_000);
    expect(h.slack.messages.filter((m) => m.visibleTo === USERS.member && !m.replaced)).toHaveLength(1);
    expect(h.logs.filter((l) => l.includes('signed request refused: replayed'))).toHaveLength(1);
    expect(h.logs.some((l) => l.includes('bolt error'))).toBe(false);
  });

  it('refuses a timestamp more than 5 minutes in the future, and takes one within the window', async () => {
    const nowSec = Math.floor(Date.now() / 1000);
    const ahead = await sendSigned(h.target, commandBody('/estoque', 'ajuda'), FORM, {
      timestampSec: nowSec + 6 * 60,
    });
    expect(ahead.status).toBe(401);
    const near = await sendSigned(h.target, commandBody('/estoque', 'ajuda'), FORM, {
      timestampSec: nowSec + 60,
    });
    expect(near.status).toBe(200);
  });

  it('acks Slack retries of an event (200) and processes the event once', async () => {
    const at = `${Math.floor(Date.now() / 1000)}.000100`;
    const envelope = buildEventEnvelope(
      {
        type: 'app_mention',
        user: USERS.member,
        text: `<@${FAKE_SEED.botUserId}> oi`,
        channel: CHANNELS.general,
        ts: at,
        event_ts: at,
      },
      TEAM,
    );
    const raw = JSON.stringify(envelope);
    const first = await sendSigned(h.target, raw, 'application/json');
    expect(first.status).toBe(200);
    await eventually(() => h.slack.messages.find((m) => m.threadTs === at));
    // Slack signs each retry anew (a new timestamp, so a new signature), with the same event id.
    for (const retryNum of ['1', '2']) {
      const retry = await sendSigned(h.target, raw, 'application/json', {
        timestampSec: Math.floor(Date.now() / 1000) + Number(retryNum),
        headers: { 'x-slack-retry-num': retryNum, 'x-slack-retry-reason': 'http_timeout' },
      });
      expect(retry.status).toBe(200);
    }
    await eventually(() =>
      h.logs.some((l) => l.includes('event already taken in') && l.includes('"retryNum":2')),
    );
    expect(h.slack.messages.filter((m) => m.threadTs === at)).toHaveLength(1);
  });

  it('keeps what it saw in Redis, under the test prefix, with a TTL', async () => {
    await h.command('/estoque', 'ajuda');
    const keys = await h.redis.redis.keys(`${h.redis.prefix}seen:request:*`);
    expect(keys.length).toBeGreaterThan(0);
    const ttl = await h.redis.redis.pttl(keys[0] as string);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5 * 60_000 + 2_000);
  });
});
