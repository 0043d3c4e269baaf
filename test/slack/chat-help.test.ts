import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_SEED, type FakeMessage } from '../../src/fake-slack/index.js';
import { CHANNELS, type Harness, startHarness, TEAM, textOf, USERS } from '../helpers/bot-harness.js';

/**
 * `@estoque-bot` mentions and messages in the bot's DM, sent as Slack sends them (signed event_callback to
 * /slack/events); the answers seen where Slack shows them (the fake's chat.postMessage).
 */

const DM = 'D00DMUSER1';
let h: Harness;
let seq = 0;

beforeEach(async () => {
  h = await startHarness();
  h.slack.addChannel({
    id: DM,
    name: USERS.member,
    members: new Set([USERS.member, FAKE_SEED.botUserId]),
    isPrivate: true,
    teamId: TEAM,
    imUser: USERS.member,
  });
});
afterEach(async () => {
  await h.close();
});

/** A Slack message ts, distinct for each event of the file. */
function ts(): string {
  seq += 1;
  return `${Math.floor(Date.now() / 1000)}.${String(seq).padStart(6, '0')}`;
}

const mention = (fields: Record<string, unknown> = {}) => {
  const at = ts();
  return {
    type: 'app_mention',
    user: USERS.member,
    text: `<@${FAKE_SEED.botUserId}> quanto tem de lâmpada?`,
    ts: at,
    channel: CHANNELS.stockroom,
    event_ts: at,
    ...fields,
  };
};

const dm = (fields: Record<string, unknown> = {}) => {
  const at = ts();
  return {
    type: 'message',
    channel: DM,
    channel_type: 'im',
    user: USERS.member,
    text: 'oi, preciso de luvas',
    ts: at,
    event_ts: at,
    ...fields,
  };
};

async function send(event: object) {
  const result = await h.event(event);
  expect(result.status).toBe(200);
}

const posted = (channel: string, since: number): FakeMessage[] =>
  h.slack.messages.filter((m) => m.channel === channel && m.at >= since && m.via === 'chat.postMessage');

describe('a mention of the bot', () => {
  it('gets a short help in a thread of the message, naming the commands', async () => {
    const since = Date.now();
    const event = mention();
    await send(event);
    const reply = await h.nextMessage(since, { channel: CHANNELS.stockroom, ephemeral: false });
    expect(reply.via).toBe('chat.postMessage');
    expect(reply.threadTs).toBe(event.ts);
    expect(reply.user).toBe(FAKE_SEED.botUserId);
    const text = textOf(reply);
    expect(text).toContain('Eu respondo a comandos, não a mensagens');
    for (const command of ['/estoque', '/solicitacao', '/compras', '/estoque ajuda'])
      expect(text).toContain(command);
  });

  it('in a thread gets the answer in that same thread', async () => {
    const since = Date.now();
    await send(mention({ thread_ts: '1700000000.000100' }));
    const reply = await h.nextMessage(since, { channel: CHANNELS.stockroom, ephemeral: false });
    expect(reply.threadTs).toBe('1700000000.000100');
  });

  it('by another bot, or an edited one, gets nothing', async () => {
    const since = Date.now();
    await send(mention({ user: 'U00OTHERBOT', bot_id: 'B00OTHER01' }));
    await send(mention({ edited: { user: USERS.member, ts: ts() } }));
    const person = mention();
    await send(person);
    await h.nextMessage(since, { channel: CHANNELS.stockroom, ephemeral: false });
    expect(posted(CHANNELS.stockroom, since).map((m) => m.threadTs)).toEqual([person.ts]);
  });
});

describe('a message in the bot’s DM', () => {
  it('gets the same short help in the DM', async () => {
    const since = Date.now();
    await send(dm());
    const reply = await h.nextMessage(since, { channel: DM });
    expect(reply.via).toBe('chat.postMessage');
    expect(reply.threadTs).toBeUndefined();
    expect(textOf(reply)).toContain('Eu respondo a comandos, não a mensagens');
  });

  it('never answers the bot’s own message, another bot’s, an edit or a deletion: no loops', async () => {
    const since = Date.now();
    // The bot's own help, as Slack echoes it back in message.im.
    await send(
      dm({ user: FAKE_SEED.botUserId, bot_id: FAKE_SEED.botId, text: 'Oi! Eu respondo a comandos' }),
    );
    await send(dm({ subtype: 'bot_message', bot_id: 'B00OTHER01', username: 'outro-bot', user: undefined }));
    await send(dm({ user: 'U00OTHERBOT', bot_id: 'B00OTHER01' }));
    await send(
      dm({
        subtype: 'message_changed',
        user: undefined,
        message: { type: 'message', user: USERS.member, text: 'editada', ts: ts() },
      }),
    );
    await send(dm({ subtype: 'message_deleted', user: undefined, deleted_ts: ts() }));
    const person = dm({ text: 'e agora?' });
    await send(person);
    await h.nextMessage(since, { channel: DM });
    expect(posted(DM, since)).toHaveLength(1);
  });

  it('in a channel (not the DM) gets nothing from the message event', async () => {
    const since = Date.now();
    await send(dm({ channel: CHANNELS.stockroom, channel_type: 'channel' }));
    await send(dm());
    await h.nextMessage(since, { channel: DM });
    expect(posted(CHANNELS.stockroom, since)).toEqual([]);
  });
});
