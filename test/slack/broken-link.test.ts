import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { eventually, type Harness, startHarness, TEAM, textOf, USERS } from '../helpers/bot-harness.js';
import { clickInView, openHome } from '../helpers/shortcuts.js';

/**
 * Credentials that neither refresh nor a new login can renew break the link, and the admin who linked gets one
 * DM (PRODUCT.md, Tokens), whichever call meets it first: a command, or work nobody typed (the Home, a digest,
 * a feed round). Over HTTP with the fake Slack; the sandbox's account changes its password.
 */

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

/** The stored password no longer works and the tokens the bot holds are dead. */
function passwordChanged(): void {
  const account = h.sandbox.data.accounts.find((a) => a.login === DEMO_FACTS.company1.login);
  if (!account) throw new Error('no demo account');
  account.password = 'trocada-pelo-usuario';
  h.sandbox.expireAccessTokens();
  h.sandbox.expireRefreshTokens();
}

const adminDms = () =>
  h.slack.messages.filter(
    (m) =>
      m.channel.startsWith('D') && !m.ephemeral && /credenciais do estoque que você vinculou/.test(textOf(m)),
  );

describe('a link whose credentials can no longer be renewed', () => {
  it('met first by the Home (Atualizar): the admin who linked gets one DM, and a later command sends no other', async () => {
    const home = await openHome(h, USERS.member);
    passwordChanged();
    await clickInView(h, home, 'home:refresh', USERS.member);
    await eventually(() => adminDms().length === 1);
    const dm = h.slack.calls.find(
      (c) => c.method === 'chat.postMessage' && String(c.args.text).includes('credenciais do estoque'),
    );
    expect(dm?.args.channel).toBe(USERS.admin);

    const asked = await h.command('/estoque', 'almoxarifados');
    const answer = await h.nextMessage(asked.sentAt, { userId: USERS.member });
    expect(textOf(answer)).toMatch(/vincul/i);
    expect(adminDms()).toHaveLength(1);
  });

  it('met first by a command: the member reads why, and the admin who linked gets one DM', async () => {
    passwordChanged();
    const asked = await h.command('/estoque', 'almoxarifados');
    const answer = await h.nextMessage(asked.sentAt, { userId: USERS.member });
    expect(textOf(answer)).toMatch(/vincul/i);
    await eventually(() => adminDms().length === 1);
  });
});
