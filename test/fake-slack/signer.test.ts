import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { App, type BlockAction, type ButtonAction, LogLevel } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { FAKE_SEED } from '../../src/fake-slack/seed.js';
import { type FakeSlack, startFakeSlack } from '../../src/fake-slack/server.js';
import {
  blockAction,
  buildBlockActionPayload,
  buildSlashCommandBody,
  buildViewSubmissionPayload,
  eventCallback,
  type SlackRequestTarget,
  sendSigned,
  signBody,
  slashCommand,
  textInputValue,
  urlVerification,
  viewSubmission,
} from '../../src/fake-slack/signer.js';
import { actions, button, section, silentLogger } from './helpers.js';

describe('signBody', () => {
  it("matches Slack's documented example", () => {
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V' +
      '&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=' +
      '&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN' +
      '&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    expect(signBody('8f742231b10e8888abcd99yyyzzz85a5', body, 1_531_420_618)).toBe(
      'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503',
    );
  });

  it('is v0= and the hex HMAC-SHA256 of v0:timestamp:body', () => {
    const body = 'payload=%7B%22type%22%3A%22block_actions%22%7D';
    const expected = createHmac('sha256', 'segredo').update(`v0:1700000000:${body}`).digest('hex');
    expect(signBody('segredo', body, 1_700_000_000)).toBe(`v0=${expected}`);
  });
});

describe('buildSlashCommandBody', () => {
  it("has Slack's fields, enterprise ones only for Enterprise Grid", () => {
    const fields = {
      command: '/estoque',
      text: 'parafuso sextavado',
      teamId: FAKE_SEED.teamId,
      userId: FAKE_SEED.users.member,
      channelId: FAKE_SEED.channels.general,
      responseUrl: 'http://x/response/1',
      triggerId: '1.2.ab',
    };
    expect(buildSlashCommandBody(fields)).toEqual({
      token: expect.any(String),
      team_id: FAKE_SEED.teamId,
      team_domain: FAKE_SEED.teamDomain,
      channel_id: FAKE_SEED.channels.general,
      channel_name: 'geral',
      user_id: FAKE_SEED.users.member,
      user_name: 'bruno.lima',
      command: '/estoque',
      text: 'parafuso sextavado',
      api_app_id: expect.stringMatching(/^A/),
      is_enterprise_install: 'false',
      response_url: 'http://x/response/1',
      trigger_id: '1.2.ab',
    });
    expect(buildSlashCommandBody({ ...fields, enterpriseId: 'E01' })).toMatchObject({
      enterprise_id: 'E01',
      enterprise_name: 'E01',
    });
  });
});

/** A real Bolt app in HTTP mode, talking to the fake: proves the payloads and the fake fit Bolt. */
describe('signer against a real Bolt app', () => {
  const signingSecret = 'fake-signing-secret';
  const teamId = FAKE_SEED.teamId;
  const userId = FAKE_SEED.users.admin;
  const channelId = FAKE_SEED.channels.general;
  let fake: FakeSlack;
  let app: App;
  let target: SlackRequestTarget;

  beforeAll(async () => {
    fake = await startFakeSlack();
    app = new App({
      signingSecret,
      token: fake.tokenFor(teamId),
      clientOptions: { slackApiUrl: fake.apiUrl },
      logger: silentLogger,
      logLevel: LogLevel.ERROR,
    });
    app.command('/estoque', async ({ ack, command, respond, client }) => {
      await ack();
      if (command.text === 'vincular') {
        await client.views.open({
          trigger_id: command.trigger_id,
          view: {
            type: 'modal',
            callback_id: 'link_workspace',
            title: { type: 'plain_text', text: 'Vincular' },
            submit: { type: 'plain_text', text: 'Vincular' },
            private_metadata: command.channel_id,
            blocks: [
              {
                type: 'input',
                block_id: 'login',
                label: { type: 'plain_text', text: 'Login' },
                element: { type: 'plain_text_input', action_id: 'value' },
              },
            ],
          },
        });
        return;
      }
      await respond({
        text: `Busca: ${command.text} (${command.user_name})`,
        blocks: [section(`Busca: *${command.text}*`), actions(button('Próxima', 'next', '2'))],
      });
    });
    app.action<BlockAction<ButtonAction>>('next', async ({ ack, body, action, respond, client }) => {
      await ack();
      const page = action.value;
      if (body.message !== undefined && body.channel !== undefined) {
        await client.chat.update({ channel: body.channel.id, ts: body.message.ts, text: `Página ${page}` });
      } else {
        await respond({ replace_original: true, text: `Página ${page}` });
      }
    });
    app.view('link_workspace', async ({ ack, view }) => {
      const login = view.state.values.login?.value?.value;
      if (!login) await ack({ response_action: 'errors', errors: { login: 'Informe o login' } });
      else await ack();
    });
    app.event('app_mention', async ({ say }) => {
      await say({
        text: 'Olá',
        blocks: [section('Olá'), actions(button('Próxima', 'next', '3'))],
      });
    });
    const server = await app.start(0);
    target = {
      eventsUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`,
      signingSecret,
    };
  });
  afterAll(async () => {
    await app.stop();
    await fake.close();
  });
  beforeEach(() => {
    fake.calls.length = 0;
    fake.messages.length = 0;
  });

  const command = (text: string) =>
    slashCommand(target, {
      command: '/estoque',
      text,
      teamId,
      userId,
      channelId,
      responseUrl: fake.newResponseUrl({ teamId, channelId, userId }),
      triggerId: fake.newTriggerId({ userId, teamId }),
    });

  it('delivers a signed slash command that Bolt accepts and answers through the response_url', async () => {
    const result = await command('parafuso');
    expect(result.status).toBe(200);
    expect(result.ms).toBeGreaterThan(0);
    await vi.waitFor(() => expect(fake.messages).toHaveLength(1));
    expect(fake.messages[0]).toMatchObject({
      text: 'Busca: parafuso (ana.souza)',
      ephemeral: true,
      visibleTo: userId,
      via: 'response_url',
    });
    expect(fake.limitViolations).toEqual([]);
  });

  it('delivers a click on an ephemeral answer; Bolt replaces it through the response_url', async () => {
    await command('parafuso');
    await vi.waitFor(() => expect(fake.messages).toHaveLength(1));
    const answer = fake.messages[0]!;
    const payload = buildBlockActionPayload({
      teamId,
      userId,
      channelId,
      responseUrl: fake.newResponseUrl({ teamId, channelId, userId, messageTs: answer.ts }),
      triggerId: fake.newTriggerId({ userId }),
      actionId: 'next',
      value: '2',
      messageTs: answer.ts,
      isEphemeral: true,
    });
    expect(payload).not.toHaveProperty('message');
    expect((await blockAction(target, payload)).status).toBe(200);
    await vi.waitFor(() =>
      expect(fake.visibleMessages({ channel: channelId, userId })).toEqual([
        expect.objectContaining({ ts: answer.ts, text: 'Página 2', ephemeral: true }),
      ]),
    );
  });

  it('delivers an event and a click on the posted message; Bolt updates it with chat.update', async () => {
    const event = {
      type: 'app_mention',
      user: userId,
      text: '<@U00BOT001> oi',
      ts: '1700000000.000100',
      channel: channelId,
    };
    expect((await eventCallback(target, event, teamId)).status).toBe(200);
    await vi.waitFor(() => expect(fake.messages).toHaveLength(1));
    const posted = fake.messages[0]!;
    expect(posted).toMatchObject({ via: 'chat.postMessage', channel: channelId, ephemeral: false });

    const payload = buildBlockActionPayload({
      teamId,
      userId,
      channelId,
      responseUrl: fake.newResponseUrl({ teamId, channelId, userId, messageTs: posted.ts }),
      triggerId: fake.newTriggerId({ userId }),
      actionId: 'next',
      message: posted,
    });
    expect(payload.actions[0]).toMatchObject({
      type: 'button',
      action_id: 'next',
      value: '3',
      text: { type: 'plain_text', text: 'Próxima' },
      block_id: expect.any(String),
    });
    expect(payload.message).toMatchObject({ ts: posted.ts, bot_id: FAKE_SEED.botId, text: 'Olá' });
    expect((await blockAction(target, payload)).status).toBe(200);
    await vi.waitFor(() =>
      expect(fake.visibleMessages({ channel: channelId })).toEqual([
        expect.objectContaining({ ts: posted.ts, text: 'Página 3', via: 'chat.update' }),
      ]),
    );
  });

  it('opens a modal from a command and returns the bot answer to a view submission', async () => {
    await command('vincular');
    await vi.waitFor(() => expect(fake.views).toHaveLength(1));
    const opened = fake.views[0]!;
    expect(opened).toMatchObject({ userId, via: 'views.open', view: { callback_id: 'link_workspace' } });

    const submit = (values: Parameters<typeof buildViewSubmissionPayload>[0]['values']) =>
      viewSubmission(
        target,
        buildViewSubmissionPayload({
          teamId,
          userId,
          callbackId: 'link_workspace',
          viewId: opened.viewId,
          privateMetadata: opened.view.private_metadata,
          view: opened.view,
          values,
        }),
      );
    const refused = await submit({ login: { value: textInputValue(null) } });
    expect(refused.status).toBe(200);
    expect(JSON.parse(refused.body)).toEqual({
      response_action: 'errors',
      errors: { login: 'Informe o login' },
    });
    const accepted = await submit({ login: { value: textInputValue('demo') } });
    expect(accepted).toMatchObject({ status: 200, body: '' });
  });

  it('answers url_verification with the challenge', async () => {
    const result = await urlVerification(target, 'desafio-123');
    expect(result.status).toBe(200);
    expect(result.body).toContain('desafio-123');
  });

  it('is refused by Bolt with a wrong signature or a 10-minute-old timestamp', async () => {
    const body = new URLSearchParams({ payload: '{}' }).toString();
    const form = 'application/x-www-form-urlencoded';
    expect(
      (await sendSigned(target, body, form, { signature: signBody('other-secret', body, 1) })).status,
    ).toBe(401);
    const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
    expect((await sendSigned(target, body, form, { timestampSec: tenMinutesAgo })).status).toBe(401);
    const stale = { ...target, now: () => tenMinutesAgo };
    expect((await urlVerification(stale, 'x')).status).toBe(401);
  });
});
