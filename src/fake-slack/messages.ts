import { argJson, argString } from './http.js';
import type { TsClock } from './ids.js';
import { blockIssues, type LimitIssue, messageTextIssues } from './limits.js';
import type { ApiArgs, FakeMessage } from './types.js';

export interface MessageContent {
  text: string;
  blocks: unknown[];
}

export type ContentCheck =
  | { ok: true; text: string | undefined; blocks: unknown[] | undefined }
  | { ok: false; error: string; issues: LimitIssue[] };

/**
 * Reads `text` and `blocks` of a message request and checks them as Slack does. Undefined fields stay
 * undefined (chat.update keeps what the message had).
 */
export function checkMessageContent(args: ApiArgs): ContentCheck {
  const parsed = argJson(args, 'blocks');
  if (!parsed.ok || (parsed.value !== undefined && !Array.isArray(parsed.value))) {
    return { ok: false, error: 'invalid_blocks_format', issues: [] };
  }
  const blocks = parsed.value as unknown[] | undefined;
  const text = argString(args, 'text');
  const issues = blocks === undefined ? [] : blockIssues(blocks, 'message');
  if (issues.length > 0) return { ok: false, error: 'invalid_blocks', issues };
  const textIssues = messageTextIssues(args.text);
  if (textIssues.length > 0) return { ok: false, error: 'msg_too_long', issues: textIssues };
  return { ok: true, text, blocks };
}

/** Whether a message would show nothing at all (Slack's `no_text`). */
export function isEmptyMessage(
  text: string | undefined,
  blocks: unknown[] | undefined,
  args: ApiArgs,
): boolean {
  const attachments = argJson(args, 'attachments');
  const hasAttachments = attachments.ok && Array.isArray(attachments.value) && attachments.value.length > 0;
  return (text ?? '') === '' && (blocks ?? []).length === 0 && !hasAttachments;
}

export type NewMessage = Omit<FakeMessage, 'ts' | 'at'>;

/** Every message people would see, with its history of updates and deletions. */
export class MessageLog {
  readonly messages: FakeMessage[] = [];

  constructor(
    private readonly ts: TsClock,
    private readonly now: () => number,
    private readonly emit: (message: FakeMessage) => void,
  ) {}

  post(fields: NewMessage): FakeMessage {
    const message: FakeMessage = { ...fields, ts: this.ts.next(), at: this.now() };
    this.messages.push(message);
    this.emit(message);
    return message;
  }

  /** The live record of a message (the newest version, replaced or not deleted yet). */
  current(channel: string, ts: string): FakeMessage | undefined {
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const message = this.messages[i]!;
      if (message.channel === channel && message.ts === ts && !message.replaced) {
        return message.deleted ? undefined : message;
      }
    }
    return undefined;
  }

  /** Replaces a message: the old record is marked `replaced` and a new one keeps its ts. */
  replace(original: FakeMessage, changes: Partial<NewMessage> & Pick<FakeMessage, 'via'>): FakeMessage {
    original.replaced = true;
    const next: FakeMessage = { ...original, ...changes, ts: original.ts, at: this.now() };
    delete next.replaced;
    this.messages.push(next);
    this.emit(next);
    return next;
  }

  delete(message: FakeMessage): void {
    message.deleted = true;
    this.emit(message);
  }

  /** What a person sees now: live messages of the channel, ephemeral ones only for their user. */
  visible(filter: { channel?: string; userId?: string } = {}): FakeMessage[] {
    return this.messages.filter(
      (m) =>
        !m.replaced &&
        !m.deleted &&
        (filter.channel === undefined || m.channel === filter.channel) &&
        (!m.ephemeral || filter.userId === undefined || m.visibleTo === filter.userId),
    );
  }

  clear(): void {
    this.messages.length = 0;
  }
}
