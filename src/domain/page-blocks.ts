import { isPastLastPage, type Page, toPage } from '../upstream/client.js';
import type { Answer } from './views.js';

/**
 * Small pages shown from large pages read. A Slack message shows 10 rows, but one upstream call costs the same
 * budget whatever its page size, so the services read a block of `blockSize` rows (one cache entry) and cut the
 * page asked for out of it: the next `Próxima` pages, and every other reader of the same block, cost nothing
 * while the block is fresh. The rows shown are exactly those the block's read brought, with its fetch time.
 *
 * `blockSize` must be a multiple of `pageSize`, so a page never straddles two blocks.
 */
export interface BlockRef {
  /** The upstream page (of `blockSize` rows) that holds the page asked for. */
  page: number;
  pageSize: number;
  /** Rows of that block before the page asked for. */
  offset: number;
}

export function blockOf(page: number, pageSize: number, blockSize: number): BlockRef {
  if (!(Number.isInteger(page) && page >= 1)) throw new RangeError(`page must be >= 1, got ${page}`);
  if (!(pageSize >= 1 && blockSize >= pageSize && blockSize % pageSize === 0)) {
    throw new RangeError(`blockSize ${blockSize} must be a multiple of pageSize ${pageSize}`);
  }
  const first = (page - 1) * pageSize;
  return { page: Math.floor(first / blockSize) + 1, pageSize: blockSize, offset: first % blockSize };
}

/**
 * The page of `pageSize` rows cut out of its block, as upstream would have answered it: the same rows, and the
 * block's total (none when the page is past the end, as an empty upstream page says). Under a total not believed
 * the block says whether more may follow (a full block), not the page cut from it.
 */
export function pageFromBlock<T extends { totalRows?: number | null }>(
  block: Page<T>,
  ref: BlockRef,
  page: number,
  pageSize: number,
): Page<T> {
  const rows = block.rows.slice(ref.offset, ref.offset + pageSize);
  if (rows.length === 0) return toPage(rows, page, pageSize, 0);
  return toPage(rows, page, pageSize, block.totalRows, block.totalUnknown === true);
}

/**
 * The page of `pageSize` rows asked for, cut out of a block of `blockSize` rows that `read` brings. A service that
 * served the block at a smaller size than asked (servedPage: the allowed PageSize is not documented) pages by that
 * size: the block of that size that holds the page is read again, unless the page lies within the rows the first
 * read brought. A block after the first that the service refuses (400 or 404, isPastLastPage) is past the end of
 * the list, as the digest and the change feed take it: the page is empty (answered at `now()`), not a failure
 * (until 2026-11-27 `pagina:50` or a stale `Próxima` said the service refused the query, and a history page
 * that the request was not found).
 */
export async function pageOutOfBlocks<T extends { totalRows?: number | null }>(
  page: number,
  pageSize: number,
  blockSize: number,
  read: (ref: BlockRef) => Promise<Answer<Page<T>>>,
  now: () => number,
): Promise<Answer<Page<T>>> {
  const readOrEmpty = (ref: BlockRef) =>
    read(ref).catch((error: unknown): Answer<Page<T>> => {
      if (!isPastLastPage(error, ref.page)) throw error;
      return {
        data: toPage<T>([], ref.page, ref.pageSize),
        freshness: { fetchedAt: now(), fromCache: false, degraded: null },
      };
    });
  let ref = blockOf(page, pageSize, blockSize);
  let block = await readOrEmpty(ref);
  const served = block.data.pageSize;
  if (served < ref.pageSize && !(ref.page === 1 && ref.offset + pageSize <= served)) {
    ref = blockOf(page, pageSize, Math.max(pageSize, served - (served % pageSize)));
    block = await readOrEmpty(ref);
  }
  return { data: pageFromBlock(block.data, ref, page, pageSize), freshness: block.freshness };
}
