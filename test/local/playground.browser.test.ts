import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { messageWith, readmeScreenshot, typeCommand, usePlaygroundSession, visibleText } from './browser.js';

/**
 * The whole bot in local mode, driven from its playground page in headless Chromium: what a person types and
 * clicks, and what they see. The steps share one page and run in order, even under --sequence.shuffle: a
 * walkthrough of one browser session (a page per step would cost seconds each and test less).
 */

const REQUEST_ID = DEMO_FACTS.company1.requestsWithItemsBelowMinimum[0];
const WAIT = { timeout: 15_000 };
/** Three items, two of them below their minimum stock: the README's screenshot shows it whole. */
const SCREENSHOT_REQUEST_ID = DEMO_FACTS.company1.requestsWithItemsBelowMinimum[3];

describe('local mode playground in a real browser', { shuffle: false }, () => {
  const session = usePlaygroundSession('local-mode');
  const { pageErrors, screenshotOnFailure } = session;
  let page: Page;
  beforeAll(() => {
    page = session.page;
  });

  it('opens the channel of the seeded workspace, as its admin', async () => {
    screenshotOnFailure('open');
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('# almoxarifado');
    await expect(page.locator('#me-name').textContent()).resolves.toBe('Ana Souza');
  });

  it('offers the three commands with their usage hints while typing', async () => {
    screenshotOnFailure('hints');
    const box = page.getByRole('textbox', { name: 'Mensagem para o canal' });
    await box.fill('/');
    const options = page.getByRole('option');
    await expect(options.allInnerTexts()).resolves.toEqual([
      expect.stringContaining('/estoque'),
      expect.stringContaining('/solicitacao'),
      expect.stringContaining('/compras'),
    ]);
    await box.fill('/sol');
    await expect(options.allInnerTexts()).resolves.toEqual([
      expect.stringContaining('[<número> [historico|acompanhar|parar]'),
    ]);
    await box.press('Tab');
    await expect(box.inputValue()).resolves.toBe('/solicitacao ');
    await expect(visibleText(page.locator('#usage-hint'))).resolves.toContain('/solicitacao [<número>');
    await box.fill('');
  });

  it(`/solicitacao ${REQUEST_ID} shows the request and its items, only to the person who asked`, async () => {
    screenshotOnFailure('request');
    await typeCommand(page, `/solicitacao ${REQUEST_ID}`);
    const answer = messageWith(page, `Solicitação ${REQUEST_ID}`);
    await answer.waitFor(WAIT);
    await expect(answer.getAttribute('data-ephemeral')).resolves.toBe('true');
    const text = await visibleText(answer);
    expect(text).toContain('Somente você pode ver esta mensagem');
    expect(text).toMatch(/Almoxarifado|Solicitante/);
    // The request has an item below its minimum stock: the item lines, with the emoji drawn, not its shortcode.
    expect(text).toContain('abaixo do mínimo');
    expect(text).toContain('\u26A0');
    expect(text).not.toContain(':warning:');
    // mrkdwn bold became bold, not asterisks.
    expect(await answer.locator('.mrkdwn b').count()).toBeGreaterThan(0);
    expect(text).not.toMatch(/\*\S/);
    for (const name of ['Itens', 'Histórico', 'Atualizar', 'Compartilhar no canal']) {
      await expect(answer.getByRole('button', { name, exact: true }).isVisible()).resolves.toBe(true);
    }
  });

  it('Histórico replaces that answer with the status history', async () => {
    screenshotOnFailure('history');
    const before = await page.locator('article.message').count();
    const answer = messageWith(page, `Solicitação ${REQUEST_ID}`);
    const ts = await answer.getAttribute('data-ts');
    await answer.getByRole('button', { name: 'Histórico', exact: true }).click();
    const history = page.locator(`article.message[data-ts="${ts}"]`, {
      hasText: `Histórico da solicitação ${REQUEST_ID}`,
    });
    await history.waitFor(WAIT);
    await expect(page.locator('article.message').count()).resolves.toBe(before);
    await expect(history.getAttribute('data-ephemeral')).resolves.toBe('true');
  });

  it('/solicitacao lists recent requests and Próxima pages the list', async () => {
    screenshotOnFailure('list');
    await typeCommand(page, '/solicitacao');
    const list = messageWith(page, 'Solicitações dos últimos 30 dias');
    await list.waitFor(WAIT);
    await list.getByText(/Página 1 de \d+/).waitFor(WAIT);
    const firstPage = await visibleText(list);
    await list.getByRole('button', { name: 'Próxima', exact: true }).click();
    const second = messageWith(page, /Página 2 de \d+/);
    await second.waitFor(WAIT);
    const secondPage = await visibleText(second);
    const ids = (text: string) => [...text.matchAll(/^(\d{4}) ·/gm)].map((m) => m[1]);
    expect(ids(firstPage).length).toBeGreaterThan(0);
    expect(ids(secondPage).length).toBeGreaterThan(0);
    expect(ids(secondPage).some((id) => ids(firstPage).includes(id))).toBe(false);
  });

  it('Compartilhar no canal posts the answer in the channel, for everyone', async () => {
    screenshotOnFailure('share');
    const list = messageWith(page, /Página 2 de \d+/);
    await list.getByRole('button', { name: 'Compartilhar no canal', exact: true }).click();
    const shared = page.locator('article.message[data-ephemeral="false"]', { hasText: /Página 2 de \d+/ });
    await shared.waitFor(WAIT);
    await expect(visibleText(shared)).resolves.not.toContain('Somente você pode ver esta mensagem');
  });

  it('/estoque vincular opens the linking modal; a wrong password is shown under its field; demo/demo/1 links', async () => {
    screenshotOnFailure('link');
    await typeCommand(page, '/estoque vincular');
    const modal = page.getByRole('dialog', { name: 'Vincular estoque' });
    await modal.waitFor(WAIT);
    await modal.getByRole('textbox', { name: 'Login', exact: true }).fill(DEMO_FACTS.company1.login);
    await modal.getByRole('textbox', { name: 'Senha', exact: true }).fill('not-the-password');
    await modal.getByRole('textbox', { name: 'Empresa (número)' }).fill(String(DEMO_FACTS.company1.empresa));
    await modal.getByRole('button', { name: 'Vincular', exact: true }).click();
    await modal.locator('[data-block-id="link_password"] .field-error:not([hidden])').waitFor(WAIT);
    await expect(modal.isVisible()).resolves.toBe(true);

    await modal.getByRole('textbox', { name: 'Senha', exact: true }).fill(DEMO_FACTS.company1.password);
    await modal.getByRole('button', { name: 'Vincular', exact: true }).click();
    await modal.waitFor({ state: 'detached', ...WAIT });
    const confirmation = messageWith(page, 'Estoque vinculado');
    await confirmation.waitFor(WAIT);
    const text = await visibleText(confirmation);
    expect(text).toContain(`login ${DEMO_FACTS.company1.login}`);
    expect(text).toContain(`empresa ${DEMO_FACTS.company1.empresa}`);
    await expect(confirmation.getAttribute('data-ephemeral')).resolves.toBe('true');
  });

  it('/estoque resumo assinar subscribes the channel; /estoque resumo agora posts the digest there, whose buttons answer', async () => {
    screenshotOnFailure('digest');
    await typeCommand(page, '/estoque resumo assinar');
    // The confirmation goes to the channel: everyone there sees who subscribed, and that the bot can post.
    const subscribed = page.locator('article.message[data-ephemeral="false"]', {
      hasText: 'assinou o resumo diário do estoque neste canal',
    });
    await subscribed.waitFor(WAIT);
    await expect(visibleText(subscribed)).resolves.toContain('@Ana Souza');

    await typeCommand(page, '/estoque resumo agora');
    const digest = page.locator('article.message[data-ephemeral="false"]', {
      hasText: /Resumo do estoque (·|de)/,
    });
    await digest.waitFor(WAIT);
    await messageWith(page, 'Resumo postado neste canal').waitFor(WAIT);
    const buttons = digest.getByRole('button');
    expect(await buttons.count()).toBeGreaterThan(0);

    // A button on a channel message answers the person who clicked, ephemerally; the digest stays as it was.
    const digestText = await visibleText(digest);
    const ephemeralBefore = await page.locator('article.message[data-ephemeral="true"]').count();
    await buttons.first().click();
    await page.locator('article.message[data-ephemeral="true"]').nth(ephemeralBefore).waitFor(WAIT);
    await expect(visibleText(digest)).resolves.toBe(digestText);
  });

  it('takes the README screenshot: a request with items below minimum and its buttons, after a few commands', async () => {
    screenshotOnFailure('readme');
    // A small viewport keeps the PNG small; this request's three items fit in it.
    const { paths } = await readmeScreenshot(page, 'playground', async () => {
      await typeCommand(page, `/solicitacao ${SCREENSHOT_REQUEST_ID}`);
      const answer = messageWith(page, `Solicitação ${SCREENSHOT_REQUEST_ID}`);
      await answer.getByRole('button', { name: 'Compartilhar no canal', exact: true }).waitFor(WAIT);
      await expect(visibleText(answer)).resolves.toContain('abaixo do mínimo');
    });
    expect(paths[0]).toMatch(/test-results\/playground\/playground\.png$/);
  });

  it('/solicitacao minhas lists the requests of the person at the page, matched by her e-mail', async () => {
    screenshotOnFailure('mine');
    await typeCommand(page, '/solicitacao minhas');
    const mine = messageWith(page, 'Suas solicitações dos últimos 30 dias');
    await mine.waitFor(WAIT);
    const text = await visibleText(mine);
    expect(text).toContain('Solicitante no sistema: Fernanda Oliveira');
    expect(await mine.getByRole('button', { name: 'Ver', exact: true }).count()).toBeGreaterThan(1);
  });

  it('a reload loses the ephemeral answers, as in Slack, and keeps what the channel shows', async () => {
    screenshotOnFailure('reload');
    const channel = page.locator('article.message[data-ephemeral="false"]');
    const sharedBefore = await channel.count();
    expect(sharedBefore).toBeGreaterThan(0);
    expect(await page.locator('article.message[data-ephemeral="true"]').count()).toBeGreaterThan(0);
    await page.reload();
    await page.getByRole('status').filter({ hasText: 'conectado' }).waitFor(WAIT);
    await channel.nth(sharedBefore - 1).waitFor(WAIT);
    expect(await channel.count()).toBe(sharedBefore);
    expect(await page.locator('article.message[data-ephemeral="true"]').count()).toBe(0);
  });

  it('a word that is not a command gets Slack’s answer, and the page raised no script error', async () => {
    screenshotOnFailure('unknown');
    await typeCommand(page, '/inexistente');
    await messageWith(page, '/inexistente não é um comando válido').waitFor(WAIT);
    expect(pageErrors).toEqual([]);
  });
});
