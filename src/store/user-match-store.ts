import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

/** A Slack user's upstream user, found by e-mail; `upstreamUserId: null` caches "no match" too. */
export interface UserMatch {
  upstreamUserId: number | null;
  upstreamUserName: string | null;
  matchedAt: number;
  /** The e-mail matched (lower case): a saved "no match" can still say which e-mail matched nobody. */
  email?: string | null;
  /**
   * Until when (epoch ms) the match stands without asking again; after it, it is kept USER_MATCH_KEEP_STALE_MS more,
   * for when it cannot be made again (Slack's users.info failing or slow). Absent on matches stored before it
   * existed: those stand until their key expires.
   */
  freshUntil?: number;
}

/**
 * How long a match outlives its freshness: as long as the answers read with it are kept past theirs (the cache's
 * 24 h), so the requests saved for a user can still be found while the e-mail cannot be asked.
 */
export const USER_MATCH_KEEP_STALE_MS = 24 * 3_600_000;

export class UserMatchStore {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
  ) {}

  async get(workspaceId: string, slackUserId: string): Promise<UserMatch | null> {
    const raw = await this.kv.get(this.keys.userMatch(workspaceId, slackUserId));
    if (raw === null) return null;
    try {
      return JSON.parse(raw) as UserMatch;
    } catch {
      // A damaged entry is a miss: the user is matched again.
      return null;
    }
  }

  /** Keeps `match` fresh for `freshMs` from its matchedAt, and stored USER_MATCH_KEEP_STALE_MS longer. */
  async set(workspaceId: string, slackUserId: string, match: UserMatch, freshMs: number): Promise<void> {
    const kept: UserMatch = { ...match, freshUntil: match.matchedAt + freshMs };
    await this.kv.set(this.keys.userMatch(workspaceId, slackUserId), JSON.stringify(kept), {
      ttlMs: freshMs + USER_MATCH_KEEP_STALE_MS,
    });
  }

  async clearWorkspace(workspaceId: string): Promise<void> {
    await this.kv.del(...(await this.kv.keysWithPrefix(this.keys.userMatchPrefix(workspaceId))));
  }
}
