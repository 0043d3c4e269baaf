/**
 * Network failures that happen before a request can leave: no connection was made, so the server cannot have
 * acted on it. Any other failure on the way (a timeout, a connection cut) may have come after the server had the
 * request, and a call that is not idempotent (posting a message) may then have been carried out.
 */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** True when the error (or one of its causes, as fetch and the Slack Web client wrap them) says nothing was sent. */
export function neverSent(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_SENT_CODES.has(code)) return true;
  }
  return false;
}
