import { describe, expect, it } from 'vitest';
import type { NewRequestEvent } from '../../src/domain/feed/types.js';
import type { MaterialMatch } from '../../src/domain/views.js';
import { feedEventLine } from '../../src/render/feed.js';
import { code, safeText } from '../../src/render/format.js';
import { materialOption } from '../../src/render/home-modals.js';
import { renderMaterialSearch, renderRequestList } from '../../src/render/index.js';
import { requestRow } from '../../src/render/request-list.js';
import type { Message } from '../../src/render/types.js';
import { allText, answer, ctx, material, request } from './fixtures.js';

/**
 * Upstream values (and a user's own words) that try to change how the bot's text reads: bidirectional controls
 * that reverse the rest of the line, and values made only of invisible characters.
 */

const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const RLO = '\u202e';
/** Zero-width space, word joiner, Mongolian vowel separator, BOM: all kept by String.prototype.trim(). */
const INVISIBLE = '\u200b\u2060\u180e\ufeff';

function listOf(...rows: ReturnType<typeof request>[]): Message {
  return renderRequestList(
    answer({
      filters: {},
      mine: null,
      defaultPeriod: true,
      list: { rows, page: 1, pageSize: 10, totalRows: rows.length, totalPages: 1 },
    }),
    ctx,
  );
}

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

describe('bidirectional controls in upstream text', () => {
  it('a request list row whose requester ends in U+202E keeps the bot’s status readable, in order', () => {
    const message = listOf(
      request({ solicitante_Nome: `Márcia ${RLO}Conceição`, almoxarifado_Nome: `\u2067Central\u2066` }),
    );
    const text = allText(message);
    expect(text).not.toMatch(BIDI);
    expect(message.text).not.toMatch(BIDI);
    expect(text).toContain('Solicitante: Márcia Conceição · Status: Aprovada (2)');
    expect(text).toContain('Central');
  });

  it('every control is removed: embeddings, overrides, isolates and marks', () => {
    const all = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c';
    expect(safeText(`a${all}b`)).toBe('ab');
    expect(code(`CB${RLO}-10`)).toBe('`CB-10`');
    expect(
      feedEventLine({
        kind: 'novas',
        requestId: 7,
        requesterName: `Ana${RLO}`,
        stockroomName: null,
      } as NewRequestEvent),
    ).toBe('Nova solicitação *7* — Ana');
  });

  it('plain-text paths too: the material picker’s option and the search header', () => {
    const option = materialOption(material({ codigo: `CB${RLO}10`, nome: `Cabo ${RLO}flex` }));
    expect(option.text.text).toBe('CB10 · Cabo flex');
    const search = renderMaterialSearch(
      answer({ text: `cabo${RLO} 2,5`, stockroomId: null, page: 1, matches: [match()] }),
      ctx,
    );
    expect(allText(search)).not.toMatch(BIDI);
    expect(search.text).not.toMatch(BIDI);
  });
});

describe('values made only of invisible characters', () => {
  it('show as "—", like an empty value', () => {
    expect(safeText(INVISIBLE)).toBe('—');
    expect(safeText(` ${INVISIBLE}\u3164 `)).toBe('—');
    expect(requestRow(request({ solicitante_Nome: INVISIBLE })).text?.text).toContain('Solicitante: — ·');
  });

  it('fall back as an empty value does: the picker option uses the next name, or the material number', () => {
    const named = materialOption(
      material({ material: 9, codigo: INVISIBLE, nome: INVISIBLE, nomeFormatted: 'Cabo' }),
    );
    expect(named.text.text).toBe('Cabo');
    const unnamed = materialOption(
      material({ material: 9, codigo: null, nome: INVISIBLE, nomeFormatted: null }),
    );
    expect(unnamed.text.text).toBe('Material 9');
  });

  it('visible text keeps its joiners: an emoji sequence is not broken', () => {
    const worker = '\u{1f469}\u200d\u{1f527}';
    expect(safeText(`Equipe ${worker}`)).toBe(`Equipe ${worker}`);
    expect(safeText(worker)).toBe(worker);
  });
});
