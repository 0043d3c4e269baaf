export * from './limits.js';
export { RESPONSE_URL_MAX_USES, RESPONSE_URL_TTL_MS, type ResponseUrlContext } from './response-url.js';
export { DEFAULT_BOT_SCOPES, FAKE_APP, FAKE_SEED } from './seed.js';
export { type FakeSlack, startFakeSlack } from './server.js';
export * from './signer.js';
export * from './types.js';
export { TRIGGER_TTL_MS, type TriggerContext, VIEW_STACK_LIMIT } from './views.js';
