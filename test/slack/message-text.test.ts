import { describe, expect, it } from 'vitest';
import { visibleMessageParts, visibleMessageText } from '../../src/slack/parse/message-text.js';

describe('visibleMessageText', () => {
  it('reads the text, then the words of blocks and attachments, not buttons’ values', () => {
    const text = visibleMessageText({
      text: 'Resumo do estoque',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Novidades' } },
        {
          type: 'section',
          text: { type: 'mrkdwn', text: 'Solicitação *1312*' },
          fields: [{ type: 'mrkdwn', text: 'campo 1' }],
          accessory: { type: 'button', text: { type: 'plain_text', text: 'Ver' }, value: '{"id":999}' },
        },
        { type: 'context', elements: [{ type: 'mrkdwn', text: 'nota' }] },
        {
          type: 'rich_text',
          elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: 'SM 1316' }] }],
        },
      ],
      attachments: [{ fallback: 'anexo', text: 'texto do anexo' }],
    });
    expect(text.split('\n')).toEqual([
      'Resumo do estoque',
      'Novidades',
      'Solicitação *1312*',
      'campo 1',
      'nota',
      'SM 1316',
      'anexo',
      'texto do anexo',
    ]);
    expect(text).not.toContain('999');
  });

  it("reads a legacy attachment field's title and value (a value of a block's element stays unread)", () => {
    const text = visibleMessageText({
      attachments: [{ fields: [{ title: 'Solicitação', value: '4105', short: true }] }],
      blocks: [
        {
          type: 'actions',
          elements: [{ type: 'button', value: '777', text: { type: 'plain_text', text: 'x' } }],
        },
      ],
    });
    expect(text.split('\n')).toEqual(['x', 'Solicitação', '4105']);
  });

  it('parts: the text, each top-level block, each attachment, in order (a block’s own texts joined)', () => {
    const parts = visibleMessageParts({
      text: 'Resumo',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Novidades' } },
        { type: 'section', text: { type: 'mrkdwn', text: '*1324* · Central' }, fields: [{ text: 'campo' }] },
        { type: 'divider' },
        {
          type: 'rich_text',
          elements: [{ type: 'rich_text_section', elements: [{ text: 'a SM ' }, { text: '1312' }] }],
        },
      ],
      attachments: [{ fallback: 'anexo', fields: [{ title: 'Solicitação', value: '4105' }] }],
    });
    expect(parts).toEqual([
      'Resumo',
      'Novidades',
      '*1324* · Central\ncampo',
      'a SM \n1312',
      'anexo\nSolicitação\n4105',
    ]);
    expect(visibleMessageParts(null)).toEqual([]);
  });

  it('is bounded and never throws on what a payload may hold', () => {
    expect(visibleMessageText(null)).toBe('');
    expect(visibleMessageText('texto')).toBe('');
    expect(visibleMessageText({ text: 42, blocks: 'x', attachments: { text: 1 } })).toBe('');
    let deep: object = { text: 'fundo' };
    for (let i = 0; i < 10_000; i++) deep = { elements: [deep] };
    expect(visibleMessageText({ blocks: [deep] })).toBe('');
    const wide = { blocks: Array.from({ length: 100_000 }, () => ({ text: 'x'.repeat(10) })) };
    expect(visibleMessageText(wide).length).toBeLessThanOrEqual(30_000);
  });
});
