import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import { errFields, type Logger, maskSecretsInLine, sanitizeForLog } from '../lib/logger.js';
import type { OutageLog } from '../lib/outage-log.js';

/**
 * The Slack libraries' logger interface (Bolt's, the Web client's, Socket Mode's) over pino. Every Slack client the
 * bot builds is given one: a client without it writes through @slack/logger's console logger, plain text on stderr
 * (`[WARN]  web-api:WebClient:1 http request failed fetch failed`, until 2026-11-27), beside the JSON log.
 */

type Method = 'debug' | 'info' | 'warn' | 'error';

function libraryLogger(logger: Logger, component: string, levels: Record<Method, Method>): BoltLogger {
  const child = logger.child({ component });
  let level: LogLevel = LogLevel.INFO;
  const write =
    (method: Method) =>
    (...parts: unknown[]) => {
      const to = levels[method];
      // Bolt calls debug on every request: nothing is masked or copied for a line the level drops.
      if (!child.isLevelEnabled(to)) return;
      const { fields, msg } = libraryLine(parts, component);
      child[to](fields, msg);
    };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}

/**
 * Bolt's logger interface over pino, so Bolt's own lines are structured too: its text parts become `msg`, an Error
 * becomes `err` (name, message, code; never a stack), other objects become `data` as JSON, not "[object Object]".
 */
export function boltLogger(logger: Logger): BoltLogger {
  return libraryLogger(logger, 'bolt', {
    debug: 'debug',
    info: 'info',
    warn: 'warn',
    error: 'error',
  });
}

/**
 * A Web API client's logger (the clients the bot builds itself: the scheduler's, the listeners' other policies,
 * the bot's identity, the start-up checks): the same lines as boltLogger's under `component: "slack-web-api"`; the
 * client's info lines are debug noise. `quiet`: its warnings too (`http request failed`, once per attempt), for a
 * client whose caller says the failure itself, once (bot-identity.ts).
 */
export function webApiLogger(logger: Logger, options: { quiet?: boolean } = {}): BoltLogger {
  return libraryLogger(logger, 'slack-web-api', {
    debug: 'debug',
    info: 'debug',
    warn: options.quiet ? 'debug' : 'warn',
    error: 'error',
  });
}

/**
 * The Socket Mode receiver's logger (its socket client's and that client's Web API client's too). While the socket
 * is not connected, the `http request failed` lines of apps.connections.open, one per attempt (it retries about a
 * hundred times, at growing pauses from 1 s), are one outage (`outage`: the first said, then a reminder every
 * 30 s); anything else, or such a failure while connected (the OAuth exchange's), is said as boltLogger says it.
 * Until 2026-11-27 each attempt was a warn line, every 1-3 s at first.
 */
export function socketConnectionLogger(
  logger: Logger,
  outage: OutageLog,
  connected: () => boolean,
): BoltLogger {
  const bolt = boltLogger(logger);
  return {
    ...bolt,
    warn: (...parts: unknown[]) => {
      if (connected() || parts[0] !== 'http request failed') {
        bolt.warn(...parts);
        return;
      }
      outage.failed({ err: { message: maskSecretsInLine(parts.slice(1).map(String).join(' ')) } });
    },
  };
}

function libraryLine(parts: unknown[], component: string): { fields: Record<string, unknown>; msg: string } {
  const text: string[] = [];
  const data: unknown[] = [];
  let err: ReturnType<typeof errFields>['err'] | undefined;
  for (const part of parts) {
    if (part instanceof Error && err === undefined) err = errFields(part).err;
    else if (part instanceof Error) data.push(errFields(part).err);
    else if (part !== null && typeof part === 'object') data.push(sanitizeForLog(part));
    else text.push(String(part));
  }
  const fields: Record<string, unknown> = {
    ...(err && { err }),
    ...(data.length === 1 ? { data: data[0] } : data.length > 1 ? { data } : {}),
  };
  // Bolt's and the Web client's debug lines carry request and answer bodies as text (the OAuth exchange's
  // client_secret and code among them): pino's key redaction cannot see inside a string.
  return { fields, msg: maskSecretsInLine(text.join(' ').trim()) || (err ? err.message : component) };
}
