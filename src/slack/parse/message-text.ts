/**
 * The words a person sees in a Slack message, for a message shortcut to read: its `text` (for a bot's message
 * often only the notification's summary), then every `text` of its blocks (headers, sections and their fields,
 * context, rich text) and of its legacy attachments (their fields' titles and values). Buttons' values and ids are
 * not read. Bounded: the payload
 * comes from outside, so the walk stops at a depth, a number of nodes and a number of characters.
 */
const MAX_DEPTH = 12;
const MAX_NODES = 5_000;
const MAX_CHARS = 20_000;

export function visibleMessageText(message: unknown): string {
  return visibleMessageParts(message).join('\n');
}

/**
 * The same words, one string per part of the message as Slack shows it: the `text`, each top-level block, each
 * legacy attachment (a part's own texts joined by newlines), in order, empty parts left out. A digest's rows are
 * blocks of their own, so a reader can take each on its own (findRequestNumbersInParts).
 */
export function visibleMessageParts(message: unknown): string[] {
  if (typeof message !== 'object' || message === null) return [];
  const { text, blocks, attachments } = message as {
    text?: unknown;
    blocks?: unknown;
    attachments?: unknown;
  };
  const parts: string[] = [];
  /** The texts of the part being read. */
  let part: string[] = [];
  let chars = 0;
  let nodes = 0;
  const add = (value: string) => {
    if (chars >= MAX_CHARS || value === '') return;
    part.push(value.slice(0, MAX_CHARS - chars));
    chars += value.length;
  };
  const endPart = () => {
    if (part.length > 0) parts.push(part.join('\n'));
    part = [];
  };
  /** A list of blocks or attachments: each item is a part (anything else is read as one part). */
  const walkParts = (list: unknown) => {
    if (!Array.isArray(list)) {
      walk(list, 0);
      endPart();
      return;
    }
    nodes += 1;
    for (const item of list) {
      if (nodes >= MAX_NODES || chars >= MAX_CHARS) break;
      walk(item, 1);
      endPart();
    }
  };
  const walk = (node: unknown, depth: number): void => {
    if (depth > MAX_DEPTH || nodes >= MAX_NODES || chars >= MAX_CHARS) return;
    nodes += 1;
    if (Array.isArray(node)) {
      for (const item of node) walk(item, depth + 1);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      // A block's own words: `text` as a string (rich text, mrkdwn objects) or an object holding one.
      if (key === 'text' || key === 'fallback' || key === 'pretext' || key === 'title') {
        if (typeof value === 'string') add(value);
        else walk(value, depth + 1);
      } else if (key === 'value' && typeof value === 'string' && !('type' in node)) {
        // A legacy attachment field's value (`{ title, value, short }`); a block element's (a button's) has a type.
        add(value);
      } else if (key === 'fields' || key === 'elements' || key === 'blocks') {
        walk(value, depth + 1);
      }
    }
  };
  if (typeof text === 'string') add(text);
  endPart();
  walkParts(blocks);
  walkParts(attachments);
  return parts;
}
