/**
 * Block Kit validation as Slack applies it to every message and view. Each problem is reported the way
 * Slack words it in `response_metadata.messages`: `must be less than 76 characters
 * [json-pointer:/blocks/0/elements/0/text/text]`.
 */

export type Surface = 'message' | 'modal' | 'home';

export interface LimitIssue {
  /** JSON pointer into the request (`/blocks/3/text/text`, `/view/title/text`). */
  pointer: string;
  message: string;
}

/** The documented limits the checks below apply. */
export const SLACK_LIMITS = {
  messageBlocks: 50,
  viewBlocks: 100,
  messageText: 40_000,
  sectionText: 3_000,
  sectionFields: 10,
  fieldText: 2_000,
  actionsElements: 25,
  contextElements: 10,
  headerText: 150,
  buttonText: 75,
  buttonValue: 2_000,
  url: 3_000,
  actionId: 255,
  blockId: 255,
  viewTitle: 24,
  viewButton: 24,
  privateMetadata: 3_000,
  callbackId: 255,
  placeholder: 150,
  optionText: 75,
  optionValue: 150,
  selectOptions: 100,
  overflowOptions: 5,
  choiceOptions: 10,
  imageAltText: 2_000,
  inputLabel: 2_000,
  markdownText: 12_000,
} as const;

const L = SLACK_LIMITS;

export function formatIssue(issue: LimitIssue): string {
  return `${issue.message} [json-pointer:${issue.pointer}]`;
}

const SELECTS = [
  'static_select',
  'external_select',
  'users_select',
  'conversations_select',
  'channels_select',
];
const MULTI_SELECTS = SELECTS.map((type) => `multi_${type}`);
const CHOICES = [
  'button',
  'checkboxes',
  'datepicker',
  'overflow',
  'radio_buttons',
  'timepicker',
  'workflow_button',
];
const TEXT_INPUTS = [
  'plain_text_input',
  'email_text_input',
  'url_text_input',
  'number_input',
  'rich_text_input',
];

const ACTIONS_ELEMENTS = new Set([...CHOICES, ...SELECTS, ...MULTI_SELECTS, 'datetimepicker']);
const ACCESSORY_ELEMENTS = new Set([...CHOICES, ...SELECTS, ...MULTI_SELECTS, 'image']);
const INPUT_ELEMENTS = new Set([
  ...TEXT_INPUTS,
  ...SELECTS,
  ...MULTI_SELECTS,
  'checkboxes',
  'radio_buttons',
  'datepicker',
  'timepicker',
  'datetimepicker',
  'file_input',
]);

type Obj = Record<string, unknown>;

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Slack counts characters, not UTF-16 code units. */
function charCount(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

class Checker {
  readonly issues: LimitIssue[] = [];

  add(pointer: string, message: string): void {
    this.issues.push({ pointer, message });
  }

  /** A string field: reports a wrong type or a length over `max`. Returns whether it is present. */
  string(parent: string, obj: Obj, name: string, max: number, required = false): boolean {
    const value = obj[name];
    if (value === undefined || value === null) {
      if (required) this.add(parent, `missing required field: ${name}`);
      return false;
    }
    if (typeof value !== 'string') {
      this.add(`${parent}/${name}`, 'must provide a string');
      return false;
    }
    if (required && value.length === 0) this.add(`${parent}/${name}`, 'must be more than 0 characters');
    if (charCount(value) > max) this.add(`${parent}/${name}`, `must be less than ${max + 1} characters`);
    return true;
  }

  /** A list field: reports a wrong type, too few or too many items. Returns the list (or []). */
  list(parent: string, obj: Obj, name: string, max: number, min = 0, required = false): unknown[] {
    const value = obj[name];
    if (value === undefined) {
      if (required) this.add(parent, `missing required field: ${name}`);
      return [];
    }
    if (!Array.isArray(value)) {
      this.add(`${parent}/${name}`, 'must provide an array');
      return [];
    }
    if (value.length < min) this.add(`${parent}/${name}`, `must provide at least ${min} items`);
    if (value.length > max) this.add(`${parent}/${name}`, `no more than ${max} items allowed`);
    return value;
  }

  /** A text composition object (`plain_text` or `mrkdwn`). */
  text(
    parent: string,
    obj: Obj,
    name: string,
    max: number,
    opts: { plainOnly?: boolean; required?: boolean } = {},
  ) {
    const value = obj[name];
    const pointer = `${parent}/${name}`;
    if (value === undefined || value === null) {
      if (opts.required) this.add(parent, `missing required field: ${name}`);
      return;
    }
    if (!isObject(value)) {
      this.add(pointer, 'must provide an object');
      return;
    }
    if (value.type !== 'plain_text' && value.type !== 'mrkdwn') {
      this.add(`${pointer}/type`, 'must be one of: plain_text, mrkdwn');
    } else if (opts.plainOnly && value.type !== 'plain_text') {
      this.add(`${pointer}/type`, 'must be plain_text');
    }
    if (value.type === 'mrkdwn' && value.emoji !== undefined) {
      this.add(`${pointer}/emoji`, 'emoji is only allowed in plain_text');
    }
    if (value.emoji !== undefined && typeof value.emoji !== 'boolean')
      this.add(`${pointer}/emoji`, 'must be a boolean');
    if (value.verbatim !== undefined && typeof value.verbatim !== 'boolean') {
      this.add(`${pointer}/verbatim`, 'must be a boolean');
    }
    this.string(pointer, value, 'text', max, true);
  }
}

function checkConfirm(c: Checker, parent: string, el: Obj): void {
  const confirm = el.confirm;
  if (confirm === undefined) return;
  const pointer = `${parent}/confirm`;
  if (!isObject(confirm)) {
    c.add(pointer, 'must provide an object');
    return;
  }
  c.text(pointer, confirm, 'title', 100, { plainOnly: true, required: true });
  c.text(pointer, confirm, 'text', 300, { required: true });
  c.text(pointer, confirm, 'confirm', 30, { plainOnly: true, required: true });
  c.text(pointer, confirm, 'deny', 30, { plainOnly: true, required: true });
}

function checkOptions(
  c: Checker,
  parent: string,
  el: Obj,
  name: string,
  max: number,
  opts: { plainOnly: boolean; min?: number; required?: boolean },
): void {
  const options = c.list(parent, el, name, max, opts.min ?? 0, opts.required ?? false);
  options.forEach((option, i) => {
    const pointer = `${parent}/${name}/${i}`;
    if (!isObject(option)) {
      c.add(pointer, 'must provide an object');
      return;
    }
    c.text(pointer, option, 'text', L.optionText, { plainOnly: opts.plainOnly, required: true });
    c.string(pointer, option, 'value', L.optionValue, true);
    c.text(pointer, option, 'description', L.optionText, { plainOnly: opts.plainOnly });
    c.string(pointer, option, 'url', L.url);
  });
}

function checkElement(
  c: Checker,
  pointer: string,
  el: unknown,
  allowed: Set<string>,
  actionIds: Set<string>,
): void {
  if (!isObject(el)) {
    c.add(pointer, 'must provide an object');
    return;
  }
  const type = el.type;
  if (typeof type !== 'string') {
    c.add(pointer, 'missing required field: type');
    return;
  }
  if (!allowed.has(type)) {
    c.add(`${pointer}/type`, `unsupported type: ${type}`);
    return;
  }
  if (c.string(pointer, el, 'action_id', L.actionId)) {
    const actionId = el.action_id as string;
    if (actionIds.has(actionId)) c.add(`${pointer}/action_id`, `duplicate action_id in block: ${actionId}`);
    actionIds.add(actionId);
  }
  checkConfirm(c, pointer, el);
  c.text(pointer, el, 'placeholder', L.placeholder, { plainOnly: true });
  if (type === 'button' || type === 'workflow_button') {
    c.text(pointer, el, 'text', L.buttonText, { plainOnly: true, required: true });
    c.string(pointer, el, 'value', L.buttonValue);
    c.string(pointer, el, 'url', L.url);
    c.string(pointer, el, 'accessibility_label', L.buttonText);
    if (el.style !== undefined && el.style !== 'primary' && el.style !== 'danger') {
      c.add(`${pointer}/style`, 'must be one of: primary, danger');
    }
  } else if (type === 'overflow') {
    checkOptions(c, pointer, el, 'options', L.overflowOptions, { plainOnly: true, min: 1, required: true });
  } else if (type === 'checkboxes' || type === 'radio_buttons') {
    checkOptions(c, pointer, el, 'options', L.choiceOptions, { plainOnly: false, min: 1, required: true });
  } else if (type === 'static_select' || type === 'multi_static_select') {
    if (el.options === undefined && el.option_groups === undefined) {
      c.add(pointer, 'missing required field: options');
    }
    checkOptions(c, pointer, el, 'options', L.selectOptions, { plainOnly: true });
    c.list(pointer, el, 'option_groups', L.selectOptions).forEach((group, i) => {
      const groupPointer = `${pointer}/option_groups/${i}`;
      if (!isObject(group)) {
        c.add(groupPointer, 'must provide an object');
        return;
      }
      c.text(groupPointer, group, 'label', L.optionText, { plainOnly: true, required: true });
      checkOptions(c, groupPointer, group, 'options', L.selectOptions, { plainOnly: true, required: true });
    });
  } else if (type === 'image') {
    if (el.image_url === undefined && el.slack_file === undefined)
      c.add(pointer, 'missing required field: image_url');
    c.string(pointer, el, 'image_url', L.url);
    c.string(pointer, el, 'alt_text', L.imageAltText, true);
  }
}

/** Checks one block; `blockIds` and the per-block action ids catch duplicates. */
function checkBlock(c: Checker, pointer: string, block: unknown, blockIds: Set<string>): boolean {
  if (!isObject(block)) {
    c.add(pointer, 'must provide an object');
    return false;
  }
  if (c.string(pointer, block, 'block_id', L.blockId)) {
    const blockId = block.block_id as string;
    if (blockIds.has(blockId)) c.add(`${pointer}/block_id`, `duplicate block_id: ${blockId}`);
    blockIds.add(blockId);
  }
  const actionIds = new Set<string>();
  switch (block.type) {
    case 'section': {
      if (block.text === undefined && block.fields === undefined)
        c.add(pointer, 'missing required field: text');
      c.text(pointer, block, 'text', L.sectionText);
      c.list(pointer, block, 'fields', L.sectionFields).forEach((_, i) => {
        c.text(`${pointer}/fields`, block.fields as Obj, String(i), L.fieldText, { required: true });
      });
      if (block.accessory !== undefined) {
        checkElement(c, `${pointer}/accessory`, block.accessory, ACCESSORY_ELEMENTS, actionIds);
      }
      return true;
    }
    case 'actions':
      c.list(pointer, block, 'elements', L.actionsElements, 1, true).forEach((el, i) => {
        checkElement(c, `${pointer}/elements/${i}`, el, ACTIONS_ELEMENTS, actionIds);
      });
      return true;
    case 'context':
      c.list(pointer, block, 'elements', L.contextElements, 1, true).forEach((el, i) => {
        const elPointer = `${pointer}/elements/${i}`;
        if (isObject(el) && el.type === 'image') {
          checkElement(c, elPointer, el, new Set(['image']), actionIds);
        } else {
          c.text(`${pointer}/elements`, block.elements as Obj, String(i), L.sectionText, { required: true });
        }
      });
      return true;
    case 'header':
      c.text(pointer, block, 'text', L.headerText, { plainOnly: true, required: true });
      return true;
    case 'divider':
      return true;
    case 'image':
      checkElement(c, pointer, { ...block, type: 'image' }, new Set(['image']), actionIds);
      c.text(pointer, block, 'title', L.imageAltText, { plainOnly: true });
      return true;
    case 'input':
      c.text(pointer, block, 'label', L.inputLabel, { plainOnly: true, required: true });
      c.text(pointer, block, 'hint', L.inputLabel, { plainOnly: true });
      if (block.element === undefined) c.add(pointer, 'missing required field: element');
      else checkElement(c, `${pointer}/element`, block.element, INPUT_ELEMENTS, actionIds);
      return true;
    case 'markdown':
      c.string(pointer, block, 'text', L.markdownText, true);
      return true;
    case 'rich_text':
      c.list(pointer, block, 'elements', Number.POSITIVE_INFINITY, 0, true);
      return true;
    case 'video':
      c.string(pointer, block, 'alt_text', L.imageAltText, true);
      c.text(pointer, block, 'title', 200, { plainOnly: true, required: true });
      c.string(pointer, block, 'video_url', L.url, true);
      c.string(pointer, block, 'thumbnail_url', L.url, true);
      return true;
    case 'file':
      c.string(pointer, block, 'external_id', 255, true);
      c.string(pointer, block, 'source', 255, true);
      return true;
    case 'context_actions':
      c.list(pointer, block, 'elements', 5, 1, true);
      return true;
    case 'table':
    case 'call':
      return true;
    case undefined:
      c.add(pointer, 'missing required field: type');
      return false;
    default:
      c.add(`${pointer}/type`, `unsupported type: ${String(block.type)}`);
      return false;
  }
}

function checkBlocks(c: Checker, blocks: unknown, surface: Surface, pointer: string): void {
  if (!Array.isArray(blocks)) {
    c.add(pointer, 'must provide an array');
    return;
  }
  const max = surface === 'message' ? L.messageBlocks : L.viewBlocks;
  if (blocks.length > max) c.add(pointer, `no more than ${max} items allowed`);
  const blockIds = new Set<string>();
  blocks.forEach((block, i) => {
    checkBlock(c, `${pointer}/${i}`, block, blockIds);
  });
}

/** Problems with a `blocks` array, as LimitIssue records (pointers start at `pointer`). */
export function blockIssues(blocks: unknown, surface: Surface, pointer = '/blocks'): LimitIssue[] {
  const c = new Checker();
  checkBlocks(c, blocks, surface, pointer);
  return c.issues;
}

/** Every Slack limit a `blocks` array breaks on a surface, worded as Slack does; empty when valid. */
export function blockLimitViolations(blocks: unknown[], surface: Surface): string[] {
  return blockIssues(blocks, surface).map(formatIssue);
}

/** Problems with the top-level `text` of a message. */
export function messageTextIssues(text: unknown, pointer = '/text'): LimitIssue[] {
  if (text === undefined || text === null) return [];
  if (typeof text !== 'string') return [{ pointer, message: 'must provide a string' }];
  if (charCount(text) > L.messageText) {
    return [{ pointer, message: `must be less than ${L.messageText + 1} characters` }];
  }
  return [];
}

/** Problems with a view object (modal or Home tab), pointers under `pointer`. */
export function viewIssues(view: unknown, pointer = '/view'): LimitIssue[] {
  const c = new Checker();
  if (!isObject(view)) {
    c.add(pointer, 'must provide an object');
    return c.issues;
  }
  if (view.type === 'modal') {
    c.text(pointer, view, 'title', L.viewTitle, { plainOnly: true, required: true });
    c.text(pointer, view, 'submit', L.viewButton, { plainOnly: true });
    c.text(pointer, view, 'close', L.viewButton, { plainOnly: true });
    const hasInput = Array.isArray(view.blocks) && view.blocks.some((b) => isObject(b) && b.type === 'input');
    if (hasInput && view.submit === undefined)
      c.add(pointer, 'missing required field: submit (input blocks need it)');
  } else if (view.type !== 'home') {
    c.add(`${pointer}/type`, `unsupported type: ${String(view.type)}`);
  }
  if (view.blocks === undefined) c.add(pointer, 'missing required field: blocks');
  else checkBlocks(c, view.blocks, view.type === 'home' ? 'home' : 'modal', `${pointer}/blocks`);
  c.string(pointer, view, 'private_metadata', L.privateMetadata);
  c.string(pointer, view, 'callback_id', L.callbackId);
  c.string(pointer, view, 'external_id', 255);
  return c.issues;
}

/** Every Slack limit a view breaks, worded as Slack does; empty when valid. */
export function viewLimitViolations(view: unknown): string[] {
  return viewIssues(view).map(formatIssue);
}
