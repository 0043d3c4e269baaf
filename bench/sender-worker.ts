/**
 * Plays Slack's side of the requests, on its own thread: it fires each planned request at its time, signed as
 * Slack signs them, and reports how long the bot took to answer the HTTP request (the ack). The orchestrator's
 * thread is busy with the sandbox and the fake Slack; timing the acks here keeps that work out of them.
 */
import { parentPort } from 'node:worker_threads';
import { sendSigned } from '../src/fake-slack/signer.js';
import { preciseNow } from './measure.js';

export interface PlannedSend {
  id: number;
  /** preciseNow() at which to send. */
  at: number;
  eventsUrl: string;
  body: string;
  contentType: string;
}

export type SenderRequest = { type: 'plan'; signingSecret: string; sends: PlannedSend[] };

export interface SenderReply {
  type: 'acked';
  id: number;
  /** preciseNow() right before the request left. */
  sentAt: number;
  /** From sending to the whole HTTP answer, ms. */
  ackMs: number;
  status: number;
  /** Whether the ack itself carried a message for the user (an ephemeral answer in the HTTP body). */
  ackMessage: boolean;
  error?: string;
}

/** Whether an ack's HTTP body is a message the user sees (Bolt's bare `ack()` answers with an empty body). */
export function ackCarriesMessage(body: string): boolean {
  if (body.trim() === '') return false;
  try {
    const parsed: unknown = JSON.parse(body);
    if (!parsed || typeof parsed !== 'object') return false;
    const { text, blocks } = parsed as { text?: unknown; blocks?: unknown };
    return (typeof text === 'string' && text !== '') || (Array.isArray(blocks) && blocks.length > 0);
  } catch {
    return false;
  }
}

parentPort?.on('message', (message: SenderRequest) => {
  if (message.type !== 'plan') return;
  for (const send of message.sends) {
    setTimeout(() => void fire(message.signingSecret, send), Math.max(0, send.at - preciseNow()));
  }
});

async function fire(signingSecret: string, send: PlannedSend): Promise<void> {
  const sentAt = preciseNow();
  let reply: SenderReply;
  try {
    const result = await sendSigned(
      { eventsUrl: send.eventsUrl, signingSecret },
      send.body,
      send.contentType,
    );
    reply = {
      type: 'acked',
      id: send.id,
      sentAt,
      ackMs: result.ms,
      status: result.status,
      ackMessage: result.status === 200 && ackCarriesMessage(result.body),
    };
  } catch (error) {
    reply = {
      type: 'acked',
      id: send.id,
      sentAt,
      ackMs: preciseNow() - sentAt,
      status: 0,
      ackMessage: false,
      error: error instanceof Error ? error.message : String(error),
    };
  }
  parentPort?.postMessage(reply);
}
