import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_FACTS } from '../../src/sandbox/facts.js';
import { credentialIdOf } from '../../src/upstream/credential.js';
import {
  CHANNELS,
  type Harness,
  OTHER_TEAM,
  startHarness,
  TEAM,
  textOf,
  USERS,
} from '../helpers/bot-harness.js';

const C1 = DEMO_FACTS.company1;

function metricsUrl(h: Harness): string {
  return h.target.eventsUrl.replace('/slack/events', '/metrics');
}

async function scrape(h: Harness, token?: string): Promise<{ status: number; text: string; type: string }> {
  const response = await fetch(metricsUrl(h), token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return {
    status: response.status,
    text: await response.text(),
    type: response.headers.get('content-type') ?? '',
  };
}

/** The value of one sample, by metric name and exact labels (in any order); undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}

describe('GET /metrics after real commands (fake Slack, sandbox, Redis)', () => {
  let h: Harness;
  let text: string;
  let before: string;

  beforeAll(async () => {
    h = await startHarness();
    await h.link(TEAM);
    before = (await scrape(h)).text;
    const [id] = C1.requestsWithItemsBelowMinimum;
    // A request (cold cache: upstream), the same again (a cache hit), its history button, an unknown request.
    for (const args of [String(id), String(id)]) {
      const sent = await h.command('/solicitacao', args);
      await h.nextMessage(sent.sentAt, { userId: USERS.member });
    }
    const sent = await h.command('/solicitacao', String(id));
    const answer = await h.nextMessage(sent.sentAt, { userId: USERS.member });
    const since = Date.now();
    await h.click(answer, { text: 'Histórico' });
    expect(textOf(await h.nextMessage(since, { userId: USERS.member }))).toMatch(/hist/i);
    const unknown = await h.command('/solicitacao', String(C1.unknownRequestId));
    await h.nextMessage(unknown.sentAt, { userId: USERS.member });
    // An upstream 500 on the purchases list, then Slack refusing to open the link modal.
    h.sandbox.faults.next({ path: '/v1/compras-materiais', status: 500, times: 4 });
    const failed = await h.command('/compras', '');
    await h.nextMessage(failed.sentAt, { userId: USERS.member });
    h.slack.failNext('views.open', { error: 'expired_trigger_id' });
    const link = await h.command('/estoque', 'vincular', { user: USERS.admin });
    await h.nextMessage(link.sentAt, { userId: USERS.admin });
    text = (await scrape(h)).text;
  });
  afterAll(async () => {
    await h.close();
  });

  it('counts commands and buttons by route and outcome, and times acks and answers', () => {
    expect(sample(before, 'estoque_answers_total', { route: 'request' })).toBeUndefined();
    expect(
      sample(text, 'estoque_answers_total', { source: 'command', route: 'request', outcome: 'ok' }),
    ).toBe(3);
    expect(sample(text, 'estoque_answers_total', { source: 'button', route: 'history', outcome: 'ok' })).toBe(
      1,
    );
    expect(
      sample(text, 'estoque_answers_total', { source: 'command', route: 'request', outcome: 'not_found' }),
    ).toBe(1);
    expect(
      sample(text, 'estoque_answers_total', { route: 'purchases', outcome: 'upstream_server_error' }),
    ).toBe(1);
    expect(sample(text, 'estoque_slack_ack_seconds_count', { kind: 'command' })).toBe(6);
    expect(sample(text, 'estoque_slack_ack_seconds_count', { kind: 'block_actions' })).toBe(1);
    expect(sample(text, 'estoque_slack_ack_seconds_bucket', { kind: 'command', le: '+Inf' })).toBe(6);
    expect(sample(text, 'estoque_answer_seconds_count', { source: 'command', route: 'request' })).toBe(4);
    expect(
      sample(text, 'estoque_answer_seconds_bucket', { source: 'button', route: 'history', le: '+Inf' }),
    ).toBe(1);
  });

  it('counts upstream calls by endpoint template and status, token calls included', () => {
    const items = 'GET /v1/solicitacoes-materiais/{id}/itens';
    expect(
      sample(text, 'estoque_upstream_calls_total', { endpoint: items, status: '200' }),
    ).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'estoque_upstream_calls_total', { endpoint: 'POST /v1/auth/', status: '200' })).toBe(
      1,
    );
    // The first attempt and the three retries of the staged 500s.
    expect(
      sample(text, 'estoque_upstream_calls_total', { endpoint: 'GET /v1/compras-materiais', status: '500' }),
    ).toBe(4);
    expect(sample(text, 'estoque_upstream_call_seconds_count', { endpoint: items })).toBeGreaterThanOrEqual(
      1,
    );
    // Every call the sandbox saw was counted once.
    const counted = [...text.matchAll(/^estoque_upstream_calls_total\{.*\} (\d+)$/gm)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
    expect(counted).toBe(h.sandbox.calls.length);
  });

  it('reports the budget of the credential by its short hash, its waits, and Redis up', () => {
    const credential = credentialIdOf(h.sandbox.authUrl, C1.login);
    const used = sample(text, 'estoque_budget_used', { credential });
    const remaining = sample(text, 'estoque_budget_remaining', { credential });
    expect(used).toBe(h.sandbox.calls.length);
    expect((used ?? 0) + (remaining ?? 0)).toBe(250);
    expect(sample(text, 'estoque_budget_paused', { credential })).toBe(0);
    expect(
      sample(text, 'estoque_budget_wait_seconds_count', { priority: 'interactive', outcome: 'granted' }),
    ).toBe(h.sandbox.calls.length);
    expect(sample(text, 'estoque_redis_up')).toBe(1);
  });

  it('counts cache hits and misses by kind of data', () => {
    expect(sample(text, 'estoque_cache_reads_total', { kind: 'requestItems', outcome: 'miss' })).toBe(1);
    expect(sample(text, 'estoque_cache_reads_total', { kind: 'requestItems', outcome: 'hit' })).toBe(2);
  });

  it('counts Slack API errors by method and error', () => {
    expect(
      sample(text, 'estoque_slack_api_errors_total', { method: 'views.open', error: 'expired_trigger_id' }),
    ).toBe(1);
  });

  it("has Node's default metrics", () => {
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  });

  it('shows no login, token, user, channel, workspace or record id', () => {
    expect(text).not.toMatch(/\bdemo\b/);
    expect(text).not.toContain(C1.password === 'demo' ? 'password' : C1.password);
    expect(text).not.toMatch(/eyJ|Bearer|xox[bp]-/);
    for (const id of [TEAM, OTHER_TEAM, ...Object.values(USERS), ...Object.values(CHANNELS)]) {
      expect(text).not.toContain(id);
    }
    // Record ids appear in no label (numbers such as 0.999 may appear as values).
    const labelValues = [...text.matchAll(/\w+="((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
    expect(labelValues.length).toBeGreaterThan(50);
    for (const value of labelValues) {
      expect(value).not.toMatch(/\b(1312|999)\b/);
      expect(value).not.toContain(String(C1.requestsWithItemsBelowMinimum[0]));
    }
  });

  it('every metric the Grafana dashboard queries is in the output', () => {
    const dashboard = JSON.parse(readFileSync('deploy/grafana-dashboard.json', 'utf8')) as {
      panels: { targets?: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    expect(exprs.length).toBeGreaterThan(10);
    const families = new Set([...text.matchAll(/^# TYPE (\S+) (\w+)$/gm)].map((m) => m[1]));
    const queried = new Set(
      exprs.flatMap((e) => [...e.matchAll(/\b((?:estoque|process|nodejs)_\w+)/g)].map((m) => m[1])),
    );
    expect(queried.size).toBeGreaterThan(10);
    for (const name of queried) {
      const family = name?.replace(/_(bucket|count|sum)$/, '') ?? '';
      expect(families.has(name) || families.has(family), name).toBe(true);
    }
  });
});

describe('METRICS_TOKEN', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { METRICS_TOKEN: 's3cret-metrics-token' } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers 401 without the bearer token or with a wrong one, 200 with it', async () => {
    expect((await scrape(h)).status).toBe(401);
    expect((await scrape(h, 'wrong')).status).toBe(401);
    expect((await scrape(h, 's3cret-metrics-token-and-more')).status).toBe(401);
    const ok = await scrape(h, 's3cret-metrics-token');
    expect(ok.status).toBe(200);
    expect(ok.type).toContain('text/plain');
    expect(ok.text).toContain('# TYPE estoque_answers_total counter');
    expect(ok.text).not.toContain('s3cret');
  });

  it('keeps a registry per bot: the other bot in this process shows none of these answers', async () => {
    await h.link(TEAM);
    const sent = await h.command('/solicitacao', String(C1.requestsWithItemsBelowMinimum[0]));
    await h.nextMessage(sent.sentAt, { userId: USERS.member });
    const text = (await scrape(h, 's3cret-metrics-token')).text;
    expect(
      sample(text, 'estoque_answers_total', { source: 'command', route: 'request', outcome: 'ok' }),
    ).toBe(1);
  });
});
