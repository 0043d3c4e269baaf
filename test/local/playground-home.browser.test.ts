import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import {
  messageWith,
  readmeScreenshot,
  typeCommand,
  usePlaygroundSession,
  VIEWPORT,
  visibleText,
} from './browser.js';

/**
 * The App Home and both shortcuts in the playground, in headless Chromium: the Home tab in the sidebar, the
 * shortcuts button by the composer, a message's "…" menu and the material picker's type-ahead. One browser
 * session, steps in order (as in playground.browser.test.ts).
 */

const C1 = DEMO_FACTS.company1;
const REQUEST_ID = C1.requestsWithItemsBelowMinimum[0];
const WAIT = { timeout: 15_000 };

describe('playground: App Home and shortcuts in a real browser', { shuffle: false }, () => {
  const session = usePlaygroundSession('home');
  const { pageErrors, screenshotOnFailure } = session;
  let page: Page;
  beforeAll(() => {
    page = session.page;
  });

  const home = () => page.locator('#home');

  it('opens the Home tab: the link, Minhas solicitações, Acompanhando, alerts, digests and the buttons', async () => {
    screenshotOnFailure('open');
    await typeCommand(page, '/estoque resumo assinar 07:30 dias:uteis');
    await page
      .locator('article.message[data-ephemeral="false"]', { hasText: 'assinou o resumo diário' })
      .waitFor(WAIT);
    await typeCommand(page, '/estoque alertas assinar eventos:status');
    await page
      .locator('article.message[data-ephemeral="false"]', { hasText: 'assinou os alertas do estoque' })
      .waitFor(WAIT);
    await typeCommand(page, `/solicitacao ${REQUEST_ID} acompanhar`);
    await messageWith(page, `Você passou a acompanhar a solicitação ${REQUEST_ID}`).waitFor(WAIT);
    await page.getByRole('button', { name: 'estoque-bot · Início' }).click();
    await home().getByText('Vinculado', { exact: false }).waitFor(WAIT);
    const text = await visibleText(home());
    expect(text).toContain(`Vinculado à empresa ${C1.empresa}`);
    expect(text).toContain('Minhas solicitações');
    expect(text).toContain('Acompanhando');
    expect(text).toContain(`${REQUEST_ID} · último status visto:`);
    expect(text).toContain('Resumos diários');
    expect(text).toContain('#almoxarifado · de segunda a sexta às 07:30');
    for (const name of ['Buscar material', 'Consultar solicitação', 'Ajuda', 'Desvincular']) {
      await expect(home().getByRole('button', { name, exact: true }).count()).resolves.toBe(1);
    }
    await expect(page.locator('#composer').isHidden()).resolves.toBe(true);
  });

  it('Atualizar lists the open requests of the person at the page; takes the README screenshot', async () => {
    screenshotOnFailure('refresh');
    await home().getByRole('button', { name: 'Atualizar' }).first().click();
    await home().getByRole('button', { name: 'Abrir' }).first().waitFor(WAIT);
    await expect(visibleText(home())).resolves.toMatch(/Dados salvos agora/);
    await readmeScreenshot(page, 'home');
  });

  it('Buscar material: the type-ahead suggests from 2 characters, choosing shows the material, Compartilhar posts it', async () => {
    screenshotOnFailure('material');
    await home().getByRole('button', { name: 'Buscar material', exact: true }).click();
    const modal = page.getByRole('dialog', { name: 'Buscar material' });
    await modal.waitFor(WAIT);
    const search = modal.getByRole('searchbox');
    await search.pressSequentially('lâmpada led', { delay: 20 });
    const option = modal.getByRole('option', { name: `${C1.material.codigo} · ${C1.material.nome}` });
    await option.waitFor(WAIT);
    await option.dispatchEvent('mousedown');
    await modal.getByText('Compartilhar no canal').waitFor(WAIT);
    await expect(visibleText(modal)).resolves.toContain(C1.material.nome);
    await modal.getByRole('button', { name: 'Compartilhar', exact: true }).click();
    await modal.waitFor({ state: 'detached', ...WAIT });
    await page.getByRole('button', { name: /# almoxarifado/ }).click();
    const shared = page.locator('article.message[data-ephemeral="false"]', { hasText: 'Compartilhado por' });
    await shared.waitFor(WAIT);
    await expect(visibleText(shared)).resolves.toContain(C1.material.nome);
  });

  it('the shortcuts button by the composer runs Buscar material', async () => {
    screenshotOnFailure('shortcut-button');
    await page.getByRole('button', { name: 'Atalhos' }).click();
    await page.locator('.shortcuts-menu').getByRole('button', { name: 'Buscar material' }).click();
    const modal = page.getByRole('dialog', { name: 'Buscar material' });
    await modal.waitFor(WAIT);
    await modal.getByRole('button', { name: 'Fechar' }).first().click();
    await modal.waitFor({ state: 'detached', ...WAIT });
  });

  it('a modal opens in the browser tab that asked for it, not in the person’s other tabs', async () => {
    screenshotOnFailure('modal-one-tab');
    // Another tab of the page (its own browser context: playwright opens pages of browser.newPage() no other way).
    const browser = page.context().browser();
    if (!browser) throw new Error('no browser');
    const other = await browser.newPage({
      viewport: VIEWPORT,
      locale: 'pt-BR',
      timezoneId: 'America/Sao_Paulo',
    });
    try {
      await other.goto(page.url());
      await other.getByRole('status').filter({ hasText: 'conectado' }).waitFor(WAIT);
      await page.getByRole('button', { name: /# almoxarifado/ }).click();
      await page.getByRole('button', { name: 'Atalhos' }).click();
      await page.locator('.shortcuts-menu').getByRole('button', { name: 'Buscar material' }).click();
      const modal = page.getByRole('dialog', { name: 'Buscar material' });
      await modal.waitFor(WAIT);
      // The other tab's answer comes after the modal on every event stream: once it shows, that tab has seen all.
      await typeCommand(other, '/estoque ajuda');
      await messageWith(other, 'Estoque no Slack').waitFor(WAIT);
      // Until 2026-11-27 the modal opened in every tab of the page.
      await expect(other.getByRole('dialog').count()).resolves.toBe(0);
      await modal.getByRole('button', { name: 'Fechar' }).first().click();
      await modal.waitFor({ state: 'detached', ...WAIT });
    } finally {
      await other.close();
    }
  });

  it('a message’s "…" menu runs Abrir solicitação on it: the request opens in a modal', async () => {
    screenshotOnFailure('message-shortcut');
    await typeCommand(page, `/solicitacao ${REQUEST_ID}`);
    const answer = messageWith(page, `Solicitação ${REQUEST_ID}`);
    await answer.getByRole('button', { name: 'Compartilhar no canal', exact: true }).click();
    const shared = page
      .locator('article.message[data-ephemeral="false"]', { hasText: `Solicitação ${REQUEST_ID}` })
      .last();
    await shared.waitFor(WAIT);
    await shared.hover();
    await shared.getByRole('button', { name: 'Mais ações' }).click();
    await shared.getByRole('button', { name: 'Abrir solicitação' }).click();
    const modal = page.getByRole('dialog', { name: `Solicitação ${REQUEST_ID}` });
    await modal.waitFor(WAIT);
    await modal.getByText('abaixo do mínimo').first().waitFor(WAIT);
    expect(pageErrors).toEqual([]);
  });
});
