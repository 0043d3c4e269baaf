import type { Reply } from './http.js';
import { randomHex } from './ids.js';
import { blockIssues, messageTextIssues } from './limits.js';
import { isEmptyMessage } from './messages.js';
import { type FakeState, recordIssues } from './methods/common.js';
import type { ApiArgs, FakeMessage } from './types.js';

/** Slack: a response_url takes up to 5 messages within 30 minutes. */
export const RESPONSE_URL_MAX_USES = 5;
export const RESPONSE_URL_TTL_MS = 30 * 60_000;

export interface ResponseUrlContext {
  teamId: string;
  channelId: string;
  userId: string;
  /** The message the interaction came from (block_actions): what replace_original/delete_original act on. */
  messageTs?: string;
}

interface ResponseUrlRecord extends ResponseUrlContext {
  at: number;
  uses: number;
  /** The newest message this response_url posted (a slash command's answer to replace later). */
  lastTs?: string;
}

const ok: Reply = { status: 200, body: 'ok' };
const refuse = (status: number, error: string): Reply => ({ status, body: error });

function flag(value: unknown): boolean {
  return value === true || value === 'true';
}

/** The response_urls handed out and what posting to them does. */
export class ResponseUrls {
  private readonly records = new Map<string, ResponseUrlRecord>();
  private sequence = 0;

  constructor(private readonly state: FakeState) {}

  /** A new id, shaped like the tail of `hooks.slack.com/actions/T.../123/abc`: `T...-123-abc`. */
  create(context: ResponseUrlContext): string {
    this.sequence += 1;
    const id = `${context.teamId}-${this.sequence}-${randomHex(12)}`;
    this.records.set(id, { ...context, at: this.state.now(), uses: 0 });
    return id;
  }

  clear(): void {
    this.records.clear();
  }

  post(id: string, body: ApiArgs): Reply {
    const record = this.records.get(id);
    if (record === undefined) return refuse(404, 'no_service');
    if (this.state.now() - record.at > RESPONSE_URL_TTL_MS) return refuse(404, 'expired_url');
    if (record.uses >= RESPONSE_URL_MAX_USES) return refuse(404, 'expired_url');

    const blocks = body.blocks;
    if (blocks !== undefined && !Array.isArray(blocks)) return refuse(400, 'invalid_blocks_format');
    const blockProblems = blocks === undefined ? [] : blockIssues(blocks, 'message');
    const textProblems = messageTextIssues(body.text);
    if (blockProblems.length > 0 || textProblems.length > 0) {
      recordIssues(this.state, `response_url ${record.channelId}`, [...blockProblems, ...textProblems]);
      return refuse(400, blockProblems.length > 0 ? 'invalid_blocks' : 'msg_too_long');
    }
    const text = typeof body.text === 'string' ? body.text : '';
    const content = { text, blocks: (blocks as unknown[] | undefined) ?? [] };
    const empty = isEmptyMessage(text, content.blocks, body);
    const sourceTs = record.messageTs ?? record.lastTs;
    const source = sourceTs === undefined ? undefined : this.state.log.current(record.channelId, sourceTs);

    if (flag(body.delete_original)) {
      if (source !== undefined) this.state.log.delete(source);
      record.uses += 1;
      // With content, delete_original posts it as a brand new message.
      if (empty) return ok;
    } else if (flag(body.replace_original) && source !== undefined) {
      if (empty) return refuse(400, 'no_text');
      // A replacement keeps the original's audience: an ephemeral message stays ephemeral.
      const next = this.state.log.replace(source, { ...content, via: 'response_url' });
      record.uses += 1;
      record.lastTs = next.ts;
      return ok;
    }
    if (empty) return refuse(400, 'no_text');
    const message = this.postNew(record, content, body);
    if (!flag(body.delete_original)) record.uses += 1;
    record.lastTs = message.ts;
    return ok;
  }

  private postNew(record: ResponseUrlRecord, content: { text: string; blocks: unknown[] }, body: ApiArgs) {
    const team = this.state.workspace.teams.get(record.teamId);
    const inChannel = body.response_type === 'in_channel';
    const message: Omit<FakeMessage, 'ts' | 'at'> = {
      channel: record.channelId,
      teamId: record.teamId,
      user: team?.botUserId,
      botId: team?.botId,
      ...content,
      ephemeral: !inChannel,
      via: 'response_url',
      ...(inChannel ? {} : { visibleTo: record.userId }),
      ...(typeof body.thread_ts === 'string' ? { threadTs: body.thread_ts } : {}),
    };
    return this.state.log.post(message);
  }
}
