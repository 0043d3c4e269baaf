import { describe, expect, it } from 'vitest';
import { type BlockRef, blockOf, pageFromBlock, pageOutOfBlocks } from '../../src/domain/page-blocks.js';
import { isLastPage, servedPage, toPage } from '../../src/upstream/client.js';
import { errorFromResponse, UpstreamError } from '../../src/upstream/errors.js';

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

describe('toPage', () => {
  it('never counts fewer rows than the page proves exist (a total of 0, or too low, beside rows)', () => {
    expect(toPage(rows(1, 12, 0), 1, 100)).toMatchObject({ totalRows: 12, totalPages: 1 });
    expect(toPage(rows(101, 5, 3), 2, 100)).toMatchObject({ totalRows: 105, totalPages: 2 });
    // A stated total above the rows stands; an empty page says nothing.
    expect(toPage(rows(1, 10, 124), 1, 10)).toMatchObject({ totalRows: 124, totalPages: 13 });
    expect(toPage([], 3, 10)).toMatchObject({ totalRows: 0, totalPages: 1 });
  });

  it('ends a list at a short page, and at a full page only when its stated total is not lower than the rows', () => {
    // Honest totals, as before: a full last page is the end (no empty page read after it), and so is a short one.
    expect(isLastPage(toPage(rows(1, 100, 300), 3, 100))).toBe(true);
    expect(toPage(rows(1, 100, 300), 3, 100)).not.toHaveProperty('totalUnknown');
    expect(isLastPage(toPage(rows(1, 100, 300), 2, 100))).toBe(false);
    expect(isLastPage(toPage(rows(1, 40, 240), 3, 100))).toBe(true);
    // A total too low (80 beside a full page of 100): more may follow.
    expect(toPage(rows(1, 100, 80), 1, 100)).toMatchObject({
      totalRows: 100,
      totalPages: 2,
      totalUnknown: true,
    });
    expect(isLastPage(toPage(rows(1, 100, 80), 1, 100))).toBe(false);
    // A total too high (500) beside a short page: that page is the end.
    expect(isLastPage(toPage(rows(1, 30, 500), 3, 100))).toBe(true);
    expect(isLastPage(toPage([], 4, 100))).toBe(true);
  });

  it("a page cut from a block whose rows say 0 keeps the block's rows reachable", () => {
    const block = toPage(rows(1, 12, 0), 1, 100);
    const first = pageFromBlock(block, blockOf(1, 10, 100), 1, 10);
    expect(first).toMatchObject({ totalRows: 12, totalPages: 2 });
    expect(pageFromBlock(block, blockOf(2, 10, 100), 2, 10).rows.map((r) => r.id)).toEqual([11, 12]);
    expect(pageFromBlock(block, blockOf(3, 10, 100), 3, 10)).toMatchObject({ rows: [], totalRows: 0 });
  });
});

describe('a stated total no list can hold (2,000,000,000 rows)', () => {
  const LIE = 2_000_000_000;

  it('is not believed: a short page is the last, its rows are the total', () => {
    // A page of 10 where 100 were asked is not taken for a service that pages by 10.
    expect(servedPage(rows(1, 10, LIE), 1, 100)).toMatchObject({
      totalRows: 10,
      totalPages: 1,
      pageSize: 100,
    });
    expect(toPage(rows(1, 10, LIE), 1, 100).totalUnknown).toBeFalsy();
  });

  it('a full page counts the rows it proves, and one more page that may hold more', () => {
    const block = servedPage(rows(1, 100, LIE), 1, 100);
    expect(block).toMatchObject({ totalRows: 100, totalPages: 2, totalUnknown: true });
    // Pages of 10 cut from it: the block's 10, and the next block's first page.
    expect(pageFromBlock(block, blockOf(3, 10, 100), 3, 10)).toMatchObject({
      totalRows: 100,
      totalPages: 11,
      totalUnknown: true,
    });
    // The next block, short: the list ends there, and its total is known.
    const last = servedPage(rows(101, 30, LIE), 2, 100);
    expect(last).toMatchObject({ totalRows: 130, totalPages: 2 });
    expect(last.totalUnknown).toBeFalsy();
    expect(pageFromBlock(last, blockOf(13, 10, 100), 13, 10)).toMatchObject({
      totalRows: 130,
      totalPages: 13,
    });
  });

  it('a total a list can hold is believed as before', () => {
    expect(toPage(rows(1, 10, 1_000_000), 1, 10)).toMatchObject({
      totalRows: 1_000_000,
      totalPages: 100_000,
    });
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

describe('pageOutOfBlocks', () => {
  const total = 130;
  const rows = Array.from({ length: total }, (_, i) => ({ n: i + 1, totalRows: total }));
  /** A service that serves at most 20 rows a page, whatever is asked (and says so: servedPage). */
  const capped = (reads: BlockRef[]) => async (ref: BlockRef) => {
    reads.push(ref);
    const size = Math.min(ref.pageSize, 20);
    const page = rows.slice((ref.page - 1) * size, ref.page * size);
    return {
      data: {
        rows: page,
        page: ref.page,
        pageSize: size,
        totalRows: total,
        totalPages: Math.ceil(total / size),
      },
      freshness: { fetchedAt: 0, fromCache: false, degraded: null },
    };
  };

  it('cuts each page of 10 from the block the service really served, reading it again when needed', async () => {
    for (const [page, first, readsMade] of [
      [1, 1, 1],
      [2, 11, 1],
      [3, 21, 2],
      [11, 101, 2],
      [13, 121, 2],
    ] as const) {
      const reads: BlockRef[] = [];
      const answer = await pageOutOfBlocks(page, 10, 100, capped(reads), () => 0);
      expect(answer.data.rows.map((r) => r.n)).toEqual(rows.slice(first - 1, first + 9).map((r) => r.n));
      expect(answer.data.totalPages).toBe(13);
      expect(reads).toHaveLength(readsMade);
    }
  });

  it('reads once from a service that serves what is asked', async () => {
    const reads: BlockRef[] = [];
    const answer = await pageOutOfBlocks(
      12,
      10,
      100,
      async (ref) => {
        reads.push(ref);
        const page = rows.slice((ref.page - 1) * ref.pageSize, ref.page * ref.pageSize);
        return {
          data: { rows: page, page: ref.page, pageSize: ref.pageSize, totalRows: total, totalPages: 2 },
          freshness: { fetchedAt: 0, fromCache: false, degraded: null },
        };
      },
      () => 0,
    );
    expect(answer.data.rows.map((r) => r.n)).toEqual([111, 112, 113, 114, 115, 116, 117, 118, 119, 120]);
    expect(reads).toEqual([{ page: 2, pageSize: 100, offset: 10 }]);
  });

  it('takes a block after the first that the service refuses (400 or 404) for the end: an empty page', async () => {
    for (const status of [400, 404]) {
      const refused = async (ref: BlockRef) => {
        if (ref.page > 1) throw errorFromResponse(status, { status }, {}, 'GET /v1/solicitacoes-materiais');
        return capped([])(ref);
      };
      const answer = await pageOutOfBlocks(50, 10, 100, refused, () => 42);
      expect(answer.data.rows).toEqual([]);
      expect(answer.data.page).toBe(50);
      expect(answer.freshness).toEqual({ fetchedAt: 42, fromCache: false, degraded: null });
    }
  });

  it('a first block refused is the failure it is', async () => {
    const refused = async () => {
      throw errorFromResponse(404, { status: 404 }, {}, 'GET /v1/solicitacoes-materiais');
    };
    await expect(pageOutOfBlocks(3, 10, 100, refused, () => 0)).rejects.toBeInstanceOf(UpstreamError);
  });
});
