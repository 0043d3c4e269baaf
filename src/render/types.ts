import type { KnownBlock } from '@slack/types';

/** What every renderer needs besides its data: where the reader is in time. Renderers never read the clock. */
export interface RenderContext {
  /** IANA time zone of the workspace, e.g. America/Sao_Paulo. */
  timeZone: string;
  /** Epoch ms of "now", for ages ("há 5 min") and expiries. */
  now: number;
  /** Set when rendering for `Compartilhar no canal`: the message names who shared it and offers no share button. */
  shared?: { byUserId: string };
}

export interface Message {
  /** Notification fallback (mrkdwn, escaped). */
  text: string;
  blocks: KnownBlock[];
}
