import type {
  ActionsBlock,
  Button,
  ConfirmationDialog,
  ContextBlock,
  HeaderBlock,
  KnownBlock,
  MrkdwnElement,
  PlainTextElement,
  SectionBlock,
} from '@slack/types';
import { encodeRoute, type Route, routeSchema } from '../domain/routes.js';
import { truncate, truncateMrkdwn } from './format.js';
import { ActionIds } from './ids.js';
import { Limits } from './limits.js';
import type { Message } from './types.js';

export { checkMessageLimits, Limits } from './limits.js';

/** Prefixes that finalizeMessage turns into unique action ids (`nav:0`, `nav:1`, `share:0`, …). */
const NUMBERED_PREFIXES: readonly string[] = [
  ActionIds.navigatePrefix,
  ActionIds.refreshPrefix,
  ActionIds.sharePrefix,
  ActionIds.retryPrefix,
];

export function mrkdwn(text: string): MrkdwnElement {
  // verbatim: Slack must not auto-link names, URLs or bare @mentions that arrive in upstream text.
  return { type: 'mrkdwn', text, verbatim: true };
}

export function plain(text: string): PlainTextElement {
  return { type: 'plain_text', text, emoji: true };
}

export function header(text: string): HeaderBlock {
  return { type: 'header', text: plain(truncate(text, Limits.headerText)) };
}

export function section(text: string, accessory?: Button | null): SectionBlock {
  const block: SectionBlock = { type: 'section', text: mrkdwn(truncateMrkdwn(text, Limits.sectionText)) };
  if (accessory) block.accessory = accessory;
  return block;
}

/** A section of short "label / value" fields, shown in two columns; text (optional) goes above them. */
export function fieldsSection(fields: string[], text?: string, accessory?: Button | null): SectionBlock {
  const block: SectionBlock = {
    type: 'section',
    fields: fields
      .slice(0, Limits.sectionFields)
      .map((field) => mrkdwn(truncateMrkdwn(field, Limits.fieldText))),
  };
  if (text !== undefined) block.text = mrkdwn(truncateMrkdwn(text, Limits.sectionText));
  if (accessory) block.accessory = accessory;
  return block;
}

export function context(...texts: string[]): ContextBlock {
  return {
    type: 'context',
    elements: texts
      .slice(0, Limits.contextElements)
      .map((text) => mrkdwn(truncateMrkdwn(text, Limits.contextText))),
  };
}

export function actions(elements: (Button | null | undefined)[]): ActionsBlock | null {
  const buttons = elements.filter((element): element is Button => element != null);
  return buttons.length === 0
    ? null
    : { type: 'actions', elements: buttons.slice(0, Limits.actionsElements) };
}

export interface ButtonOptions {
  text: string;
  actionId: string;
  value?: string;
  style?: 'primary' | 'danger';
  confirm?: ConfirmationDialog;
}

export function button(options: ButtonOptions): Button {
  const element: Button = {
    type: 'button',
    text: plain(truncate(options.text, Limits.buttonText)),
    action_id: options.actionId,
  };
  if (options.value !== undefined) element.value = options.value;
  if (options.style) element.style = options.style;
  if (options.confirm) element.confirm = options.confirm;
  return element;
}

/**
 * A button that carries a route. The action id is a prefix numbered by finalizeMessage. A route that would not
 * come back through decodeRoute (too long a text, for instance) gives no button rather than a broken one.
 */
export function routeButton(
  text: string,
  route: Route,
  prefix: string = ActionIds.navigatePrefix,
  style?: 'primary' | 'danger',
): Button | null {
  if (!routeSchema.safeParse(route).success) return null;
  let value: string;
  try {
    value = encodeRoute(route);
  } catch {
    return null;
  }
  return button({ text, actionId: prefix, value, ...(style && { style }) });
}

/** Blocks that are set apart from the body: cut last when a message has too many. */
function isFooter(block: KnownBlock): boolean {
  return block.type === 'actions' || block.type === 'context';
}

function fitButton(element: Button): Button | null {
  if (element.value !== undefined && element.value.length > Limits.buttonValue) return null;
  const fitted: Button = {
    ...element,
    text: { ...element.text, text: truncate(element.text.text, Limits.buttonText) || '…' },
  };
  if (fitted.action_id !== undefined) fitted.action_id = truncate(fitted.action_id, Limits.actionId);
  return fitted;
}

function fitBlock(block: KnownBlock): KnownBlock | null {
  switch (block.type) {
    case 'section': {
      const fitted: SectionBlock = { ...block };
      if (fitted.text)
        fitted.text = { ...fitted.text, text: truncate(fitted.text.text, Limits.sectionText) || '—' };
      if (fitted.fields) {
        fitted.fields = fitted.fields
          .slice(0, Limits.sectionFields)
          .map((field) => ({ ...field, text: truncate(field.text, Limits.fieldText) || '—' }));
        if (fitted.fields.length === 0) delete fitted.fields;
      }
      if (!fitted.text && !fitted.fields) fitted.text = mrkdwn('—');
      if (fitted.accessory?.type === 'button') {
        const accessory = fitButton(fitted.accessory);
        if (accessory) fitted.accessory = accessory;
        else delete fitted.accessory;
      }
      return fitted;
    }
    case 'header':
      return { ...block, text: { ...block.text, text: truncate(block.text.text, Limits.headerText) || '—' } };
    case 'context': {
      const elements = block.elements
        .slice(0, Limits.contextElements)
        .map((element) =>
          element.type === 'mrkdwn' || element.type === 'plain_text'
            ? { ...element, text: truncate(element.text, Limits.contextText) || '—' }
            : element,
        );
      return elements.length === 0 ? null : { ...block, elements };
    }
    case 'actions': {
      const elements = block.elements
        .map((element) => (element.type === 'button' ? fitButton(element) : element))
        .filter((element) => element !== null)
        .slice(0, Limits.actionsElements);
      return elements.length === 0 ? null : { ...block, elements };
    }
    default:
      return block;
  }
}

/**
 * Gives numbered action ids to buttons whose id is a bare prefix (`nav:` → `nav:0`, `nav:1`, …) and renames
 * repeated ids, so every action id is unique within the message (Slack refuses duplicates).
 */
function numberActionIds(blocks: KnownBlock[]): void {
  const elements: { action_id?: string }[] = [];
  for (const block of blocks) {
    if (block.type === 'actions') elements.push(...block.elements);
    if (block.type === 'section' && block.accessory && 'action_id' in block.accessory)
      elements.push(block.accessory);
  }
  const taken = new Set<string>();
  const pending: { element: { action_id?: string }; base: string }[] = [];
  for (const element of elements) {
    const id = element.action_id;
    if (id === undefined) continue;
    if (NUMBERED_PREFIXES.includes(id)) pending.push({ element, base: id });
    else if (taken.has(id))
      pending.push({ element, base: NUMBERED_PREFIXES.find((prefix) => id.startsWith(prefix)) ?? `${id}~` });
    else taken.add(id);
  }
  const counters = new Map<string, number>();
  for (const { element, base } of pending) {
    let next = counters.get(base) ?? 0;
    while (taken.has(`${base}${next}`)) next += 1;
    element.action_id = `${base}${next}`;
    taken.add(element.action_id);
    counters.set(base, next + 1);
  }
}

/**
 * The final pass every message goes through: texts cut with "…", too many fields, elements or blocks dropped
 * (the footer of buttons and context lines is kept), action ids numbered. Never throws.
 */
export function finalizeMessage(message: Message, maxBlocks: number = Limits.messageBlocks): Message {
  let blocks = message.blocks.map(fitBlock).filter((block): block is KnownBlock => block !== null);
  if (blocks.length > maxBlocks) {
    let footerStart = blocks.length;
    while (
      footerStart > 0 &&
      blocks.length - footerStart < 3 &&
      isFooter(blocks[footerStart - 1] as KnownBlock)
    ) {
      footerStart -= 1;
    }
    const footer = blocks.slice(footerStart);
    const room = maxBlocks - footer.length - 1;
    blocks = [...blocks.slice(0, room), context('_Resposta encurtada para caber no Slack._'), ...footer];
  }
  numberActionIds(blocks);
  const text = truncate(message.text.trim() === '' ? 'estoque-bot' : message.text, Limits.fallbackText);
  return { text, blocks };
}
