import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { buildViewSubmissionPayload, interaction } from '../../src/fake-slack/index.js';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { CHANNELS, type Harness, OTHER_TEAM, startHarness, TEAM, USERS } from '../helpers/bot-harness.js';

/**
 * A modal keeps the workspace it was opened for in its `private_metadata` (an org-wide install's submission names
 * only the enterprise). That is the bot's own state coming back from outside: it is taken only where the signed
 * payload agrees with it. Otherwise a submission from one workspace naming another linked that other workspace to a
 * login of its choosing, or read its requests (until 2026-11-27).
 */

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

const C1 = DEMO_FACTS.company1;
const C2 = DEMO_FACTS.company2;

it('a link form submitted from another workspace, its metadata naming this one, links the workspace it came from', async () => {
  const result = await h.submitLink(
    { login: C2.login, password: C2.password, company: String(C2.empresa) },
    { team: OTHER_TEAM, user: USERS.otherTeamMember },
    JSON.stringify({ workspaceId: TEAM }),
  );
  expect(result.status).toBe(200);
  const mine = await h.container.links.get(TEAM);
  expect(mine).toMatchObject({ empresaId: C1.empresa });
  expect(mine?.linkedBy).not.toBe(USERS.otherTeamMember);
});

it('a request lookup submitted from another workspace, its metadata naming this one, reads nothing of this one', async () => {
  const callsBefore = h.sandbox.calls.length;
  const payload = buildViewSubmissionPayload({
    teamId: OTHER_TEAM,
    userId: USERS.otherTeamMember,
    callbackId: 'request-lookup',
    viewId: 'V00FORGED1',
    privateMetadata: JSON.stringify({ workspaceId: TEAM }),
    values: {
      request_number: { number: { type: 'plain_text_input', value: String(C1.requestIds.first) } },
    } as never,
  });
  const result = await interaction(h.target, payload);
  expect(result.status).toBe(200);
  // The other workspace is not linked: its submission reads nothing upstream, under anyone's credential.
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(h.sandbox.calls.slice(callsBefore).filter((c) => c.kind === 'data')).toEqual([]);
  const shown = JSON.stringify(h.slack.views.filter((v) => v.teamId === OTHER_TEAM));
  expect(shown).not.toContain(`Solicitação ${C1.requestIds.first}`);
});

it("a link form's kept response_url is posted to only on Slack's host: the outcome names the login", async () => {
  const posted: string[] = [];
  const elsewhere = createServer((req, res) => {
    posted.push(req.url ?? '');
    res.end('ok');
  });
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.2', resolve));
  try {
    const { port } = elsewhere.address() as AddressInfo;
    const sentAt = Date.now();
    await h.submitLink(
      { login: C1.login, password: C1.password, company: String(C1.empresa) },
      { team: TEAM, user: USERS.admin },
      JSON.stringify({ responseUrl: `http://127.0.0.2:${port}/hooks/x`, channelId: CHANNELS.stockroom }),
    );
    // The outcome still reaches the admin, another way (an ephemeral message in the channel kept, or a DM).
    const told = await h.nextMessage(sentAt, { userId: USERS.admin });
    expect(told.text).toContain(C1.login);
    expect(posted).toEqual([]);
  } finally {
    await new Promise((resolve) => elsewhere.close(resolve));
  }
});
