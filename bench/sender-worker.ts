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
  error?: string;
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
    reply = { type: 'acked', id: send.id, sentAt, ackMs: result.ms, status: result.status };
  } catch (error) {
    reply = {
      type: 'acked',
      id: send.id,
      sentAt,
      ackMs: preciseNow() - sentAt,
      status: 0,
      error: error instanceof Error ? error.message : String(error),
    };
  }
  parentPort?.postMessage(reply);
}
