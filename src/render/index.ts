export { checkMessageLimits, finalizeMessage, Limits } from './blocks.js';
export { renderCatalog, renderStockrooms } from './catalog.js';
export { renderChatHelp } from './chat-help.js';
export * from './digest.js';
export {
  BOT_STORE_UNAVAILABLE_TEXT,
  renderBadUpstreamData,
  renderBotStoreUnavailable,
  renderBrokenLinkAdminNotice,
  renderBudgetExhausted,
  renderCommandTimeout,
  renderCredentialsExpired,
  renderDigestComingSoon,
  renderForbidden,
  renderFormUnreadable,
  renderHealedLinkAdminNotice,
  renderInvalidQuery,
  renderNotFound,
  renderNothingFound,
  renderNotLinked,
  renderNotProcessed,
  renderNoWorkspace,
  renderResponseTooLarge,
  renderRestarting,
  renderRestartingCommand,
  renderServerError,
  renderStaleButton,
  renderTimeout,
  renderUnauthorized,
  renderUnexpected,
  renderUpstreamRejected,
  renderUserEmailUnavailable,
  renderUserNotMatched,
  renderVanishedLinkAdminNotice,
} from './errors.js';
export { renderFollowList } from './feed-listeners.js';
export { type CommandName, renderHelp, renderUsage } from './help.js';
export {
  type LinkModalInitial,
  linkFieldErrors,
  renderAdminCheckFailed,
  renderLinked,
  renderLinkModal,
  renderLinkRefused,
  renderLinkUnavailable,
  renderUnlinkCancelled,
  renderUnlinkConfirm,
  renderUnlinked,
} from './link.js';
export { renderMaterialSearch } from './materials.js';
export { isFirstMessage, renderDoneInChannel, renderPending, renderQueued } from './progress.js';
export {
  renderPendingPurchases,
  renderPurchaseList,
  renderPurchaseRequests,
  renderReceiptList,
} from './purchases.js';
export { renderRequestList } from './request-list.js';
export { renderRequestDetail, renderRequestHistory } from './requests.js';
export { renderLinkStatus } from './status.js';
export { type SuggestionView, withSuggestion } from './suggestion.js';
export type { Message, RenderContext } from './types.js';
