import { describe, expect, it } from 'vitest';
import { boundedLabel, PromMetrics } from '../../src/lib/prom-metrics.js';

describe('PromMetrics', () => {
  it('keeps a registry per instance: two bots in one process do not mix', async () => {
    const a = new PromMetrics({ defaultMetrics: false });
    const b = new PromMetrics({ defaultMetrics: false });
    a.answer('command', 'request', 'ok', 0.2);
    a.answer('command', 'request', 'ok', 0.3);
    expect(await a.render()).toContain(
      'estoque_answers_total{source="command",route="request",outcome="ok"} 2',
    );
    expect(await b.render()).not.toContain('estoque_answers_total{');
  });

  it('reads the budget and the store when scraped, and forgets credentials no longer reported', async () => {
    const metrics = new PromMetrics({ defaultMetrics: false });
    let rows = [{ credential: 'abc123', used: 7, remaining: 243, paused: true }];
    let up = true;
    metrics.readFrom({ storeUp: async () => up, budgetUsage: async () => rows });
    let text = await metrics.render();
    expect(text).toContain('estoque_budget_used{credential="abc123"} 7');
    expect(text).toContain('estoque_budget_remaining{credential="abc123"} 243');
    expect(text).toContain('estoque_budget_paused{credential="abc123"} 1');
    expect(text).toContain('estoque_redis_up 1');
    rows = [];
    up = false;
    text = await metrics.render();
    expect(text).not.toContain('credential="abc123"');
    expect(text).toContain('estoque_redis_up 0');
  });

  it('reports the store down when reading it fails', async () => {
    const metrics = new PromMetrics({ defaultMetrics: false });
    metrics.readFrom({
      storeUp: () => Promise.reject(new Error('ECONNREFUSED')),
      budgetUsage: () => Promise.reject(new Error('ECONNREFUSED')),
    });
    expect(await metrics.render()).toContain('estoque_redis_up 0');
  });

  it('a store that never answers the budget read does not hold the scrape: the store down, no budget rows', async () => {
    const metrics = new PromMetrics({ defaultMetrics: false });
    metrics.readFrom({
      // What the store's bounded probe says of a Redis gone away (RedisKeyValue.ping).
      storeUp: async () => false,
      budgetUsage: () => new Promise(() => undefined),
    });
    const text = await metrics.render();
    expect(text).toContain('estoque_redis_up 0');
    expect(text).not.toContain('estoque_budget_used{');
  });

  it('turns a label value that is not a short code into "other"', () => {
    expect(boundedLabel('not_in_channel')).toBe('not_in_channel');
    expect(boundedLabel('chat.postMessage')).toBe('chat.postMessage');
    expect(boundedLabel('free text from "someone"')).toBe('other');
    expect(boundedLabel('x'.repeat(61))).toBe('other');
    const metrics = new PromMetrics({ defaultMetrics: false });
    metrics.slackApiError('chat.postMessage', 'a weird\nerror');
    metrics.upstreamCall('GET /v1/materiais?codigo=123', '200', 0.1);
    return metrics.render().then((text) => {
      expect(text).toContain('estoque_slack_api_errors_total{method="chat.postMessage",error="other"} 1');
      expect(text).toContain('estoque_upstream_calls_total{endpoint="other",status="200"} 1');
    });
  });
});
