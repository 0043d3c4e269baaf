import { describe, expect, it } from 'vitest';
import {
  isSlackResponseUrl,
  RESPONSE_URL_RETRY,
  ResponseUrlOutcomeUnknownError,
  retryAfterMs,
  retryingFetch,
} from '../../src/slack/response-url.js';

/** The response_url retries, with a recorded sleep: the waits asked for are data, not time spent. */

const WEB_API = 'https://slack.test/api/';
const HOOK = 'https://hooks.slack.test/actions/T1/1/abc';

function scripted(answers: (Response | Error)[]) {
  const calls: string[] = [];
  const fetch = (async (input: string | URL | Request) => {
    calls.push(String(input));
    const next = answers.shift();
    if (next === undefined) throw new Error('no more answers scripted');
    if (next instanceof Error) throw next;
    return next;
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

const status = (code: number, headers: Record<string, string> = {}) =>
  new Response(code === 200 ? 'ok' : 'fail', { status: code, headers });

function subject(answers: (Response | Error)[]) {
  const { fetch, calls } = scripted(answers);
  const waits: number[] = [];
  const post = retryingFetch({
    webApiUrl: WEB_API,
    fetch,
    sleep: async (ms) => {
      waits.push(ms);
    },
    random: () => 1,
  });
  return { post, calls, waits };
}

const body = { method: 'POST', body: '{"text":"oi"}' };

describe('retryingFetch', () => {
  it('honours a 429 Retry-After, then delivers', async () => {
    const { post, calls, waits } = subject([status(429, { 'retry-after': '2' }), status(200)]);
    expect((await post(HOOK, body)).status).toBe(200);
    expect(calls).toHaveLength(2);
    expect(waits).toEqual([2_000]);
  });

  it('does not wait for a Retry-After past the bound: the 429 is the answer', async () => {
    const { post, calls, waits } = subject([status(429, { 'retry-after': '60' }), status(200)]);
    expect((await post(HOOK, body)).status).toBe(429);
    expect(calls).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('backs off on 5xx and network failures, at most the policy attempts', async () => {
    const { post, calls, waits } = subject([
      status(500),
      new TypeError('fetch failed'),
      status(503),
      status(200),
    ]);
    expect((await post(HOOK, body)).status).toBe(503);
    expect(calls).toHaveLength(RESPONSE_URL_RETRY.attempts);
    expect(waits).toEqual([300, 600]);
  });

  it('throws the network failure of the last attempt', async () => {
    const failure = new TypeError('fetch failed');
    const { post, calls } = subject([failure, failure, failure]);
    await expect(post(HOOK, body)).rejects.toBe(failure);
    expect(calls).toHaveLength(3);
  });

  describe('a new message for the whole channel (a shared answer)', () => {
    const shared = {
      method: 'POST',
      body: '{"response_type":"in_channel","replace_original":false,"text":"oi"}',
    };
    const cut = () =>
      new TypeError('fetch failed', {
        cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
      });

    it('is not sent again after a failure that may have come after Slack had it', async () => {
      for (const failure of [
        cut(),
        new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
      ]) {
        const { post, calls } = subject([failure, status(200)]);
        await expect(post(HOOK, shared)).rejects.toBeInstanceOf(ResponseUrlOutcomeUnknownError);
        expect(calls).toHaveLength(1);
      }
    });

    it('is sent again when no connection was made, and after a 429', async () => {
      const refused = new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      });
      const { post, calls } = subject([refused, status(429, { 'retry-after': '1' }), status(200)]);
      expect((await post(HOOK, shared)).status).toBe(200);
      expect(calls).toHaveLength(3);
    });

    it('is not sent again after a 5xx, which may come after the post was shown', async () => {
      for (const code of [500, 502, 503, 504]) {
        const { post, calls } = subject([status(code), status(200)]);
        await expect(post(HOOK, shared)).rejects.toBeInstanceOf(ResponseUrlOutcomeUnknownError);
        expect(calls).toHaveLength(1);
      }
    });

    it('an ephemeral answer or one that replaces the original is sent again after a cut', async () => {
      for (const again of [
        body,
        { method: 'POST', body: '{"response_type":"in_channel","replace_original":true}' },
      ]) {
        const { post, calls } = subject([cut(), status(200)]);
        expect((await post(HOOK, again)).status).toBe(200);
        expect(calls).toHaveLength(2);
      }
    });
  });

  it('does not retry what will not change: 404 expired_url, 400', async () => {
    for (const code of [404, 400]) {
      const { post, calls } = subject([status(code), status(200)]);
      expect((await post(HOOK, body)).status).toBe(code);
      expect(calls).toHaveLength(1);
    }
  });

  it('leaves Web API calls to the Web client', async () => {
    const { post, calls } = subject([status(500), status(200)]);
    expect((await post(`${WEB_API}chat.postMessage`, body)).status).toBe(500);
    expect(calls).toHaveLength(1);
  });

  it('reads Retry-After in seconds or as a date', () => {
    expect(retryAfterMs('3')).toBe(3_000);
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs('Mon, 23 Nov 2026 17:00:10 GMT', Date.parse('Mon, 23 Nov 2026 17:00:00 GMT'))).toBe(
      10_000,
    );
  });
});

describe('isSlackResponseUrl', () => {
  it("takes Slack's hooks hosts and SLACK_API_URL's host, nothing else", () => {
    const api = 'https://slack.com/api/';
    expect(isSlackResponseUrl('https://hooks.slack.com/commands/T1/2/abc', api)).toBe(true);
    expect(isSlackResponseUrl('https://hooks.slack-gov.com/actions/T1/2/abc', api)).toBe(true);
    expect(isSlackResponseUrl('http://127.0.0.1:4321/response/T1-2-abc', 'http://127.0.0.1:4321/api/')).toBe(
      true,
    );
    expect(isSlackResponseUrl('https://hooks.slack.com.evil.example/x', api)).toBe(false);
    expect(isSlackResponseUrl('https://evil.example/hooks.slack.com', api)).toBe(false);
    expect(isSlackResponseUrl('file:///etc/passwd', api)).toBe(false);
    expect(isSlackResponseUrl('not a url', api)).toBe(false);
  });
});
