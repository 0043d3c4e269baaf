import { describe, expect, it } from 'vitest';
import { section } from '../../src/render/blocks.js';
import {
  escapeMrkdwn,
  formatAge,
  formatAt,
  formatDate,
  formatDateTime,
  formatIn,
  formatLocalDate,
  formatLooseDate,
  formatMoney,
  formatNumber,
  formatRatePeriod,
  formatSpan,
  formatWindow,
  joinAnd,
  mentionUser,
  safeText,
  truncate,
  truncateMrkdwn,
} from '../../src/render/format.js';
import { NOW } from './fixtures.js';

const SP = 'America/Sao_Paulo';

describe('numbers and money in pt-BR', () => {
  it('groups thousands with a dot and uses a decimal comma, up to three decimals without trailing zeros', () => {
    expect(formatNumber(1234.5)).toBe('1.234,5');
    expect(formatNumber(1234)).toBe('1.234');
    expect(formatNumber(0.1235)).toBe('0,124');
    expect(formatNumber(2.5)).toBe('2,5');
    expect(formatNumber(null)).toBe('—');
    expect(formatNumber(Number.NaN)).toBe('—');
  });

  it('writes money as R$ with a normal space and two decimals', () => {
    expect(formatMoney(1234.5)).toBe('R$ 1.234,50');
    expect(formatMoney(0)).toBe('R$ 0,00');
    expect(formatMoney(1_000_000)).toBe('R$ 1.000.000,00');
    expect(formatMoney(null)).toBe('—');
    expect(formatMoney(1234.5)).not.toContain('\u00a0');
  });
});

describe('dates', () => {
  it('shows a UTC instant in the workspace time zone as dd/MM/yyyy HH:mm', () => {
    expect(formatDateTime('2026-11-22T13:31:00Z', SP)).toBe('22/11/2026 10:31');
    expect(formatDateTime('2026-11-22T13:31:00.1234567Z', SP)).toBe('22/11/2026 10:31');
    expect(formatDateTime('2026-11-22T13:31:00+00:00', SP)).toBe('22/11/2026 10:31');
    expect(formatDateTime('2026-11-22T10:31:00-0300', SP)).toBe('22/11/2026 10:31');
    expect(formatDateTime(Date.UTC(2026, 0, 1, 2, 5), SP)).toBe('31/12/2025 23:05');
  });

  it('shows a date-time without zone as the service wrote it, whatever the time zone', () => {
    expect(formatDateTime('2026-11-20T14:30:00', SP)).toBe('20/11/2026 14:30');
    expect(formatDateTime('2026-11-20T14:30:00', 'Asia/Tokyo')).toBe('20/11/2026 14:30');
    expect(formatDateTime('2026-11-20 14:30', SP)).toBe('20/11/2026 14:30');
    expect(formatDateTime('2026-11-20T14:30:00.997', SP)).toBe('20/11/2026 14:30');
  });

  it('writes date-only values and dates without time as dd/MM/yyyy', () => {
    expect(formatDateTime('2026-11-20', SP)).toBe('20/11/2026');
    expect(formatDate('2026-11-20T23:59:00', SP)).toBe('20/11/2026');
    expect(formatDate('2026-11-21T01:00:00Z', SP)).toBe('20/11/2026');
    expect(formatLocalDate({ year: 2026, month: 10, day: 1 })).toBe('01/10/2026');
  });

  it('shows a dash for invalid or missing dates', () => {
    expect(formatDateTime(null, SP)).toBe('—');
    expect(formatDateTime('ontem', SP)).toBe('—');
    expect(formatDateTime('2026-02-30T10:00:00', SP)).toBe('—');
    expect(formatDateTime('2026-11-20T25:00:00', SP)).toBe('—');
    expect(formatDate(Number.NaN, SP)).toBe('—');
  });

  it('shows midnight without zone as a date in undocumented records', () => {
    expect(formatLooseDate('2026-11-10T00:00:00', SP)).toBe('10/11/2026');
    expect(formatLooseDate('2026-11-10T09:15:00', SP)).toBe('10/11/2026 09:15');
  });

  it('says when something will happen, with the date when it is not today', () => {
    expect(formatAt(NOW + 60 * 60_000, NOW, SP)).toBe('às 11:36');
    expect(formatAt(NOW + 14 * 3_600_000, NOW, SP)).toBe('em 23/11/2026 às 00:36');
  });
});

describe('ages and windows', () => {
  it('writes relative ages in pt-BR', () => {
    expect(formatAge(NOW - 10_000, NOW)).toBe('agora');
    expect(formatAge(NOW - 3 * 60_000, NOW)).toBe('há 3 min');
    expect(formatAge(NOW - 2 * 3_600_000 - 5, NOW)).toBe('há 2 h');
    expect(formatAge(NOW - 26 * 3_600_000, NOW)).toBe('há 1 dia');
    expect(formatAge(NOW - 3 * 86_400_000, NOW)).toBe('há 3 dias');
    expect(formatAge(NOW + 60_000, NOW)).toBe('agora');
    expect(formatIn(NOW + 90_000, NOW)).toBe('em 2 min');
    // Hours and minutes: until 2026-11-27 1 h 59 min read "em 1 h".
    expect(formatIn(NOW + 119 * 60_000, NOW)).toBe('em 1 h 59 min');
    expect(formatIn(NOW + 2 * 3_600_000, NOW)).toBe('em 2 h');
    expect(formatIn(NOW + 59 * 60_000 + 30_000, NOW)).toBe('em 1 h');
    expect(formatIn(NOW + 3 * 86_400_000, NOW)).toBe('em 3 dias');
  });

  it('writes a duration in pt-BR words (never `288s` or `2m`)', () => {
    expect(formatSpan(288_000)).toBe('4 min 48 s');
    expect(formatSpan(120_000)).toBe('2 min');
    expect(formatSpan(45_000)).toBe('45 s');
    expect(formatSpan(5_400_000)).toBe('1 h 30 min');
    expect(formatSpan(3_600_000)).toBe('1 h');
    expect(formatSpan(0)).toBe('0 s');
  });

  it('writes rate windows in words', () => {
    expect(formatWindow(3_600_000)).toBe('na última hora');
    expect(formatWindow(36_000)).toBe('nos últimos 36 s');
    expect(formatWindow(2 * 3_600_000)).toBe('nas últimas 2 horas');
    expect(formatWindow(60_000)).toBe('no último minuto');
    expect(formatRatePeriod(3_600_000)).toBe('por hora');
    expect(formatRatePeriod(36_000)).toBe('a cada 36 s');
  });
});

describe('text', () => {
  it('escapes the mrkdwn control characters so upstream text cannot mention or link', () => {
    expect(escapeMrkdwn('<@U123> & <!channel> <https://x.io|clique>')).toBe(
      '&lt;@U123&gt; &amp; &lt;!channel&gt; &lt;https://x.io|clique&gt;',
    );
    expect(safeText('  Fios <!here>  ')).toBe('Fios &lt;!here&gt;');
    expect(safeText(null)).toBe('—');
    expect(safeText('   ')).toBe('—');
  });

  it('truncates with an ellipsis, never splitting an emoji', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('abc', 4)).toBe('abc');
    const cut = truncate('ab😀cd', 4);
    expect(cut.length).toBeLessThanOrEqual(4);
    expect(cut).toBe('ab…');
  });

  it('cuts mrkdwn before an escape or a link it would split, never inside', () => {
    // "Fios & cabos" escaped: a plain cut at 9 would end in "&am…".
    expect(truncateMrkdwn('Fios &amp; cabos', 9)).toBe('Fios …');
    expect(truncateMrkdwn('Fios &amp; cabos', 11)).toBe('Fios &amp;…');
    expect(truncateMrkdwn('Pedido de <@U0123ABC> ontem', 14)).toBe('Pedido de …');
    expect(truncateMrkdwn('R&amp;D &lt;novo&gt;', 12)).toBe('R&amp;D …');
    expect(truncateMrkdwn('curto', 10)).toBe('curto');
    // What a section does with a text too long for Slack.
    const long = section(`${'x'.repeat(2994)} &amp; cabos`);
    expect(long.text?.text).toBe(`${'x'.repeat(2994)} …`);
  });

  it('mentions only real-looking user ids', () => {
    expect(mentionUser('U0123ABC')).toBe('<@U0123ABC>');
    expect(mentionUser('<!channel>')).toBe('&lt;!channel&gt;');
    expect(joinAnd(['1', '2', '3'])).toBe('1, 2 e 3');
  });
});
