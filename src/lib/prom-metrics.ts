import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { orAfter } from './deadline.js';
import type {
  AnswerSource,
  BudgetWaitOutcome,
  CacheOutcome,
  Metrics,
  MetricsExposition,
  MetricsSources,
  SlackRequestKind,
} from './metrics.js';

/** How long a scrape waits for the budget's usage from the store (the store's own probe waits 1 s). */
const USAGE_READ_MS = 2_000;

/** Slack wants an ack within 3 s: the buckets are dense below it. */
const ACK_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5];
/** Answers wait for upstream (10 s timeout, retries) and for a budget slot (10 s). */
const ANSWER_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 20, 30];
const UPSTREAM_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10];
/** Interactive waits last up to 10 s, digest waits up to 10 min. */
const WAIT_BUCKETS = [0.001, 0.01, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 600];

/** A label value from outside (a Slack error code, a method name) kept only when it looks like one. */
export function boundedLabel(value: string, pattern = /^[A-Za-z0-9_.]{1,60}$/): string {
  return pattern.test(value) ? value : 'other';
}

/**
 * The Prometheus side of Metrics: one registry per bot (never prom-client's global one), so that tests and
 * several bots in one process keep their numbers apart. Node's default metrics are collected into the same
 * registry. Budget and store gauges are read from `sources` when scraped.
 */
export class PromMetrics implements Metrics, MetricsExposition {
  readonly registry = new Registry();
  private sources: MetricsSources | null = null;

  private readonly acks = new Histogram({
    name: 'estoque_slack_ack_seconds',
    help: 'Time from Bolt handing a Slack request to the app until its ack, by kind of request.',
    labelNames: ['kind'],
    buckets: ACK_BUCKETS,
    registers: [this.registry],
  });
  private readonly answers = new Counter({
    name: 'estoque_answers_total',
    help: 'Answers sent for commands and buttons, by route and outcome (ok or the error code shown).',
    labelNames: ['source', 'route', 'outcome'],
    registers: [this.registry],
  });
  private readonly answerSeconds = new Histogram({
    name: 'estoque_answer_seconds',
    help: 'Time from starting an answer until it was sent through response_url.',
    labelNames: ['source', 'route'],
    buckets: ANSWER_BUCKETS,
    registers: [this.registry],
  });
  private readonly upstreamCalls = new Counter({
    name: 'estoque_upstream_calls_total',
    help: 'HTTP attempts upstream, by endpoint template and status (or timeout/network/error).',
    labelNames: ['endpoint', 'status'],
    registers: [this.registry],
  });
  private readonly upstreamSeconds = new Histogram({
    name: 'estoque_upstream_call_seconds',
    help: 'Duration of one HTTP attempt upstream, by endpoint template.',
    labelNames: ['endpoint'],
    buckets: UPSTREAM_BUCKETS,
    registers: [this.registry],
  });
  private readonly budgetWaits = new Histogram({
    name: 'estoque_budget_wait_seconds',
    help: 'Waits for a slot of the upstream budget, by priority and how they ended.',
    labelNames: ['priority', 'outcome'],
    buckets: WAIT_BUCKETS,
    registers: [this.registry],
  });
  private readonly budgetPauses = new Counter({
    name: 'estoque_budget_pauses_total',
    help: 'Pauses of a credential after an upstream 429, by credential (short hash).',
    labelNames: ['credential'],
    registers: [this.registry],
  });
  private readonly cacheReads = new Counter({
    name: 'estoque_cache_reads_total',
    help: 'Reads through the answer cache, by kind of data and outcome (hit, miss, stale, error).',
    labelNames: ['kind', 'outcome'],
    registers: [this.registry],
  });
  private readonly digestPosts = new Counter({
    name: 'estoque_digest_posts_total',
    help:
      'Digest posts, by outcome (posted, fallback: refused by Slack for its content and a plain notice posted instead, ' +
      'refused: that notice refused too, retry, channel_gone, unauthorized, stopped, error).',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  private readonly digestBuildFailures = new Counter({
    name: 'estoque_digest_build_failures_total',
    help: 'Digests that could not be built (upstream failed or budget spent); retried later.',
    registers: [this.registry],
  });
  private readonly slackErrors = new Counter({
    name: 'estoque_slack_api_errors_total',
    help: 'Slack Web API calls and response_url posts that failed, by method and error.',
    labelNames: ['method', 'error'],
    registers: [this.registry],
  });

  constructor(options: { defaultMetrics?: boolean } = {}) {
    const self = this;
    new Gauge({
      name: 'estoque_redis_up',
      help: '1 while the store answers PING (Redis; the embedded store in local mode), else 0.',
      registers: [this.registry],
      async collect() {
        const up = self.sources ? await self.sources.storeUp().catch(() => false) : false;
        this.set(up ? 1 : 0);
      },
    });
    // One read of every credential per scrape, shared by the three gauges: the registry collects them at once.
    let pending: Promise<void> | null = null;
    const refreshUsage = (): Promise<void> => {
      pending ??= (async () => {
        // A store that does not answer must not hold the scrape past its timeout: no rows then.
        const rows = self.sources
          ? await orAfter(
              self.sources.budgetUsage().catch(() => []),
              USAGE_READ_MS,
              () => [],
            )
          : [];
        for (const gauge of [used, remaining, paused]) gauge.reset();
        for (const row of rows) {
          const labels = { credential: boundedLabel(row.credential) };
          used.set(labels, row.used);
          remaining.set(labels, row.remaining);
          paused.set(labels, row.paused ? 1 : 0);
        }
      })().finally(() => {
        pending = null;
      });
      return pending;
    };
    const used = new Gauge({
      name: 'estoque_budget_used',
      help: 'Upstream calls counted in the current window, per credential (short hash).',
      labelNames: ['credential'],
      registers: [this.registry],
      collect: refreshUsage,
    });
    const remaining = new Gauge({
      name: 'estoque_budget_remaining',
      help: 'Upstream calls left in the current window, per credential (short hash).',
      labelNames: ['credential'],
      registers: [this.registry],
      collect: refreshUsage,
    });
    const paused = new Gauge({
      name: 'estoque_budget_paused',
      help: '1 while the credential is paused after an upstream 429, else 0.',
      labelNames: ['credential'],
      registers: [this.registry],
      collect: refreshUsage,
    });
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Where the scrape reads the store's health and the budgets; set once the container has built them. */
  readFrom(sources: MetricsSources): void {
    this.sources = sources;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  slackAck(kind: SlackRequestKind, seconds: number): void {
    this.acks.observe({ kind }, seconds);
  }

  answer(source: AnswerSource, route: string, outcome: string, seconds: number): void {
    this.answers.inc({ source, route: boundedLabel(route), outcome: boundedLabel(outcome) });
    this.answerSeconds.observe({ source, route: boundedLabel(route) }, seconds);
  }

  upstreamCall(endpoint: string, status: string, seconds: number): void {
    const template = boundedLabel(endpoint, /^[A-Z]{3,7} [A-Za-z0-9/_{}.-]{1,120}$/);
    this.upstreamCalls.inc({ endpoint: template, status: boundedLabel(status) });
    this.upstreamSeconds.observe({ endpoint: template }, seconds);
  }

  budgetWait(priority: string, outcome: BudgetWaitOutcome, seconds: number): void {
    this.budgetWaits.observe({ priority: boundedLabel(priority), outcome }, seconds);
  }

  budgetPause(credential: string): void {
    this.budgetPauses.inc({ credential: boundedLabel(credential) });
  }

  cacheRead(kind: string, outcome: CacheOutcome): void {
    this.cacheReads.inc({ kind: boundedLabel(kind), outcome });
  }

  digestPost(outcome: string): void {
    this.digestPosts.inc({ outcome: boundedLabel(outcome) });
  }

  digestBuildFailed(): void {
    this.digestBuildFailures.inc();
  }

  slackApiError(method: string, error: string): void {
    this.slackErrors.inc({ method: boundedLabel(method), error: boundedLabel(error) });
  }
}
