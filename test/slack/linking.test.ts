import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildViewSubmissionPayload } from '../../src/fake-slack/payloads.js';
import { viewSubmission } from '../../src/fake-slack/signer.js';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import type { FaultSpec } from '../../src/sandbox/faults.js';
import { LinkStore } from '../../src/store/link-store.js';
import {
  CHANNELS,
  eventually,
  type Harness,
  installOrgWide,
  OTHER_TEAM,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../helpers/bot-harness.js';

const C1 = DEMO_FACTS.company1;
let h: Harness;

beforeEach(async () => {
  h = await startHarness({ botAdmins: [USERS.outsider] });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await h.close();
});

type Answer = { response_action?: string; errors?: Record<string, string> };

/** An admin submits the link form with the demo company's login. */
const linkDemo = () =>
  h.submitLink({ login: C1.login, password: C1.password, company: '1' }, { user: USERS.admin });

/** An admin links the demo login while `fault` stands at the upstream; what they are told. */
async function linkWhileFailing(fault: FaultSpec): Promise<string> {
  const since = Date.now();
  h.sandbox.faults.next(fault);
  const result = await linkDemo();
  // In the modal when the retries end within its budget, else posted once it is closed.
  return result.body.includes('não respondeu')
    ? result.body
    : textOf(await h.nextMessage(since, { userId: USERS.admin }));
}

describe('/estoque vincular', () => {
  it('refuses people who are not workspace admins, owners or BOT_ADMINS', async () => {
    const views = h.slack.views.length;
    const result = await h.command('/estoque', 'vincular', { user: USERS.member });
    const answer = await h.nextMessage(result.sentAt, { userId: USERS.member });
    expect(textOf(answer)).toMatch(/administradores/i);
    expect(h.slack.views.length).toBe(views);
  });

  it('opens the modal for an admin and for a BOT_ADMINS member, with nothing secret in it', async () => {
    for (const user of [USERS.admin, USERS.outsider]) {
      const views = h.slack.views.length;
      await h.command('/estoque', 'vincular', { user });
      const view = await eventually(() => h.slack.views[views]);
      expect(view.view.callback_id).toBe('link-credentials');
      expect(view.userId).toBe(user);
      expect(view.view.private_metadata).not.toMatch(/password|senha|token/i);
    }
    expect(h.slack.limitViolations).toEqual([]);
  });

  it('a form Slack will not open is said as such, with the command to try again, not as a bad argument', async () => {
    h.slack.failNext('views.open', { error: 'expired_trigger_id' }, 5);
    const result = await h.command('/estoque', 'vincular', { user: USERS.admin });
    const text = textOf(await h.nextMessage(result.sentAt, { userId: USERS.admin }));
    expect(text).toMatch(/formulário de vínculo/);
    expect(text).toContain('/estoque vincular');
    // Until 2026-11-27 the whole /estoque usage followed, as after a mistyped argument.
    expect(text).not.toMatch(/Comando `?\/estoque`?:/);
    expect(text).not.toContain('resumo assinar');
  });

  it('shows a wrong password as a field error with the upstream message, and stores nothing', async () => {
    const result = await h.submitLink(
      { login: C1.login, password: 'errada', company: '1' },
      { user: USERS.admin },
    );
    const answer = JSON.parse(result.body) as Answer;
    expect(answer.response_action).toBe('errors');
    expect(answer.errors?.link_password).toMatch(/inválid/i);
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(0);
  });

  it('a 429 from the token issuer says when to try again, not that the system did not answer', async () => {
    const since = Date.now();
    h.sandbox.faults.next({ path: /\/auth\/v1\/auth\/?$/, status: 429, times: 10 });
    const result = await linkDemo();
    const shown = result.body.includes('Limite')
      ? result.body
      : textOf(await h.nextMessage(since, { userId: USERS.admin }));
    expect(shown).toMatch(/Limite de consultas ao sistema atingido; tente de novo às \d\d:\d\d/);
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(0);
  });

  it("one 500 from the token issuer's login is retried: the link is made, not refused as unavailable", async () => {
    const since = Date.now();
    h.sandbox.faults.next({ path: /\/auth\/v1\/auth\/?$/, status: 500 });
    const result = await linkDemo();
    expect(JSON.parse(result.body)).toEqual({ response_action: 'clear' });
    expect(textOf(await h.nextMessage(since, { userId: USERS.admin }))).toMatch(/3 almoxarifados/);
    expect(h.sandbox.calls.filter((c) => c.kind === 'login').map((c) => c.status)).toEqual([500, 200]);
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(1);
  });

  it('a 500 that persists at the token issuer ends in "não respondeu" after a bounded number of logins', async () => {
    const shown = await linkWhileFailing({ path: /\/auth\/v1\/auth\/?$/, status: 500, times: 10 });
    expect(shown).toContain('O sistema de estoque não respondeu');
    // The retry policy's 3 retries (FAST_RETRY_POLICY in the harness): 4 logins.
    expect(h.sandbox.calls.filter((c) => c.kind === 'login')).toHaveLength(4);
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(0);
  });

  it('a failed attempt is logged once, with its workspace and the correlation id of its upstream calls', async () => {
    const shown = await linkWhileFailing({ path: '/v1/almoxarifados', status: 500, times: 10 });
    expect(shown).toContain('O sistema de estoque não respondeu');
    const lines = h.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    const failed = lines.filter((line) => line.msg === 'link attempt failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ step: 'check', workspaceId: TEAM, correlationId: expect.any(String) });
    // The same id as the upstream calls of that check, so the operator can follow the attempt.
    const check = lines.filter((line) => line.endpoint === 'GET /v1/almoxarifados');
    expect(check.length).toBeGreaterThan(0);
    for (const line of check) expect(line.correlationId).toBe(failed[0]?.correlationId);
  });

  it('a refused attempt (a wrong password, an active session, a company the login cannot see) is logged once at info with its workspace, correlation id and reason, never the password', async () => {
    const attempts = [
      [{ login: C1.login, password: 'Errada-S3cr3t-1', company: '1' }, 'login_refused'],
      [
        {
          login: DEMO_FACTS.activeSessionLogin.login,
          password: DEMO_FACTS.activeSessionLogin.password,
          company: '1',
        },
        'active_session',
      ],
      [{ login: C1.login, password: C1.password, company: '2' }, 'company_forbidden'],
    ] as const;
    for (const [values, reason] of attempts) {
      const before = h.logs.length;
      const answer = JSON.parse((await h.submitLink(values, { user: USERS.admin })).body) as Answer;
      expect(answer.response_action).toBe('errors');
      const lines = h.logs.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
      const failed = lines.filter((line) => line.msg === 'link attempt failed');
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({
        level: 30,
        reason,
        workspaceId: TEAM,
        correlationId: expect.any(String),
      });
      expect(h.logs.slice(before).join('')).not.toContain(values.password);
    }
  });

  it('a read under the old link that lands after a link to another company never shows under the new one', async () => {
    await h.link(TEAM);
    // A read of company 1's stockrooms is held at upstream while the workspace is linked to company 2.
    let open = () => {};
    const released = new Promise<void>((resolve) => {
      open = resolve;
    });
    h.sandbox.faults.next({ path: '/v1/almoxarifados', release: released });
    const first = await h.command('/estoque', 'almoxarifados');
    await eventually(() => h.sandbox.calls.find((c) => c.path === '/v1/almoxarifados' && c.status === 0));
    const C2 = DEMO_FACTS.company2;
    await h.link(TEAM, C2.login, C2.password, C2.empresa);
    open();
    await h.nextMessage(first.sentAt, { userId: USERS.member });
    // Someone asks again: company 2's stockrooms, not company 1's from the read that landed late.
    const again = await h.command('/estoque', 'almoxarifados', { user: USERS.admin });
    const answer = textOf(await h.nextMessage(again.sentAt, { userId: USERS.admin }));
    expect(answer).toContain(C2.activeStockrooms[0].nome);
    expect(answer).not.toContain(C1.activeStockrooms[0].nome);
  });

  it('validates the form before calling upstream', async () => {
    const before = h.sandbox.calls.length;
    const result = await h.submitLink({ login: '', password: 'x', company: 'abc' }, { user: USERS.admin });
    const answer = JSON.parse(result.body) as Answer;
    expect(Object.keys(answer.errors ?? {}).sort()).toEqual(['link_company', 'link_login']);
    expect(h.sandbox.calls.length).toBe(before);
  });

  it('offers to end an active session, and links when asked to', async () => {
    const login = DEMO_FACTS.activeSessionLogin;
    const first = JSON.parse(
      (
        await h.submitLink(
          { login: login.login, password: login.password, company: '1' },
          { user: USERS.admin },
        )
      ).body,
    ) as Answer;
    expect(first.errors?.link_end_session).toMatch(/sessão ativa/i);
    const since = Date.now();
    const second = await h.submitLink(
      { login: login.login, password: login.password, company: '1', endSession: true },
      { user: USERS.otherTeamMember, team: OTHER_TEAM, channel: CHANNELS.otherTeamGeneral },
    );
    expect(JSON.parse(second.body)).toEqual({ response_action: 'clear' });
    const confirmation = await h.nextMessage(since, { userId: USERS.otherTeamMember });
    expect(textOf(confirmation)).toMatch(/vinculad/i);
  });

  it('refuses a company the login cannot see', async () => {
    const result = await h.submitLink(
      { login: C1.login, password: C1.password, company: '2' },
      { user: USERS.admin },
    );
    const answer = JSON.parse(result.body) as Answer;
    expect(answer.errors?.link_company).toMatch(/empresa 2/);
  });

  it('links with one check call, confirms ephemerally, and keeps the credentials encrypted', async () => {
    const since = Date.now();
    const callsBefore = h.sandbox.calls.length;
    const result = await linkDemo();
    expect(JSON.parse(result.body)).toEqual({ response_action: 'clear' });
    const confirmation = await h.nextMessage(since, { userId: USERS.admin });
    expect(confirmation.ephemeral).toBe(true);
    expect(textOf(confirmation)).toMatch(/3 almoxarifados/);
    const calls = h.sandbox.calls.slice(callsBefore);
    expect(calls.map((c) => c.kind)).toEqual(['login', 'data']);
    const stored = (await h.redis.redis.get(h.redis.keys.link(TEAM))) ?? '';
    expect(stored).not.toContain(`"${C1.password}"`);
    expect(stored).not.toMatch(/password/i);
    const status = await h.command('/estoque', 'status');
    const statusText = textOf(await h.nextMessage(status.sentAt, { userId: USERS.member }));
    expect(statusText).toContain(`<@${USERS.admin}>`);
    expect(statusText).not.toContain(C1.password === C1.login ? '\u0000' : C1.password);
  });
});

describe('/estoque vincular while the store restarts', () => {
  it('a store that refuses the link for a moment is asked again: the link is made and kept', async () => {
    const save = LinkStore.prototype.save;
    let refusals = 2;
    vi.spyOn(LinkStore.prototype, 'save').mockImplementation(function (this: LinkStore, ...args) {
      if (refusals-- > 0)
        return Promise.reject(new Error('Reached the max retries per request limit (which is 3)'));
      return save.apply(this, args);
    });
    const since = Date.now();
    const result = await linkDemo();
    expect(JSON.parse(result.body)).toEqual({ response_action: 'clear' });
    const confirmation = await h.nextMessage(since, { userId: USERS.admin });
    expect(textOf(confirmation)).toMatch(/3 almoxarifados/);
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(1);
  });

  it('a store that keeps refusing: the admin is told nothing was linked, never left without an answer', async () => {
    vi.spyOn(LinkStore.prototype, 'save').mockRejectedValue(new Error('Connection is closed.'));
    const since = Date.now();
    const result = await linkDemo();
    // Past the form's 3 s: the form closes and the outcome comes as a message.
    expect(JSON.parse(result.body)).toEqual({ response_action: 'clear' });
    const told = await h.nextMessage(since, { userId: USERS.admin });
    expect(textOf(told)).toContain('Nada foi vinculado');
    expect(textOf(told)).toContain('não consegui guardar o vínculo');
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(0);
  }, 15_000);
});

describe('/estoque vincular when Slack is slow to say who submitted', () => {
  it("the form says the check failed, within Slack's 3 s, and nothing is linked behind that answer", async () => {
    // Both attempts of the admin check answer 3.5 s late: longer than the form may wait.
    h.slack.failNext('users.info', { delayMs: 3_500 }, 2);
    const loginsBefore = h.sandbox.calls.filter((c) => c.kind === 'login').length;
    const result = await linkDemo();
    const answer = JSON.parse(result.body) as Answer;
    expect(answer.response_action).toBe('errors');
    expect(answer.errors?.link_login).toContain('Não consegui confirmar no Slack quem você é');
    // Let the late replies come: the submission stays refused, with no login spent and no link stored.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(0);
    expect(h.sandbox.calls.filter((c) => c.kind === 'login')).toHaveLength(loginsBefore);
    expect(h.slack.messages.filter((m) => /vinculado/i.test(textOf(m)))).toEqual([]);
  }, 15_000);
});

describe('/estoque desvincular', () => {
  it('refuses non-admins, and unlinks after a confirmation', async () => {
    await h.link(TEAM);
    const refused = await h.command('/estoque', 'desvincular', { user: USERS.member });
    expect(textOf(await h.nextMessage(refused.sentAt, { userId: USERS.member }))).toMatch(/administradores/i);
    const ask = await h.command('/estoque', 'desvincular', { user: USERS.admin });
    const confirm = await h.nextMessage(ask.sentAt, { userId: USERS.admin });
    // Cancel first: nothing changes.
    let since = Date.now();
    await h.click(confirm, { text: 'Cancelar' }, { user: USERS.admin });
    await h.nextMessage(since, { userId: USERS.admin });
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(1);
    const again = await h.nextMessage(
      (await h.command('/estoque', 'desvincular', { user: USERS.admin })).sentAt,
      { userId: USERS.admin },
    );
    since = Date.now();
    await h.click(again, { text: 'Desvincular' }, { user: USERS.admin });
    expect(textOf(await h.nextMessage(since, { userId: USERS.admin }))).toMatch(/desvinculad/i);
    expect(await h.redis.redis.exists(h.redis.keys.link(TEAM))).toBe(0);
    const after = await h.command('/estoque', 'almoxarifados');
    expect(textOf(await h.nextMessage(after.sentAt, { userId: USERS.member }))).toContain(
      '/estoque vincular',
    );
  });
});

describe('org-wide install (Enterprise Grid)', () => {
  const ORG = 'E0ORG0001';

  it('a link made in a workspace the org install serves is kept for that workspace, whatever team the submission names', async () => {
    await installOrgWide(h, ORG);
    // An admin of the organisation, member of the workspace.
    h.slack.addUser({ id: 'U0ORGADM1', teamId: TEAM, enterpriseId: ORG, isOrgAdmin: true });
    const views = h.slack.views.length;
    await h.command('/estoque', 'vincular', { user: 'U0ORGADM1', enterprise: ORG });
    const opened = await eventually(() => h.slack.views[views]);
    const payload = buildViewSubmissionPayload({
      teamId: TEAM,
      userId: 'U0ORGADM1',
      callbackId: 'link-credentials',
      viewId: opened.view.id,
      privateMetadata: opened.view.private_metadata,
      enterpriseId: ORG,
      isEnterpriseInstall: true,
      values: {
        link_login: { login: { type: 'plain_text_input', value: C1.login } },
        link_password: { password: { type: 'plain_text_input', value: C1.password } },
        link_company: { company: { type: 'number_input', value: '1' } },
        link_unit: { unit: { type: 'number_input', value: null } },
        link_end_session: { end_session: { type: 'checkboxes', selected_options: [] } },
      },
    });
    // An org-wide install's view_submission may name no team, and the enterprise as the user's and the view's
    // team (bolt-js#1720: context.teamId is then the enterprise id).
    const asSent = {
      ...payload,
      team: null,
      user: { ...payload.user, team_id: ORG },
      view: { ...payload.view, app_installed_team_id: ORG },
    };
    const result = await viewSubmission(h.target, asSent);
    expect(result.status).toBe(200);
    await eventually(async () => (await h.redis.redis.exists(h.redis.keys.link(TEAM))) === 1);
    expect(await h.redis.redis.exists(h.redis.keys.link(ORG))).toBe(0);
  });
});
