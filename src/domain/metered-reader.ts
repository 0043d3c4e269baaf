import type { Metrics } from '../lib/metrics.js';
import type { AnswerReader, CachedEndpoint, ReadOptions } from './cached-reader.js';
import type { Answer } from './views.js';
import type { Fetch, WorkspaceContext } from './workspace.js';

/**
 * Counts reads through the cache by kind of data (the cached endpoint: a fixed set) and outcome, from what the
 * answer says of itself: a fresh entry is a hit, an answer from upstream a miss, an old entry served because
 * upstream could not be asked is stale, and a read that failed is an error.
 */
export class MeteredReader implements AnswerReader {
  constructor(
    /** The reader counted: the CachedReader, or the prefetcher's reader around it. */
    readonly inner: AnswerReader,
    private readonly metrics: Pick<Metrics, 'cacheRead'>,
  ) {}

  async read<T>(
    ws: WorkspaceContext,
    endpoint: CachedEndpoint,
    params: unknown,
    fetch: Fetch<T>,
    options?: ReadOptions,
  ): Promise<Answer<T>> {
    let answer: Answer<T>;
    try {
      answer = await this.inner.read(ws, endpoint, params, fetch, options);
    } catch (error) {
      this.metrics.cacheRead(endpoint, 'error');
      throw error;
    }
    const { fromCache, degraded } = answer.freshness;
    this.metrics.cacheRead(endpoint, degraded !== null ? 'stale' : fromCache ? 'hit' : 'miss');
    return answer;
  }
}
