import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

/** A Slack user's upstream user, found by e-mail; `upstreamUserId: null` caches "no match" too. */
export interface UserMatch {
  upstreamUserId: number | null;
  upstreamUserName: string | null;
  matchedAt: number;
  /** The e-mail matched (lower case): a saved "no match" can still say which e-mail matched nobody. */
  email?: string | null;
}

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

  async set(workspaceId: string, slackUserId: string, match: UserMatch, ttlMs: number): Promise<void> {
    await this.kv.set(this.keys.userMatch(workspaceId, slackUserId), JSON.stringify(match), { ttlMs });
  }

  async clearWorkspace(workspaceId: string): Promise<void> {
    await this.kv.del(...(await this.kv.keysWithPrefix(this.keys.userMatchPrefix(workspaceId))));
  }
}
