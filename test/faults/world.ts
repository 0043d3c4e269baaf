import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  buildViewSubmissionPayload,
  FAKE_SEED,
  type FakeMessage,
  type FakeSlack,
  type SlackRequestResult,
  slashCommand,
  startFakeSlack,
  viewSubmission,
} from '../../src/fake-slack/index.js';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/server.js';
import { textOf } from '../helpers/bot-harness.js';
import { type BotProcess, spawnBot } from './bot-process.js';
import { type PrivateRedis, startPrivateRedis } from './private-redis.js';

export const SIGNING_SECRET = 'faults-signing-secret';
export const TEAM = FAKE_SEED.teamId;
export const CHANNEL = FAKE_SEED.channels.stockroom;
export const ADMIN = FAKE_SEED.users.admin;

const ROOT = join(import.meta.dirname, '..', '..');

export interface WorldOptions {
  sandbox?: SandboxOptions;
  /** Environment of every replica, over the defaults below. */
  env?: Record<string, string>;
}

export interface Sent {
  user: string;
  sentAt: number;
  result: SlackRequestResult;
}

/**
 * What the fault matrix runs against: the built bot as separate processes (`node dist/main.js`), a redis-server of
 * its own, the sandbox upstream and the fake Slack in this process (so the test can stage faults on both).
 */
export interface World {
  sandbox: Sandbox;
  slack: FakeSlack;
  redis: PrivateRedis;
  replicas: BotProcess[];
  env: Record<string, string>;
  startReplica(name: string, env?: Record<string, string>): Promise<BotProcess>;
  /** A new member of the workspace and the channel, so each case reads only its own answers. */
  newUser(): string;
  command(bot: BotProcess, command: string, text: string, user?: string): Promise<Sent>;
  /** Links the workspace to the demo login through the link modal's submission, as an admin does; resolves once the admin saw the confirmation. */
  link(bot: BotProcess): Promise<void>;
  /** Messages this user sees now (ephemeral to them, in the channel, or in their DM) posted since `since`. */
  seenBy(user: string, since: number): FakeMessage[];
  /** Waits until `probe` finds something in what the user sees (default 40 s), else throws with what was seen. */
  waitSeen(
    user: string,
    since: number,
    probe: (m: FakeMessage) => boolean,
    timeoutMs?: number,
  ): Promise<FakeMessage>;
  close(): Promise<void>;
}

let userSequence = 0;

export async function startWorld(mainJs: string, options: WorldOptions = {}): Promise<World> {
  const sandbox = await startSandbox({ port: 0, ...options.sandbox });
  const slack = await startFakeSlack({ port: 0, enforceChannelRate: false });
  const redis = await startPrivateRedis();
  const logDir = join(ROOT, 'test-results', 'faults-logs');
  await mkdir(logDir, { recursive: true });
  const env: Record<string, string> = {
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_BOT_TOKEN: slack.tokenFor(TEAM),
    SLACK_API_URL: slack.apiUrl,
    REDIS_URL: redis.url,
    UPSTREAM_BASE_URL: sandbox.baseUrl,
    UPSTREAM_AUTH_URL: sandbox.authUrl,
    CREDENTIALS_KEY: randomBytes(32).toString('base64'),
    ...options.env,
  };
  const replicas: BotProcess[] = [];
  const runId = randomBytes(3).toString('hex');
  // Answers given in the ack's own body (help, usage): Slack shows them like any ephemeral answer.
  const ackAnswers: FakeMessage[] = [];

  const world: World = {
    sandbox,
    slack,
    redis,
    replicas,
    env,
    async startReplica(name, extra = {}) {
      const bot = await spawnBot(mainJs, `${runId}-${name}`, { ...env, ...extra }, logDir);
      replicas.push(bot);
      return bot;
    },
    newUser() {
      userSequence += 1;
      const id = `UF${String(userSequence).padStart(5, '0')}${runId.toUpperCase()}`;
      slack.addUser({
        id,
        teamId: TEAM,
        name: `faults.${userSequence}`,
        realName: `Pessoa ${userSequence}`,
        email: `faults.${userSequence}@exemplo.com.br`,
      });
      slack.channels.get(CHANNEL)?.members.add(id);
      return id;
    },
    async command(bot, command, text, user = world.newUser()) {
      const sentAt = Date.now();
      const result = await slashCommand(
        { eventsUrl: bot.eventsUrl, signingSecret: SIGNING_SECRET },
        {
          command,
          text,
          teamId: TEAM,
          userId: user,
          channelId: CHANNEL,
          responseUrl: slack.newResponseUrl({ teamId: TEAM, channelId: CHANNEL, userId: user }),
          triggerId: slack.newTriggerId({ userId: user, teamId: TEAM }),
        },
      );
      const shown = ackMessage(result.body);
      if (shown) {
        ackAnswers.push({
          ts: `ack-${ackAnswers.length}`,
          channel: CHANNEL,
          teamId: TEAM,
          ...shown,
          ephemeral: true,
          visibleTo: user,
          via: 'ack' as never,
          at: Date.now(),
        });
      }
      return { user, sentAt, result };
    },
    async link(bot) {
      const submittedAt = Date.now();
      const payload = buildViewSubmissionPayload({
        teamId: TEAM,
        userId: ADMIN,
        callbackId: 'link-credentials',
        viewId: `V${randomBytes(4).toString('hex').toUpperCase()}`,
        privateMetadata: JSON.stringify({
          channelId: CHANNEL,
          responseUrl: slack.newResponseUrl({ teamId: TEAM, channelId: CHANNEL, userId: ADMIN }),
        }),
        values: {
          link_login: { login: { type: 'plain_text_input', value: DEMO_FACTS.company1.login } },
          link_password: { password: { type: 'plain_text_input', value: DEMO_FACTS.company1.password } },
          link_company: { company: { type: 'number_input', value: '1' } },
          link_unit: { unit: { type: 'number_input', value: null } },
          link_end_session: { end_session: { type: 'checkboxes', selected_options: [] } },
        } as never,
      });
      const answer = await viewSubmission(
        { eventsUrl: bot.eventsUrl, signingSecret: SIGNING_SECRET },
        payload,
      );
      if (answer.status !== 200 || /"errors"/.test(answer.body)) {
        throw new Error(`link refused: ${answer.status} ${answer.body}`);
      }
      // The confirmation is posted after the form closes; a case that follows must not take it for its own answer
      // (delayed by that case's injected faults, it once landed in the views.open case's window).
      await world.waitSeen(ADMIN, submittedAt, (m) => /Estoque vinculado/.test(textOf(m)));
    },
    seenBy(user, since) {
      const dm = [...slack.channels.values()].find((c) => c.imUser === user)?.id;
      return [...ackAnswers, ...slack.messages].filter(
        (m) =>
          m.at >= since &&
          !m.replaced &&
          !m.deleted &&
          (m.ephemeral ? m.visibleTo === user : m.channel === CHANNEL || m.channel === dm),
      );
    },
    async waitSeen(user, since, probe, timeoutMs = 40_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = world.seenBy(user, since).find(probe);
        if (found) return found;
        if (Date.now() > deadline) {
          const seen = world
            .seenBy(user, since)
            .map((m) => `[${m.via}] ${textOf(m).slice(0, 200)}`)
            .join('\n');
          throw new Error(
            `user ${user} did not see the expected message in ${timeoutMs} ms; saw:\n${seen || '(nothing)'}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async close() {
      await Promise.all(replicas.map((bot) => bot.kill()));
      await slack.close();
      await sandbox.close();
      await redis.close();
    },
  };
  return world;
}

function ackMessage(body: string): { text: string; blocks: unknown[] } | undefined {
  try {
    const parsed = JSON.parse(body) as { text?: unknown; blocks?: unknown };
    if (typeof parsed.text !== 'string' && !Array.isArray(parsed.blocks)) return undefined;
    return {
      text: typeof parsed.text === 'string' ? parsed.text : '',
      blocks: Array.isArray(parsed.blocks) ? parsed.blocks : [],
    };
  } catch {
    return undefined;
  }
}

/** The first line a person reads in a message, for the report. */
export function gist(message: FakeMessage | undefined): string {
  if (!message) return '(nothing)';
  return textOf(message).replace(/\s+/g, ' ').trim().slice(0, 140);
}
