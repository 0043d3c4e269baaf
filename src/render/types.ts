import type { KnownBlock } from '@slack/types';

/** What every renderer needs besides its data: where the reader is in time. Renderers never read the clock. */
export interface RenderContext {
  /** IANA time zone of the workspace, e.g. America/Sao_Paulo. */
  timeZone: string;
  /** Epoch ms of "now", for ages ("há 5 min") and expiries. */
  now: number;
  /** Set when rendering for `Compartilhar no canal`: the message names who shared it and offers no share button. */
  shared?: { byUserId: string };
  /**
   * Set for the first message of an answer that waits for a budget slot: saved data shown meanwhile, marked as
   * being refreshed ("atualizando…"); the fresh answer replaces it.
   */
  refreshing?: boolean;
}

export interface Message {
  /** Notification fallback (mrkdwn, escaped). */
  text: string;
  blocks: KnownBlock[];
}
