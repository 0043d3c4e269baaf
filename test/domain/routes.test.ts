import { describe, expect, it } from 'vitest';
import { decodeRoute, encodeRoute, isShareable, type Route, withPage } from '../../src/domain/routes.js';

/**
 * Button values as the bot wrote them before routes read as words in memory (short keys, in the orders the
 * renderers and the command parser built them). Buttons already posted in Slack carry them: they must still
 * decode, to the same answer.
 */
const POSTED: [string, Route][] = [
  ['{"r":"help"}', { view: 'help' }],
  ['{"r":"stockrooms","p":1}', { view: 'stockrooms', page: 1 }],
  ['{"r":"types","p":2}', { view: 'types', page: 2 }],
  ['{"r":"categories","p":3}', { view: 'categories', page: 3 }],
  ['{"r":"status"}', { view: 'status' }],
  [
    '{"r":"materials","t":"lâmpada","s":2,"p":1}',
    { view: 'materials', text: 'lâmpada', stockroomId: 2, page: 1 },
  ],
  ['{"r":"materials","t":"parafuzo","p":1}', { view: 'materials', text: 'parafuzo', page: 1 }],
  ['{"r":"request","id":1234,"p":2}', { view: 'request', id: 1234, page: 2 }],
  ['{"r":"history","id":77,"p":1}', { view: 'history', id: 77, page: 1 }],
  ['{"r":"requests","f":{},"p":3}', { view: 'requests', filters: {}, page: 3 }],
  [
    '{"r":"requests","f":{"stockroomId":2,"status":[1,2],"from":{"year":2026,"month":10,"day":1},"to":{"year":2026,"month":10,"day":31},"text":"torre"},"p":1}',
    {
      view: 'requests',
      filters: {
        stockroomId: 2,
        status: [1, 2],
        from: { year: 2026, month: 10, day: 1 },
        to: { year: 2026, month: 10, day: 31 },
        text: 'torre',
      },
      page: 1,
    },
  ],
  [
    '{"r":"requests","f":{"purchaseId":5678},"p":2,"mine":true}',
    { view: 'requests', filters: { purchaseId: 5678 }, page: 2, mine: true },
  ],
  ['{"r":"pending","p":1}', { view: 'pending', page: 1 }],
  ['{"r":"pending","s":2,"p":1}', { view: 'pending', stockroomId: 2, page: 1 }],
  // The command parser wrote the page before the stockroom.
  ['{"r":"pending","p":1,"s":3}', { view: 'pending', stockroomId: 3, page: 1 }],
  [
    '{"r":"purchases","f":{"supplierId":12,"status":[1],"from":{"year":2026,"month":10,"day":1}},"p":2}',
    {
      view: 'purchases',
      filters: { supplierId: 12, status: [1], from: { year: 2026, month: 10, day: 1 } },
      page: 2,
    },
  ],
  ['{"r":"purchase","id":5678,"p":4}', { view: 'purchase', id: 5678, page: 4 }],
  [
    '{"r":"receipts","f":{"purchaseId":5678,"from":{"year":2026,"month":11,"day":1},"to":{"year":2026,"month":11,"day":30}},"p":1}',
    {
      view: 'receipts',
      filters: {
        purchaseId: 5678,
        from: { year: 2026, month: 11, day: 1 },
        to: { year: 2026, month: 11, day: 30 },
      },
      page: 1,
    },
  ],
];

describe('routes on buttons', () => {
  it.each(POSTED)('a button posted with %s still opens the same answer', (value, route) => {
    expect(decodeRoute(value)).toEqual(route);
  });

  it.each(POSTED)('encodes to the same short form it decodes from: %s', (value, route) => {
    expect(JSON.parse(encodeRoute(route))).toEqual(JSON.parse(value));
    expect(decodeRoute(encodeRoute(route))).toEqual(route);
  });

  it('a stockroom, type or category list posted before those lists paged (no page) opens their first page', () => {
    expect(decodeRoute('{"r":"stockrooms"}')).toEqual({ view: 'stockrooms', page: 1 });
    expect(decodeRoute('{"r":"types"}')).toEqual({ view: 'types', page: 1 });
    expect(decodeRoute('{"r":"categories"}')).toEqual({ view: 'categories', page: 1 });
  });

  it('writes the short keys in one order, whatever order the route was built in', () => {
    expect(encodeRoute({ page: 1, stockroomId: 3, view: 'pending' } as Route)).toBe(
      '{"r":"pending","s":3,"p":1}',
    );
    expect(encodeRoute({ view: 'requests', filters: {}, page: 2, mine: true })).toBe(
      '{"r":"requests","f":{},"p":2,"mine":true}',
    );
  });

  it.each([
    ['not JSON', '{"r":'],
    ['not an object', '["help"]'],
    ['the long keys of memory', '{"view":"help"}'],
    ['an unknown view', '{"r":"admin"}'],
    ['a missing page', '{"r":"request","id":1}'],
    ['an id out of int32', '{"r":"request","id":2147483648,"p":1}'],
    ['a null stockroom', '{"r":"pending","s":null,"p":1}'],
    ['a page 0 of a list of types', '{"r":"types","p":0}'],
    ['a page past the last page a route names', '{"r":"categories","p":100001}'],
    ['a page written as text', '{"r":"stockrooms","p":"2"}'],
    ['a null page', '{"r":"stockrooms","p":null}'],
    ['too long', `{"r":"materials","t":"${'a'.repeat(2000)}","p":1}`],
  ])('refuses a value with %s', (_, value) => {
    expect(decodeRoute(value)).toBeNull();
  });

  it('refuses to encode a route longer than a button value holds', () => {
    const filters = { text: 'x'.repeat(200), status: Array.from({ length: 20 }, () => 2_147_483_647) };
    expect(() => encodeRoute({ view: 'requests', filters, page: 1 })).not.toThrow();
    expect(() => encodeRoute({ view: 'materials', text: 'x'.repeat(2_100), page: 1 })).toThrow(/too long/);
  });

  it('the follows list carries its page and no user (the signed payload names who clicked), and is not shared', () => {
    const route: Route = { view: 'following', page: 2 };
    expect(encodeRoute(route)).toBe('{"r":"following","p":2}');
    expect(decodeRoute('{"r":"following","p":2}')).toEqual(route);
    expect(decodeRoute('{"r":"following","p":2,"u":"U00ADMIN1"}')).toEqual(route);
    expect(withPage(route, 3)).toEqual({ view: 'following', page: 3 });
    expect(isShareable(route)).toBe(false);
    expect(isShareable({ view: 'request', id: 1234, page: 1 })).toBe(true);
  });

  it('moves a paged route to another page and leaves the others alone', () => {
    expect(withPage({ view: 'history', id: 77, page: 1 }, 2)).toEqual({ view: 'history', id: 77, page: 2 });
    expect(withPage({ view: 'help' }, 2)).toEqual({ view: 'help' });
    expect(withPage({ view: 'categories', page: 1 }, 2)).toEqual({ view: 'categories', page: 2 });
  });
});
