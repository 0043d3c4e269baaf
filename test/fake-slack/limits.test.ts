import { describe, expect, it } from 'vitest';
import { blockLimitViolations, messageTextIssues, viewLimitViolations } from '../../src/fake-slack/limits.js';
import { actions, button, section } from './helpers.js';

const plain = (text: string) => ({ type: 'plain_text', text });

describe('blockLimitViolations', () => {
  it('accepts a message that uses every common block within the limits', () => {
    const blocks = [
      { type: 'header', text: plain('h'.repeat(150)) },
      { type: 'section', block_id: 'b1', text: { type: 'mrkdwn', text: 's'.repeat(3_000) } },
      {
        type: 'section',
        fields: Array.from({ length: 10 }, () => ({ type: 'mrkdwn', text: 'f'.repeat(2_000) })),
        accessory: button('Abrir', 'open'),
      },
      { type: 'divider' },
      {
        type: 'context',
        elements: [
          { type: 'mrkdwn', text: 'Atualizado às 08:00' },
          { type: 'image', image_url: 'https://example.com/i.png', alt_text: 'ícone' },
        ],
      },
      {
        type: 'actions',
        block_id: 'b2',
        elements: Array.from({ length: 25 }, (_, i) => button('b'.repeat(75), `a${i}`, 'v'.repeat(2_000))),
      },
      {
        type: 'actions',
        elements: [
          {
            type: 'overflow',
            action_id: 'more',
            options: [{ text: plain('Compartilhar'), value: 'share' }],
          },
          {
            type: 'static_select',
            action_id: 'pick',
            placeholder: plain('Almoxarifado'),
            options: [{ text: plain('Central'), value: '1' }],
          },
        ],
      },
    ];
    expect(blockLimitViolations(blocks, 'message')).toEqual([]);
  });

  it('counts blocks per surface: 50 in a message, 100 in a modal', () => {
    const blocks = (n: number) => Array.from({ length: n }, () => ({ type: 'divider' }));
    expect(blockLimitViolations(blocks(50), 'message')).toEqual([]);
    expect(blockLimitViolations(blocks(51), 'message')).toEqual([
      'no more than 50 items allowed [json-pointer:/blocks]',
    ]);
    expect(blockLimitViolations(blocks(100), 'modal')).toEqual([]);
    expect(blockLimitViolations(blocks(101), 'modal')).toEqual([
      'no more than 100 items allowed [json-pointer:/blocks]',
    ]);
  });

  it('reports each text over its limit with a pointer to it', () => {
    const blocks = [
      section('x'.repeat(3_001)),
      { type: 'section', fields: [{ type: 'mrkdwn', text: 'y'.repeat(2_001) }] },
      { type: 'header', text: plain('z'.repeat(151)) },
      actions(button('b'.repeat(76), 'a', 'v'.repeat(2_001))),
    ];
    expect(blockLimitViolations(blocks, 'message')).toEqual([
      'must be less than 3001 characters [json-pointer:/blocks/0/text/text]',
      'must be less than 2001 characters [json-pointer:/blocks/1/fields/0/text]',
      'must be less than 151 characters [json-pointer:/blocks/2/text/text]',
      'must be less than 76 characters [json-pointer:/blocks/3/elements/0/text/text]',
      'must be less than 2001 characters [json-pointer:/blocks/3/elements/0/value]',
    ]);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(blockLimitViolations([{ type: 'header', text: plain('📦'.repeat(150)) }], 'message')).toEqual([]);
  });

  it('reports too many fields, actions and context elements', () => {
    const blocks = [
      { type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'f' })) },
      { type: 'actions', elements: Array.from({ length: 26 }, (_, i) => button('b', `a${i}`)) },
      { type: 'context', elements: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'c' })) },
    ];
    expect(blockLimitViolations(blocks, 'message')).toEqual([
      'no more than 10 items allowed [json-pointer:/blocks/0/fields]',
      'no more than 25 items allowed [json-pointer:/blocks/1/elements]',
      'no more than 10 items allowed [json-pointer:/blocks/2/elements]',
    ]);
  });

  it('reports duplicate block_ids in a message and duplicate action_ids in a block', () => {
    const blocks = [
      { type: 'actions', block_id: 'nav', elements: [button('A', 'page'), button('B', 'page')] },
      { type: 'actions', block_id: 'nav', elements: [button('C', 'page')] },
    ];
    expect(blockLimitViolations(blocks, 'message')).toEqual([
      'duplicate action_id in block: page [json-pointer:/blocks/0/elements/1/action_id]',
      'duplicate block_id: nav [json-pointer:/blocks/1/block_id]',
    ]);
  });

  it('reports ids over 255 characters', () => {
    const blocks = [{ type: 'actions', block_id: 'b'.repeat(256), elements: [button('A', 'a'.repeat(256))] }];
    expect(blockLimitViolations(blocks, 'message')).toEqual([
      'must be less than 256 characters [json-pointer:/blocks/0/block_id]',
      'must be less than 256 characters [json-pointer:/blocks/0/elements/0/action_id]',
    ]);
  });

  it('reports unknown types and malformed text objects', () => {
    const blocks = [
      { type: 'table_of_contents' },
      { type: 'section', text: { type: 'markdown', text: 'x' } },
      { type: 'section', text: { type: 'mrkdwn', text: '' } },
      { type: 'header', text: { type: 'mrkdwn', text: 'h' } },
      {
        type: 'actions',
        elements: [{ type: 'button', action_id: 'a', text: { type: 'mrkdwn', text: 'b' } }],
      },
      { type: 'section', text: { type: 'mrkdwn', text: 'ok', emoji: true } },
      'not a block',
      { type: 'section' },
    ];
    expect(blockLimitViolations(blocks, 'message')).toEqual([
      'unsupported type: table_of_contents [json-pointer:/blocks/0/type]',
      'must be one of: plain_text, mrkdwn [json-pointer:/blocks/1/text/type]',
      'must be more than 0 characters [json-pointer:/blocks/2/text/text]',
      'must be plain_text [json-pointer:/blocks/3/text/type]',
      'must be plain_text [json-pointer:/blocks/4/elements/0/text/type]',
      'emoji is only allowed in plain_text [json-pointer:/blocks/5/text/emoji]',
      'must provide an object [json-pointer:/blocks/6]',
      'missing required field: text [json-pointer:/blocks/7]',
    ]);
  });

  it('rejects an input-only element in an actions block', () => {
    const blocks = [{ type: 'actions', elements: [{ type: 'plain_text_input', action_id: 'q' }] }];
    expect(blockLimitViolations(blocks, 'message')).toEqual([
      'unsupported type: plain_text_input [json-pointer:/blocks/0/elements/0/type]',
    ]);
  });
});

describe('viewLimitViolations', () => {
  const modal = {
    type: 'modal',
    callback_id: 'link',
    title: plain('Vincular workspace'),
    submit: plain('Vincular'),
    close: plain('Cancelar'),
    private_metadata: 'm'.repeat(3_000),
    blocks: [
      { type: 'input', label: plain('Usuário'), element: { type: 'plain_text_input', action_id: 'user' } },
    ],
  };

  it('accepts a modal within the limits', () => {
    expect(viewLimitViolations(modal)).toEqual([]);
  });

  it('reports title and buttons over 24 characters and private_metadata over 3,000', () => {
    const long = plain('t'.repeat(25));
    expect(
      viewLimitViolations({
        ...modal,
        title: long,
        submit: long,
        close: long,
        private_metadata: 'm'.repeat(3_001),
      }),
    ).toEqual([
      'must be less than 25 characters [json-pointer:/view/title/text]',
      'must be less than 25 characters [json-pointer:/view/submit/text]',
      'must be less than 25 characters [json-pointer:/view/close/text]',
      'must be less than 3001 characters [json-pointer:/view/private_metadata]',
    ]);
  });

  it('requires a title, and a submit button when the modal has inputs', () => {
    const { title: _title, submit: _submit, ...bare } = modal;
    expect(viewLimitViolations(bare)).toEqual([
      'missing required field: title [json-pointer:/view]',
      'missing required field: submit (input blocks need it) [json-pointer:/view]',
    ]);
  });

  it('checks the blocks of a view against the modal limit', () => {
    const blocks = Array.from({ length: 101 }, () => ({ type: 'divider' }));
    expect(viewLimitViolations({ ...modal, blocks })).toEqual([
      'no more than 100 items allowed [json-pointer:/view/blocks]',
    ]);
  });
});

describe('messageTextIssues', () => {
  it('allows 40,000 characters of message text', () => {
    expect(messageTextIssues('a'.repeat(40_000))).toEqual([]);
    expect(messageTextIssues('a'.repeat(40_001))).toEqual([
      { pointer: '/text', message: 'must be less than 40001 characters' },
    ]);
  });
});
