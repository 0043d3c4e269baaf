import type { ConfirmationDialog, KnownBlock, ModalView, TextObject } from '@slack/types';
import type { Message } from './types.js';

/** Slack's limits on what one message or modal may hold (https://docs.slack.dev/reference/block-kit). */
export const Limits = {
  messageBlocks: 50,
  modalBlocks: 100,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  actionId: 255,
  blockId: 255,
  headerText: 150,
  contextElements: 10,
  contextText: 3000,
  fallbackText: 3000,
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  modalTitle: 24,
  modalButton: 24,
  inputLabel: 2000,
  privateMetadata: 3000,
  optionText: 75,
} as const;

interface Element {
  type: string;
  action_id?: string;
  text?: TextObject;
  value?: string;
  confirm?: ConfirmationDialog;
  options?: { text: TextObject; value?: string }[];
}

class Checker {
  readonly problems: string[] = [];
  private readonly actionIds = new Set<string>();

  length(where: string, text: string | undefined, max: number, min = 1): void {
    if (text === undefined) return;
    if (text.length > max) this.problems.push(`${where}: ${text.length} characters (max ${max})`);
    if (text.length < min) this.problems.push(`${where}: empty`);
  }

  count(where: string, count: number, max: number, min = 0): void {
    if (count > max) this.problems.push(`${where}: ${count} items (max ${max})`);
    if (count < min) this.problems.push(`${where}: ${count} items (min ${min})`);
  }

  plainText(where: string, text: TextObject | undefined, max: number): void {
    if (!text) {
      this.problems.push(`${where}: missing`);
      return;
    }
    if (text.type !== 'plain_text') this.problems.push(`${where}: must be plain_text`);
    this.length(`${where}.text`, text.text, max);
  }

  confirm(where: string, dialog: ConfirmationDialog | undefined): void {
    if (!dialog) return;
    this.length(`${where}.title`, dialog.title?.text, Limits.confirmTitle);
    this.length(`${where}.text`, dialog.text.text, Limits.confirmText);
    this.length(`${where}.confirm`, dialog.confirm?.text, Limits.confirmButton);
    this.length(`${where}.deny`, dialog.deny?.text, Limits.confirmButton);
  }

  element(where: string, element: Element): void {
    if (element.action_id !== undefined) {
      this.length(`${where}.action_id`, element.action_id, Limits.actionId);
      if (this.actionIds.has(element.action_id))
        this.problems.push(`${where}.action_id: "${element.action_id}" repeated`);
      this.actionIds.add(element.action_id);
    }
    if (element.type === 'button') {
      this.plainText(`${where}.text`, element.text, Limits.buttonText);
      this.length(`${where}.value`, element.value, Limits.buttonValue, 0);
    }
    for (const [index, option] of (element.options ?? []).entries()) {
      this.length(`${where}.options[${index}].text`, option.text.text, Limits.optionText);
    }
    this.confirm(`${where}.confirm`, element.confirm);
  }

  block(where: string, block: KnownBlock): void {
    this.length(`${where}.block_id`, block.block_id, Limits.blockId);
    switch (block.type) {
      case 'section':
        if (!block.text && !block.fields) this.problems.push(`${where}: needs text or fields`);
        this.length(`${where}.text`, block.text?.text, Limits.sectionText);
        if (block.fields) {
          this.count(`${where}.fields`, block.fields.length, Limits.sectionFields, 1);
          for (const [index, field] of block.fields.entries())
            this.length(`${where}.fields[${index}]`, field.text, Limits.fieldText);
        }
        if (block.accessory) this.element(`${where}.accessory`, block.accessory as Element);
        break;
      case 'header':
        this.plainText(`${where}.text`, block.text, Limits.headerText);
        break;
      case 'context':
        this.count(`${where}.elements`, block.elements.length, Limits.contextElements, 1);
        for (const [index, element] of block.elements.entries()) {
          if (element.type === 'mrkdwn' || element.type === 'plain_text') {
            this.length(`${where}.elements[${index}]`, element.text, Limits.contextText);
          }
        }
        break;
      case 'actions':
        this.count(`${where}.elements`, block.elements.length, Limits.actionsElements, 1);
        for (const [index, element] of block.elements.entries())
          this.element(`${where}.elements[${index}]`, element as Element);
        break;
      case 'input':
        this.plainText(`${where}.label`, block.label, Limits.inputLabel);
        if (block.hint) this.plainText(`${where}.hint`, block.hint, Limits.inputLabel);
        this.element(`${where}.element`, block.element as Element);
        break;
      default:
        break;
    }
  }
}

function isModal(value: Message | ModalView): value is ModalView {
  return 'type' in value && value.type === 'modal';
}

/**
 * Every Slack limit a message (or modal) breaks, as readable lines; empty when it fits. Tests anywhere can
 * assert `checkMessageLimits(message)` equals [].
 */
export function checkMessageLimits(message: Message | ModalView): string[] {
  const checker = new Checker();
  const blocks = (message.blocks ?? []) as KnownBlock[];
  if (isModal(message)) {
    checker.count('blocks', blocks.length, Limits.modalBlocks);
    checker.plainText('title', message.title, Limits.modalTitle);
    if (message.submit) checker.plainText('submit', message.submit, Limits.modalButton);
    if (message.close) checker.plainText('close', message.close, Limits.modalButton);
    checker.length('callback_id', message.callback_id, Limits.actionId);
    checker.length('private_metadata', message.private_metadata, Limits.privateMetadata, 0);
  } else {
    checker.count('blocks', blocks.length, Limits.messageBlocks);
    checker.length('text', message.text, Limits.fallbackText);
  }
  for (const [index, block] of blocks.entries()) checker.block(`blocks[${index}]`, block);
  return checker.problems;
}
