import { type Keys, shortHash } from './keys.js';
import type { KeyValue } from './kv.js';

/** Slack refuses a signed request older than 5 minutes: a signature seen within that window is a replay. */
export const SIGNATURE_WINDOW_MS = 5 * 60_000;
/**
 * Slack retries an event up to three times, the last about 5 minutes after the first delivery; an event id is
 * kept a while longer than that.
 */
export const EVENT_ID_TTL_MS = 15 * 60_000;

/**
 * How long a click on "Compartilhar no canal" stands for the same click again: a double click, or a second one
 * while the first answer is still being prepared (Slack sends one block_actions per click, each signed anew).
 */
export const SHARE_CLICK_WINDOW_MS = 20_000;

/** What tells one share click from another: the same person, the same button of the same message. */
export interface ShareClick {
  workspaceId: string;
  channelId: string;
  /** The message the button is on (its ts; an ephemeral message has one too). */
  messageTs: string;
  actionId: string;
  value: string;
  userId: string;
}

/**
 * What Slack requests were already taken in, shared by every replica through the store: `SET NX` with a TTL, so the
 * first replica to see a signature (or an event id) wins and the entry goes away by itself after its window.
 */
export class SeenRequests {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
  ) {}

  /**
   * True the first time a request signature is seen; false for a replay. `ttlMs`: how long the signed request stays
   * acceptable (until its timestamp leaves the window), after which Slack's timestamp rule refuses it anyway.
   */
  firstSighting(signature: string, ttlMs: number): Promise<boolean> {
    // Hashed: the key stays short whatever the header holds.
    return this.kv.set(this.keys.seenRequest(shortHash(signature, 32)), '1', {
      ttlMs: Math.max(1_000, ttlMs),
      onlyIfAbsent: true,
    });
  }

  /** True for the first click on a share button within SHARE_CLICK_WINDOW_MS; false for the same click again. */
  firstShareClick(click: ShareClick): Promise<boolean> {
    return this.kv.set(this.shareClickKey(click), '1', { ttlMs: SHARE_CLICK_WINDOW_MS, onlyIfAbsent: true });
  }

  /** A share that did not reach the channel (its person was told why): the same click may be made again at once. */
  async forgetShareClick(click: ShareClick): Promise<void> {
    await this.kv.del(this.shareClickKey(click));
  }

  private shareClickKey(click: ShareClick): string {
    const { workspaceId, channelId, messageTs, actionId, value, userId } = click;
    const clickHash = shortHash(JSON.stringify([channelId, messageTs, actionId, value, userId]), 32);
    return this.keys.seenShareClick(workspaceId, clickHash);
  }

  /** True the first time an Events API event id is seen; false for Slack's retry of an event already taken. */
  firstDelivery(eventId: string): Promise<boolean> {
    return this.kv.set(this.keys.seenEvent(shortHash(eventId, 32)), '1', {
      ttlMs: EVENT_ID_TTL_MS,
      onlyIfAbsent: true,
    });
  }
}
