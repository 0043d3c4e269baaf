/** The helper lives beside withRetry, which it is built on, so that the token manager (upstream/) uses it too. */
export { persistently } from '../upstream/persist.js';
