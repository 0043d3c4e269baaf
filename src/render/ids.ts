/**
 * Every action_id, block_id and callback_id the bot uses: the renderers put them in messages and modals, the
 * Slack listeners match them. Route buttons share a prefix (`nav:`) and take an index suffix so that action
 * ids stay unique inside a message.
 */
export const ActionIds = {
  /** Any button that opens a route (detail, page, items, history, linked requests). */
  navigatePrefix: 'nav:',
  /** Re-reads the route, bypassing the cache (`Atualizar`). */
  refreshPrefix: 'refresh:',
  /** Posts the route's answer in the channel (`Compartilhar no canal`). */
  sharePrefix: 'share:',
  /** Tries the route again after a timeout. */
  retryPrefix: 'retry:',
  /** `Acompanhar` / `Deixar de acompanhar` on a request: the value is the request number. */
  follow: 'follow:',
  unfollow: 'unfollow:',
  unlinkConfirm: 'unlink:confirm',
  unlinkCancel: 'unlink:cancel',
  openLinkModal: 'link:open',
} as const;

export const ActionPatterns = {
  navigate: /^nav:/,
  refresh: /^refresh:/,
  share: /^share:/,
  retry: /^retry:/,
  /** A repeated id in one message is renamed `follow:~0`, `follow:~1` (blocks.ts, numberActionIds). */
  follow: /^follow:/,
  unfollow: /^unfollow:/,
} as const;

export const ViewIds = {
  linkModal: 'link-credentials',
} as const;

export const BlockIds = {
  linkLogin: 'link_login',
  linkPassword: 'link_password',
  linkCompany: 'link_company',
  linkUnit: 'link_unit',
  linkEndSession: 'link_end_session',
} as const;

export const InputActionIds = {
  login: 'login',
  password: 'password',
  company: 'company',
  unit: 'unit',
  endSession: 'end_session',
} as const;
