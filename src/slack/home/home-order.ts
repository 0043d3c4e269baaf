import { type Clock, systemClock } from '../../lib/clock.js';
import { errFields, type Logger } from '../../lib/logger.js';
import type { PublishedHome } from '../../store/home-view-store.js';
import type { SlackDeps } from '../deps.js';

/**
 * How long a publish refused `hash_conflict` waits, when the record still names the hash it sent, for the publish
 * that landed meanwhile to be recorded (a replica records it right after Slack's answer: milliseconds).
 */
export const HOME_HASH_SETTLE_MS = 250;

/**
 * The order of one person's Home publishes across replicas (store/home-view-store.ts). Every publish carries the
 * hash of the Home last recorded as published, so Slack refuses it (`hash_conflict`) when another one landed since
 * it was read; the build numbers then say which of the two is newer: the older gives way, the newer publishes again
 * over the one that landed. Until 2026-11-27 the Home was published without a hash, and a publish built from older
 * data that reached Slack last stayed on screen.
 */
export interface HomeTurn {
  /** This build's number: taken once it has read what it shows. */
  build: number;
  /** The hash to publish with; null: none known (nothing recorded, or the Home changed where no record says). */
  hash: string | null;
}

type Who = { workspaceId: string; userId: string };

/** A number for a build that has read what it shows; null when the store could not say (published unchecked). */
export async function takeTurn(deps: SlackDeps, who: Who, logger: Logger): Promise<HomeTurn | null> {
  try {
    const { build, published } = await deps.homeViews.takeBuildNumber(who.workspaceId, who.userId);
    return { build, hash: published.hash };
  } catch (error) {
    logger.warn(errFields(error), 'home publish order unknown; published without a hash');
    return null;
  }
}

/** Records a publish Slack took, with the hash it answered (unless a newer build is recorded already). */
export async function recordPublished(
  deps: SlackDeps,
  who: Who,
  published: PublishedHome,
  logger: Logger,
): Promise<void> {
  try {
    await deps.homeViews.recordPublished(who.workspaceId, who.userId, published);
  } catch (error) {
    logger.warn(errFields(error), 'home published, its hash not recorded');
  }
}

/**
 * After `hash_conflict`: the turn to publish with again, or null when a newer build's Home is recorded (this one,
 * older, gives way). A record that still names the hash this publish sent means the Home that landed is not recorded
 * yet, or never will be (published by something else, its record lost): after HOME_HASH_SETTLE_MS without a record,
 * the Home is published without a hash, as this build is the newest known.
 */
export async function afterConflict(
  deps: SlackDeps,
  who: Who,
  turn: HomeTurn,
  logger: Logger,
): Promise<HomeTurn | null> {
  const newer = (home: PublishedHome) => {
    if (home.build <= turn.build) return false;
    logger.info({ build: turn.build, newer: home.build }, 'home publish gave way to a newer build');
    return true;
  };
  let home = await deps.homeViews.published(who.workspaceId, who.userId);
  if (newer(home)) return null;
  if (home.hash === turn.hash && turn.hash !== null) {
    const clock: Clock = deps.clock ?? systemClock;
    await new Promise<void>((resolve) => clock.setTimeout(resolve, HOME_HASH_SETTLE_MS));
    home = await deps.homeViews.published(who.workspaceId, who.userId);
    if (newer(home)) return null;
    if (home.hash === turn.hash) {
      logger.warn({ build: turn.build }, 'home changed where no record says; published without a hash');
      return { build: turn.build, hash: null };
    }
  }
  logger.info(
    { build: turn.build, over: home.build },
    'home publish refused for an older one; published over it',
  );
  return { build: turn.build, hash: home.hash };
}
