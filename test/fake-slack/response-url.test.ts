import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_SEED } from '../../src/fake-slack/seed.js';
import { type FakeSlack, startFakeSlack } from '../../src/fake-slack/server.js';
import { actions, button, clientFor, section } from './helpers.js';

const { users, channels } = FAKE_SEED;
const context = { teamId: FAKE_SEED.teamId, channelId: channels.general, userId: users.member };

async function respond(url: string, body: object) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

describe('fake Slack response_url', () => {
  let clock = 1_700_000_000_000;
  let fake: FakeSlack;

  beforeAll(async () => {
    fake = await startFakeSlack({ now: () => clock });
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  it('posts an ephemeral message for the user by default and answers "ok"', async () => {
    const url = fake.newResponseUrl(context);
    expect(url.startsWith(`${fake.url}/response/`)).toBe(true);
    const blocks = [section('Solicitação *42*')];
    expect(await respond(url, { text: 'Solicitação 42', blocks })).toEqual({ status: 200, text: 'ok' });
    expect(fake.messages).toEqual([
      expect.objectContaining({
        channel: channels.general,
        teamId: FAKE_SEED.teamId,
        text: 'Solicitação 42',
        blocks,
        ephemeral: true,
        visibleTo: users.member,
        via: 'response_url',
      }),
    ]);
    expect(fake.calls).toEqual([expect.objectContaining({ method: 'response_url', status: 200, ok: true })]);
  });

  it('works even where the bot is not a member, as Slack does', async () => {
    const url = fake.newResponseUrl({ ...context, channelId: channels.withoutBot });
    expect((await respond(url, { text: 'ok' })).status).toBe(200);
  });

  it('posts a visible channel message with response_type in_channel', async () => {
    await respond(fake.newResponseUrl(context), {
      response_type: 'in_channel',
      text: 'Compartilhado por <@U00USER01>',
    });
    expect(fake.messages[0]).toMatchObject({ ephemeral: false, user: FAKE_SEED.botUserId });
    expect(fake.messages[0]?.visibleTo).toBeUndefined();
    expect(fake.visibleMessages({ channel: channels.general, userId: users.admin })).toHaveLength(1);
  });

  it('accepts 5 messages, then answers 404 expired_url', async () => {
    const url = fake.newResponseUrl(context);
    for (let i = 1; i <= 5; i++) expect((await respond(url, { text: `resposta ${i}` })).status).toBe(200);
    expect(await respond(url, { text: 'sexta' })).toEqual({ status: 404, text: 'expired_url' });
    expect(fake.messages).toHaveLength(5);
    expect(fake.calls.at(-1)).toMatchObject({
      method: 'response_url',
      status: 404,
      ok: false,
      error: 'expired_url',
    });
  });

  it('expires 30 minutes after it was issued', async () => {
    const url = fake.newResponseUrl(context);
    clock += 30 * 60_000;
    expect((await respond(url, { text: 'a tempo' })).status).toBe(200);
    clock += 1;
    expect(await respond(url, { text: 'tarde' })).toEqual({ status: 404, text: 'expired_url' });
  });

  it('answers 404 no_service for a response_url it never issued', async () => {
    expect(await respond(`${fake.url}/response/T00FAKE01-999-abc`, { text: 'x' })).toEqual({
      status: 404,
      text: 'no_service',
    });
  });

  it('replaces the message a button was clicked on with replace_original', async () => {
    const posted = await clientFor(fake, 'xoxb-r').chat.postMessage({
      channel: channels.general,
      text: 'Página 1',
      blocks: [section('Página 1'), actions(button('Próxima', 'next', '2'))],
    });
    const url = fake.newResponseUrl({ ...context, messageTs: posted.ts ?? '' });
    const blocks = [section('Página 2')];
    expect((await respond(url, { replace_original: true, text: 'Página 2', blocks })).status).toBe(200);
    expect(fake.visibleMessages({ channel: channels.general })).toEqual([
      expect.objectContaining({
        ts: posted.ts,
        text: 'Página 2',
        blocks,
        ephemeral: false,
        via: 'response_url',
      }),
    ]);
    expect(fake.messages[0]?.replaced).toBe(true);
  });

  it('keeps an ephemeral message ephemeral when replacing it, and replaces a command answer posted earlier', async () => {
    const url = fake.newResponseUrl(context);
    await respond(url, { text: 'Consultando...' });
    await respond(url, { replace_original: true, text: 'Solicitação 42: Aberta' });
    const visible = fake.visibleMessages({ channel: channels.general, userId: users.member });
    expect(visible).toEqual([
      expect.objectContaining({ text: 'Solicitação 42: Aberta', ephemeral: true, visibleTo: users.member }),
    ]);
    expect(fake.messages).toHaveLength(2);
  });

  it('deletes the original with delete_original, posting the new content as a new message', async () => {
    const url = fake.newResponseUrl(context);
    await respond(url, { text: 'efêmera' });
    const originalTs = fake.messages[0]?.ts;
    await respond(url, { delete_original: true, response_type: 'in_channel', text: 'Compartilhado' });
    expect(fake.messages[0]).toMatchObject({ ts: originalTs, deleted: true });
    expect(fake.visibleMessages({ channel: channels.general })).toEqual([
      expect.objectContaining({ text: 'Compartilhado', ephemeral: false }),
    ]);
    await respond(url, { delete_original: true });
    expect(fake.visibleMessages({ channel: channels.general })).toEqual([]);
  });

  it('answers 400 invalid_blocks for blocks over the limits and records the violation', async () => {
    const url = fake.newResponseUrl(context);
    const blocks = Array.from({ length: 51 }, () => ({ type: 'divider' }));
    expect(await respond(url, { text: 'x', blocks })).toEqual({ status: 400, text: 'invalid_blocks' });
    expect(fake.limitViolations).toEqual([
      `response_url ${channels.general}: no more than 50 items allowed [json-pointer:/blocks]`,
    ]);
    expect(await respond(url, { text: '' })).toEqual({ status: 400, text: 'no_text' });
    expect(fake.messages).toEqual([]);
  });

  it('can be made to fail like Slack does under trouble', async () => {
    const url = fake.newResponseUrl(context);
    fake.failNext('response_url', { status: 500 });
    fake.failNext('response_url', { error: 'expired_url' });
    expect((await respond(url, { text: 'x' })).status).toBe(500);
    expect(await respond(url, { text: 'x' })).toEqual({ status: 404, text: 'expired_url' });
    expect((await respond(url, { text: 'x' })).status).toBe(200);
  });
});
