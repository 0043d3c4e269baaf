import type { Logger } from '../lib/logger.js';
import type { StockStore } from '../store/stock-store.js';
import type { UserMatchStore } from '../store/user-match-store.js';
import type { UpstreamClient } from '../upstream/client.js';
import type { AnswerReader } from './cached-reader.js';
import type { Workspaces } from './workspace.js';

/** What every domain service is built from; tests build it with real stores and the sandbox. */
export interface DomainDeps {
  client: UpstreamClient;
  /** Every upstream read of a service goes through it (cache, coalescing, broken links). */
  reader: AnswerReader;
  workspaces: Workspaces;
  stock: StockStore;
  userMatches: UserMatchStore;
  logger: Logger;
  now: () => number;
  /** The workspace time zone (DIGEST_TZ): the default period and dates typed by users are read in it. */
  timeZone: string;
}
