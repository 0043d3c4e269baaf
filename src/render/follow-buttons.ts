import type { Button } from '@slack/types';
import { button } from './blocks.js';
import { ActionIds } from './ids.js';

/** `Acompanhar` on a request answer: the value is the request number, nothing else. */
export function followButton(requestId: number): Button {
  return button({ text: 'Acompanhar', actionId: ActionIds.follow, value: String(requestId) });
}

/** `Deixar de acompanhar` on a request answer. */
export function unfollowButton(requestId: number): Button {
  return button({ text: 'Deixar de acompanhar', actionId: ActionIds.unfollow, value: String(requestId) });
}
