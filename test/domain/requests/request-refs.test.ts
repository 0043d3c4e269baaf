import { describe, expect, it } from 'vitest';
import {
  findRequestNumbers,
  findRequestNumbersInParts,
  leadingRequestNumber,
  MAX_REQUEST_REFS,
} from '../../../src/domain/requests/request-refs.js';

describe('findRequestNumbers', () => {
  it.each([
    ['a solicitação 4105 chegou', [4105]],
    ['SOLICITACAO Nº 4105', [4105]],
    ['solicitação n. 77 e solicitação #78', [77, 78]],
    ['ver SM 4105 e sm-4106 e SM4107', [4105, 4106, 4107]],
    ['olha a #1321 aí', [1321]],
    ['a 1312 está atrasada', [1312]],
    ['pedido 123456789 no sistema', [123456789]],
    // A list after the word (until 2026-11-27 only its first number), and a hyphen after the word too.
    ['Solicitações 4105, 4106 e 4107 chegaram', [4105, 4106, 4107]],
    ['solicitações 4105 e 4106', [4105, 4106]],
    ['SM 4105/4106', [4105, 4106]],
    ['solicitacao-4105', [4105]],
    // A small count after the list is no number of it.
    ['solicitação 4105 e 2 itens', [4105]],
    // `nº` (`n.º`, `no.`, `n°`, `#`) before each number of a list (until 2026-11-27 only the first was read).
    ['as solicitações nº 4105 e nº 4106', [4105, 4106]],
    // After `#12` a bare number is never read: these numbers come from the labelled list alone.
    ['#12 e solicitações n.º 4105, n.º 4106 e n° 4107', [12, 4105, 4106, 4107]],
    ['#12 e SM 4105/no. 4106', [12, 4105, 4106]],
    ['solicitação nº 4105, nº 4106', [4105, 4106]],
    ['solicitações nº 4105 e nº 2 itens', [4105]],
  ])('%s', (text, expected) => {
    expect(findRequestNumbers(text)).toEqual(expected);
  });

  it('prefers the explicit forms to a bare number, and keeps the order of the message', () => {
    expect(findRequestNumbers('em 2026, #12 antes da solicitação 9')).toEqual([12, 9]);
  });

  it('reads no number from dates, times, decimals, mentions, channels and links', () => {
    const text =
      'em 10/11/2026 às 10:30, custo 1.234,50 e 12345.6, <@U12345678> em <#C1234567|almox>, ' +
      '<https://example.com/x/98765|o link> https://example.com/55555 e 123 curtinho';
    expect(findRequestNumbers(text)).toEqual([]);
  });

  it('gives nothing for no text, and never a number outside int32', () => {
    expect(findRequestNumbers('')).toEqual([]);
    expect(findRequestNumbers(undefined)).toEqual([]);
    expect(findRequestNumbers({ text: 'SM 12' })).toEqual([]);
    expect(findRequestNumbers('solicitação 0 e #9999999999')).toEqual([]);
    expect(findRequestNumbers('SM 2147483648 e SM 2147483647')).toEqual([2147483647]);
  });

  it('is safe on hostile text: huge, repeated, other scripts’ digits, control characters', () => {
    expect(findRequestNumbers('#1 '.repeat(100_000))).toEqual([1]);
    expect(findRequestNumbers(`${'solicitação '.repeat(50_000)}x`)).toEqual([]);
    expect(findRequestNumbers('SM ４１０５ e ٤١٠٥ e \u0000#4105\u202e')).toEqual([4105]);
    const many = Array.from({ length: 30 }, (_, i) => `#${1000 + i}`).join(' ');
    expect(findRequestNumbers(many)).toHaveLength(MAX_REQUEST_REFS);
  });

  it('keeps compatibility characters as typed: a superscript is no digit, `nª` is `nº` (fold reads them plain)', () => {
    // lib/text's fold takes compatibility forms since 2026-11-27 (`²` is `2` there): a number read out of a message
    // must not take a superscript for one more digit, nor lose `nª`.
    expect(findRequestNumbers('pedido 4105² ok')).toEqual([4105]);
    expect(leadingRequestNumber('solicitação nª 4105')).toEqual({ id: 4105, rest: '' });
    expect(findRequestNumbers('SM ４１０５')).toEqual([]);
  });

  it('reads numbers inside mrkdwn emphasis, as the bot’s own messages write them', () => {
    expect(findRequestNumbers('Nova solicitação *4105* — Central')).toEqual([4105]);
    expect(findRequestNumbers('~SM 4106~ e `#4107`')).toEqual([4106, 4107]);
    expect(findRequestNumbers('chegou a _4108_?')).toEqual([4108]);
    // An underscore inside a word keeps the number part of that word.
    expect(findRequestNumbers('arquivo relatorio_4109 anexado')).toEqual([]);
  });

  it('never reads a number labelled as a purchase as a request (the bot’s receipt alert, its digest)', () => {
    // The feed's receipt alert and the digest's pending purchases (src/render/feed.ts, digest.ts).
    expect(findRequestNumbers('Compra *7012* recebida (Hidráulica São Jorge Ltda)')).toEqual([]);
    expect(
      findRequestNumbers('Compra *7012* recebida em parte (Hidráulica)\nSolicitações: 4105, 4221'),
    ).toEqual([4105, 4221]);
    expect(
      findRequestNumbers(
        '*4221* · Almoxarifado Central — Márcia\n*Compra 7012* · Almoxarifado Central\nFornecedor: Hidráulica (4)',
      ),
    ).toEqual([4221]);
    for (const text of [
      'a OC 7012 chegou',
      'oc:7012',
      'compra:7012',
      'Pedido de compra 7012',
      'Ordem de compra: 7012',
      'compra nº 7.012',
      'compras 7012, 7013 e 7014',
      'Compra agrupadora: 7001',
      'Solicitações vinculadas à compra 7012',
      'a compra #7012 foi aprovada',
    ])
      expect(findRequestNumbers(text), text).toEqual([]);
    // Beside a request: only the request.
    expect(findRequestNumbers('SM 4105 (compra 7012)')).toEqual([4105]);
    expect(findRequestNumbers('Compra: 7012 — a 4105 está atrasada')).toEqual([4105]);
  });

  it('reads a pt-BR thousands separator and a number/year as one number', () => {
    expect(findRequestNumbers('Solicitação nº 4.105')).toEqual([4105]);
    expect(findRequestNumbers('SM 4.105')).toEqual([4105]);
    expect(findRequestNumbers('#4.105 chegou')).toEqual([4105]);
    expect(findRequestNumbers('SM 4105/2025')).toEqual([4105]);
    expect(findRequestNumbers('solicitação nº 4.105/2026 aprovada')).toEqual([4105]);
    // A list goes on as before; a decimal is no thousands separator.
    expect(findRequestNumbers('SM 4105/4106')).toEqual([4105, 4106]);
    expect(findRequestNumbers('solicitações 4.105, 4.106 e 4107')).toEqual([4105, 4106, 4107]);
    expect(findRequestNumbers('solicitação 4.5')).toEqual([4]);
  });
});

describe('findRequestNumbersInParts', () => {
  it('reads each part on its own (a bare number counts beside another part’s label), merged in order, each once', () => {
    // A digest: its summary, its rows of new requests, a low-stock line that names a request with its label.
    const parts = [
      'Resumo do estoque de 27/11/2026: 2 solicitações novas',
      '*1324* · Almoxarifado Central\nSolicitante: Márcia · Status: Aberta (1)',
      '*1321* · Almoxarifado Central',
      '*Compra 7012* · Almoxarifado Central\nFornecedor: Hidráulica (12)',
      '*Lâmpada LED 1500 lm* — saldo 0\nVisto na solicitação 1321 em 27/11/2026 06:00',
    ];
    expect(findRequestNumbersInParts(parts)).toEqual([1324, 1321]);
    // The same text as one part: the label hides the bare numbers, as findRequestNumbers reads it.
    expect(findRequestNumbers(parts.join('\n'))).toEqual([1321]);
  });

  it('keeps the rule inside a part: a person’s message (its text and its rich text block) offers its labelled one', () => {
    const said = 'a SM 1312 chegou? são 1500 unidades';
    expect(findRequestNumbersInParts([said, said])).toEqual([1312]);
  });

  it('is bounded: at most MAX_REQUEST_REFS numbers, nothing but strings read', () => {
    const parts = Array.from({ length: 30 }, (_, i) => `#${1000 + i}`);
    expect(findRequestNumbersInParts(parts)).toHaveLength(MAX_REQUEST_REFS);
    expect(findRequestNumbersInParts([42, null, { text: 'SM 12' }, 'SM 13'])).toEqual([13]);
    expect(findRequestNumbersInParts([])).toEqual([]);
    expect(findRequestNumbersInParts(['x'.repeat(30_000), 'SM 14'])).toEqual([]);
  });
});

describe('leadingRequestNumber', () => {
  it('reads the thousands separator and a number/year as findRequestNumbers does', () => {
    expect(leadingRequestNumber('SM 4.105 historico')).toEqual({ id: 4105, rest: ' historico' });
    expect(leadingRequestNumber('solicitação nº 4105/2025')).toEqual({ id: 4105, rest: '' });
    expect(leadingRequestNumber('SM 1312')).toEqual({ id: 1312, rest: '' });
  });
});
