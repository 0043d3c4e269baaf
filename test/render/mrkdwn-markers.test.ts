import { describe, expect, it } from 'vitest';
import type { NewRequestEvent } from '../../src/domain/feed/types.js';
import type { MaterialMatch } from '../../src/domain/views.js';
import { checkMessageLimits } from '../../src/render/blocks.js';
import { feedEventLine } from '../../src/render/feed.js';
import { code, escapeMrkdwn, safeText, truncateMrkdwn } from '../../src/render/format.js';
import { renderMaterialSearch, renderRequestDetail } from '../../src/render/index.js';
import { allText, answer, ctx, item, material, NOW } from './fixtures.js';

/**
 * Upstream names cannot format the bot's messages: `*`, `_`, `~` and backticks in them are shown, not read as
 * bold, italic, strike or code, and cannot swallow the bot's own `*labels*` after them on the same line.
 */

const MARKED = 'Cabo *flex* 2_5 ~PVC~ `x';
const SHOWN = 'Cabo ∗flex∗ 2ˍ5 ∼PVC∼ ˋx';
const ASCII_MARKERS = /[*_~`]/;

describe('escapeMrkdwn', () => {
  it('neutralises each formatting marker with a look-alike, one character for one', () => {
    expect(escapeMrkdwn(MARKED)).toBe(SHOWN);
    expect(escapeMrkdwn(MARKED)).toHaveLength(MARKED.length);
    // The full-width forms Slack also reads as markers.
    expect(escapeMrkdwn('＊negrito＊ ＿itálico＿ ｀código｀')).not.toMatch(/[＊＿｀]/);
  });

  it('still escapes mentions and links, and leaves the entities it writes intact', () => {
    expect(escapeMrkdwn('<@U1> & *x*')).toBe('&lt;@U1&gt; &amp; ∗x∗');
  });

  it('never makes a text longer: truncation and Slack limits count the same characters', () => {
    const long = '*_~`'.repeat(1_000);
    expect(safeText(long, 200)).toHaveLength(200);
    expect(truncateMrkdwn(escapeMrkdwn(long), 3000)).toHaveLength(3000);
  });

  it('leaves a code span alone: what is inside is copied and typed as it is', () => {
    expect(code('CABO_2*5')).toBe('`CABO_2*5`');
  });
});

function match(overrides: Partial<MaterialMatch> = {}): MaterialMatch {
  return {
    material: material(),
    typeName: null,
    categoryName: null,
    lastKnown: null,
    knownName: null,
    ...overrides,
  };
}

describe('upstream names with formatting markers', () => {
  it('request detail: the item name is shown as written, the bot’s bold stays balanced', () => {
    const message = renderRequestDetail(
      answer({
        id: 1234,
        header: {
          stockroomName: 'Almox *Central*',
          requesterName: '_Márcia_ `Conceição',
          statusName: '~Aberta~',
          status: 1,
          openedAt: null,
          lastChangeAt: null,
        },
        items: [item({ material_Nome: MARKED })],
        knownNames: new Map(),
        page: 1,
      }),
      ctx,
    );
    const text = allText(message);
    expect(text).toContain(SHOWN);
    expect(text).toContain('Almox ∗Central∗');
    expect(text).toContain('ˍMárciaˍ ˋConceição');
    expect(text).toContain('∼Aberta∼');
    expect(text).toContain('*Solicitante*');
    expect(text).not.toContain('Cabo *flex*');
    expect(checkMessageLimits(message)).toEqual([]);
  });

  it('material search: name, brand and unit cannot format, the code stays copyable in its code span', () => {
    const message = renderMaterialSearch(
      answer({
        text: 'cabo',
        stockroomId: null,
        page: 1,
        matches: [
          match({
            material: material({ nome: MARKED, codigo: 'CB_2*5', marca: 'Tubo ~PVC~', modelo: '`M`' }),
            typeName: '*Elétrico*',
            categoryName: '_Fios_',
          }),
        ],
      }),
      ctx,
    );
    const text = allText(message);
    expect(text).toContain(`*\`CB_2*5\` ${SHOWN}*`);
    expect(text).toContain('Marca/modelo: Tubo ∼PVC∼ / ˋMˋ');
    expect(text).toContain('Tipo: ∗Elétrico∗');
    expect(text).toContain('Categoria: ˍFiosˍ');
    expect(checkMessageLimits(message)).toEqual([]);
  });

  it('a feed row: the stockroom and requester cannot format nor open a span that swallows the rest', () => {
    const event: NewRequestEvent = {
      kind: 'novas',
      id: 'T1:novas:4221',
      workspaceId: 'T1',
      detectedAt: NOW,
      stockroomId: 2,
      requestId: 4221,
      stockroomName: 'Tubo ~PVC~ *',
      requesterName: 'Márcia `_',
      requesterEmail: null,
      statusName: 'Aberta',
    };
    const line = feedEventLine(event);
    expect(line).toBe('Nova solicitação *4221* — Tubo ∼PVC∼ ∗ — Márcia ˋˍ');
    expect(line.replace('*4221*', '')).not.toMatch(ASCII_MARKERS);
  });
});
