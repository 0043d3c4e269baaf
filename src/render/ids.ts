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
  /** App Home: re-read the user's requests from upstream and publish the Home again. */
  homeRefresh: 'home:refresh',
  /** App Home: `Buscar material` (the same modal as the global shortcut). */
  homeSearch: 'home:search',
  /** App Home: `Consultar solicitação`. */
  homeLookup: 'home:lookup',
  homeHelp: 'home:help',
  homeUnlink: 'home:unlink',
  /** App Home, `Acompanhando`: stop following one request (value: the request number). */
  homeUnfollowPrefix: 'home:unfollow:',
  /** The material picker's external_select (its options come from block_suggestion). */
  materialPick: 'material:pick',
  /** Opens one request in a modal (value: the request number): Home rows and the choice of several numbers. */
  requestOpenPrefix: 'request:open:',
  /** A page of the request shown in a modal (`Anterior`/`Próxima`; value: its route), by views.update. */
  requestPagePrefix: 'request:page:',
} as const;

export const ActionPatterns = {
  navigate: /^nav:/,
  refresh: /^refresh:/,
  share: /^share:/,
  retry: /^retry:/,
  requestOpen: /^request:open:/,
  requestPage: /^request:page:/,
  homeUnfollow: /^home:unfollow:/,
  /** A repeated id in one message is renamed `follow:~0`, `follow:~1` (blocks.ts, numberActionIds). */
  follow: /^follow:/,
  unfollow: /^unfollow:/,
} as const;

export const ViewIds = {
  linkModal: 'link-credentials',
  materialModal: 'material-search',
  requestLookup: 'request-lookup',
  requestModal: 'request-view',
  helpModal: 'help-view',
} as const;

/** The callback ids of the app's shortcuts, as the manifest declares them. */
export const ShortcutIds = {
  searchMaterial: 'buscar_material',
  openRequest: 'abrir_solicitacao',
} as const;

export const BlockIds = {
  linkLogin: 'link_login',
  linkPassword: 'link_password',
  linkCompany: 'link_company',
  linkUnit: 'link_unit',
  linkEndSession: 'link_end_session',
  materialPick: 'material_pick',
  shareChannel: 'share_channel',
  requestNumber: 'request_number',
} as const;

export const InputActionIds = {
  login: 'login',
  password: 'password',
  company: 'company',
  unit: 'unit',
  endSession: 'end_session',
  shareChannel: 'channel',
  requestNumber: 'number',
} as const;
