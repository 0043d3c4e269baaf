import { describe, expect, it } from 'vitest';
import { blockOf, pageFromBlock } from '../../src/domain/page-blocks.js';
import { toPage } from '../../src/upstream/client.js';

const rows = (from: number, count: number, totalRows: number) =>
  Array.from({ length: count }, (_, i) => ({ id: from + i, totalRows }));

describe('blockOf', () => {
  it('names the block of rows that holds a page, and where the page starts in it', () => {
    expect(blockOf(1, 10, 100)).toEqual({ page: 1, pageSize: 100, offset: 0 });
    expect(blockOf(2, 10, 100)).toEqual({ page: 1, pageSize: 100, offset: 10 });
    expect(blockOf(10, 10, 100)).toEqual({ page: 1, pageSize: 100, offset: 90 });
    expect(blockOf(11, 10, 100)).toEqual({ page: 2, pageSize: 100, offset: 0 });
    expect(blockOf(6, 10, 50)).toEqual({ page: 2, pageSize: 50, offset: 0 });
  });

  it('refuses a block that is not a whole number of pages, and a page below 1', () => {
    expect(() => blockOf(1, 10, 25)).toThrow(RangeError);
    expect(() => blockOf(1, 10, 5)).toThrow(RangeError);
    expect(() => blockOf(0, 10, 100)).toThrow(RangeError);
  });
});

describe('pageFromBlock', () => {
  it('gives the page as upstream would: its rows, its total, its count of pages', () => {
    const block = toPage(rows(101, 24, 124), 2, 100);
    const ref = blockOf(12, 10, 100);
    expect(pageFromBlock(block, ref, 12, 10)).toEqual(toPage(rows(111, 10, 124), 12, 10));
    // The last, short page.
    expect(pageFromBlock(block, blockOf(13, 10, 100), 13, 10)).toEqual(toPage(rows(121, 4, 124), 13, 10));
  });

  it('gives an empty page past the end, with no total, as an empty upstream page does', () => {
    const block = toPage(rows(1, 24, 24), 1, 100);
    expect(pageFromBlock(block, blockOf(4, 10, 100), 4, 10)).toEqual(toPage([], 4, 10));
  });
});
