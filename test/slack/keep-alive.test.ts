import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEEP_ALIVE_TIMEOUT_MS } from '../../src/slack/app.js';
import { type Harness, startHarness } from '../helpers/bot-harness.js';

/** The answer's headers to a request on a keep-alive connection, as a load balancer sends them. */
function headersOf(url: string): Promise<Record<string, string | string[] | undefined>> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { connection: 'keep-alive' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the HTTP server behind a load balancer', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('keeps an idle connection longer than a 60 s load balancer does (Node’s default is 5 s: 502s now and then)', async () => {
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(60_000);
    const headers = await headersOf(h.target.eventsUrl.replace('/slack/events', '/livez'));
    expect(headers.connection).toBe('keep-alive');
    expect(headers['keep-alive']).toBe(`timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}`);
  });
});
