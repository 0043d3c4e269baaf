import type { ViewStateValue, ViewStateValues } from '../payloads.js';

/**
 * What Slack's client does with a modal's inputs before the app sees them: it checks required fields and number
 * inputs (the app is never called while one is wrong), then sends `view.state.values` typed per element.
 */

/** Raw inputs from the page: block_id → action_id → the text typed, or the values of the options chosen. */
export type RawInputs = Record<string, Record<string, string | string[] | null | undefined>>;

type Obj = Record<string, unknown>;

interface InputElement {
  blockId: string;
  actionId: string;
  optional: boolean;
  element: Obj;
}

function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function inputElements(blocks: readonly unknown[]): InputElement[] {
  const found: InputElement[] = [];
  for (const block of blocks) {
    if (!isObject(block) || block.type !== 'input' || !isObject(block.element)) continue;
    const { element } = block;
    if (typeof block.block_id !== 'string' || typeof element.action_id !== 'string') continue;
    found.push({
      blockId: block.block_id,
      actionId: element.action_id,
      optional: block.optional === true,
      element,
    });
  }
  return found;
}

function optionsOf(element: Obj): Obj[] {
  const options = Array.isArray(element.options) ? element.options.filter(isObject) : [];
  if (Array.isArray(element.option_groups)) {
    for (const group of element.option_groups) {
      if (isObject(group) && Array.isArray(group.options)) options.push(...group.options.filter(isObject));
    }
  }
  return options;
}

function chosen(raw: string | string[] | null | undefined): string[] {
  if (raw === null || raw === undefined) return [];
  return (Array.isArray(raw) ? raw : [raw]).filter((v) => typeof v === 'string' && v !== '');
}

function text(raw: string | string[] | null | undefined): string | null {
  const value = Array.isArray(raw) ? raw[0] : raw;
  return typeof value === 'string' && value !== '' ? value : null;
}

/** `view.state.values` as Slack builds it from the inputs of a view's input blocks. */
export function buildStateValues(blocks: readonly unknown[], raw: RawInputs): ViewStateValues {
  const values: ViewStateValues = {};
  for (const input of inputElements(blocks)) {
    const given = raw[input.blockId]?.[input.actionId];
    const type = String(input.element.type);
    let value: Obj;
    switch (type) {
      case 'checkboxes':
      case 'multi_static_select': {
        const picked = chosen(given);
        value = {
          type,
          selected_options: optionsOf(input.element).filter((o) => picked.includes(String(o.value))),
        };
        break;
      }
      case 'static_select':
      case 'radio_buttons': {
        const picked = chosen(given)[0];
        value = { type, selected_option: optionsOf(input.element).find((o) => o.value === picked) ?? null };
        break;
      }
      case 'datepicker':
        value = { type, selected_date: text(given) };
        break;
      case 'conversations_select':
      case 'channels_select':
        value = {
          type,
          [type === 'channels_select' ? 'selected_channel' : 'selected_conversation']: text(given),
        };
        break;
      default:
        value = { type, value: text(given) };
    }
    values[input.blockId] = {
      ...values[input.blockId],
      [input.actionId]: value as unknown as ViewStateValue,
    };
  }
  return values;
}

function isEmpty(value: ViewStateValue): boolean {
  const v = value as unknown as Obj;
  if (Array.isArray(v.selected_options)) return v.selected_options.length === 0;
  if ('selected_option' in v) return v.selected_option === null;
  if ('selected_date' in v) return v.selected_date === null;
  return v.value === null || v.value === undefined || String(v.value).trim() === '';
}

function numberProblem(element: Obj, typed: string): string | null {
  const decimal = element.is_decimal_allowed === true;
  if (!(decimal ? /^-?\d+([.,]\d+)?$/ : /^-?\d+$/).test(typed.trim())) {
    return decimal ? 'Insira um número.' : 'Insira um número inteiro.';
  }
  const number = Number(typed.trim().replace(',', '.'));
  const min = element.min_value === undefined ? null : Number(element.min_value);
  const max = element.max_value === undefined ? null : Number(element.max_value);
  if (min !== null && number < min) return `Insira um número maior ou igual a ${element.min_value}.`;
  if (max !== null && number > max) return `Insira um número menor ou igual a ${element.max_value}.`;
  return null;
}

/** The errors Slack's client shows before submitting (required fields, number inputs, max lengths); {} when none. */
export function clientSideErrors(
  blocks: readonly unknown[],
  values: ViewStateValues,
): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const input of inputElements(blocks)) {
    const value = values[input.blockId]?.[input.actionId];
    if (value === undefined) continue;
    if (isEmpty(value)) {
      if (!input.optional) errors[input.blockId] = 'Preencha este campo obrigatório.';
      continue;
    }
    const typed = (value as unknown as Obj).value;
    if (typeof typed !== 'string') continue;
    if (input.element.type === 'number_input') {
      const problem = numberProblem(input.element, typed);
      if (problem) errors[input.blockId] = problem;
    } else {
      const maxLength = Number(input.element.max_length ?? Number.POSITIVE_INFINITY);
      const minLength = Number(input.element.min_length ?? 0);
      if (typed.length > maxLength) errors[input.blockId] = `Use no máximo ${maxLength} caracteres.`;
      else if (typed.length < minLength) errors[input.blockId] = `Use pelo menos ${minLength} caracteres.`;
    }
  }
  return errors;
}

/**
 * The `response_urls` of a view_submission: one per conversations/channels select with `response_url_enabled`
 * and a channel chosen, each a fresh response_url for that channel (`newUrl`).
 */
export function submissionResponseUrls(
  blocks: readonly unknown[],
  values: ViewStateValues,
  newUrl: (channelId: string) => string,
): { block_id: string; action_id: string; channel_id: string; response_url: string }[] {
  const out: { block_id: string; action_id: string; channel_id: string; response_url: string }[] = [];
  for (const input of inputElements(blocks)) {
    if (input.element.response_url_enabled !== true) continue;
    const value = values[input.blockId]?.[input.actionId] as unknown as Obj | undefined;
    const channel = value?.selected_conversation ?? value?.selected_channel;
    if (typeof channel !== 'string' || channel === '') continue;
    out.push({
      block_id: input.blockId,
      action_id: input.actionId,
      channel_id: channel,
      response_url: newUrl(channel),
    });
  }
  return out;
}
