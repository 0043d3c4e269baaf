import { webApi } from '@slack/bolt';
import type { ActionsBlock, Button, SectionBlock } from '@slack/types';
import type { FakeSlack } from '../../src/fake-slack/server.js';

export const { WebClient, ErrorCode, LogLevel } = webApi;
export type WebClientInstance = InstanceType<typeof WebClient>;

const noop = () => {};
/** WebClient logs Slack's `[ERROR]` response messages; the tests assert them instead. */
export const silentLogger = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  setLevel: noop,
  getLevel: () => LogLevel.ERROR,
  setName: noop,
};

/** A real Slack client pointed at the fake, quiet, failing fast unless a test wants retries. */
export function clientFor(
  fake: FakeSlack,
  token: string,
  options: { retries?: number } = {},
): WebClientInstance {
  return new WebClient(token, {
    slackApiUrl: fake.apiUrl,
    logger: silentLogger,
    retryConfig: { retries: options.retries ?? 0, minTimeout: 0, maxTimeout: 0 },
  });
}

/** POSTs a JSON body to a Web API method with global fetch. */
export async function postJson(fake: FakeSlack, method: string, body: object, token?: string) {
  const response = await fetch(`${fake.apiUrl}${method}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    json: (await response.json()) as Record<string, unknown>,
  };
}

/** The platform error code a WebClient call was rejected with. */
export async function slackError(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    const data = (error as { data?: { error?: string } }).data;
    if (data?.error !== undefined) return data.error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

export function button(text: string, actionId: string, value = 'v'): Button {
  return { type: 'button', text: { type: 'plain_text', text }, action_id: actionId, value };
}

export function section(text: string): SectionBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

export function actions(...elements: Button[]): ActionsBlock {
  return { type: 'actions', elements };
}
