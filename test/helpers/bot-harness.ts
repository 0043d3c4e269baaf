import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { App } from '@slack/bolt';
import { loadConfig } from '../../src/config.js';
import { buildContainer, type Container } from '../../src/container.js';
import {
  blockAction,
  buildBlockActionPayload,
  buildViewSubmissionPayload,
  eventCallback,
  FAKE_SEED,
  type FakeMessage,
  type FakeSlack,
  type SlackRequestResult,
  type SlackRequestTarget,
  slashCommand,
  startFakeSlack,
  viewSubmission,
} from '../../src/fake-slack/index.js';
import type { Clock } from '../../src/lib/clock.js';
import type { Logger } from '../../src/lib/logger.js';
import { localFeedRounds } from '../../src/local/local-feed.js';
import { sandboxMotion } from '../../src/local/sandbox-motion.js';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { BOT_SCOPES, buildSlackApp, startSlackApp } from '../../src/slack/app.js';
import { SecretBox } from '../../src/store/crypto.js';
import { SlackInstallationStore } from '../../src/store/installation-store.js';
import { RedisKeyValue } from '../../src/store/kv.js';
import type { Budget } from '../../src/upstream/budget.js';
import { createRedisBudget } from '../../src/upstream/budget-redis.js';
import { FAST_RETRY_POLICY } from '../../src/upstream/retry.js';
import { makeTestRedis, type TestRedis } from './redis.js';
import { captureLogger } from './upstream-stack.js';

export const SIGNING_SECRET = 'test-signing-secret';
export const TEAM = FAKE_SEED.teamId;
export const OTHER_TEAM = FAKE_SEED.otherTeamId;
export const USERS = FAKE_SEED.users;
export const CHANNELS = FAKE_SEED.channels;

export interface HarnessOptions {
  rateLimit?: { count: number; windowMs: number };
  sandboxRateLimit?: { count: number; windowMs: number };
  timeoutMs?: number;
  botAdmins?: string[];
  /** Timers of first messages (a ManualClock: the test decides when "a second passed"). */
  clock?: Clock;
  /** The bot's time (epoch ms): a test that needs a day to pass moves it (Redis TTLs still run on real time). */
  now?: () => number;
  /** ANSWER_DEADLINE, ANSWER_PENDING_NOTICE, ANSWER_BUDGET_NOTICE, as the environment gives them (`25s`…). */
  answerTiming?: { deadline?: string; pendingNotice?: string; budgetNotice?: string };
  /** More environment variables, as config.ts reads them (`UPSTREAM_MAX_RESPONSE_BYTES: '1MiB'`…). */
  env?: Record<string, string>;
  /** The budget, built over the test's Redis and logger; default the Redis budget of the configured limit. */
  budget?: (redis: TestRedis, logger: Logger) => Budget;
  /**
   * As local mode wires the bot (src/local/local-mode.ts): `/estoque sandbox avancar` moves the harness's sandbox
   * along, and the feed's round runs at once.
   */
  localMode?: boolean;
}

export interface Harness {
  sandbox: Sandbox;
  slack: FakeSlack;
  redis: TestRedis;
  container: Container;
  app: App;
  target: SlackRequestTarget;
  logs: string[];
  box: SecretBox;
  /** The OAuth installations, wired as redis-bot.ts wires them (a new install resumes what tokens_revoked paused). */
  installations: SlackInstallationStore;
  /** Sends a signed slash command; returns Slack's view of the HTTP answer and when it was sent. */
  command(command: string, text: string, who?: Who): Promise<SlackRequestResult & { sentAt: number }>;
  /** Sends a signed click on a button of `message`, found by action id prefix and button text. */
  click(
    message: FakeMessage,
    button: { text?: string; actionPrefix?: string },
    who?: Who,
  ): Promise<SlackRequestResult>;
  submitLink(values: LinkValues, who?: Who, privateMetadata?: string): Promise<SlackRequestResult>;
  event(event: object, teamId?: string): Promise<SlackRequestResult>;
  /** Waits for the next message visible to `userId` posted after `since` (ms) and not returned before. */
  nextMessage(
    since: number,
    filter?: { userId?: string; channel?: string; ephemeral?: boolean },
  ): Promise<FakeMessage>;
  link(teamId: string, login?: string, password?: string, empresaId?: number): Promise<void>;
  /**
   * Another replica of the bot: its own container, Bolt app, HTTP port and logs, over the same Redis prefix, fake
   * Slack, sandbox and installations. Its `command`, `click`, `submitLink`, `event` (and the helpers that send to
   * `target`) reach it alone; its close() stops it alone, and the harness's close() stops it too.
   */
  addReplica(): Promise<Harness>;
  close(): Promise<void>;
}

export interface Who {
  team?: string;
  user?: string;
  channel?: string;
  /** The payload's channel_name (a group DM's is `mpdm-…`); default what the fake names the channel. */
  channelName?: string;
  /** Sent as from an org-wide install of this enterprise (Enterprise Grid): `is_enterprise_install` true. */
  enterprise?: string;
}

export interface LinkValues {
  login: string;
  password: string;
  company: string;
  unit?: string;
  endSession?: boolean;
}

/**
 * The whole bot over real HTTP: signed requests into /slack/events, the fake Slack Web API through
 * SLACK_API_URL, the sandbox upstream, the real Redis. Two workspaces are installed (OAuth installations in
 * the store), so isolation is tested through the same path a multi-workspace install takes.
 */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const sandbox = await startSandbox({
    port: 0,
    ...(options.sandboxRateLimit && { rateLimit: options.sandboxRateLimit }),
  });
  const slack = await startFakeSlack({ port: 0, enforceChannelRate: false });
  // Messages nextMessage has returned. `since` is in milliseconds, and the message a test just waited for can
  // carry the same millisecond as the next action's `since`: without this, the next wait would return it again
  // and every later wait in the file would be one message behind.
  const handedOut = new WeakSet<FakeMessage>();
  const redis = await makeTestRedis();
  const { logger, lines } = captureLogger('debug');
  const key = randomBytes(32).toString('base64');
  const config = loadConfig({
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_CLIENT_ID: 'client-id',
    SLACK_CLIENT_SECRET: 'client-secret',
    SLACK_STATE_SECRET: 'state-secret',
    SLACK_API_URL: slack.apiUrl,
    UPSTREAM_BASE_URL: sandbox.baseUrl,
    UPSTREAM_AUTH_URL: sandbox.authUrl,
    CREDENTIALS_KEY: key,
    REDIS_URL: 'redis://127.0.0.1:6379',
    BOT_ADMINS: (options.botAdmins ?? []).join(','),
    PORT: '0',
    ...options.env,
    ...(options.rateLimit && {
      UPSTREAM_RATE_LIMIT: `${options.rateLimit.count}/${options.rateLimit.windowMs}ms`,
    }),
    ...(options.answerTiming?.deadline && { ANSWER_DEADLINE: options.answerTiming.deadline }),
    ...(options.answerTiming?.pendingNotice && { ANSWER_PENDING_NOTICE: options.answerTiming.pendingNotice }),
    ...(options.answerTiming?.budgetNotice && { ANSWER_BUDGET_NOTICE: options.answerTiming.budgetNotice }),
    ...options.env,
  });
  const box = SecretBox.fromBase64(key);
  const kv = new RedisKeyValue(redis.redis);
  // As redis-bot.ts: a new install resumes what a revoked token paused.
  const installations = new SlackInstallationStore(kv, redis.keys, box, async (workspaceId) => {
    await container.subscriptions.resumeWorkspace(workspaceId, 'tokens_revoked');
    await container.feedListeners.resumeWorkspace(workspaceId, 'tokens_revoked');
  });
  const shared: SharedWorld = { sandbox, redis, box, installations, config, options };
  const { container, app, target } = await startBot(shared, kv, logger, (r) =>
    createRedisBudget(r.redis, r.keys, { limit: config.UPSTREAM_RATE_LIMIT, logger }),
  );
  const replicas: Harness[] = [];
  for (const team of [TEAM, OTHER_TEAM]) {
    const fakeTeam = slack.teams.get(team);
    await installations.storeInstallation({
      team: { id: team, name: fakeTeam?.name ?? team },
      enterprise: undefined,
      user: { id: USERS.admin, token: undefined, scopes: undefined },
      bot: {
        token: slack.tokenFor(team),
        scopes: [...BOT_SCOPES],
        id: fakeTeam?.botId ?? 'B0',
        userId: fakeTeam?.botUserId ?? 'U0',
      },
      tokenType: 'bot',
      isEnterpriseInstall: false,
      appId: 'A00FAKEAPP',
      authVersion: 'v2',
    });
  }

  const resolveWho = (who: Who = {}) => ({
    team: who.team ?? TEAM,
    user: who.user ?? USERS.member,
    channel: who.channel ?? CHANNELS.stockroom,
  });

  /** The requests Slack sends, signed, to one replica's port. */
  const sendersTo = (
    target: SlackRequestTarget,
  ): Pick<Harness, 'command' | 'click' | 'submitLink' | 'event'> => ({
    async command(command, text, who) {
      const w = resolveWho(who);
      const sentAt = Date.now();
      const result = await slashCommand(target, {
        command,
        text,
        teamId: w.team,
        userId: w.user,
        channelId: w.channel,
        ...(who?.channelName !== undefined && { channelName: who.channelName }),
        responseUrl: slack.newResponseUrl({ teamId: w.team, channelId: w.channel, userId: w.user }),
        triggerId: slack.newTriggerId({ userId: w.user, teamId: w.team }),
        ...(who?.enterprise !== undefined && { enterpriseId: who.enterprise, isEnterpriseInstall: true }),
      });
      return { ...result, sentAt };
    },
    async click(message, button, who) {
      const w = resolveWho({ channel: message.channel, ...who });
      const found = findButton(message, button);
      if (!found) throw new Error(`no button ${JSON.stringify(button)} on message "${message.text}"`);
      const payload = buildBlockActionPayload({
        teamId: w.team,
        userId: w.user,
        channelId: message.channel,
        responseUrl: slack.newResponseUrl({
          teamId: w.team,
          channelId: message.channel,
          userId: w.user,
          messageTs: message.ts,
        }),
        triggerId: slack.newTriggerId({ userId: w.user, teamId: w.team }),
        actionId: found.action_id,
        value: found.value,
        messageTs: message.ts,
        isEphemeral: message.ephemeral,
        message,
      });
      return blockAction(target, payload);
    },
    async submitLink(values, who, privateMetadata) {
      const w = resolveWho(who);
      const payload = buildViewSubmissionPayload({
        teamId: w.team,
        userId: w.user,
        callbackId: 'link-credentials',
        viewId: `V${randomBytes(4).toString('hex').toUpperCase()}`,
        privateMetadata:
          privateMetadata ??
          JSON.stringify({
            channelId: w.channel,
            responseUrl: slack.newResponseUrl({ teamId: w.team, channelId: w.channel, userId: w.user }),
          }),
        values: {
          link_login: { login: { type: 'plain_text_input', value: values.login } },
          link_password: { password: { type: 'plain_text_input', value: values.password } },
          link_company: { company: { type: 'number_input', value: values.company } },
          link_unit: { unit: { type: 'number_input', value: values.unit ?? null } },
          link_end_session: {
            end_session: {
              type: 'checkboxes',
              selected_options: values.endSession
                ? [{ text: { type: 'plain_text', text: 'Encerrar' }, value: 'end' }]
                : [],
            },
          },
        } as never,
      });
      return viewSubmission(target, payload);
    },
    event(event, teamId = TEAM) {
      return eventCallback(target, event, teamId);
    },
  });

  const harness: Harness = {
    sandbox,
    slack,
    redis,
    container,
    app,
    target,
    logs: lines,
    box,
    installations,
    ...sendersTo(target),
    async nextMessage(since, filter = {}) {
      const message = await eventually(() =>
        slack.messages.find(
          (m) =>
            m.at >= since &&
            !handedOut.has(m) &&
            !m.replaced &&
            !m.deleted &&
            (filter.userId === undefined || !m.ephemeral || m.visibleTo === filter.userId) &&
            (filter.channel === undefined || m.channel === filter.channel) &&
            (filter.ephemeral === undefined || m.ephemeral === filter.ephemeral),
        ),
      );
      handedOut.add(message);
      return message;
    },
    async link(
      teamId,
      login = DEMO_FACTS.company1.login,
      password = DEMO_FACTS.company1.password,
      empresaId = 1,
    ) {
      const outcome = await container.linkService.link(
        teamId,
        { login, password, empresaId, unidadeId: null, endActiveSession: false },
        USERS.admin,
      );
      if (!outcome.ok) throw new Error(`link failed: ${JSON.stringify(outcome)}`);
    },
    async addReplica() {
      const own = captureLogger('debug');
      const connection = redis.connect();
      const bot = await startBot(shared, new RedisKeyValue(connection), own.logger, (r) =>
        createRedisBudget(connection, r.keys, { limit: config.UPSTREAM_RATE_LIMIT, logger: own.logger }),
      );
      let stopped: Promise<void> | undefined;
      const replica: Harness = {
        ...harness,
        container: bot.container,
        app: bot.app,
        target: bot.target,
        logs: own.lines,
        ...sendersTo(bot.target),
        addReplica: () => harness.addReplica(),
        close() {
          stopped ??= (async () => {
            await bot.app.stop().catch(() => undefined);
            await bot.container.close();
          })();
          return stopped;
        },
      };
      replicas.push(replica);
      return replica;
    },
    async close() {
      // Every message and view the bot sent during the file's tests must have respected Slack's limits.
      const violations = [...slack.limitViolations];
      for (const replica of replicas) await replica.close();
      await app.stop().catch(() => undefined);
      await container.close();
      await slack.close();
      await sandbox.close();
      await redis.cleanup();
      if (violations.length > 0) throw new Error(`Slack limits broken:\n${violations.join('\n')}`);
    },
  };
  return harness;
}

/** What every replica of one harness shares: the world around the bot, and the bot's configuration. */
interface SharedWorld {
  sandbox: Sandbox;
  redis: TestRedis;
  box: SecretBox;
  installations: SlackInstallationStore;
  config: ReturnType<typeof loadConfig>;
  options: HarnessOptions;
}

/** One replica of the bot: its container over `kv`, its Bolt app listening on a port of its own. */
async function startBot(
  shared: SharedWorld,
  kv: RedisKeyValue,
  logger: Logger,
  defaultBudget: (redis: TestRedis) => Budget,
): Promise<{ container: Container; app: App; target: SlackRequestTarget }> {
  const { sandbox, redis, box, installations, config, options } = shared;
  const container: Container = buildContainer({
    config,
    upstream: { baseUrl: sandbox.baseUrl, authUrl: sandbox.authUrl },
    logger,
    kv,
    keys: redis.keys,
    box,
    budget: options.budget?.(redis, logger) ?? defaultBudget(redis),
    retryPolicy: FAST_RETRY_POLICY,
    // Generous: test files run in parallel on two cores, and a slow answer must not read as an upstream timeout.
    timeoutMs: options.timeoutMs ?? 5_000,
    installations,
    ...(options.clock && { clock: options.clock }),
    ...(options.now && { now: options.now }),
    ...(options.localMode && {
      sandboxMotion: sandboxMotion(
        sandbox,
        async (workspaceId) => (await container.links.get(workspaceId))?.empresaId ?? null,
        () =>
          localFeedRounds(
            container.feed,
            container.feedSnapshots,
            container.feedListeners,
            container.links,
            container.domain.now,
          ),
      ),
    }),
  });
  const app = buildSlackApp({ config, deps: container.slackDeps, kv, installations });
  const server = (await startSlackApp(app, container.slackDeps, 0)) as { address(): AddressInfo };
  const target: SlackRequestTarget = {
    eventsUrl: `http://127.0.0.1:${server.address().port}/slack/events`,
    signingSecret: SIGNING_SECRET,
  };
  return { container, app, target };
}

interface ButtonJson {
  action_id: string;
  value?: string;
  text?: { text?: string };
}

/** A button of a message by action id prefix and/or text. */
export function findButton(
  message: FakeMessage,
  want: { text?: string; actionPrefix?: string },
): ButtonJson | undefined {
  return buttonsOf(message).find(
    (b) =>
      (want.actionPrefix === undefined || b.action_id.startsWith(want.actionPrefix)) &&
      (want.text === undefined || b.text?.text === want.text),
  );
}

export function buttonsOf(message: FakeMessage): ButtonJson[] {
  const out: ButtonJson[] = [];
  for (const block of message.blocks as {
    accessory?: ButtonJson & { type?: string };
    elements?: (ButtonJson & { type?: string })[];
  }[]) {
    if (block.accessory?.type === 'button') out.push(block.accessory);
    for (const element of block.elements ?? []) if (element.type === 'button') out.push(element);
  }
  return out;
}

/** All the text a person reads in a message (mrkdwn and plain text of every block). */
export function textOf(message: FakeMessage): string {
  const parts: string[] = [message.text];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      if (typeof record.text === 'string') parts.push(record.text);
      for (const value of Object.values(record)) if (typeof value === 'object') walk(value);
    }
  };
  walk(message.blocks);
  return parts.join('\n');
}

export async function eventually<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * An org-wide install of `enterpriseId` (Enterprise Grid), as OAuth stores it: kept under the enterprise, its bot
 * user `U0ORGBOT`, with a token the fake Slack accepts (TEAM's).
 */
export async function installOrgWide(h: Harness, enterpriseId: string): Promise<void> {
  await h.installations.storeInstallation({
    team: undefined,
    enterprise: { id: enterpriseId, name: 'Grupo Predial' },
    user: { id: USERS.admin, token: undefined, scopes: undefined },
    bot: { token: h.slack.tokenFor(TEAM), scopes: ['commands'], id: 'B0ORG', userId: 'U0ORGBOT' },
    isEnterpriseInstall: true,
    tokenType: 'bot',
    authVersion: 'v2',
  });
}
