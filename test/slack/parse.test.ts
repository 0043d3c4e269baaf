import { describe, expect, it } from 'vitest';
import type { Route } from '../../src/domain/routes.js';
import { renderHelp } from '../../src/render/help.js';
import { routeOfCompras, routeOfEstoque, routeOfSolicitacao } from '../../src/slack/commands/routes-of.js';
import { parseCompras, parseEstoque, parseSolicitacao } from '../../src/slack/parse/commands.js';
import { parseLocalDate, parseTimeOfDay, tokenize } from '../../src/slack/parse/tokens.js';
import { allText } from '../render/fixtures.js';

describe('tokens', () => {
  it('splits filters from words and reports repeated or empty filters', () => {
    const t = tokenize('  lâmpada  almox:3 LED  Status:1,2 ');
    expect(t.words).toEqual(['lâmpada', 'LED']);
    expect(Object.fromEntries(t.filters)).toEqual({ almox: '3', status: '1,2' });
    expect(tokenize('almox:1 almox:2').problems).toHaveLength(1);
    expect(tokenize('almox:').problems).toHaveLength(1);
  });

  it('takes the next word as the value of a filter written with a space after its colon (as phones write it)', () => {
    const t = tokenize('pagina: 2 almox: 3 torre');
    expect(Object.fromEntries(t.filters)).toEqual({ pagina: '2', almox: '3' });
    expect(t.words).toEqual(['torre']);
    expect(t.problems).toEqual([]);
    // Not another filter, and not past the end: those keep the filter without value.
    expect(tokenize('almox: status:1')).toMatchObject({ problems: ['o filtro `almox:` está sem valor'] });
    expect(Object.fromEntries(tokenize('almox: status:1').filters)).toEqual({ status: '1' });
    expect(tokenize('torre almox:')).toMatchObject({
      words: ['torre'],
      problems: ['o filtro `almox:` está sem valor'],
    });
  });

  it('reads a filter value cut by a space beside a comma (as phones write it) as one list', () => {
    for (const text of ['status:1, 2', 'status:1 ,2', 'status:1 , 2', 'status: 1, 2', 'status: 1 , 2'])
      expect(tokenize(text), text).toEqual({
        words: [],
        filters: new Map([['status', '1,2']]),
        problems: [],
      });
    expect(tokenize('status:1, 2, 3 cimento almox:2')).toEqual({
      words: ['cimento'],
      filters: new Map([
        ['status', '1,2,3'],
        ['almox', '2'],
      ]),
      problems: [],
    });
    // Only pieces a comma joins: a word after the list is free text, a filter after a comma is a filter.
    expect(tokenize('status:1 cimento')).toMatchObject({
      words: ['cimento'],
      filters: new Map([['status', '1']]),
    });
    expect(tokenize('status:1, almox:2')).toMatchObject({
      words: [],
      filters: new Map([
        ['status', '1,'],
        ['almox', '2'],
      ]),
    });
    // Words of a search keep their commas and spaces.
    expect(tokenize('torre, bloco ,b')).toMatchObject({ words: ['torre,', 'bloco', ',b'] });
  });

  it('reads full-width characters as their plain form and drops invisible format characters', () => {
    expect(tokenize('１３１２ ｓｔａｔｕｓ：１').words).toEqual(['1312']);
    expect(Object.fromEntries(tokenize('１３１２ ｓｔａｔｕｓ：１').filters)).toEqual({ status: '1' });
    // Zero-width space, word joiner, bidi marks and isolates, BOM: Unicode's format characters (Cf).
    for (const invisible of ['\u200b', '\u2060', '\u200e', '\u200f', '\u2066', '\u2069', '\ufeff', '\u00ad'])
      expect(tokenize(`1312${invisible} almox:${invisible}2`), JSON.stringify(invisible)).toMatchObject({
        words: ['1312'],
        filters: new Map([['almox', '2']]),
      });
    // Only numbers and filters take their compatibility form: a search keeps what was typed, `mm²` included.
    expect(parseEstoque('cabo 2,5mm²')).toEqual({
      ok: true,
      command: { kind: 'material-search', text: 'cabo 2,5mm²', page: 1 },
    });
  });

  it('reads the decimal digits of any script (Unicode Nd) as ASCII where a number is read; searches keep them', () => {
    // Arabic-Indic, Extended Arabic-Indic (Persian), Devanagari, Bengali, Thai, Myanmar, Adlam.
    for (const zero of [0x0660, 0x06f0, 0x0966, 0x09e6, 0x0e50, 0x1040, 0x1e950]) {
      const digits = (text: string) => text.replace(/\d/g, (d) => String.fromCodePoint(zero + Number(d)));
      const label = zero.toString(16);
      expect(tokenize(digits('1234567890')).words, label).toEqual(['1234567890']);
      expect(tokenize(`${digits('#1312')} ${digits('status:1,2')}`), label).toMatchObject({
        words: ['#1312'],
        filters: new Map([['status', '1,2']]),
      });
      expect(Object.fromEntries(tokenize(digits('almox: 2 de: 01/10/2026 pagina:3')).filters), label).toEqual(
        {
          almox: '2',
          de: '01/10/2026',
          pagina: '3',
        },
      );
      // A word that is not a number is searched as typed.
      expect(tokenize(digits('cabo 2,5mm')).words, label).toEqual([digits('cabo'), digits('2,5mm')]);
    }
    // Every decimal digit Unicode has that NFKC already reads as ASCII (mathematical, segmented) reads the same.
    for (let code = 0; code <= 0x10ffff; code += 1) {
      const char = String.fromCodePoint(code);
      if (!/\p{Nd}/u.test(char)) continue;
      const plain = char.normalize('NFKC');
      const read = tokenize(char).words[0];
      expect(read, code.toString(16)).toMatch(/^[0-9]$/);
      if (/^[0-9]$/.test(plain)) expect(read, code.toString(16)).toBe(plain);
    }
  });

  it('reads dd/mm/aaaa and ISO dates, refusing dates that do not exist', () => {
    expect(parseLocalDate('01/10/2026')).toEqual({ year: 2026, month: 10, day: 1 });
    expect(parseLocalDate('2026-10-01')).toEqual({ year: 2026, month: 10, day: 1 });
    expect(parseLocalDate('29/02/2024')).toEqual({ year: 2024, month: 2, day: 29 });
    expect(parseLocalDate('29/02/2025')).toBeNull();
    expect(parseLocalDate('32/13/2025')).toBeNull();
    expect(parseLocalDate('ontem')).toBeNull();
  });

  it('reads times of day', () => {
    expect(parseTimeOfDay('07:30')).toEqual({ hour: 7, minute: 30 });
    expect(parseTimeOfDay('7h')).toEqual({ hour: 7, minute: 0 });
    expect(parseTimeOfDay('24:00')).toBeNull();
    expect(parseTimeOfDay('7')).toBeNull();
  });
});

describe('/estoque', () => {
  it('answers help for nothing or ajuda', () => {
    expect(parseEstoque('')).toEqual({ ok: true, command: { kind: 'help' } });
    expect(parseEstoque('AJUDA')).toEqual({ ok: true, command: { kind: 'help' } });
  });

  it('knows every subcommand regardless of accents and case', () => {
    expect(parseEstoque('Almoxarifados')).toMatchObject({ command: { kind: 'stockrooms' } });
    expect(parseEstoque('tipos')).toMatchObject({ command: { kind: 'types' } });
    expect(parseEstoque('categorias')).toMatchObject({ command: { kind: 'categories' } });
    expect(parseEstoque('vincular')).toMatchObject({ command: { kind: 'link' } });
    expect(parseEstoque('desvincular')).toMatchObject({ command: { kind: 'unlink' } });
    expect(parseEstoque('STATUS')).toMatchObject({ command: { kind: 'status' } });
  });

  it('searches materials with an optional stockroom', () => {
    expect(parseEstoque('lâmpada led almox:3')).toEqual({
      ok: true,
      command: { kind: 'material-search', text: 'lâmpada led', stockroomId: 3, page: 1 },
    });
    expect(parseEstoque('MAT-00123')).toEqual({
      ok: true,
      command: { kind: 'material-search', text: 'MAT-00123', page: 1 },
    });
  });

  it('takes `pagina:` on a material search, whose answer pages (Anterior/Próxima)', () => {
    expect(parseEstoque('de pagina:2')).toEqual({
      ok: true,
      command: { kind: 'material-search', text: 'de', page: 2 },
    });
    expect(parseEstoque('lâmpada pagina: 3 almox:3')).toEqual({
      ok: true,
      command: { kind: 'material-search', text: 'lâmpada', stockroomId: 3, page: 3 },
    });
    expect(routeOfEstoque({ kind: 'material-search', text: 'de', page: 2 })).toEqual({
      view: 'materials',
      text: 'de',
      page: 2,
    });
    for (const bad of ['de pagina:0', 'de pagina:100001', 'de pagina:x'])
      expect(parseEstoque(bad), bad).toMatchObject({
        ok: false,
        problem: expect.stringContaining('pagina:'),
      });
    // Answers with no pages take no `pagina:`.
    expect(parseEstoque('status pagina:2')).toEqual({ ok: false, problem: '`status` não aceita argumentos' });
  });

  it('takes `pagina:` alone on the stockroom, type and category lists, which page (Anterior/Próxima)', () => {
    expect(parseEstoque('Almoxarifados')).toEqual({ ok: true, command: { kind: 'stockrooms', page: 1 } });
    expect(parseEstoque('tipos pagina:2')).toEqual({ ok: true, command: { kind: 'types', page: 2 } });
    expect(parseEstoque('CATEGORIAS pagina: 3')).toEqual({
      ok: true,
      command: { kind: 'categories', page: 3 },
    });
    expect(routeOfEstoque({ kind: 'categories', page: 3 })).toEqual({ view: 'categories', page: 3 });
    for (const bad of ['tipos pagina:0', 'categorias pagina:100001', 'almoxarifados pagina:x'])
      expect(parseEstoque(bad), bad).toMatchObject({
        ok: false,
        problem: expect.stringContaining('pagina:'),
      });
    expect(parseEstoque('tipos almox:2')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('almox:'),
    });
    expect(parseEstoque('tipos de cabo')).toEqual({
      ok: false,
      problem: '`tipos` aceita só o filtro `pagina:`',
    });
  });

  it('refuses bad arguments', () => {
    expect(parseEstoque('lampada almox:abc').ok).toBe(false);
    expect(parseEstoque('lampada cor:azul').ok).toBe(false);
    expect(parseEstoque('almox:3').ok).toBe(false);
    expect(parseEstoque('status agora').ok).toBe(false);
  });

  it('parses digest subcommands', () => {
    expect(parseEstoque('resumo assinar')).toEqual({
      ok: true,
      command: { kind: 'digest-subscribe', hour: 8, minute: 0, weekdaysOnly: false },
    });
    expect(parseEstoque('resumo assinar 07:30 almox:2 dias:úteis')).toEqual({
      ok: true,
      command: { kind: 'digest-subscribe', hour: 7, minute: 30, weekdaysOnly: true, stockroomId: 2 },
    });
    expect(parseEstoque('Resumo Cancelar')).toMatchObject({ command: { kind: 'digest-cancel' } });
    expect(parseEstoque('resumo listar')).toMatchObject({ command: { kind: 'digest-list' } });
    expect(parseEstoque('resumo agora')).toMatchObject({ command: { kind: 'digest-now' } });
    expect(parseEstoque('resumo assinar 25:00').ok).toBe(false);
    // A time in full-width digits or in another script's (a phone keyboard's) is the same time.
    for (const typed of ['０７：３０', '٠٧:٣٠', '०७:३०', '07\u200b:30'])
      expect(parseEstoque(`resumo assinar ${typed}`)).toMatchObject({ command: { hour: 7, minute: 30 } });
    expect(parseEstoque('resumo assinar dias:sabado').ok).toBe(false);
    expect(parseEstoque('resumo').ok).toBe(false);
  });

  it('reads `eventos:novas, status` (a space beside the comma) as one list of events', () => {
    for (const text of [
      'alertas assinar eventos:novas, status',
      'alertas assinar eventos:novas ,status',
      'alertas assinar eventos: novas , status',
      'alertas assinar eventos:novas,status,',
    ])
      expect(parseEstoque(text), text).toEqual({
        ok: true,
        command: { kind: 'feed-subscribe', kinds: ['novas', 'status'] },
      });
    expect(parseEstoque('alertas assinar eventos:novas, tudo')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('`eventos:novas,tudo` não é válido'),
    });
  });
});

describe('/solicitacao', () => {
  it('reads a request id, with history in any spelling', () => {
    expect(parseSolicitacao('123')).toEqual({
      ok: true,
      command: { kind: 'request-detail', id: 123, page: 1 },
    });
    expect(parseSolicitacao('#123')).toEqual({
      ok: true,
      command: { kind: 'request-detail', id: 123, page: 1 },
    });
    // As people write a request's number (and as Abrir solicitação reads it).
    for (const text of ['SM 123', 'sm #123', 'SM-123', 'SM123', 'Solicitação 123', 'solicitação nº 123'])
      expect(parseSolicitacao(text)).toEqual({
        ok: true,
        command: { kind: 'request-detail', id: 123, page: 1 },
      });
    // `no` is a word of its own in Portuguese: `no 2025` is a search.
    expect(parseSolicitacao('no 2025')).toMatchObject({ ok: true, command: { kind: 'request-list' } });
    expect(parseSolicitacao('SM 123 historico')).toEqual({
      ok: true,
      command: { kind: 'request-history', id: 123, page: 1 },
    });
    // Without a number after it, the word is a search like any other.
    expect(parseSolicitacao('sm')).toMatchObject({ ok: true, command: { kind: 'request-list' } });
    for (const word of ['historico', 'histórico', 'HISTORICO']) {
      expect(parseSolicitacao(`123 ${word}`)).toEqual({
        ok: true,
        command: { kind: 'request-history', id: 123, page: 1 },
      });
    }
    expect(parseSolicitacao('123 apagar').ok).toBe(false);
    expect(parseSolicitacao('0').ok).toBe(false);
  });

  it('reads a number in full-width digits or with an invisible character as the number', () => {
    for (const text of [
      '１３１２',
      '1312\u200b',
      '\u20681312\u2069',
      '1312\u2060',
      '#１３１２',
      'SM １３１２',
      'SM 1312\u200b',
    ])
      expect(parseSolicitacao(text), JSON.stringify(text)).toEqual({
        ok: true,
        command: { kind: 'request-detail', id: 1312, page: 1 },
      });
    expect(parseSolicitacao('１３１２ historico')).toEqual({
      ok: true,
      command: { kind: 'request-history', id: 1312, page: 1 },
    });
  });

  it('reads a number written as people write one, as Abrir solicitação reads it; other words stay a search', () => {
    for (const text of [
      '1.312',
      '1312/2026',
      '1312 / 2026',
      '1312.',
      '1312,',
      '(1312)',
      '(#1312)',
      'Nº 1312',
      'nº1312',
      'n.º 1312',
      'N° 1312',
      'n. 1312',
      '１.３１２',
      '(１３１２)',
    ])
      expect(parseSolicitacao(text), JSON.stringify(text)).toEqual({
        ok: true,
        command: { kind: 'request-detail', id: 1312, page: 1 },
      });
    expect(parseSolicitacao('1.312 historico')).toEqual({
      ok: true,
      command: { kind: 'request-history', id: 1312, page: 1 },
    });
    expect(parseSolicitacao('nº 1312 acompanhar')).toEqual({
      ok: true,
      command: { kind: 'request-follow', id: 1312 },
    });
    expect(parseSolicitacao('1312/2026 pagina:2')).toEqual({
      ok: true,
      command: { kind: 'request-detail', id: 1312, page: 2 },
    });
    // Words that are no number form stay text: a decimal, a number glued to letters, a word, `no` before a number.
    for (const text of ['4.5', '1312abc', 'cimento', 'torre 1312', 'no 2025', '1312/4106'])
      expect(parseSolicitacao(text), text).toMatchObject({ ok: true, command: { kind: 'request-list' } });
  });

  it('reads a number in Arabic-Indic or Devanagari digits as the number', () => {
    for (const text of ['١٣١٢', '#١٣١٢', 'SM ١٣١٢', '१३१२', '۱۳۱۲\u200b'])
      expect(parseSolicitacao(text), JSON.stringify(text)).toEqual({
        ok: true,
        command: { kind: 'request-detail', id: 1312, page: 1 },
      });
    expect(parseSolicitacao('status:١,٢ almox: ٣')).toEqual({
      ok: true,
      command: { kind: 'request-list', page: 1, filters: { status: [1, 2], stockroomId: 3 } },
    });
    expect(parseCompras('pagina:٢')).toEqual({
      ok: true,
      command: { kind: 'purchase-list', page: 2, filters: {} },
    });
    expect(parseSolicitacao('-١')).toEqual({
      ok: false,
      problem: '`-1` não é um número de solicitação válido',
    });
  });

  it('takes `pagina:` on a request (its items page) and on its history, and nothing else there', () => {
    expect(parseSolicitacao('1312 pagina:2')).toEqual({
      ok: true,
      command: { kind: 'request-detail', id: 1312, page: 2 },
    });
    expect(parseSolicitacao('SM 1312 itens pagina: 2')).toEqual({
      ok: true,
      command: { kind: 'request-detail', id: 1312, page: 2 },
    });
    expect(parseSolicitacao('1312 historico pagina:3')).toEqual({
      ok: true,
      command: { kind: 'request-history', id: 1312, page: 3 },
    });
    expect(routeOfSolicitacao({ kind: 'request-history', id: 1312, page: 3 })).toEqual({
      view: 'history',
      id: 1312,
      page: 3,
    });
    expect(parseSolicitacao('1312 historico pagina:100001').ok).toBe(false);
    expect(parseSolicitacao('1312 almox:2')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('filtro desconhecido `almox:`'),
    });
    // Following has no pages.
    expect(parseSolicitacao('1312 acompanhar pagina:2')).toEqual({
      ok: false,
      problem: '`acompanhar` não aceita filtros',
    });
  });

  it('takes `pagina:` alone on acompanhando, whose list pages (Anterior/Próxima)', () => {
    expect(parseSolicitacao('acompanhando')).toEqual({
      ok: true,
      command: { kind: 'request-following', page: 1 },
    });
    expect(parseSolicitacao('Acompanhando pagina: 3')).toEqual({
      ok: true,
      command: { kind: 'request-following', page: 3 },
    });
    expect(routeOfSolicitacao({ kind: 'request-following', page: 3 })).toEqual({
      view: 'following',
      page: 3,
    });
    for (const bad of ['acompanhando pagina:0', 'acompanhando pagina:100001', 'acompanhando pagina:x'])
      expect(parseSolicitacao(bad), bad).toMatchObject({
        ok: false,
        problem: expect.stringContaining('pagina:'),
      });
    expect(parseSolicitacao('acompanhando status:1')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('filtro desconhecido `status:`'),
    });
    expect(parseSolicitacao('acompanhando todas')).toEqual({
      ok: false,
      problem: '`acompanhando` aceita só o filtro `pagina:`',
    });
  });

  it('refuses a negative or signed number as a request number, as it refuses 0, instead of searching it', () => {
    for (const text of ['0', '-5', '#-5', '−5', '+5', '-1312 historico']) {
      const first = text.split(' ')[0];
      expect(parseSolicitacao(text), text).toEqual({
        ok: false,
        problem: `\`${first}\` não é um número de solicitação válido`,
      });
    }
    expect(parseCompras('-5')).toEqual({ ok: false, problem: '`-5` não é um número de compra válido' });
    expect(parseCompras('１２')).toEqual({
      ok: true,
      command: { kind: 'purchase-requests', id: 12, page: 1 },
    });
  });

  it('lists with filters and free text', () => {
    expect(parseSolicitacao('almox:2 status:1,2 de:01/10/2026 ate:2026-10-31 compra:77 torre norte')).toEqual(
      {
        ok: true,
        command: {
          kind: 'request-list',
          page: 1,
          filters: {
            stockroomId: 2,
            status: [1, 2],
            purchaseId: 77,
            from: { year: 2026, month: 10, day: 1 },
            to: { year: 2026, month: 10, day: 31 },
            text: 'torre norte',
          },
        },
      },
    );
    expect(parseSolicitacao('')).toEqual({
      ok: true,
      command: { kind: 'request-list', page: 1, filters: {} },
    });
    expect(parseSolicitacao('Minhas status:1')).toEqual({
      ok: true,
      command: { kind: 'request-mine', page: 1, filters: { status: [1] } },
    });
  });

  it('reads `status:1, 2` (a space beside the comma) as statuses 1 and 2, not status 1 and the text "2"', () => {
    for (const text of ['status:1, 2', 'status:1 ,2', 'status:1 , 2', 'status: 1, 2'])
      expect(parseSolicitacao(text), text).toEqual({
        ok: true,
        command: { kind: 'request-list', page: 1, filters: { status: [1, 2] } },
      });
    expect(parseSolicitacao('status:1, 2 cimento')).toEqual({
      ok: true,
      command: { kind: 'request-list', page: 1, filters: { status: [1, 2], text: 'cimento' } },
    });
    expect(parseSolicitacao('status:1 cimento')).toEqual({
      ok: true,
      command: { kind: 'request-list', page: 1, filters: { status: [1], text: 'cimento' } },
    });
    expect(parseCompras('status: 0 , 3 cabo')).toEqual({
      ok: true,
      command: { kind: 'purchase-list', page: 1, filters: { status: [0, 3], text: 'cabo' } },
    });
    // A word a comma joins to the list is part of it: refused with the usage, never half read.
    expect(parseSolicitacao('status:1, cimento')).toEqual({
      ok: false,
      problem: '`status:1,cimento` não é válido (use números separados por vírgula, como `status:1,2`)',
    });
  });

  it('refuses a bad id filter in words that agree with its noun (uma compra válida, um almoxarifado válido)', () => {
    // Until 2026-11-27 one template said "válido" for every label: "uma compra válido", "uma ordem de compra válido".
    const cases = [
      [parseSolicitacao, 'compra:0', '`compra:0` não é uma compra válida (use um número)'],
      [parseCompras, 'entradas oc:0', '`oc:0` não é uma ordem de compra válida (use um número)'],
      [parseCompras, 'fornecedor:x', '`fornecedor:x` não é um fornecedor válido (use um número)'],
      [parseCompras, 'pendentes almox:0', '`almox:0` não é um almoxarifado válido (use um número)'],
      [parseCompras, 'entradas almox:x', '`almox:x` não é um almoxarifado válido (use um número)'],
      [parseCompras, 'almox:-1', '`almox:-1` não é um almoxarifado válido (use um número)'],
      [parseSolicitacao, 'almox:x', '`almox:x` não é um almoxarifado válido (use um número)'],
      [parseEstoque, 'cabo almox:x', '`almox:x` não é um almoxarifado válido (use um número)'],
      [parseEstoque, 'resumo assinar almox:x', '`almox:x` não é um almoxarifado válido (use um número)'],
      [parseEstoque, 'alertas assinar almox:x', '`almox:x` não é um almoxarifado válido (use um número)'],
    ] as const;
    for (const [parse, text, problem] of cases) expect(parse(text), text).toEqual({ ok: false, problem });
  });

  it('refuses malformed filters', () => {
    expect(parseSolicitacao('status:abc')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('status:abc'),
    });
    expect(parseSolicitacao('de:32/13/2025')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('de:32/13/2025'),
    });
    expect(parseSolicitacao('de:10/10/2026 ate:01/10/2026').ok).toBe(false);
    expect(parseSolicitacao('fornecedor:3').ok).toBe(false);
    expect(parseSolicitacao('123 status:1').ok).toBe(false);
  });

  it('reads `chave: valor` (a space after the colon) as `chave:valor`, not as a request number', () => {
    expect(parseSolicitacao('pagina: 2')).toEqual({
      ok: true,
      command: { kind: 'request-list', page: 2, filters: {} },
    });
    expect(parseSolicitacao('almox: 2 torre')).toEqual({
      ok: true,
      command: { kind: 'request-list', page: 1, filters: { stockroomId: 2, text: 'torre' } },
    });
    expect(parseSolicitacao('status: 1')).toEqual({
      ok: true,
      command: { kind: 'request-list', page: 1, filters: { status: [1] } },
    });
    expect(parseSolicitacao('minhas de: 01/10/2026')).toEqual({
      ok: true,
      command: { kind: 'request-mine', page: 1, filters: { from: { year: 2026, month: 10, day: 1 } } },
    });
    // A filter at the very end has no value, as before.
    expect(parseSolicitacao('torre almox:')).toEqual({
      ok: false,
      problem: 'o filtro `almox:` está sem valor',
    });
  });
});

describe('/compras', () => {
  it('parses pendentes, entradas, an id and lists', () => {
    expect(parseCompras('pendentes')).toEqual({ ok: true, command: { kind: 'purchases-pending', page: 1 } });
    expect(parseCompras('Pendentes almox:4')).toEqual({
      ok: true,
      command: { kind: 'purchases-pending', stockroomId: 4, page: 1 },
    });
    expect(parseCompras('55')).toEqual({ ok: true, command: { kind: 'purchase-requests', id: 55, page: 1 } });
    expect(parseCompras('entradas oc:55 de:01/01/2026')).toEqual({
      ok: true,
      command: {
        kind: 'receipt-list',
        page: 1,
        filters: { purchaseId: 55, from: { year: 2026, month: 1, day: 1 } },
      },
    });
    expect(parseCompras('fornecedor:9 status:0 cabo')).toEqual({
      ok: true,
      command: { kind: 'purchase-list', page: 1, filters: { supplierId: 9, status: [0], text: 'cabo' } },
    });
  });

  it("takes `pagina:` on the pending purchases and on a purchase's requests, whose answers page", () => {
    expect(parseCompras('pendentes pagina:2')).toEqual({
      ok: true,
      command: { kind: 'purchases-pending', page: 2 },
    });
    expect(parseCompras('pendentes almox:2 pagina: 2')).toEqual({
      ok: true,
      command: { kind: 'purchases-pending', stockroomId: 2, page: 2 },
    });
    expect(routeOfCompras({ kind: 'purchases-pending', page: 2 })).toEqual({ view: 'pending', page: 2 });
    expect(parseCompras('5678 pagina:2')).toEqual({
      ok: true,
      command: { kind: 'purchase-requests', id: 5678, page: 2 },
    });
    expect(routeOfCompras({ kind: 'purchase-requests', id: 5678, page: 2 })).toEqual({
      view: 'purchase',
      id: 5678,
      page: 2,
    });
    expect(parseCompras('pendentes pagina:100001').ok).toBe(false);
    expect(parseCompras('pendentes cabo')).toEqual({
      ok: false,
      problem: '`pendentes` aceita só os filtros `almox:` e `pagina:`',
    });
  });

  it('refuses malformed input', () => {
    expect(parseCompras('pendentes status:1').ok).toBe(false);
    expect(parseCompras('entradas compra:3').ok).toBe(false);
    expect(parseCompras('55 almox:1').ok).toBe(false);
    // A filter with no value is malformed there too, as `/solicitacao 5 almox:` is.
    expect(parseCompras('55 almox:').ok).toBe(false);
    // A page no list has, whose upstream offset would overflow the service's int32: the usage, no call.
    expect(parseCompras('pagina:2147483647').ok).toBe(false);
    expect(parseSolicitacao('pagina:100001').ok).toBe(false);
    expect(parseSolicitacao('pagina:100000')).toMatchObject({ ok: true, command: { page: 100_000 } });
    expect(parseCompras('status:x').ok).toBe(false);
  });

  it('reads `chave: valor` (a space after the colon) as `chave:valor`, not as a purchase number', () => {
    expect(parseCompras('pagina: 2')).toEqual({
      ok: true,
      command: { kind: 'purchase-list', page: 2, filters: {} },
    });
    expect(parseCompras('fornecedor: 9 status: 0 cabo')).toEqual({
      ok: true,
      command: { kind: 'purchase-list', page: 1, filters: { supplierId: 9, status: [0], text: 'cabo' } },
    });
    expect(parseCompras('entradas oc: 55')).toEqual({
      ok: true,
      command: { kind: 'receipt-list', page: 1, filters: { purchaseId: 55 } },
    });
    expect(parseCompras('pendentes almox:')).toEqual({
      ok: false,
      problem: 'o filtro `almox:` está sem valor',
    });
  });
});

describe('`pagina:`, as the help names it', () => {
  const parsers = { estoque: parseEstoque, solicitacao: parseSolicitacao, compras: parseCompras } as const;
  const routeOf = {
    estoque: routeOfEstoque,
    solicitacao: routeOfSolicitacao,
    compras: routeOfCompras,
  } as const;

  it('every example of the help whose answer pages (its route has a page) takes `pagina:2`; no other does', () => {
    const help = allText(renderHelp());
    expect(help).toContain('`pagina:2` abre outra página das respostas com *Próxima*');
    const examples = [...help.matchAll(/`\/(estoque|solicitacao|compras)\b([^`]*)`/g)];
    expect(examples.length).toBeGreaterThan(20);
    const paged: string[] = [];
    for (const [example, name, text] of examples) {
      const command = name as keyof typeof parsers;
      const parsed = parsers[command](text ?? '');
      if (!parsed.ok) throw new Error(`${example}: ${parsed.problem}`);
      const route = (routeOf[command] as (c: unknown) => Route | null)(parsed.command);
      const withPage = parsers[command](`${text} pagina:2`);
      if (route !== null && 'page' in route) {
        paged.push(example);
        const next = withPage.ok
          ? (routeOf[command] as (c: unknown) => Route | null)(withPage.command)
          : null;
        expect(next, example).toEqual({ ...route, page: 2 });
      } else {
        expect(withPage.ok, example).toBe(false);
      }
    }
    // The answers with Anterior/Próxima: a search, a request, its history, the lists (the follows too), the pending
    // purchases.
    expect(paged).toEqual(
      expect.arrayContaining([
        '`/estoque lâmpada almox:2`',
        '`/solicitacao 1234`',
        '`/solicitacao 1234 historico`',
        '`/solicitacao minhas`',
        '`/solicitacao acompanhando`',
        '`/compras pendentes`',
        '`/compras 5678`',
      ]),
    );
  });
});
