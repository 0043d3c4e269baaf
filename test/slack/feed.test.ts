import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeRoute } from '../../src/domain/routes.js';
import { FAKE_SEED } from '../../src/fake-slack/index.js';
import { localFeedRounds } from '../../src/local/local-feed.js';
import { sandboxMotion } from '../../src/local/sandbox-motion.js';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import {
  buttonsOf,
  CHANNELS,
  eventually,
  findButton,
  type Harness,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../helpers/bot-harness.js';
import { clickInView, nextView, openHome, viewText } from '../helpers/shortcuts.js';

/** `/estoque alertas …` and following requests, over signed HTTP into the bot and the fake Slack. */

let h: Harness;
const REQUEST = DEMO_FACTS.company1.requestIds.first;

beforeEach(async () => {
  h = await startHarness();
  await h.link(TEAM);
});
afterEach(async () => {
  await h.close();
});

const feeds = () => h.container.feedListeners;

async function answerTo(command: string, text: string, user: string = USERS.member) {
  const result = await h.command(command, text, { user });
  expect(result.status).toBe(200);
  return h.nextMessage(result.sentAt, { userId: user, ephemeral: true });
}

/** The usage a bad argument gets, in the ack itself. */
async function usageOf(command: string, text: string): Promise<string> {
  const result = await h.command(command, text);
  const body = JSON.parse(result.body) as { text: string; response_type: string };
  expect(body.response_type).toBe('ephemeral');
  return body.text;
}

describe('/estoque alertas', () => {
  it('assinar posts the confirmation in the channel and subscribes it with its filters; again, it updates', async () => {
    const result = await h.command('/estoque', 'alertas assinar almox:2 eventos:status,novas');
    const confirmation = await h.nextMessage(result.sentAt, {
      channel: CHANNELS.stockroom,
      ephemeral: false,
    });
    expect(textOf(confirmation)).toContain(`<@${USERS.member}> assinou os alertas do estoque neste canal`);
    expect(textOf(confirmation)).toContain('novas solicitações e mudanças de status · almoxarifado 2');
    const feed = await eventually(() => feeds().getChannel(TEAM, CHANNELS.stockroom));
    expect(feed).toMatchObject({
      stockroomId: 2,
      kinds: ['novas', 'status'],
      subscribedBy: USERS.member,
      paused: null,
    });

    const again = await h.command('/estoque', 'alertas assinar', { user: USERS.admin });
    const updated = await h.nextMessage(again.sentAt, { channel: CHANNELS.stockroom, ephemeral: false });
    expect(textOf(updated)).toContain(`<@${USERS.admin}> atualizou os alertas`);
    await eventually(async () => (await feeds().getChannel(TEAM, CHANNELS.stockroom))?.stockroomId === null);
    expect(await feeds().getChannel(TEAM, CHANNELS.stockroom)).toMatchObject({
      kinds: ['novas', 'status', 'recebimentos'],
      createdAt: feed.createdAt,
      subscribedBy: USERS.admin,
    });
  });

  it('says why it cannot post (how to invite the bot, when that mends it), and subscribes nothing', async () => {
    for (const [channel, says] of [
      [CHANNELS.withoutBot, '/invite @estoque-bot'],
      [CHANNELS.archived, 'o canal foi arquivado'],
    ] as const) {
      const result = await h.command('/estoque', 'alertas assinar', { channel, user: USERS.admin });
      const answer = await h.nextMessage(result.sentAt, { userId: USERS.admin, ephemeral: true });
      expect(textOf(answer)).toContain(says);
      expect(await feeds().getChannel(TEAM, channel)).toBeNull();
    }
    expect(await feeds().listWorkspaces()).toEqual([]);
  });

  it('listar shows the workspace feeds; cancelar stops this channel', async () => {
    const subscribed = await h.command('/estoque', 'alertas assinar eventos:recebimentos');
    await h.nextMessage(subscribed.sentAt, { channel: CHANNELS.stockroom, ephemeral: false });
    await eventually(() => feeds().getChannel(TEAM, CHANNELS.stockroom));

    const list = await answerTo('/estoque', 'alertas listar');
    expect(textOf(list)).toContain(`<#${CHANNELS.stockroom}>`);
    expect(textOf(list)).toContain('recebimentos de compras · todos os almoxarifados');

    expect(textOf(await answerTo('/estoque', 'alertas cancelar'))).toContain('Alertas do estoque cancelados');
    expect(await feeds().getChannel(TEAM, CHANNELS.stockroom)).toBeNull();
    expect(textOf(await answerTo('/estoque', 'alertas cancelar'))).toContain('não recebe alertas');
    expect(textOf(await answerTo('/estoque', 'alertas listar'))).toContain('Nenhum canal');
  });

  it('bad arguments get the usage, and nothing is subscribed', async () => {
    expect(await usageOf('/estoque', 'alertas assinar eventos:novas,tudo')).toContain('eventos:novas,tudo');
    expect(await usageOf('/estoque', 'alertas assinar almox:x')).toContain('almox:x');
    expect(await usageOf('/estoque', 'alertas assinar dias:uteis')).toContain('filtro desconhecido');
    expect(await usageOf('/estoque', 'alertas listar tudo')).toContain('não aceita argumentos');
    expect(await usageOf('/estoque', 'alertas')).toContain('diga o que fazer com os alertas');
    expect(await usageOf('/estoque', 'alertas pausar')).toContain('`alertas pausar` não existe');
    expect(await feeds().listWorkspaces()).toEqual([]);
  });
});

describe('following a request', () => {
  it('/solicitacao <id> acompanhar follows it with its status; acompanhando lists it; parar stops', async () => {
    const followed = await answerTo('/solicitacao', `${REQUEST} acompanhar`);
    expect(textOf(followed)).toContain(`Você passou a acompanhar a solicitação ${REQUEST} (status agora:`);
    expect(findButton(followed, { text: 'Deixar de acompanhar' })?.value).toBe(String(REQUEST));
    const follow = await feeds().getFollow(TEAM, USERS.member, REQUEST);
    expect(follow?.lastSeenStatus).toEqual(expect.any(String));
    expect(textOf(followed)).toContain(follow?.lastSeenStatus ?? '?');

    const again = await answerTo('/solicitacao', `${REQUEST} acompanhar`);
    expect(textOf(again)).toContain(`Você já acompanha a solicitação ${REQUEST}`);

    const list = await answerTo('/solicitacao', 'acompanhando');
    expect(textOf(list)).toContain(`*${REQUEST}* — ${follow?.lastSeenStatus}`);
    // Someone else follows nothing.
    expect(textOf(await answerTo('/solicitacao', 'acompanhando', USERS.admin))).toContain(
      'Você não acompanha nenhuma solicitação',
    );

    expect(textOf(await answerTo('/solicitacao', `${REQUEST} parar`))).toContain(
      `Você deixou de acompanhar a solicitação ${REQUEST}`,
    );
    expect(await feeds().getFollow(TEAM, USERS.member, REQUEST)).toBeNull();
    expect(await feeds().listWorkspaces()).toEqual([]);
  });

  it('a request that does not exist is not followed', async () => {
    const answer = await answerTo('/solicitacao', '999999 acompanhar');
    expect(textOf(answer)).toMatch(/999999/);
    expect(textOf(answer)).not.toContain('passou a acompanhar');
    expect(await feeds().listFollows(TEAM)).toEqual([]);
  });

  it('the detail has Acompanhar; clicking it follows, and the next answer offers Deixar de acompanhar', async () => {
    const detail = await answerTo('/solicitacao', String(REQUEST));
    expect(findButton(detail, { text: 'Deixar de acompanhar' })).toBeUndefined();
    const since = Date.now();
    await h.click(detail, { text: 'Acompanhar' });
    const confirmation = await h.nextMessage(since, { userId: USERS.member, ephemeral: true });
    expect(textOf(confirmation)).toContain(`Você passou a acompanhar a solicitação ${REQUEST}`);
    expect(await feeds().getFollow(TEAM, USERS.member, REQUEST)).not.toBeNull();

    const history = await answerTo('/solicitacao', `${REQUEST} historico`);
    expect(findButton(history, { text: 'Acompanhar' })).toBeUndefined();
    const unfollowAt = Date.now();
    await h.click(history, { text: 'Deixar de acompanhar' });
    const stopped = await h.nextMessage(unfollowAt, { userId: USERS.member, ephemeral: true });
    expect(textOf(stopped)).toContain(`Você deixou de acompanhar a solicitação ${REQUEST}`);
    expect(await feeds().getFollow(TEAM, USERS.member, REQUEST)).toBeNull();
  });

  it('every row of a request list has its own toggle; clicking one follows that request', async () => {
    const list = await answerTo('/solicitacao', '');
    const toggles = buttonsOf(list).filter((b) => b.text?.text === 'Acompanhar');
    const rows = buttonsOf(list).filter((b) => b.text?.text === 'Ver');
    expect(rows.length).toBeGreaterThan(1);
    const idOf = (value: string | undefined) => {
      const route = decodeRoute(value);
      return route?.view === 'request' ? String(route.id) : null;
    };
    expect(toggles.map((b) => b.value)).toEqual(rows.map((b) => idOf(b.value)));
    expect(new Set(buttonsOf(list).map((b) => b.action_id)).size).toBe(buttonsOf(list).length);
    const first = Number(toggles[0]?.value);
    const since = Date.now();
    await h.click(list, { text: 'Acompanhar' });
    await h.nextMessage(since, { userId: USERS.member, ephemeral: true });
    expect((await feeds().listFollows(TEAM, USERS.member)).map((f) => f.requestId)).toEqual([first]);

    const again = await answerTo('/solicitacao', '');
    expect(
      buttonsOf(again)
        .filter((b) => b.text?.text === 'Deixar de acompanhar')
        .map((b) => b.value),
    ).toEqual([String(first)]);
  });

  it('a forged button value follows nothing and says the button is stale', async () => {
    const detail = await answerTo('/solicitacao', String(REQUEST));
    const follow = buttonsOf(detail).find((b) => b.text?.text === 'Acompanhar');
    expect(follow).toBeDefined();
    for (const value of ['0', '-1', '12ab', '99999999999', '{"id":1}']) {
      if (follow) follow.value = value;
      const since = Date.now();
      await h.click(detail, { text: 'Acompanhar' });
      const answer = await h.nextMessage(since, { userId: USERS.member, ephemeral: true });
      expect(textOf(answer), value).toContain('Este botão não funciona mais');
    }
    expect(await feeds().listFollows(TEAM)).toEqual([]);
  });

  it('minhas acompanhar matches the e-mail as minhas does; minhas parar stops', async () => {
    const on = await answerTo('/solicitacao', 'minhas acompanhar', USERS.admin);
    expect(textOf(on)).toContain(`Você passou a acompanhar as suas solicitações`);
    expect(await feeds().getOwnFollow(TEAM, USERS.admin)).toMatchObject({ email: FAKE_SEED.adminEmail });
    expect(textOf(await answerTo('/solicitacao', 'acompanhando', USERS.admin))).toContain(
      'Você também acompanha as suas próprias solicitações',
    );
    expect(textOf(await answerTo('/solicitacao', 'minhas parar', USERS.admin))).toContain(
      'Você deixou de acompanhar as suas solicitações',
    );
    expect(await feeds().getOwnFollow(TEAM, USERS.admin)).toBeNull();

    // A member whose e-mail matches no upstream user gets the same answer as `minhas`, and follows nothing.
    const refused = await answerTo('/solicitacao', 'minhas acompanhar', USERS.member);
    expect(textOf(refused)).not.toContain('passou a acompanhar');
    expect(await feeds().getOwnFollow(TEAM, USERS.member)).toBeNull();
  });

  it('bad arguments get the usage', async () => {
    expect(await usageOf('/solicitacao', `${REQUEST} seguir`)).toContain('`acompanhar` ou `parar`');
    expect(await usageOf('/solicitacao', `${REQUEST} acompanhar agora`)).toContain('use `/solicitacao');
    expect(await usageOf('/solicitacao', 'acompanhando status:1')).toContain('filtro desconhecido `status:`');
    expect(await usageOf('/solicitacao', 'minhas acompanhar status:1')).toContain('não aceita argumentos');
  });
});

describe('lifecycle, like digests', () => {
  async function listen() {
    const result = await h.command('/estoque', 'alertas assinar');
    await h.nextMessage(result.sentAt, { channel: CHANNELS.stockroom, ephemeral: false });
    await eventually(() => feeds().getChannel(TEAM, CHANNELS.stockroom));
    await answerTo('/solicitacao', `${REQUEST} acompanhar`);
  }

  it('unlink pauses the feed and a new link resumes it', async () => {
    await listen();
    await h.container.linkService.unlink(TEAM);
    expect((await feeds().listWorkspace(TEAM)).paused).toBe('unlinked');
    expect((await feeds().getChannel(TEAM, CHANNELS.stockroom))?.paused).toBe('unlinked');
    await h.link(TEAM);
    expect((await feeds().listWorkspace(TEAM)).paused).toBeNull();
    expect((await feeds().listFollows(TEAM)).map((f) => f.requestId)).toEqual([REQUEST]);
  });

  it('tokens_revoked pauses the feed; a new link resumes it (PRODUCT.md), and so does a new install', async () => {
    await listen();
    const revoke = async () => {
      await h.event({
        type: 'tokens_revoked',
        tokens: { bot: ['U00BOT001'] },
        event_ts: `${Date.now() / 1000}`,
      });
      await eventually(async () => (await feeds().pausedReason(TEAM)) === 'tokens_revoked');
    };
    await revoke();
    // PRODUCT.md: "unlink, a broken link and tokens_revoked pause feeds and follows, a new link resumes them". If
    // the Slack token still does not work, the next post pauses the feed again.
    await h.link(TEAM);
    expect(await feeds().pausedReason(TEAM)).toBeNull();
    expect((await h.container.subscriptions.listWorkspace(TEAM)).every((s) => s.paused === null)).toBe(true);
    await revoke();
    await h.installations.storeInstallation({
      team: { id: TEAM },
      enterprise: undefined,
      user: { id: USERS.admin, token: undefined, scopes: undefined },
      bot: { token: h.slack.tokenFor(TEAM), scopes: ['commands'], id: 'B00BOT001', userId: 'U00BOT001' },
      isEnterpriseInstall: false,
      tokenType: 'bot',
      authVersion: 'v2',
    });
    expect(await feeds().pausedReason(TEAM)).toBeNull();
  });

  /** A round of this workspace's feed now, whatever its schedule said. */
  async function roundNow(harness: Harness) {
    await harness.container.feedSnapshots.updateState(TEAM, { nextRoundAt: Date.now() - 1 });
    return harness.container.feed.runIfDue(TEAM);
  }

  /** What a workspace's earlier rounds left: a snapshot, a recorded state, an event not yet delivered. */
  async function seenBefore() {
    const snapshots = h.container.feedSnapshots;
    const entry = {
      status: 1,
      statusName: 'Aberta',
      stockroomId: 1,
      requesterId: 7,
      version: 0,
      seenAt: Date.now(),
    };
    await snapshots.saveRequests(TEAM, new Map([[REQUEST, entry]]));
    await snapshots.updateState(TEAM, { recordedAt: Date.now(), purchasesRecordedAt: Date.now() });
    await snapshots.addToOutbox(TEAM, [{ id: `${TEAM}:novas:${REQUEST}`, detectedAt: Date.now() }]);
    const sent = `${h.redis.prefix}feed:${TEAM}:sent:c-${CHANNELS.stockroom}:x`;
    await h.redis.redis.set(sent, 'sent:1');
    return {
      async left() {
        return {
          requests: (await snapshots.requests(TEAM)).size,
          recordedAt: (await snapshots.state(TEAM)).recordedAt,
          outbox: (await snapshots.outbox(TEAM)).length,
          sent: await h.redis.redis.exists(sent),
        };
      },
    };
  }

  it('a link to another company starts the feed over: nothing seen under the old one is posted', async () => {
    await listen();
    const before = await seenBefore();
    const snapshots = h.container.feedSnapshots;
    // The snapshot notes its company at its first round; the same company again keeps what it saw.
    await snapshots.setScope(TEAM, `${DEMO_FACTS.company1.empresa}:`);
    await h.link(TEAM);
    expect(await before.left()).toMatchObject({ requests: 1, outbox: 1, sent: 1 });
    // Another company: its requests are other requests under the same numbers.
    const C2 = DEMO_FACTS.company2;
    await h.link(TEAM, C2.login, C2.password, C2.empresa);
    const posts = () =>
      h.slack.messages.filter((m) => m.channel === CHANNELS.stockroom && !m.ephemeral).length;
    const postsBefore = posts();
    expect(await roundNow(h)).toMatchObject({ ran: true });
    const left = await before.left();
    expect(left).toMatchObject({ outbox: 0, sent: 0 });
    // The old company's request and event are gone; the round recorded the new company's list afresh.
    expect(left.recordedAt).not.toBeNull();
    expect((await snapshots.requests(TEAM)).get(REQUEST)?.requesterId).not.toBe(7);
    expect(posts()).toBe(postsBefore);
    expect((await snapshots.state(TEAM)).scope).toBe(`${C2.empresa}:`);
  });

  it('a link to another company ends the follows of request numbers, and tells each follower; own follows stay', async () => {
    // The numbers followed were the old company's requests: under the new link they name other requests, whose
    // changes the followers were DMed about as if they were theirs.
    await feeds().follow(TEAM, USERS.member, REQUEST, 'Aberta');
    await feeds().follow(TEAM, USERS.member, REQUEST + 1, 'Aberta');
    await feeds().follow(TEAM, USERS.admin, REQUEST, null);
    await feeds().followOwn(TEAM, USERS.admin, 'admin@example.com');
    const snapshots = h.container.feedSnapshots;
    await snapshots.setScope(TEAM, `${DEMO_FACTS.company1.empresa}:`);
    // The same company again keeps them.
    await h.link(TEAM);
    expect(await roundNow(h)).toMatchObject({ ran: true });
    expect(await feeds().listFollows(TEAM)).toHaveLength(3);

    const C2 = DEMO_FACTS.company2;
    await h.link(TEAM, C2.login, C2.password, C2.empresa);
    /** The DMs that tell of follows ended, as the bot posted them (to the user id: its DM with them). */
    const told = () =>
      h.slack.calls
        .filter((c) => c.method === 'chat.postMessage' && String(c.args.text).includes('outra empresa'))
        .map((c) => ({ user: String(c.args.channel), text: String(c.args.text) }));
    expect(await roundNow(h)).toMatchObject({ ran: true });
    expect(await feeds().listFollows(TEAM)).toEqual([]);
    expect(await feeds().getOwnFollow(TEAM, USERS.admin)).not.toBeNull();
    expect(
      told()
        .map((dm) => dm.user)
        .sort(),
    ).toEqual([USERS.admin, USERS.member].sort());
    expect(told().find((dm) => dm.user === USERS.member)?.text).toContain(`${REQUEST}, ${REQUEST + 1}`);
    // A second round under the new company tells nobody again.
    expect(await roundNow(h)).toMatchObject({ ran: true });
    expect(told()).toHaveLength(2);
  });

  it('a link to another company ends the old follows at once; a follow made after it stays and its changes are DMed', async () => {
    // Until 2026-11-27 only the round that noticed the new company ended follows, every one, those made after the
    // link too, with a DM saying they were the old company's requests.
    const subscribed = await h.command('/estoque', 'alertas assinar');
    await h.nextMessage(subscribed.sentAt, { channel: CHANNELS.stockroom, ephemeral: false });
    await answerTo('/solicitacao', `${REQUEST} acompanhar`);
    expect(await roundNow(h)).toMatchObject({ ran: true }); // records company 1
    const C2 = DEMO_FACTS.company2;
    const told = () =>
      h.slack.calls
        .filter((c) => c.method === 'chat.postMessage' && String(c.args.text).includes('outra empresa'))
        .map((c) => String(c.args.text));
    await h.link(TEAM, C2.login, C2.password, C2.empresa);
    // The old company's follow ends with the link itself, its follower told.
    expect(await feeds().listFollows(TEAM)).toEqual([]);
    expect(told()).toHaveLength(1);
    expect(told()[0]).toContain(String(REQUEST));
    const id = C2.requestIds.last; // "Em separação": it can move
    expect(textOf(await answerTo('/solicitacao', `${id} acompanhar`))).toContain(String(id));
    expect((await feeds().listFollows(TEAM))[0]).toMatchObject({ requestId: id, empresaId: C2.empresa });
    const posts = () =>
      h.slack.messages.filter((m) => m.channel === CHANNELS.stockroom && !m.ephemeral).length;
    const postsBefore = posts();
    // The new company's first round only records (no flood), keeps the new follow and tells nobody again.
    expect(await roundNow(h)).toMatchObject({ ran: true, round: { recorded: true } });
    expect(posts()).toBe(postsBefore);
    expect((await feeds().listFollows(TEAM)).map((f) => f.requestId)).toEqual([id]);
    expect(told()).toHaveLength(1);
    expect(told()[0]).toContain(String(REQUEST));
    expect(told()[0]).not.toContain(String(id));
    // The new company's request changes: its follower is DMed.
    const dmsOf = (requestId: number) =>
      h.slack.calls.filter(
        (c) =>
          c.method === 'chat.postMessage' &&
          c.args.channel === USERS.member &&
          !String(c.args.text).includes('outra empresa') &&
          String(c.args.text).includes(String(requestId)),
      );
    expect(dmsOf(id)).toHaveLength(0);
    const made = h.sandbox.advance({
      empresaId: C2.empresa,
      changes: 1,
      kinds: ['status'],
      requestIds: [id],
    });
    expect(made).toHaveLength(1);
    expect(made).toMatchObject([{ kind: 'status', solicitacaoMaterialId: id }]);
    expect(await roundNow(h)).toMatchObject({ ran: true });
    expect(dmsOf(id)).toHaveLength(1);
    expect((await feeds().listFollows(TEAM)).map((f) => f.requestId)).toEqual([id]);
    expect(told()).toHaveLength(1);
  });

  it('unlinked, then linked to another company: the next round ends only the follows of another company', async () => {
    // The link sees no previous link to compare with; the round does, by the company each follow recorded.
    await answerTo('/solicitacao', `${REQUEST} acompanhar`);
    await feeds().follow(TEAM, USERS.admin, REQUEST + 1, 'Aberta'); // stored before follows recorded a company
    expect(await roundNow(h)).toMatchObject({ ran: true }); // records company 1
    await h.container.linkService.unlink(TEAM);
    const C2 = DEMO_FACTS.company2;
    await h.link(TEAM, C2.login, C2.password, C2.empresa);
    expect(await feeds().listFollows(TEAM)).toHaveLength(2);
    const id = C2.requestIds.first;
    await answerTo('/solicitacao', `${id} acompanhar`);
    expect(await roundNow(h)).toMatchObject({ ran: true, round: { recorded: true } });
    expect((await feeds().listFollows(TEAM)).map((f) => f.requestId)).toEqual([id]);
    const told = h.slack.calls
      .filter((c) => c.method === 'chat.postMessage' && String(c.args.text).includes('outra empresa'))
      .map((c) => ({ user: String(c.args.channel), text: String(c.args.text) }));
    expect(told.map((dm) => dm.user).sort()).toEqual([USERS.admin, USERS.member].sort());
    expect(told.every((dm) => !dm.text.includes(String(id)))).toBe(true);
  });

  it('app_uninstalled forgets what the feed saw, so a reinstall starts over without a flood', async () => {
    await listen();
    const before = await seenBefore();
    await h.event({ type: 'app_uninstalled', event_ts: `${Date.now() / 1000}` });
    await eventually(async () => (await before.left()).requests === 0);
    expect(await before.left()).toEqual({ requests: 0, recordedAt: null, outbox: 0, sent: 0 });
  });

  it('app_uninstalled removes every listener of the workspace', async () => {
    await listen();
    await h.event({ type: 'app_uninstalled', event_ts: `${Date.now() / 1000}` });
    await eventually(async () => (await feeds().listWorkspaces()).length === 0);
    expect(await feeds().listWorkspace(TEAM)).toMatchObject({ channels: [], follows: [], ownFollows: [] });
  });
});

describe('/estoque sandbox avancar', () => {
  it('outside local mode says it exists only there, and moves nothing', async () => {
    const result = await h.command('/estoque', 'sandbox avancar');
    const body = JSON.parse(result.body) as { text: string };
    expect(body.text).toContain('só existe no modo local');
    expect(h.sandbox.changes).toEqual([]);
  });

  it('local mode, right after a link to another company: the first advance is told in the channel', async () => {
    // Local mode's motion (src/local/sandbox-motion.ts) over this harness's sandbox, stores and engine. Until
    // 2026-11-27 the snapshot of the old company counted as recorded: the round after the advance only recorded the
    // new company, and its changes were never told.
    const motion = sandboxMotion(
      h.sandbox,
      async (workspaceId) => (await h.container.links.get(workspaceId))?.empresaId ?? null,
      () =>
        localFeedRounds(
          h.container.feed,
          h.container.feedSnapshots,
          h.container.feedListeners,
          h.container.links,
          Date.now,
        ),
    );
    const subscribed = await h.command('/estoque', 'alertas assinar');
    await h.nextMessage(subscribed.sentAt, { channel: CHANNELS.stockroom, ephemeral: false });
    const made1 = await motion.advance(TEAM, 1);
    await motion.announce(TEAM, made1);
    const C2 = DEMO_FACTS.company2;
    await h.link(TEAM, C2.login, C2.password, C2.empresa);
    const channel = () => h.slack.messages.filter((m) => m.channel === CHANNELS.stockroom && !m.ephemeral);
    const before = channel().length;
    const made = await motion.advance(TEAM, 3);
    expect(made).toHaveLength(3);
    await motion.announce(TEAM, made);
    const text = channel()
      .slice(before)
      .map((m) => textOf(m))
      .join('\n');
    for (const change of made)
      expect(text).toContain(`*${change.kind === 'recebimentos' ? change.purchaseId : change.requestId}*`);
  });

  it('`/estoque ajuda` and the Home’s Ajuda name it in local mode only', async () => {
    const helpText = async (of: Harness) =>
      JSON.stringify(
        (JSON.parse((await of.command('/estoque', 'ajuda')).body) as { blocks: unknown }).blocks,
      );
    const homeHelpText = async (of: Harness) => {
      const home = await openHome(of, USERS.member);
      const since = of.slack.views.length;
      await clickInView(of, home, 'home:help', USERS.member);
      return viewText(await nextView(of, since, 'views.open'));
    };
    // Outside local mode there is no sandbox: the help does not offer it.
    expect(await helpText(h)).not.toContain('sandbox avancar');
    expect(await homeHelpText(h)).not.toContain('sandbox avancar');
    const local = await startHarness({ localMode: true });
    try {
      await local.link(TEAM);
      // Until 2026-11-27 neither named it: local mode's way to make the feed say something was not to be found.
      expect(await helpText(local)).toContain('/estoque sandbox avancar');
      expect(await homeHelpText(local)).toContain('/estoque sandbox avancar');
      // The command the help names works there.
      const moved = await local.command('/estoque', 'sandbox avancar 1');
      const reply = await local.nextMessage(moved.sentAt, { userId: USERS.member });
      expect(textOf(reply)).toContain('O sandbox fez 1 mudança');
    } finally {
      await local.close();
    }
  });

  it('a bad argument’s usage names it in local mode only, as the help does', async () => {
    const usageBlocks = async (of: Harness, text: string) => {
      const body = JSON.parse((await of.command('/estoque', text)).body) as {
        response_type: string;
        blocks: unknown;
      };
      expect(body.response_type).toBe('ephemeral');
      return JSON.stringify(body.blocks);
    };
    const outside = await usageBlocks(h, 'resumo xpto');
    expect(outside).toContain('/estoque ajuda');
    expect(outside).not.toContain('sandbox avancar');
    const local = await startHarness({ localMode: true });
    try {
      // Until 2026-11-27 the usage after a bad argument left it out in local mode, while the help named it.
      for (const text of ['resumo xpto', 'sandbox parar']) {
        const usage = await usageBlocks(local, text);
        expect(usage).toContain('/estoque ajuda');
        expect(usage).toContain('`/estoque sandbox avancar` · `/estoque sandbox avancar 5`');
      }
    } finally {
      await local.close();
    }
  });

  it('bad arguments get the usage', async () => {
    expect(await usageOf('/estoque', 'sandbox avancar 50')).toContain('de 1 a 20');
    expect(await usageOf('/estoque', 'sandbox parar')).toContain('`sandbox parar` não existe');
  });
});

describe('a follow made after a change, shown the changed status', () => {
  /** A round of this workspace's feed now, whatever its schedule said. */
  async function roundNow() {
    await h.container.feedSnapshots.updateState(TEAM, { nextRoundAt: Date.now() - 1 });
    return h.container.feed.runIfDue(TEAM);
  }
  const LAST = DEMO_FACTS.company1.requestIds.last;
  /** What the bot posted about LAST to `channel` (a user id: the DM with them). */
  const postsAbout = (channel: string) =>
    h.slack.calls
      .filter(
        (c) =>
          c.method === 'chat.postMessage' &&
          c.args.channel === channel &&
          JSON.stringify(c.args).includes(`Solicitação ${LAST}`),
      )
      .map((c) => String(c.args.text));

  it('is not DMed that change; the channel gets it, and the next change reaches the follower', async () => {
    // Until 2026-11-27 the round after the follow DMed "Aberta → Em separação" to a member who had just been shown
    // "status agora: Em separação" (the snapshot still held Aberta).
    const subscribed = await h.command('/estoque', 'alertas assinar');
    await h.nextMessage(subscribed.sentAt, { channel: CHANNELS.stockroom, ephemeral: false });
    expect(await roundNow()).toMatchObject({ ran: true, round: { recorded: true } });
    const [moved] = h.sandbox.advance({ empresaId: 1, changes: 1, kinds: ['status'], requestIds: [LAST] });
    expect(moved).toMatchObject({ kind: 'status', solicitacaoMaterialId: LAST });
    const toName = moved?.kind === 'status' ? moved.toNome : '?';
    const followed = await answerTo('/solicitacao', `${LAST} acompanhar`);
    expect(textOf(followed)).toContain(`status agora: ${toName}`);

    expect(await roundNow()).toMatchObject({ ran: true });
    expect(postsAbout(CHANNELS.stockroom).join('\n')).toContain(toName);
    expect(postsAbout(USERS.member)).toEqual([]);

    const [next] = h.sandbox.advance({ empresaId: 1, changes: 1, kinds: ['status'], requestIds: [LAST] });
    expect(next).toMatchObject({ kind: 'status', solicitacaoMaterialId: LAST });
    const nextName = next?.kind === 'status' ? next.toNome : '?';
    expect(await roundNow()).toMatchObject({ ran: true });
    const dms = postsAbout(USERS.member);
    expect(dms).toHaveLength(1);
    expect(dms[0]).toContain(nextName);
    expect((await feeds().getFollow(TEAM, USERS.member, LAST))?.lastSeenStatus).toBe(nextName);
  });
});

describe('alertas assinar: what the confirmation promises', () => {
  /** Subscribes in the stockroom channel; what the channel got (null: nothing) and what the person got. */
  async function subscribeWith(text: string, user: string = USERS.member) {
    const result = await h.command('/estoque', `alertas assinar${text}`, { user });
    // The answer: the confirmation in the channel, or a refusal to the person (not the "Consultando…" before it).
    const answer = await eventually(() =>
      h.slack.messages.find(
        (m) =>
          m.at >= result.sentAt &&
          m.channel === CHANNELS.stockroom &&
          (!m.ephemeral || (m.visibleTo === user && !m.text.includes('Consultando'))),
      ),
    );
    return { answer, posted: answer.ephemeral ? null : answer };
  }
  const stockroomReads = () => h.sandbox.calls.filter((c) => c.path === '/v1/almoxarifados').length;

  it('refuses an almox: that is not among the active stockrooms (another company’s too), subscribing nothing', async () => {
    // Until 2026-11-27 `almox:999` was confirmed, and the channel never got anything.
    const readsBefore = stockroomReads(); // the link's check read it, past the cache
    for (const id of [999, DEMO_FACTS.company2.activeStockrooms[0].almoxarifado]) {
      const { answer, posted } = await subscribeWith(` almox:${id}`);
      expect(textOf(answer)).toContain(`O almoxarifado ${id} não está entre os ativos desta empresa`);
      expect(posted).toBeNull();
      expect(await feeds().getChannel(TEAM, CHANNELS.stockroom)).toBeNull();
    }
    // An active one is confirmed; the list was read once, then cached.
    const { posted } = await subscribeWith(' almox:2');
    expect(textOf(posted as never)).toContain('almoxarifado 2');
    expect(await eventually(() => feeds().getChannel(TEAM, CHANNELS.stockroom))).toMatchObject({
      stockroomId: 2,
    });
    expect(stockroomReads()).toBe(readsBefore + 1);
  });

  it('a stockroom list upstream cannot give now does not refuse: confirmed, saying it could not be checked', async () => {
    h.sandbox.faults.next({ path: '/v1/almoxarifados', status: 500, times: 10 });
    const { posted } = await subscribeWith(' almox:999');
    expect(textOf(posted as never)).toContain('assinou os alertas do estoque neste canal');
    expect(textOf(posted as never)).toContain('Não consegui conferir agora se o almoxarifado 999');
    expect(await eventually(() => feeds().getChannel(TEAM, CHANNELS.stockroom))).toMatchObject({
      stockroomId: 999,
    });
  });

  it('a spent budget does not refuse either', async () => {
    await h.close();
    // 2 calls a minute: the link takes both (login + check).
    h = await startHarness({ rateLimit: { count: 2, windowMs: 60_000 } });
    await h.link(TEAM);
    const { posted } = await subscribeWith(' almox:2');
    expect(textOf(posted as never)).toContain('Não consegui conferir agora se o almoxarifado 2');
    expect(await eventually(() => feeds().getChannel(TEAM, CHANNELS.stockroom))).toMatchObject({
      stockroomId: 2,
    });
    expect(h.sandbox.calls.filter((c) => c.status === 429)).toEqual([]);
  });

  it('while the workspace is not linked, the confirmation says alerts start once an admin links it', async () => {
    // Until 2026-11-27 it was confirmed as if alerts were on.
    await h.container.linkService.unlink(TEAM);
    const { posted } = await subscribeWith('');
    expect(textOf(posted as never)).toContain('assinou os alertas do estoque neste canal');
    expect(textOf(posted as never)).toContain('ainda não está vinculado');
    expect(textOf(posted as never)).toContain(
      'os alertas começam quando um administrador do workspace vincular',
    );
    expect(textOf(posted as never)).toContain('`/estoque vincular`');
    expect(await eventually(() => feeds().getChannel(TEAM, CHANNELS.stockroom))).toMatchObject({
      paused: 'unlinked',
    });
  });

  it('with a broken link, or paused for tokens_revoked, the confirmation says alerts are paused and why', async () => {
    const link = await h.container.links.get(TEAM);
    await h.container.links.markBroken(TEAM, Date.now(), link?.linkedAt);
    const broken = await subscribeWith('');
    expect(textOf(broken.posted as never)).toContain('Os alertas estão pausados');
    expect(textOf(broken.posted as never)).toContain('vincular de novo com `/estoque vincular`');
    await h.container.linkService.unlink(TEAM);
    await h.link(TEAM);
    await feeds().pauseWorkspace(TEAM, 'tokens_revoked');
    const revoked = await subscribeWith('', USERS.admin);
    expect(textOf(revoked.posted as never)).toContain('Os alertas estão pausados');
    expect(textOf(revoked.posted as never)).toContain('reinstal');
    // Linked and running: nothing of the kind.
    await feeds().resumeWorkspace(TEAM, 'tokens_revoked');
    const running = await subscribeWith('');
    expect(textOf(running.posted as never)).not.toContain('pausad');
    expect(textOf(running.posted as never)).not.toContain('vincul');
  });

  it('in a DM or a group DM Slack refuses, the answer says to use the command in a channel', async () => {
    // Until 2026-11-27 it said to invite the bot with /invite, which cannot be done in a DM.
    for (const who of [
      { channel: 'D0SOMEDM1' },
      { channel: 'G0SOMEMP1', channelName: 'mpdm-ana--bia--caio-1' },
    ]) {
      const result = await h.command('/estoque', 'alertas assinar', who);
      const answer = await h.nextMessage(result.sentAt, { userId: USERS.member, ephemeral: true });
      expect(textOf(answer)).toContain('use o comando em um canal');
      expect(textOf(answer)).not.toContain('/invite');
      expect(await feeds().getChannel(TEAM, who.channel)).toBeNull();
    }
  });
});
