import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signBody } from '../../src/fake-slack/index.js';

/** One request the stub received at /slack/events, already verified as Slack-signed. */
export type StubRequest =
  | { kind: 'command'; fields: Record<string, string> }
  | { kind: 'interaction'; payload: Record<string, unknown> & { type: string } };

export type StubAnswer = { status?: number; body?: unknown } | undefined;

export interface StubBot {
  eventsUrl: string;
  signingSecret: string;
  requests: StubRequest[];
  /** Requests refused because their signature was wrong. */
  badSignatures: number;
  /** Decides the HTTP answer (the ack) to each request; may call the fake's Web API first. */
  answer: (request: StubRequest) => StubAnswer | Promise<StubAnswer>;
  close(): Promise<void>;
}

/** A stand-in for the bot's /slack/events: checks Slack's signature, records what arrived, answers as told. */
export async function startStubBot(signingSecret = 'stub-signing-secret'): Promise<StubBot> {
  const stub: StubBot = {
    eventsUrl: '',
    signingSecret,
    requests: [],
    badSignatures: 0,
    answer: () => undefined,
    close: async () => undefined,
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const timestamp = Number(req.headers['x-slack-request-timestamp']);
    const fresh = Math.abs(Date.now() / 1000 - timestamp) < 300;
    if (!fresh || req.headers['x-slack-signature'] !== signBody(signingSecret, raw, timestamp)) {
      stub.badSignatures += 1;
      res.writeHead(401).end();
      return;
    }
    const form = new URLSearchParams(raw);
    const payload = form.get('payload');
    const request: StubRequest =
      payload === null
        ? { kind: 'command', fields: Object.fromEntries(form) }
        : { kind: 'interaction', payload: JSON.parse(payload) as Record<string, unknown> & { type: string } };
    stub.requests.push(request);
    const answer = await stub.answer(request);
    const body = answer?.body === undefined ? '' : JSON.stringify(answer.body);
    res.writeHead(answer?.status ?? 200, body === '' ? {} : { 'content-type': 'application/json' }).end(body);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.eventsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return stub;
}

/** Calls the fake Slack's Web API as the bot would, with a bot token; returns Slack's JSON answer. */
export async function webApi(
  apiUrl: string,
  token: string,
  method: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${apiUrl}${method}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(args),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (answer.ok !== true) throw new Error(`${method} failed: ${JSON.stringify(answer)}`);
  return answer;
}
