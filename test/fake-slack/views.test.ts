import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_SEED } from '../../src/fake-slack/seed.js';
import { type FakeSlack, startFakeSlack } from '../../src/fake-slack/server.js';
import { clientFor, slackError } from './helpers.js';

const TOKEN = 'xoxb-views-test';
const { users } = FAKE_SEED;

const modal = (title = 'Vincular', extra: Record<string, unknown> = {}) => ({
  type: 'modal' as const,
  callback_id: 'link_workspace',
  title: { type: 'plain_text' as const, text: title },
  submit: { type: 'plain_text' as const, text: 'Vincular' },
  private_metadata: '{"channel":"C00GERAL1"}',
  blocks: [
    {
      type: 'input' as const,
      block_id: 'login',
      label: { type: 'plain_text' as const, text: 'Login' },
      element: { type: 'plain_text_input' as const, action_id: 'value' },
    },
  ],
  ...extra,
});

describe('fake Slack views', () => {
  let clock = 1_700_000_000_000;
  let fake: FakeSlack;

  beforeAll(async () => {
    fake = await startFakeSlack({ now: () => clock });
  });
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.reset();
    clock += 60_000;
  });

  it('opens a modal with a fresh trigger_id and answers the view as Slack stores it', async () => {
    const triggerId = fake.newTriggerId({ userId: users.admin });
    expect(triggerId).toMatch(/^\d+\.\d+\.[0-9a-f]+$/);
    const result = await clientFor(fake, TOKEN).views.open({ trigger_id: triggerId, view: modal() });
    expect(result.view).toMatchObject({
      team_id: FAKE_SEED.teamId,
      type: 'modal',
      callback_id: 'link_workspace',
      private_metadata: '{"channel":"C00GERAL1"}',
      state: { values: {} },
      bot_id: FAKE_SEED.botId,
      previous_view_id: null,
    });
    const viewId = result.view?.id ?? '';
    expect(viewId).toMatch(/^V[A-Z0-9]+$/);
    expect(result.view?.root_view_id).toBe(viewId);
    expect(fake.views).toEqual([
      expect.objectContaining({
        id: 1,
        viewId,
        triggerId,
        userId: users.admin,
        via: 'views.open',
        teamId: FAKE_SEED.teamId,
      }),
    ]);
  });

  it('refuses a trigger_id older than 3 s, one already used, and one it never issued', async () => {
    const client = clientFor(fake, TOKEN);
    const stale = fake.newTriggerId();
    clock += 3_001;
    expect(await slackError(client.views.open({ trigger_id: stale, view: modal() }))).toBe(
      'expired_trigger_id',
    );

    const once = fake.newTriggerId();
    await client.views.open({ trigger_id: once, view: modal() });
    expect(await slackError(client.views.open({ trigger_id: once, view: modal() }))).toBe(
      'exchanged_trigger_id',
    );

    expect(await slackError(client.views.open({ trigger_id: '123.456.abc', view: modal() }))).toBe(
      'invalid_trigger_id',
    );
    expect(await slackError(client.views.open({ trigger_id: 'garbage', view: modal() }))).toBe(
      'invalid_trigger_id',
    );
    expect(fake.views).toHaveLength(1);
  });

  it('refuses a view that breaks Slack limits with invalid_arguments and records the violation', async () => {
    const result = await fetch(`${fake.apiUrl}views.open`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ trigger_id: fake.newTriggerId(), view: modal('Vincular este workspace agora') }),
    });
    expect(await result.json()).toEqual({
      ok: false,
      error: 'invalid_arguments',
      response_metadata: {
        messages: ['[ERROR] must be less than 25 characters [json-pointer:/view/title/text]'],
      },
    });
    expect(fake.limitViolations).toEqual([
      'views.open: must be less than 25 characters [json-pointer:/view/title/text]',
    ]);
  });

  it('updates a view by id or external_id and refuses a stale hash', async () => {
    const client = clientFor(fake, TOKEN);
    const opened = await client.views.open({
      trigger_id: fake.newTriggerId({ userId: users.admin }),
      view: modal('Vincular', { external_id: 'link-T00FAKE01' }),
    });
    const viewId = opened.view?.id ?? '';
    const hash = opened.view?.hash ?? '';
    const updated = await client.views.update({ view_id: viewId, hash, view: modal('Vinculando...') });
    expect(updated.view).toMatchObject({ id: viewId, title: { text: 'Vinculando...' } });
    expect(updated.view?.hash).not.toBe(hash);
    expect(await slackError(client.views.update({ view_id: viewId, hash, view: modal() }))).toBe(
      'hash_conflict',
    );
    const byExternal = await client.views.update({ external_id: 'link-T00FAKE01', view: modal('Vinculado') });
    expect(byExternal.view?.id).toBe(viewId);
    expect(await slackError(client.views.update({ view_id: 'V0NOSUCH1', view: modal() }))).toBe('not_found');
    expect(fake.views.map((v) => v.via)).toEqual(['views.open', 'views.update', 'views.update']);
  });

  it('publishes a Home with a new hash each time; a stale hash is refused hash_conflict, none is never checked', async () => {
    const client = clientFor(fake, TOKEN);
    const home = (text: string) => ({
      type: 'home' as const,
      blocks: [{ type: 'section' as const, text: { type: 'mrkdwn' as const, text } }],
    });
    // No Home yet: a hash names nothing Slack stores.
    expect(
      await slackError(client.views.publish({ user_id: users.admin, hash: '1.1', view: home('a') })),
    ).toBe('hash_conflict');
    const first = await client.views.publish({ user_id: users.admin, view: home('a') });
    const firstHash = first.view?.hash ?? '';
    expect(firstHash).not.toBe('');
    const second = await client.views.publish({ user_id: users.admin, hash: firstHash, view: home('b') });
    expect(second.view?.id).toBe(first.view?.id);
    // The same view published again still gets a new hash: the hash names a publish, not a content.
    const third = await client.views.publish({
      user_id: users.admin,
      hash: second.view?.hash,
      view: home('b'),
    });
    expect(new Set([firstHash, second.view?.hash, third.view?.hash]).size).toBe(3);
    // A publish that read the Home before the last one landed is refused, and changes nothing.
    expect(
      await slackError(client.views.publish({ user_id: users.admin, hash: firstHash, view: home('old') })),
    ).toBe('hash_conflict');
    // Without a hash, nothing is checked: it lands whatever was published before.
    const unchecked = await client.views.publish({ user_id: users.admin, view: home('c') });
    expect(unchecked.view?.hash).not.toBe(third.view?.hash);
    // Each user's Home has its own hash.
    const member = await client.views.publish({ user_id: users.member, view: home('m') });
    expect(
      await slackError(
        client.views.publish({ user_id: users.member, hash: unchecked.view?.hash, view: home('x') }),
      ),
    ).toBe('hash_conflict');
    expect(member.view?.id).not.toBe(first.view?.id);
    const published = fake.views.filter((v) => v.via === 'views.publish' && v.userId === users.admin);
    expect(published.map((v) => JSON.stringify(v.view.blocks))).not.toContain(
      JSON.stringify(home('old').blocks),
    );
    expect(published).toHaveLength(4);
  });

  it('keeps external_id unique per team, as Slack does: another team may use it, and cannot update by it', async () => {
    const mine = clientFor(fake, fake.tokenFor(FAKE_SEED.teamId));
    const theirs = clientFor(fake, fake.tokenFor(FAKE_SEED.otherTeamId));
    const opened = await mine.views.open({
      trigger_id: fake.newTriggerId({ userId: users.admin, teamId: FAKE_SEED.teamId }),
      view: modal('Vincular', { external_id: 'open-1' }),
    });
    expect(opened.view?.external_id).toBe('open-1');
    // The same team may not open a second view under it.
    expect(
      await slackError(
        mine.views.open({
          trigger_id: fake.newTriggerId({ userId: users.admin, teamId: FAKE_SEED.teamId }),
          view: modal('Outra', { external_id: 'open-1' }),
        }),
      ),
    ).toBe('duplicate_external_id');
    // Another team does not see this team's views: not found by it, and free to use the same id.
    expect(await slackError(theirs.views.update({ external_id: 'open-1', view: modal('Alheio') }))).toBe(
      'not_found',
    );
    const other = await theirs.views.open({
      trigger_id: fake.newTriggerId({ userId: users.otherTeamMember, teamId: FAKE_SEED.otherTeamId }),
      view: modal('Vincular', { external_id: 'open-1' }),
    });
    expect(other.view?.id).not.toBe(opened.view?.id);
    // Each team's update by external_id lands on its own view, with the hash it was given.
    const updated = await mine.views.update({
      external_id: 'open-1',
      hash: opened.view?.hash ?? '',
      view: modal('Vinculado'),
    });
    expect(updated.view).toMatchObject({ id: opened.view?.id, external_id: 'open-1' });
  });

  it('a views.open whose reply is lost has opened the modal: the same trigger then answers exchanged_trigger_id', async () => {
    const client = clientFor(fake, TOKEN);
    const triggerId = fake.newTriggerId({ userId: users.admin });
    fake.failNext('views.open', { dropReply: true }, 1);
    await expect(client.views.open({ trigger_id: triggerId, view: modal() })).rejects.toThrow();
    expect(fake.views.map((v) => v.via)).toEqual(['views.open']);
    expect(await slackError(client.views.open({ trigger_id: triggerId, view: modal() }))).toBe(
      'exchanged_trigger_id',
    );
  });

  it('pushes onto the modal stack, at most 3 views', async () => {
    const client = clientFor(fake, TOKEN);
    const root = await client.views.open({
      trigger_id: fake.newTriggerId({ userId: users.admin }),
      view: modal(),
    });
    const rootId = root.view?.id ?? '';
    const push = () =>
      client.views.push({
        trigger_id: fake.newTriggerId({ userId: users.admin, viewId: rootId }),
        view: modal('Confirmar'),
      });
    const second = await push();
    expect(second.view).toMatchObject({ root_view_id: rootId, previous_view_id: rootId });
    await push();
    expect(await slackError(push())).toBe('push_limit_reached');
  });
});
