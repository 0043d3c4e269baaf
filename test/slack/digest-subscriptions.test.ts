import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_SEED } from '../../src/fake-slack/index.js';
import { checkMessageLimits, type Message } from '../../src/render/index.js';
import {
  CHANNELS,
  type Harness,
  limitsOf,
  SUBSCRIBER,
  saoPaulo,
  startDigestHarness,
  textOf,
  WS,
} from '../helpers/digest-harness.js';

let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(): Promise<Harness> {
  harness = await startDigestHarness(saoPaulo(2026, 11, 23, 7));
  return harness;
}

/** The command's client, as Bolt hands it to a listener (with its default retries). */
function commandClient(h: Harness) {
  return new webApi.WebClient(h.slack.tokenFor(WS), {
    slackApiUrl: h.slack.apiUrl,
    retryConfig: { retries: 0 },
  });
}

function messageText(message: Message | null): string {
  return message ? `${message.text}\n${JSON.stringify(message.blocks)}` : '';
}

describe('/estoque resumo', () => {
  it('assinar posts a confirmation in the channel and subscribes it; again, it updates', async () => {
    const h = await start();
    const { digestSubscriptions: subscriptions, store } = h.replica();
    const client = commandClient(h);
    const reply = await subscriptions.subscribe(
      {
        workspaceId: WS,
        channelId: CHANNELS.stockroom,
        userId: SUBSCRIBER,
        hour: 8,
        minute: 0,
        weekdaysOnly: false,
      },
      client,
    );
    expect(reply).toBeNull();
    const [confirmation] = h.posts(CHANNELS.stockroom);
    expect(textOf(confirmation!)).toContain(`<@${SUBSCRIBER}> assinou o resumo diário`);
    expect(textOf(confirmation!)).toContain('todo dia às 08:00 (America/Sao_Paulo)');
    expect(limitsOf(confirmation!)).toEqual([]);
    expect(await store.get(WS, CHANNELS.stockroom)).toMatchObject({
      hour: 8,
      minute: 0,
      timeZone: 'America/Sao_Paulo',
      weekdaysOnly: false,
      stockroomId: null,
      subscribedBy: SUBSCRIBER,
      paused: null,
    });

    h.clock.advance(60_000);
    await subscriptions.subscribe(
      {
        workspaceId: WS,
        channelId: CHANNELS.stockroom,
        userId: FAKE_SEED.users.admin,
        hour: 7,
        minute: 15,
        stockroomId: 2,
        weekdaysOnly: true,
      },
      client,
    );
    expect(textOf(h.posts(CHANNELS.stockroom)[1]!)).toContain('atualizou o resumo diário');
    const updated = await store.get(WS, CHANNELS.stockroom);
    expect(updated).toMatchObject({ hour: 7, minute: 15, stockroomId: 2, weekdaysOnly: true });
    expect(updated?.createdAt).toBe(saoPaulo(2026, 11, 23, 7));
    expect(await store.listWorkspace(WS)).toHaveLength(1);
  });

  it('assinar where the bot cannot post says why (how to invite it, when that mends it) and subscribes nothing', async () => {
    const h = await start();
    const { digestSubscriptions: subscriptions, store } = h.replica();
    for (const [channelId, says] of [
      [CHANNELS.withoutBot, 'Convide o bot com `/invite @estoque-bot`'],
      // Inviting the bot does not unarchive a channel.
      [CHANNELS.archived, 'o canal foi arquivado. Use o comando em outro canal'],
    ] as const) {
      const reply = await subscriptions.subscribe(
        { workspaceId: WS, channelId, userId: SUBSCRIBER, hour: 8, minute: 0, weekdaysOnly: false },
        commandClient(h),
      );
      expect(messageText(reply)).toContain(says);
      expect(await store.get(WS, channelId)).toBeNull();
    }
    expect(await store.listAll()).toEqual([]);
  });

  it('cancelar, listar and agora', async () => {
    const h = await start();
    const { digestSubscriptions: subscriptions } = h.replica();
    const client = commandClient(h);
    expect(messageText(await subscriptions.postNow(WS, CHANNELS.general))).toContain('não assina o resumo');
    for (const channelId of [CHANNELS.general, CHANNELS.stockroom]) {
      await subscriptions.subscribe(
        {
          workspaceId: WS,
          channelId,
          userId: SUBSCRIBER,
          hour: 8,
          minute: 0,
          weekdaysOnly: channelId === CHANNELS.general,
        },
        client,
      );
    }
    const list = await subscriptions.list(WS, { timeZone: 'America/Sao_Paulo', now: h.clock.now() });
    expect(checkMessageLimits(list)).toEqual([]);
    expect(messageText(list)).toContain(`<#${CHANNELS.general}> · de segunda a sexta às 08:00`);
    expect(messageText(list)).toContain(`<#${CHANNELS.stockroom}> · todo dia às 08:00`);
    expect(messageText(list)).toContain('ainda não enviado');

    const posted = await subscriptions.postNow(WS, CHANNELS.general);
    expect(messageText(posted)).toContain('Resumo postado');
    const digest = h.posts(CHANNELS.general).at(-1)!;
    expect(textOf(digest)).toContain('Resumo do estoque');
    expect(limitsOf(digest)).toEqual([]);

    expect(messageText(await subscriptions.unsubscribe(WS, CHANNELS.general))).toContain('cancelado');
    expect(messageText(await subscriptions.unsubscribe(WS, CHANNELS.general))).toContain('não assina');
    const after = await subscriptions.list(WS, { timeZone: 'America/Sao_Paulo', now: h.clock.now() });
    expect(messageText(after)).not.toContain(CHANNELS.general);
    expect(h.slack.limitViolations).toEqual([]);
  });
});
