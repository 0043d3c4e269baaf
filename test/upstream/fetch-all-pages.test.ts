import { describe, expect, it } from 'vitest';
import { fetchAllPages, type Page, toPage } from '../../src/upstream/client.js';
import { UpstreamBadRequestError, UpstreamNotFoundError } from '../../src/upstream/errors.js';

/**
 * fetchAllPages spends one budget call a page: however high a service's total, it reads at most `maxPages`, and it
 * stops at the first page shorter than its size (upstream-api.md: such a page is the last), or empty.
 */

type Row = { id: number; totalRows: number };

/** A service of `sizes[i]` rows on page i + 1 (full pages past the list), each row saying `stated` rows in all. */
function service(pageSize: number, stated: number, sizes: readonly number[] = []) {
  const asked: number[] = [];
  const fetchPage = async (page: number): Promise<Page<Row>> => {
    asked.push(page);
    const count = sizes[page - 1] ?? pageSize;
    const rows = Array.from({ length: count }, (_, i) => ({
      id: (page - 1) * pageSize + i + 1,
      totalRows: stated,
    }));
    return toPage(rows, page, pageSize);
  };
  return { asked, fetchPage };
}

describe('fetchAllPages', () => {
  it('reads at most maxPages, whatever total the rows state', () => {
    return Promise.all(
      [2_147_483_647, 2_000_000_000, 900_000].map(async (stated) => {
        const { asked, fetchPage } = service(50, stated);
        const all = await fetchAllPages(fetchPage, 3);
        expect(asked).toEqual([1, 2, 3]);
        expect(all.rows).toHaveLength(150);
        expect(all.complete).toBe(false);
      }),
    );
  });

  it('ends at a page the service refuses past its rows (404 or 400), as at an empty one; page 1 refused still fails', async () => {
    // The digest's in-progress pages are those the change feed reads, which already ended there; here they failed.
    for (const refusal of [
      new UpstreamNotFoundError('GET /v1/solicitacoes-materiais'),
      new UpstreamBadRequestError('GET /v1/solicitacoes-materiais', 'Page fora do intervalo'),
    ]) {
      const { fetchPage } = service(50, 500);
      const refusing = (page: number) => (page >= 3 ? Promise.reject(refusal) : fetchPage(page));
      const all = await fetchAllPages(refusing, 10);
      expect(all.rows).toHaveLength(100);
      // The rows said 500: what was read is not all they claimed.
      expect(all.complete).toBe(false);
      await expect(fetchAllPages(() => Promise.reject(refusal), 10)).rejects.toBe(refusal);
    }
  });

  it('stops at a short page, even when the total says more pages follow', async () => {
    const { asked, fetchPage } = service(50, 500, [50, 20]);
    const all = await fetchAllPages(fetchPage, 10);
    expect(asked).toEqual([1, 2]);
    expect(all.rows).toHaveLength(70);
  });

  it('stops at an empty page', async () => {
    const { asked, fetchPage } = service(50, 500, [50, 0]);
    const all = await fetchAllPages(fetchPage, 10);
    expect(asked).toEqual([1, 2]);
    expect(all.rows).toHaveLength(50);
  });

  it('reads on while the pages come full under a total it does not believe, and says so when it stops', async () => {
    const ending = service(50, 2_000_000_000, [50, 50, 7]);
    const all = await fetchAllPages(ending.fetchPage, 10);
    expect(ending.asked).toEqual([1, 2, 3]);
    expect(all).toMatchObject({ totalRows: 107, complete: true });
    const endless = service(50, 2_000_000_000);
    expect(await fetchAllPages(endless.fetchPage, 4)).toMatchObject({ totalRows: 200, complete: false });
    expect(endless.asked).toEqual([1, 2, 3, 4]);
  });
});
