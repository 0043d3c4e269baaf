import type { Button, KnownBlock, ModalView } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { button, context, header, section } from '../../src/render/blocks.js';
import { checkMessageLimits, finalizeMessage, type Message } from '../../src/render/index.js';
import { buttonsOf } from './fixtures.js';

const long = (n: number) => 'x'.repeat(n);
const rawButton = (text: string, actionId: string, value?: string): Button => ({
  type: 'button',
  text: { type: 'plain_text', text },
  action_id: actionId,
  ...(value !== undefined && { value }),
});

/** A message that breaks every limit, built by hand (the builders would already cut it). */
function badMessage(): Message {
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: long(151) } },
    { type: 'section', text: { type: 'mrkdwn', text: long(3001) } },
    {
      type: 'section',
      fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn' as const, text: long(2001) })),
    },
    { type: 'context', elements: Array.from({ length: 11 }, () => ({ type: 'mrkdwn' as const, text: 'a' })) },
    {
      type: 'actions',
      elements: [
        rawButton(long(76), 'nav:0'),
        rawButton('ok', long(256)),
        rawButton('grande', 'nav:1', long(2001)),
        rawButton('repetido', 'nav:0'),
        ...Array.from({ length: 22 }, (_, i) => rawButton(`b${i}`, `x:${i}`)),
      ],
    },
    { type: 'section', text: { type: 'mrkdwn', text: '' } },
    ...Array.from({ length: 46 }, () => section('linha')),
  ];
  return { text: long(3001), blocks };
}

describe('checkMessageLimits', () => {
  it('returns nothing for a message within the limits', () => {
    expect(
      checkMessageLimits({ text: 'ok', blocks: [header('Título'), section('texto'), context('nota')] }),
    ).toEqual([]);
  });

  it('names every limit a message breaks', () => {
    const problems = checkMessageLimits(badMessage()).join('\n');
    expect(problems).toContain('blocks: 52 items (max 50)');
    expect(problems).toContain('text: 3001 characters (max 3000)');
    expect(problems).toContain('blocks[0].text.text: 151 characters (max 150)');
    expect(problems).toContain('blocks[1].text: 3001 characters (max 3000)');
    expect(problems).toContain('blocks[2].fields: 11 items (max 10)');
    expect(problems).toContain('blocks[2].fields[0]: 2001 characters (max 2000)');
    expect(problems).toContain('blocks[3].elements: 11 items (max 10)');
    expect(problems).toContain('blocks[4].elements: 26 items (max 25)');
    expect(problems).toContain('blocks[4].elements[0].text.text: 76 characters (max 75)');
    expect(problems).toContain('blocks[4].elements[1].action_id: 256 characters (max 255)');
    expect(problems).toContain('blocks[4].elements[2].value: 2001 characters (max 2000)');
    expect(problems).toContain('blocks[4].elements[3].action_id: "nav:0" repeated');
    expect(problems).toContain('blocks[5].text: empty');
  });

  it('checks modals: 100 blocks, title and buttons of 24 characters', () => {
    const modal: ModalView = {
      type: 'modal',
      title: { type: 'plain_text', text: 'Vincular o sistema de estoque' },
      submit: { type: 'plain_text', text: 'ok' },
      blocks: Array.from({ length: 101 }, () => section('x')),
    };
    const problems = checkMessageLimits(modal).join('\n');
    expect(problems).toContain('blocks: 101 items (max 100)');
    expect(problems).toContain('title.text: 29 characters (max 24)');
  });
});

describe('finalizeMessage', () => {
  it('trims a message that breaks every limit until it fits, keeping its buttons', () => {
    const fitted = finalizeMessage(badMessage());
    expect(checkMessageLimits(fitted)).toEqual([]);
    expect(fitted.blocks).toHaveLength(50);
    expect(JSON.stringify(fitted.blocks.at(-1))).toContain('Resposta encurtada');
  });

  it('keeps the trailing buttons and context when it drops blocks', () => {
    const message: Message = {
      text: 'lista',
      blocks: [
        ...Array.from({ length: 60 }, (_, i) => section(`linha ${i}`)),
        { type: 'actions', elements: [button({ text: 'Próxima', actionId: 'nav:' })] },
        context('Compartilhado por <@U1>'),
      ],
    };
    const fitted = finalizeMessage(message);
    expect(fitted.blocks).toHaveLength(50);
    expect(fitted.blocks.at(-2)?.type).toBe('actions');
    expect(fitted.blocks.at(-1)?.type).toBe('context');
    expect(checkMessageLimits(fitted)).toEqual([]);
  });

  it('numbers route buttons so action ids are unique within the message', () => {
    const fitted = finalizeMessage({
      text: 't',
      blocks: [
        section('a', button({ text: 'Ver', actionId: 'nav:' })),
        section('b', button({ text: 'Ver', actionId: 'nav:' })),
        {
          type: 'actions',
          elements: [
            button({ text: 'Atualizar', actionId: 'refresh:' }),
            button({ text: 'Compartilhar', actionId: 'share:' }),
          ],
        },
      ],
    });
    expect(buttonsOf(fitted).map((b) => b.actionId)).toEqual(['nav:0', 'nav:1', 'refresh:0', 'share:0']);
    expect(finalizeMessage(fitted)).toEqual(fitted);
  });

  it('drops a button whose value is too long rather than sending a broken one', () => {
    const fitted = finalizeMessage({
      text: 't',
      blocks: [
        { type: 'actions', elements: [rawButton('grande', 'nav:', long(2001)), rawButton('ok', 'nav:')] },
      ],
    });
    expect(buttonsOf(fitted).map((b) => b.text)).toEqual(['ok']);
  });
});
