import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { messageWith, readmeScreenshot, typeCommand, usePlaygroundSession, visibleText } from './browser.js';

/**
 * The change feed in the playground, in headless Chromium: a channel subscribed to alerts, a request followed with
 * its button, `/estoque sandbox avancar`, and the channel's alert and the follower's DM arriving in the page. The
 * steps wait on what the page shows, never on the feed's interval. One browser session, steps in order.
 */

const C1 = DEMO_FACTS.company1;
/** An open request (status Aberta) of the demo data: the sandbox can move it along. */
const FOLLOWED_ID = C1.requestsWithItemsBelowMinimum[0];
const WAIT = { timeout: 15_000 };

describe('playground: alerts and follows in a real browser', { shuffle: false }, () => {
  const session = usePlaygroundSession('feed');
  const { pageErrors, screenshotOnFailure } = session;
  let page: Page;
  /** The status the advance moved the followed request to. */
  let movedTo = '';
  beforeAll(() => {
    page = session.page;
  });

  const channelMessage = (text: string | RegExp) =>
    page.locator('article.message[data-ephemeral="false"]:not(.dm)', { hasText: text }).last();
  const directMessage = (text: string | RegExp) =>
    page.locator('article.message.dm', { hasText: text }).last();

  it('/estoque alertas assinar subscribes the channel, confirmed in the channel', async () => {
    screenshotOnFailure('subscribe');
    await typeCommand(page, '/estoque alertas assinar');
    const confirmation = channelMessage('assinou os alertas do estoque neste canal');
    await confirmation.waitFor(WAIT);
    await expect(visibleText(confirmation)).resolves.toContain('@Ana Souza');
  });

  it(`Acompanhar on /solicitacao ${FOLLOWED_ID} follows the request`, async () => {
    screenshotOnFailure('follow');
    await typeCommand(page, `/solicitacao ${FOLLOWED_ID}`);
    const answer = messageWith(page, `Solicitação ${FOLLOWED_ID}`);
    await answer.getByRole('button', { name: 'Acompanhar', exact: true }).click();
    await messageWith(page, `Você passou a acompanhar a solicitação ${FOLLOWED_ID}`).waitFor(WAIT);
  });

  it('/estoque sandbox avancar: the channel’s alert and the follower’s DM arrive in the page', async () => {
    screenshotOnFailure('advance');
    await typeCommand(page, '/estoque sandbox avancar');
    const reply = messageWith(page, /O sandbox fez \d+ mudanç/);
    await reply.waitFor(WAIT);
    await expect(reply.getAttribute('data-ephemeral')).resolves.toBe('true');
    // The followed request is among what moved: the person asked to see their follow move.
    const moved = new RegExp(`Solicitação ${FOLLOWED_ID}: (.+) → (.+)`);
    const change = moved.exec(await visibleText(reply));
    expect(change).not.toBeNull();
    movedTo = change?.[2]?.trim() ?? '';

    const alert = channelMessage(`Solicitação ${FOLLOWED_ID}:`);
    await alert.waitFor(WAIT);
    await expect(visibleText(alert)).resolves.toContain(change?.[0] ?? 'no change');
    await expect(alert.getByRole('button').count()).resolves.toBeGreaterThan(0);

    const dm = directMessage(`Solicitação ${FOLLOWED_ID}:`);
    await dm.waitFor(WAIT);
    const dmText = await visibleText(dm);
    expect(dmText).toContain('Mensagem direta para você');
    expect(dmText).toContain(change?.[0] ?? 'no change');
  });

  it('takes the README screenshot: the sandbox’s answer, the channel’s alert and the DM', async () => {
    screenshotOnFailure('readme');
    await readmeScreenshot(page, 'feed', () =>
      directMessage(`Solicitação ${FOLLOWED_ID}:`).scrollIntoViewIfNeeded(),
    );
  });

  it('a button of the alert answers the person who clicked, and the alert stays as it was', async () => {
    screenshotOnFailure('alert-button');
    const alert = channelMessage(`Solicitação ${FOLLOWED_ID}:`);
    const alertText = await visibleText(alert);
    const ephemeralBefore = await page.locator('article.message[data-ephemeral="true"]').count();
    await alert.getByRole('button').first().click();
    await page.locator('article.message[data-ephemeral="true"]').nth(ephemeralBefore).waitFor(WAIT);
    await expect(visibleText(alert)).resolves.toBe(alertText);
  });

  it('the Home tab lists the followed request under Acompanhando, with the status last seen', async () => {
    screenshotOnFailure('home');
    await page.getByRole('button', { name: 'estoque-bot · Início' }).click();
    const home = page.locator('#home');
    await home.getByText('Acompanhando', { exact: false }).first().waitFor(WAIT);
    const text = await visibleText(home);
    // The DM published the Home again: the status last seen is the one the advance moved it to.
    expect(movedTo).not.toBe('');
    expect(text).toContain(`${FOLLOWED_ID} · último status visto: ${movedTo}`);
    await expect(home.getByRole('button', { name: 'Deixar de acompanhar' }).count()).resolves.toBe(1);
    expect(pageErrors).toEqual([]);
  });
});
