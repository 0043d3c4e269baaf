import { Worker } from 'node:worker_threads';
import { encodeRoute } from '../src/domain/routes.js';
import { buildBlockActionPayload, buildSlashCommandBody, type FakeMessage } from '../src/fake-slack/index.js';
import { ActionIds } from '../src/render/ids.js';
import { isFirstMessage } from '../src/render/progress.js';
import { type AnswerKind, classifyAnswer, UpstreamLog } from './classify.js';
import { preciseNow } from './measure.js';
import type { PlannedSend, SenderReply, SenderRequest } from './sender-worker.js';
import { BENCH_TEAM, BENCH_TZ, SIGNING_SECRET, type Stage } from './stage.js';
import { makeHelpMix, makeMix, poissonArrivals, seededRandom, type WorkItem } from './workload.js';

/** One command or click the bench sent, and what came of it. */
export interface CommandRecord {
  id: number;
  step: string;
  /** False during a step's warm-up: sent, answered, but left out of the figures. */
  measured: boolean;
  /** Whether its answer on the response_url is waited for (not for the help warm-up: its command answers in the ack). */
  followed: boolean;
  item: WorkItem;
  target: number;
  plannedAt: number;
  sentAt: number | null;
  ackMs: number | null;
  ackStatus: number | null;
  /** Whether the ack itself carried a message (an ephemeral answer in the HTTP body): the user saw it then. */
  ackMessage: boolean;
  answeredAt: number | null;
  /**
   * When a first message ("consultando…", saved data "atualizando…", the place in the queue) came before the
   * answer replaced it; null when the answer was the first message. answeredAt is the answer's.
   */
  firstMessageAt: number | null;
  kind: AnswerKind | null;
  /** The minute the message says its data is from (cached or saved data); null for fresh data. */
  shownMinute: number | null;
  /** Age of the data shown when the answer arrived, ms (fetch time from the sandbox log, see classify.ts). */
  ageMs: number | null;
  ageExact: boolean;
}

export interface StepPlan {
  name: string;
  /** Commands per second. */
  perSecond: number;
  warmupMs: number;
  measureMs: number;
  seed: number;
  /** What is sent: the workload's mix (default), or help answers only (no upstream call; JIT warm-up). */
  mix?: 'workload' | 'help';
}

export interface StepWindow {
  name: string;
  perSecond: number;
  /** preciseNow() bounds of the measured part (after the warm-up). */
  from: number;
  to: number;
}

export const FORM = 'application/x-www-form-urlencoded';
/** Requests are built and handed to the sender in batches of this span, this long before the first leaves. */
const BATCH_MS = 5_000;
const LEAD_MS = 1_000;

/**
 * Sends the workload to the bot processes of one configuration and follows every answer: each command gets a
 * channel of its own, so the message the fake Slack receives on its response_url belongs to exactly one command.
 * Requests leave from a worker thread (bench/sender-worker.ts) at the planned instants, round-robin over the
 * targets; answers are seen by the fake Slack's `message` listener on this thread.
 */
export class LoadDriver {
  readonly records: CommandRecord[] = [];
  private readonly byChannel = new Map<string, CommandRecord>();
  private readonly worker: Worker;
  private readonly upstream: UpstreamLog;
  private readonly unsubscribe: () => void;
  private readonly settled = new Set<number>();
  private sequence = 0;
  private pending = 0;
  private idle: (() => void) | null = null;

  constructor(
    private readonly stage: Stage,
    private readonly targets: readonly string[],
    private readonly users: readonly string[],
  ) {
    this.upstream = new UpstreamLog(stage.sandbox.calls);
    this.worker = startSenderWorker();
    this.worker.on('message', (reply: SenderReply) => this.onAck(reply));
    this.unsubscribe = stage.slack.on('message', (message) => this.onMessage(message));
  }

  /**
   * Sends one step (warm-up then measured part) and returns when its last request is sent. The whole sequence
   * is drawn up front (the same for every configuration), but each request is built, with its response_url and
   * trigger_id, a few seconds before it leaves: Slack's response_url lives 30 minutes, so a long soak planned
   * at once would answer into expired URLs.
   */
  async runStep(plan: StepPlan): Promise<StepWindow> {
    const rng = seededRandom(plan.seed);
    const next = plan.mix === 'help' ? makeHelpMix() : makeMix(rng);
    const total = plan.warmupMs + plan.measureMs;
    const offsets = poissonArrivals(plan.perSecond, total, rng);
    const start = preciseNow() + 200;
    const drawn = offsets.map((offset) => ({
      offset,
      item: next(),
      user: this.users[Math.floor(rng() * this.users.length)] ?? 'U0BENCH001',
    }));
    for (let from = 0; from < drawn.length; ) {
      const batchStart = drawn[from]?.offset ?? 0;
      let to = from;
      while (to < drawn.length && (drawn[to]?.offset ?? 0) < batchStart + BATCH_MS) to += 1;
      const batch = drawn.slice(from, to);
      await sleep(start + batchStart - LEAD_MS - preciseNow());
      const sends = batch.map((d) =>
        this.plan(
          plan.name,
          d.item,
          d.user,
          start + d.offset,
          d.offset >= plan.warmupMs,
          plan.mix !== 'help',
        ),
      );
      this.worker.postMessage({ type: 'plan', signingSecret: SIGNING_SECRET, sends } satisfies SenderRequest);
      from = to;
    }
    await sleep(start + total - preciseNow());
    return {
      name: plan.name,
      perSecond: plan.perSecond,
      from: start + plan.warmupMs,
      to: start + total,
    };
  }

  /** Waits for outstanding answers, at most timeoutMs. */
  async drain(timeoutMs: number): Promise<number> {
    if (this.pending > 0) {
      await Promise.race([new Promise<void>((resolve) => (this.idle = resolve)), sleep(timeoutMs)]);
      this.idle = null;
    }
    return this.pending;
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.worker.terminate();
  }

  private plan(
    step: string,
    item: WorkItem,
    userId: string,
    at: number,
    measured: boolean,
    followed: boolean,
  ): PlannedSend {
    this.sequence += 1;
    const id = this.sequence;
    const channelId = `CB${id.toString(36).toUpperCase().padStart(8, '0')}`;
    const target = (id - 1) % this.targets.length;
    const record: CommandRecord = {
      id,
      step,
      measured,
      followed,
      item,
      target,
      plannedAt: at,
      sentAt: null,
      ackMs: null,
      ackStatus: null,
      ackMessage: false,
      answeredAt: null,
      firstMessageAt: null,
      kind: null,
      shownMinute: null,
      ageMs: null,
      ageExact: false,
    };
    this.records.push(record);
    this.byChannel.set(channelId, record);
    this.pending += 1;
    const body = signedBody(this.stage, item, { teamId: BENCH_TEAM, channelId, userId });
    return { id, at, eventsUrl: this.targets[target] as string, body, contentType: FORM };
  }

  private onAck(reply: SenderReply): void {
    const record = this.records[reply.id - 1];
    if (!record) return;
    record.sentAt = reply.sentAt;
    record.ackMs = reply.ackMs;
    record.ackStatus = reply.status;
    record.ackMessage = reply.ackMessage;
    if (reply.status !== 200 || !record.followed) this.settle(record);
    else if (record.answeredAt !== null) this.age(record);
  }

  private onMessage(message: FakeMessage): void {
    const record = this.byChannel.get(message.channel);
    if (!record || record.answeredAt !== null) return;
    if (isFirstMessage(message)) {
      record.firstMessageAt ??= preciseNow();
      return;
    }
    record.answeredAt = preciseNow();
    const classified = classifyAnswer(message, BENCH_TZ);
    record.kind = classified.kind;
    this.byChannel.delete(message.channel);
    record.shownMinute = classified.shownMinute;
    // The ack may come back after the answer (both race); the age needs the send time.
    this.age(record);
    this.settle(record);
  }

  private age(record: CommandRecord): void {
    if (record.ageMs !== null || record.answeredAt === null || record.sentAt === null) return;
    if (record.kind !== 'fresh' && record.kind !== 'cached' && record.kind !== 'stale') return;
    const fetched = this.upstream.fetchTime(
      { kind: record.kind, shownMinute: record.shownMinute },
      { sentAt: record.sentAt, answeredAt: record.answeredAt },
      record.item.upstream,
    );
    record.ageMs = Math.max(0, record.answeredAt - fetched.at);
    record.ageExact = fetched.exact;
  }

  private settle(record: CommandRecord): void {
    if (this.settled.has(record.id)) return;
    this.settled.add(record.id);
    this.pending -= 1;
    if (this.pending === 0) this.idle?.();
  }
}

/**
 * The form body Slack would send for one work item: a slash command, or a click on a button carrying the item's
 * route, with a response_url and a trigger_id the fake Slack knows.
 */
export function signedBody(
  stage: Stage,
  item: WorkItem,
  context: { teamId: string; channelId: string; userId: string },
): string {
  const { slack } = stage;
  const { teamId, channelId, userId } = context;
  const responseUrl = slack.newResponseUrl(context);
  const triggerId = slack.newTriggerId({ userId, teamId });
  const { action } = item;
  return action.kind === 'command'
    ? new URLSearchParams(
        buildSlashCommandBody({
          command: action.command,
          text: action.text,
          teamId,
          userId,
          channelId,
          responseUrl,
          triggerId,
        }),
      ).toString()
    : new URLSearchParams({
        payload: JSON.stringify(
          buildBlockActionPayload({
            teamId,
            userId,
            channelId,
            responseUrl,
            triggerId,
            actionId: `${ActionIds.navigatePrefix}0`,
            value: encodeRoute(action.route),
            isEphemeral: true,
          }),
        ),
      }).toString();
}

export function startSenderWorker(): Worker {
  // tsx's loader is registered inside the worker: a worker does not inherit it on Node 20.
  const entry = new URL('./sender-worker.ts', import.meta.url).href;
  const code = `import('tsx/esm/api').then((api) => { api.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(code, { eval: true });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
