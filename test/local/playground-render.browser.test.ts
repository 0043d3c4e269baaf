import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { FAKE_SEED, type FakeSlack, startFakeSlack } from '../../src/fake-slack/index.js';
import { mountPlayground } from '../../src/fake-slack/playground/routes.js';
import { launchChromium, messageWith, screenshot, typeCommand, visibleText } from './browser.js';
import { type StubBot, type StubRequest, startStubBot, webApi } from './stub-bot.js';

/**
 * The playground against a stand-in bot: Block Kit sent through the fake Slack's Web API, rendered in headless
 * Chromium, and what the page sends back as Slack would (signed, shaped like Slack's payloads).
 */

const TEAM = FAKE_SEED.teamId;
const ME = FAKE_SEED.users.admin;
const CHANNEL = FAKE_SEED.channels.stockroom;
const WAIT = { timeout: 10_000 };

describe('playground rendering and interactions in a real browser', () => {
  let fake: FakeSlack;
  let bot: StubBot;
  let token: string;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const api = (method: string, args: Record<string, unknown>) => webApi(fake.apiUrl, token, method, args);
  const interactions = (type: string) =>
    bot.requests.flatMap((r) => (r.kind === 'interaction' && r.payload.type === type ? [r.payload] : []));
  const waitFor = async <T>(probe: () => T | undefined, what: string): Promise<T> => {
    const deadline = Date.now() + WAIT.timeout;
    for (;;) {
      const value = probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  beforeAll(async () => {
    fake = await startFakeSlack({ port: 0, enforceChannelRate: false });
    bot = await startStubBot();
    token = fake.tokenFor(TEAM);
    mountPlayground(fake, {
      target: { eventsUrl: bot.eventsUrl, signingSecret: bot.signingSecret },
      teamId: TEAM,
      userId: ME,
      channelId: CHANNEL,
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('dialog', (dialog) => void dialog.dismiss());
    await page.goto(fake.url);
    await page.getByRole('status').filter({ hasText: 'conectado' }).waitFor(WAIT);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await bot?.close();
    await fake?.close();
  });

  beforeEach((ctx) => {
    bot.answer = () => undefined;
    onTestFailed(async () => {
      await screenshot(page, `render-${ctx.task.name}`);
    });
  });

  it('renders mrkdwn, and shows HTML from the data as text, never as markup', async () => {
    const hostile =
      '&lt;img src=x onerror="window.__pwned=1"&gt; &lt;script&gt;window.__pwned=2&lt;/script&gt;';
    await api('chat.postMessage', {
      channel: CHANNEL,
      text: 'formatação',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: '<b>Cabeçalho</b> :package:', emoji: true } },
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text:
              '*negrito* _itálico_ ~riscado~ `código *não negrito*` snake_case_word 2*3*4\n' +
              '<https://example.com/a?b=1&amp;c=2|um link> <javascript:alert(1)|link ruim> <@U00ADMIN1> ' +
              `:warning: :white_check_mark: :nao_existe:\nlinha 2 ${hostile}`,
          },
          fields: [
            { type: 'mrkdwn', text: '*Campo A*\nvalor &amp; mais' },
            { type: 'mrkdwn', text: '*Campo B*\n```bloco\n*cru*```' },
          ],
        },
        { type: 'divider' },
        { type: 'context', elements: [{ type: 'mrkdwn', text: 'rodapé _pequeno_' }] },
      ],
    });
    const message = messageWith(page, 'negrito');
    await message.waitFor(WAIT);
    const text = await visibleText(message);
    await expect(visibleText(message.getByRole('heading'))).resolves.toBe('<b>Cabeçalho</b> \u{1F4E6}');
    await expect(visibleText(message.locator('b', { hasText: 'negrito' }).first())).resolves.toBe('negrito');
    await expect(visibleText(message.locator('i').first())).resolves.toBe('itálico');
    await expect(visibleText(message.locator('s'))).resolves.toBe('riscado');
    await expect(visibleText(message.locator('code'))).resolves.toBe('código *não negrito*');
    expect(text).toContain('snake_case_word 2*3*4');
    const link = message.getByRole('link', { name: 'um link' });
    await expect(link.getAttribute('href')).resolves.toBe('https://example.com/a?b=1&c=2');
    await expect(link.getAttribute('rel')).resolves.toBe('noopener noreferrer');
    await expect(message.getByRole('link').count()).resolves.toBe(1);
    expect(text).toContain('link ruim');
    expect(text).toContain('@Ana Souza');
    expect(text).toContain('\u26A0\uFE0F \u2705 :nao_existe:');
    expect(text).toMatch(/:nao_existe:\nlinha 2/);
    expect(text).toContain('<img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script>');
    await expect(message.locator('.blocks img, .blocks script').count()).resolves.toBe(0);
    await expect(visibleText(message.locator('pre'))).resolves.toBe('bloco\n*cru*');
    expect(text).toContain('valor & mais');
    await expect(message.locator('hr').count()).resolves.toBe(1);
    await expect(visibleText(message.locator('.block-context i'))).resolves.toBe('pequeno');
    await expect(page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).resolves.toBeUndefined();
  });

  it('shows ephemeral answers as ephemeral, to their user only, and channel posts as they come', async () => {
    await api('chat.postEphemeral', { channel: CHANNEL, user: ME, text: 'só para a Ana' });
    await api('chat.postEphemeral', {
      channel: CHANNEL,
      user: FAKE_SEED.users.member,
      text: 'só para o Bruno',
    });
    await api('chat.postMessage', { channel: CHANNEL, text: 'resumo para todos' });
    const mine = messageWith(page, 'só para a Ana');
    const everyone = messageWith(page, 'resumo para todos');
    await everyone.waitFor(WAIT);
    await expect(mine.getAttribute('data-ephemeral')).resolves.toBe('true');
    await expect(visibleText(mine)).resolves.toContain('Somente você pode ver esta mensagem');
    await expect(everyone.getAttribute('data-ephemeral')).resolves.toBe('false');
    await expect(visibleText(everyone)).resolves.not.toContain('Somente você');
    await expect(page.locator('article.message', { hasText: 'só para o Bruno' }).count()).resolves.toBe(0);
    // Messages in another channel are not this channel's.
    await api('chat.postMessage', { channel: FAKE_SEED.channels.general, text: 'no #geral' });
    await api('chat.postMessage', { channel: CHANNEL, text: 'depois do geral' });
    await messageWith(page, 'depois do geral').waitFor(WAIT);
    await expect(page.locator('article.message', { hasText: 'no #geral' }).count()).resolves.toBe(0);
  });

  it('replaces a message updated with chat.update in place', async () => {
    const posted = await api('chat.postMessage', { channel: CHANNEL, text: 'versão 1' });
    await messageWith(page, 'versão 1').waitFor(WAIT);
    const count = await page.locator('article.message').count();
    await api('chat.update', { channel: CHANNEL, ts: posted.ts, text: 'versão 2' });
    await messageWith(page, 'versão 2').waitFor(WAIT);
    await expect(page.locator('article.message').count()).resolves.toBe(count);
    await expect(page.locator('article.message', { hasText: 'versão 1' }).count()).resolves.toBe(0);
  });

  it('sends button clicks as signed block_actions, after the confirm dialog when there is one', async () => {
    await api('chat.postEphemeral', {
      channel: CHANNEL,
      user: ME,
      text: 'botões',
      blocks: [
        {
          type: 'section',
          block_id: 'b-section',
          text: { type: 'mrkdwn', text: 'Com botão ao lado' },
          accessory: {
            type: 'button',
            action_id: 'open',
            value: 'v-open',
            text: { type: 'plain_text', text: 'Ver' },
          },
        },
        {
          type: 'actions',
          block_id: 'b-actions',
          elements: [
            {
              type: 'button',
              action_id: 'ok',
              value: 'v-ok',
              style: 'primary',
              text: { type: 'plain_text', text: 'Confirmar tudo' },
            },
            {
              type: 'button',
              action_id: 'drop',
              value: 'v-drop',
              style: 'danger',
              text: { type: 'plain_text', text: 'Apagar' },
              confirm: {
                title: { type: 'plain_text', text: 'Apagar mesmo?' },
                text: { type: 'mrkdwn', text: 'Isto *não* tem volta.' },
                confirm: { type: 'plain_text', text: 'Sim, apagar' },
                deny: { type: 'plain_text', text: 'Não' },
                style: 'danger',
              },
            },
          ],
        },
      ],
    });
    const message = messageWith(page, 'Com botão ao lado');
    await message.waitFor(WAIT);
    const posted = fake.messages.find((m) => m.text === 'botões');
    const before = interactions('block_actions').length;
    await expect(
      message.getByRole('button', { name: 'Confirmar tudo' }).getAttribute('class'),
    ).resolves.toContain('primary');
    await expect(message.getByRole('button', { name: 'Apagar' }).getAttribute('class')).resolves.toContain(
      'danger',
    );

    await message.getByRole('button', { name: 'Ver' }).click();
    const first = await waitFor(() => interactions('block_actions')[before], 'the first click');
    expect(first).toMatchObject({
      user: { id: ME, team_id: TEAM },
      team: { id: TEAM },
      channel: { id: CHANNEL },
      container: { type: 'message', message_ts: posted?.ts, channel_id: CHANNEL, is_ephemeral: true },
      actions: [{ type: 'button', action_id: 'open', block_id: 'b-section', value: 'v-open' }],
    });
    expect(first.response_url).toMatch(new RegExp(`^${fake.url}/response/`));
    expect(first.trigger_id).toEqual(expect.any(String));

    await message.getByRole('button', { name: 'Apagar' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Apagar mesmo?' });
    await dialog.waitFor(WAIT);
    await expect(visibleText(dialog.locator('b'))).resolves.toBe('não');
    await dialog.getByRole('button', { name: 'Não' }).click();
    await dialog.waitFor({ state: 'detached', ...WAIT });
    await message.getByRole('button', { name: 'Apagar' }).click();
    await dialog.getByRole('button', { name: 'Sim, apagar' }).click();
    const second = await waitFor(() => interactions('block_actions')[before + 1], 'the confirmed click');
    expect(second.actions).toMatchObject([
      { action_id: 'drop', block_id: 'b-actions', value: 'v-drop', style: 'danger' },
    ]);
    expect(interactions('block_actions')).toHaveLength(before + 2);
    expect(bot.badSignatures).toBe(0);
  });

  it('sends overflow and static select choices with the option chosen', async () => {
    const options = [
      { text: { type: 'plain_text', text: 'Primeira' }, value: 'one' },
      { text: { type: 'plain_text', text: 'Segunda' }, value: 'two' },
    ];
    await api('chat.postMessage', {
      channel: CHANNEL,
      text: 'menus',
      blocks: [
        {
          type: 'section',
          text: { type: 'mrkdwn', text: 'Menu de opções' },
          accessory: { type: 'overflow', action_id: 'more', options },
        },
        {
          type: 'actions',
          elements: [
            {
              type: 'static_select',
              action_id: 'pick',
              placeholder: { type: 'plain_text', text: 'Escolha' },
              options,
            },
          ],
        },
      ],
    });
    const message = messageWith(page, 'Menu de opções');
    await message.waitFor(WAIT);
    const before = interactions('block_actions').length;
    await message.getByRole('button', { name: 'Mais opções' }).click();
    await message.getByRole('menuitem', { name: 'Segunda' }).click();
    const overflow = await waitFor(() => interactions('block_actions')[before], 'the overflow choice');
    expect(overflow.actions).toMatchObject([
      { type: 'overflow', action_id: 'more', selected_option: { value: 'two' } },
    ]);
    expect(overflow.container).toMatchObject({ is_ephemeral: false });
    expect(overflow.message).toMatchObject({ text: 'menus' });

    await message.getByRole('combobox', { name: 'Escolha' }).selectOption('one');
    const select = await waitFor(() => interactions('block_actions')[before + 1], 'the select choice');
    expect(select.actions).toMatchObject([
      {
        type: 'static_select',
        action_id: 'pick',
        selected_option: { value: 'one', text: { text: 'Primeira' } },
      },
    ]);
  });

  it('shows a command’s immediate answer, opens modals, checks required inputs, and submits typed values', async () => {
    const checkboxOptions = [
      { text: { type: 'plain_text', text: 'Urgente' }, value: 'urgent' },
      { text: { type: 'plain_text', text: 'Avisar' }, value: 'notify' },
    ];
    const stockroomOptions = [
      { text: { type: 'plain_text', text: 'Central' }, value: '1' },
      { text: { type: 'plain_text', text: 'Torre Norte' }, value: '2' },
    ];
    const modal = {
      type: 'modal',
      callback_id: 'form',
      private_metadata: 'meta-1',
      title: { type: 'plain_text', text: 'Formulário' },
      submit: { type: 'plain_text', text: 'Enviar' },
      close: { type: 'plain_text', text: 'Cancelar' },
      blocks: [
        {
          type: 'input',
          block_id: 'name',
          label: { type: 'plain_text', text: 'Nome' },
          element: { type: 'plain_text_input', action_id: 'name_input' },
        },
        {
          type: 'input',
          block_id: 'qty',
          label: { type: 'plain_text', text: 'Quantidade' },
          element: {
            type: 'number_input',
            action_id: 'qty_input',
            is_decimal_allowed: false,
            min_value: '1',
          },
        },
        {
          type: 'input',
          block_id: 'opts',
          optional: true,
          label: { type: 'plain_text', text: 'Opções' },
          element: {
            type: 'checkboxes',
            action_id: 'opts_input',
            options: checkboxOptions,
          },
        },
        {
          type: 'input',
          block_id: 'where',
          label: { type: 'plain_text', text: 'Almoxarifado' },
          element: {
            type: 'static_select',
            action_id: 'where_input',
            options: stockroomOptions,
          },
        },
      ],
    };
    let submissions = 0;
    bot.answer = async (request: StubRequest) => {
      if (request.kind === 'command' && request.fields.text === 'ajuda') {
        return { body: { response_type: 'ephemeral', text: 'Ajuda *imediata*' } };
      }
      if (request.kind === 'command' && request.fields.text === 'form') {
        await api('views.open', { trigger_id: request.fields.trigger_id, view: modal });
        return undefined;
      }
      if (request.kind === 'interaction' && request.payload.type === 'view_submission') {
        submissions += 1;
        return submissions === 1
          ? { body: { response_action: 'errors', errors: { name: 'Nome já usado.' } } }
          : { body: { response_action: 'clear' } };
      }
      return undefined;
    };

    await typeCommand(page, '/estoque ajuda');
    const immediate = messageWith(page, 'Ajuda imediata');
    await immediate.waitFor(WAIT);
    await expect(immediate.getAttribute('data-ephemeral')).resolves.toBe('true');
    await expect(visibleText(immediate.locator('b'))).resolves.toBe('imediata');
    const command = bot.requests.find((r) => r.kind === 'command' && r.fields.text === 'ajuda');
    expect(command?.kind === 'command' && command.fields).toMatchObject({
      command: '/estoque',
      team_id: TEAM,
      user_id: ME,
      channel_id: CHANNEL,
    });

    await typeCommand(page, '/estoque form');
    const dialog = page.getByRole('dialog', { name: 'Formulário' });
    await dialog.waitFor(WAIT);
    await dialog.getByRole('button', { name: 'Enviar' }).click();
    await dialog
      .locator('[data-block-id="name"] .field-error', { hasText: 'Preencha este campo obrigatório.' })
      .waitFor(WAIT);
    await dialog.getByRole('textbox', { name: 'Quantidade' }).fill('0');
    await dialog.getByRole('button', { name: 'Enviar' }).click();
    await dialog
      .locator('[data-block-id="qty"] .field-error', { hasText: 'Insira um número maior ou igual a 1.' })
      .waitFor(WAIT);
    expect(interactions('view_submission')).toHaveLength(0);

    await dialog.getByRole('textbox', { name: 'Nome' }).fill('Lâmpadas <b>');
    await dialog.getByRole('textbox', { name: 'Quantidade' }).fill('12');
    await dialog.getByRole('checkbox', { name: 'Avisar' }).check();
    await dialog.getByRole('combobox', { name: 'Almoxarifado' }).selectOption('2');
    await dialog.getByRole('button', { name: 'Enviar' }).click();
    await dialog.locator('[data-block-id="name"] .field-error', { hasText: 'Nome já usado.' }).waitFor(WAIT);
    const submitted = interactions('view_submission')[0] as unknown as {
      view: { callback_id: string; private_metadata: string; state: { values: unknown } };
      user: { id: string };
    };
    expect(submitted.user.id).toBe(ME);
    expect(submitted.view.callback_id).toBe('form');
    expect(submitted.view.private_metadata).toBe('meta-1');
    expect(submitted.view.state.values).toEqual({
      name: { name_input: { type: 'plain_text_input', value: 'Lâmpadas <b>' } },
      qty: { qty_input: { type: 'number_input', value: '12' } },
      opts: { opts_input: { type: 'checkboxes', selected_options: [checkboxOptions[1]] } },
      where: { where_input: { type: 'static_select', selected_option: stockroomOptions[1] } },
    });

    await dialog.getByRole('button', { name: 'Enviar' }).click();
    await dialog.waitFor({ state: 'detached', ...WAIT });
    expect(interactions('view_submission')).toHaveLength(2);
    expect(bot.badSignatures).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
