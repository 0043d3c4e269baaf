import type { Logger } from '../lib/logger.js';
import type { StockStore } from '../store/stock-store.js';
import type { UserMatchStore } from '../store/user-match-store.js';
import type { UpstreamClient } from '../upstream/client.js';
import type { CachedReader } from './cached-reader.js';
import type { Workspaces } from './workspace.js';

/** What every domain service is built from; tests build it with real stores and the sandbox. */
export interface DomainDeps {
  client: UpstreamClient;
  reader: CachedReader;
  workspaces: Workspaces;
  stock: StockStore;
  userMatches: UserMatchStore;
  logger: Logger;
  now: () => number;
  /** The workspace time zone (DIGEST_TZ): the default period and dates typed by users are read in it. */
  timeZone: string;
}
