import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_SEED, type FakeSlack, startFakeSlack } from '../../src/fake-slack/index.js';
import { PLAYGROUND_SCRIPT } from '../../src/fake-slack/playground/assets/script.js';
import {
  MANIFEST_COMMANDS,
  PLAYGROUND_COMMANDS,
  PLAYGROUND_SHORTCUTS,
} from '../../src/fake-slack/playground/commands.js';
import { mountPlayground } from '../../src/fake-slack/playground/routes.js';
import { buildStateValues, clientSideErrors } from '../../src/fake-slack/playground/view-state.js';
import { openPlaygroundEvents, type PlaygroundMessage } from './sse.js';
import { type StubBot, startStubBot, webApi } from './stub-bot.js';

const ROOT = join(import.meta.dirname, '..', '..');

describe('playground assets', () => {
  it('ships a script that parses as JavaScript', () => {
    expect(() => new Script(PLAYGROUND_SCRIPT)).not.toThrow();
  });

  it('offers the shortcuts of manifest.yml', async () => {
    const manifest = await readFile(join(ROOT, 'manifest.yml'), 'utf8');
    const fromManifest = [
      ...manifest.matchAll(/- name: (.+)\n\s+type: (global|message)\n\s+callback_id: (\S+)\n/g),
    ].map((m) => ({ type: m[2], callbackId: m[3], name: m[1] }));
    expect(fromManifest).toHaveLength(2);
    expect(PLAYGROUND_SHORTCUTS).toEqual(fromManifest);
  });

  it('offers the commands, descriptions and usage hints of manifest.yml', async () => {
    const manifest = await readFile(join(ROOT, 'manifest.yml'), 'utf8');
    const fromManifest = [
      ...manifest.matchAll(/- command: (\S+)\n(?:.*\n)*?\s+description: (.+)\n\s+usage_hint: "(.*)"/g),
    ].map((m) => ({ command: m[1], description: m[2], usageHint: m[3] }));
    expect(fromManifest).toHaveLength(3);
    expect(MANIFEST_COMMANDS).toEqual(fromManifest);
    // The playground's picker: the same, and local mode's `/estoque sandbox avancar` inside `/estoque`'s hint.
    expect(
      PLAYGROUND_COMMANDS.map((c) => ({
        ...c,
        usageHint: c.usageHint.replace(' | sandbox avancar [N]', ''),
      })),
    ).toEqual(fromManifest);
    expect(PLAYGROUND_COMMANDS.find((c) => c.command === '/estoque')?.usageHint).toMatch(
      /\| <material> almox:ID \| sandbox avancar \[N\]\]$/,
    );
  });
});

describe('modal inputs, as Slack’s client reads them', () => {
  const blocks = [
    { type: 'section', text: { type: 'mrkdwn', text: 'texto' } },
    {
      type: 'input',
      block_id: 'login',
      label: { type: 'plain_text', text: 'Login' },
      element: { type: 'plain_text_input', action_id: 'v', max_length: 5 },
    },
    {
      type: 'input',
      block_id: 'company',
      label: { type: 'plain_text', text: 'Empresa' },
      element: {
        type: 'number_input',
        action_id: 'v',
        is_decimal_allowed: false,
        min_value: '1',
        max_value: '99',
      },
    },
    {
      type: 'input',
      block_id: 'unit',
      optional: true,
      label: { type: 'plain_text', text: 'Unidade' },
      element: { type: 'number_input', action_id: 'v', is_decimal_allowed: false },
    },
    {
      type: 'input',
      block_id: 'end',
      optional: true,
      label: { type: 'plain_text', text: 'Sessão' },
      element: {
        type: 'checkboxes',
        action_id: 'v',
        options: [{ text: { type: 'plain_text', text: 'Encerrar' }, value: 'end' }],
      },
    },
  ];

  it('types every value as Slack does: null when empty, options as objects', () => {
    expect(
      buildStateValues(blocks, { login: { v: 'demo' }, company: { v: '1' }, end: { v: ['end', 'forged'] } }),
    ).toEqual({
      login: { v: { type: 'plain_text_input', value: 'demo' } },
      company: { v: { type: 'number_input', value: '1' } },
      unit: { v: { type: 'number_input', value: null } },
      end: { v: { type: 'checkboxes', selected_options: [blocks[4]?.element?.options?.[0]] } },
    });
  });

  it('refuses empty required fields, bad numbers and long text before the app sees them', () => {
    const errorsOf = (raw: Parameters<typeof buildStateValues>[1]) =>
      clientSideErrors(blocks, buildStateValues(blocks, raw));
    expect(errorsOf({})).toEqual({
      login: 'Preencha este campo obrigatório.',
      company: 'Preencha este campo obrigatório.',
    });
    expect(errorsOf({ login: { v: 'longer' }, company: { v: '1.5' }, unit: { v: 'x' } })).toEqual({
      login: 'Use no máximo 5 caracteres.',
      company: 'Insira um número inteiro.',
      unit: 'Insira um número inteiro.',
    });
    expect(errorsOf({ login: { v: 'ok' }, company: { v: '100' } })).toEqual({
      company: 'Insira um número menor ou igual a 99.',
    });
    expect(errorsOf({ login: { v: 'ok' }, company: { v: '7' } })).toEqual({});
  });
});

describe('playground routes', () => {
  let fake: FakeSlack;
  let bot: StubBot;
  let health: Server;
  let healthStatus = 200;

  beforeAll(async () => {
    fake = await startFakeSlack({ port: 0, enforceChannelRate: false });
    bot = await startStubBot();
    health = createServer((_req, res) =>
      res.writeHead(healthStatus, { 'content-type': 'application/json' }).end('{}'),
    );
    await new Promise<void>((resolve) => health.listen(0, '127.0.0.1', resolve));
    mountPlayground(fake, {
      target: { eventsUrl: bot.eventsUrl, signingSecret: bot.signingSecret },
      teamId: FAKE_SEED.teamId,
      userId: FAKE_SEED.users.admin,
      channelId: FAKE_SEED.channels.stockroom,
      healthUrl: `http://127.0.0.1:${(health.address() as AddressInfo).port}/healthz`,
    });
  });

  afterAll(async () => {
    await fake.close();
    await bot.close();
    await new Promise((resolve) => health.close(resolve));
  });

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${fake.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

  it('serves the page with a strict content security policy, and the Web API still answers', async () => {
    const page = await fetch(`${fake.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await page.text()).toContain('<script src="/playground/app.js" defer></script>');
    const script = await fetch(`${fake.url}/playground/app.js`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await script.text()).toBe(PLAYGROUND_SCRIPT);
    const auth = await fetch(`${fake.apiUrl}auth.test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.tokenFor(FAKE_SEED.teamId)}` },
    });
    expect(await auth.json()).toMatchObject({ ok: true, team_id: FAKE_SEED.teamId });
  });

  it('takes JSON from its own page only: forms and other origins cannot drive it', async () => {
    const before = bot.requests.length;
    const form = await fetch(`${fake.url}/playground/command`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'command=/estoque&text=desvincular',
    });
    expect(form.status).toBe(415);
    const foreign = await post('/playground/command', '{"command":"/estoque","text":""}', {
      origin: 'https://evil.example',
    });
    expect(foreign.status).toBe(403);
    const unknown = await post('/playground/command', '{"command":"/outro","text":""}');
    expect(await unknown.json()).toEqual({ ok: false, error: 'not_a_command' });
    expect(bot.requests).toHaveLength(before);
  });

  it('tells when the app does not answer as Slack expects', async () => {
    bot.answer = () => ({ status: 500 });
    const answer = await post('/playground/command', '{"command":"/compras","text":"pendentes"}');
    expect(await answer.json()).toEqual({ ok: false, error: 'http_500' });
    bot.answer = () => undefined;
  });

  it('relays the bot’s /healthz', async () => {
    expect((await fetch(`${fake.url}/healthz`)).status).toBe(200);
    healthStatus = 503;
    expect((await fetch(`${fake.url}/healthz`)).status).toBe(503);
    healthStatus = 200;
  });

  it('streams the person’s messages: theirs and the channel’s, not other people’s ephemerals', async () => {
    const token = fake.tokenFor(FAKE_SEED.teamId);
    const channel = FAKE_SEED.channels.stockroom;
    await webApi(fake.apiUrl, token, 'chat.postMessage', { channel, text: 'antes de abrir' });
    await webApi(fake.apiUrl, token, 'chat.postEphemeral', {
      channel,
      user: FAKE_SEED.users.member,
      text: 'do Bruno',
    });
    const controller = new AbortController();
    const response = await fetch(`${fake.url}/playground/events`, { signal: controller.signal });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body!.getReader();
    let received = '';
    const readUntil = async (needle: string) => {
      while (!received.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        received += new TextDecoder().decode(value);
      }
    };
    await readUntil('\n\n');
    const hello = JSON.parse(/^event: hello\ndata: (.*)$/m.exec(received)?.[1] ?? '{}') as {
      messages: { text: string }[];
      user: { id: string };
    };
    expect(hello.user.id).toBe(FAKE_SEED.users.admin);
    expect(hello.messages.map((m) => m.text)).toContain('antes de abrir');
    expect(hello.messages.map((m) => m.text)).not.toContain('do Bruno');
    await webApi(fake.apiUrl, token, 'chat.postEphemeral', {
      channel,
      user: FAKE_SEED.users.member,
      text: 'outro do Bruno',
    });
    await webApi(fake.apiUrl, token, 'chat.postMessage', { channel, text: 'depois de abrir' });
    await readUntil('depois de abrir');
    expect(received).not.toContain('outro do Bruno');
    controller.abort();
  });

  it('shows a modal in the page whose command or click opened it, not in the person’s other pages', async () => {
    const token = fake.tokenFor(FAKE_SEED.teamId);
    const modal = (title: string) => ({
      type: 'modal',
      title: { type: 'plain_text', text: title },
      blocks: [
        {
          type: 'actions',
          block_id: 'b',
          elements: [{ type: 'button', action_id: 'mais', text: { type: 'plain_text', text: 'Mais' } }],
        },
      ],
    });
    bot.answer = async (request) => {
      if (request.kind === 'command') {
        await webApi(fake.apiUrl, token, 'views.open', {
          trigger_id: request.fields.trigger_id,
          view: modal(`Aberto por ${request.fields.text}`),
        });
      } else if (request.payload.type === 'block_actions') {
        await webApi(fake.apiUrl, token, 'views.push', {
          trigger_id: request.payload.trigger_id,
          view: modal('Empilhado'),
        });
      }
      return undefined;
    };
    const pageA = await openPlaygroundEvents(fake.url, 'pagina-a');
    const pageB = await openPlaygroundEvents(fake.url, 'pagina-b');
    const unnamed = await openPlaygroundEvents(fake.url);
    const seen = (page: typeof pageA) =>
      page.viewsRead().map((v) => [v.via, (v.view.title as { text: string }).text]);
    try {
      const command = (text: string, client: string) =>
        post('/playground/command', JSON.stringify({ command: '/estoque', text, client }));
      expect(await (await command('A', 'pagina-a')).json()).toEqual({ ok: true });
      const opened = await pageA.view((v) => v.via === 'views.open');
      // A click in that modal pushes a view on its stack; then the bot updates the first one by its id (no trigger).
      const click = await post(
        '/playground/action',
        JSON.stringify({ viewId: opened.view.id, actionId: 'mais', blockId: 'b', client: 'pagina-a' }),
      );
      expect(await click.json()).toEqual({ ok: true });
      await pageA.view((v) => v.via === 'views.push');
      await webApi(fake.apiUrl, token, 'views.update', {
        view_id: opened.view.id,
        view: modal('Atualizado'),
      });
      await pageA.view((v) => v.via === 'views.update');
      // The other page opens one of its own.
      expect(await (await command('B', 'pagina-b')).json()).toEqual({ ok: true });
      await pageB.view((v) => v.via === 'views.open');
      // Every stream has read what came before a message posted after all that.
      await webApi(fake.apiUrl, token, 'chat.postMessage', {
        channel: FAKE_SEED.channels.stockroom,
        text: 'depois dos modais',
      });
      for (const page of [pageA, pageB, unnamed]) await page.message((m) => m.text === 'depois dos modais');
      // Until 2026-11-27 every page of the person showed every modal.
      expect(seen(pageA)).toEqual([
        ['views.open', 'Aberto por A'],
        ['views.push', 'Empilhado'],
        ['views.update', 'Atualizado'],
      ]);
      expect(seen(pageB)).toEqual([['views.open', 'Aberto por B']]);
      expect(seen(unnamed)).toEqual([]);
    } finally {
      for (const page of [pageA, pageB, unnamed]) page.close();
      bot.answer = () => undefined;
    }
  });

  it('shows the bot’s DMs to the person at the page (an alert of a followed request), and nobody else’s', async () => {
    const token = fake.tokenFor(FAKE_SEED.teamId);
    // As the feed poster sends a DM: chat.postMessage to the user id.
    await webApi(fake.apiUrl, token, 'chat.postMessage', {
      channel: FAKE_SEED.users.admin,
      text: 'DM para Ana',
    });
    await webApi(fake.apiUrl, token, 'chat.postMessage', {
      channel: FAKE_SEED.users.member,
      text: 'DM para Bruno',
    });
    const page = await openPlaygroundEvents(fake.url);
    try {
      const dm = page.hello.messages.find((m) => m.text === 'DM para Ana') as
        | (PlaygroundMessage & { directMessage?: boolean })
        | undefined;
      expect(dm?.directMessage).toBe(true);
      expect(page.hello.messages.map((m) => m.text)).not.toContain('DM para Bruno');
      await webApi(fake.apiUrl, token, 'chat.postMessage', {
        channel: FAKE_SEED.users.admin,
        text: 'outra DM',
      });
      const live = (await page.message((m) => m.text === 'outra DM')) as PlaygroundMessage & {
        directMessage?: boolean;
      };
      expect(live.directMessage).toBe(true);
    } finally {
      page.close();
    }
  });
});
