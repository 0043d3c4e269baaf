import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

/**
 * How long a person's Home record is kept after it was last written. Two publishes race within seconds of each
 * other (an opening on one replica, `Atualizar` on another; a quick publish and the one after fresh data), so the
 * record outlives any race; a Home left alone longer is published next without a hash (nothing is checked), as
 * every Home was before records were kept.
 */
export const HOME_VIEW_MEMORY_MS = 15 * 60_000;

/**
 * The build counter outlives the record it numbers: it is touched when a build starts publishing, the record when
 * the publish landed (up to a 429's wait later), and a counter that started again at 1 under a record of build 57
 * would make every new build look older than the Home on screen.
 */
const BUILD_COUNTER_MS = 2 * HOME_VIEW_MEMORY_MS;

/**
 * How many times a record write retries when another one came between its read and its write. Those writes are
 * publishes Slack took, one at a time per person (each carries the hash the one before returned): two at once is
 * already rare.
 */
const WRITE_ATTEMPTS = 10;

/** The Home last published to a person through the bot, as recorded. */
export interface PublishedHome {
  /** The number of the build it came from (0: none recorded). */
  build: number;
  /** Slack's hash of it, to publish the next one with (null: none known). */
  hash: string | null;
}

const NONE: PublishedHome = { build: 0, hash: null };

/**
 * Per workspace and user, shared by every replica: the order of the Home's builds, and which one is on screen.
 * Each build takes a number once it has read what it shows (one atomic increment: a higher number read later); a
 * publish is recorded with its number and Slack's new hash, never over a higher number (the record is rewritten
 * only if unchanged since it was read, setIfUnchanged, so no replica's write is lost).
 */
export class HomeViewStore {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
  ) {}

  /**
   * A number for a build that has just read what it shows, higher than any handed out before for this person, and
   * the Home recorded as published then (its hash is the one to publish with).
   */
  async takeBuildNumber(
    workspaceId: string,
    userId: string,
  ): Promise<{ build: number; published: PublishedHome }> {
    // Both at once (one round trip): a publish recorded between the two is met the same way in either order, by
    // the hash_conflict it brings (home-order.ts).
    const [build, published] = await Promise.all([
      this.kv.incr(this.keys.homeBuilds(workspaceId, userId), { ttlMs: BUILD_COUNTER_MS }),
      this.published(workspaceId, userId),
    ]);
    return { build, published };
  }

  /** The Home recorded as published (build 0 and no hash when none is). */
  async published(workspaceId: string, userId: string): Promise<PublishedHome> {
    return parse(await this.kv.get(this.keys.homeView(workspaceId, userId)));
  }

  /**
   * Records that build `home.build` was published, with Slack's new hash, unless a higher build is recorded
   * already. Whether it was recorded.
   */
  async recordPublished(workspaceId: string, userId: string, home: PublishedHome): Promise<boolean> {
    const key = this.keys.homeView(workspaceId, userId);
    const value = JSON.stringify({ build: home.build, hash: home.hash });
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      const raw = await this.kv.get(key);
      if (parse(raw).build > home.build) return false;
      // Every value written is one flat JSON object: one that ends with `raw` is `raw`.
      if (await this.kv.setIfUnchanged(key, value, { ttlMs: HOME_VIEW_MEMORY_MS, tail: raw })) return true;
    }
    throw new Error(`home view of ${workspaceId} not recorded: rewritten ${WRITE_ATTEMPTS} times meanwhile`);
  }
}

function parse(raw: string | null): PublishedHome {
  if (raw === null) return NONE;
  try {
    const value = JSON.parse(raw) as Partial<PublishedHome>;
    const build = value.build;
    return {
      build: typeof build === 'number' && Number.isSafeInteger(build) && build >= 0 ? build : 0,
      hash: typeof value.hash === 'string' && value.hash !== '' ? value.hash : null,
    };
  } catch {
    // A damaged record is none: the next publish goes without a hash, and writes a good one.
    return NONE;
  }
}
