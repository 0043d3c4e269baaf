import { formatRateLimit, type RateLimitSpec } from '../lib/rate-limit-spec.js';
import { DEMO_LOGINS } from '../sandbox/data.js';
import type { LocalCredentialsKey } from './credentials-key.js';

/** What local mode runs, as start-up prints it for the person who ran `npm start`. */
export interface LocalModeSummary {
  url: string;
  fakeSlackUrl: string;
  botUrl: string;
  botPortFellBack: boolean;
  sandbox: { baseUrl: string; authUrl: string; preferredPort: number; fellBack: boolean };
  store: { kind: 'embedded'; file: string } | { kind: 'redis'; url: string; prefix: string };
  rateLimit: RateLimitSpec;
  credentialsKey: LocalCredentialsKey;
  workspace: { id: string; name: string; channel: string; userName: string };
  link:
    | { state: 'kept' | 'linked' | 'broken'; login: string; empresaId: number | null }
    | { state: 'failed'; reason: string }
    | { state: 'unlinked' };
}

export function formatBanner(s: LocalModeSummary): string {
  const keyLine = {
    environment: 'CREDENTIALS_KEY from the environment',
    file: `kept in ${s.credentialsKey.file}`,
    generated: `generated and kept in ${s.credentialsKey.file} (mode 0600)`,
  }[s.credentialsKey.source];
  const store =
    s.store.kind === 'embedded'
      ? `embedded, saved in ${s.store.file} (one process only)`
      : `Redis at ${redactUrl(s.store.url)}, keys under ${s.store.prefix} (local mode's own)`;
  const budget = s.store.kind === 'embedded' ? 'in-process' : 'shared through Redis';
  const link = linkLine(s.link);
  const rows: [string, string][] = [
    ['playground + fake Slack', `${s.fakeSlackUrl}  (the bot's SLACK_API_URL: ${s.fakeSlackUrl}/api/)`],
    [
      'bot (Bolt, HTTP)',
      `${s.botUrl}/slack/events${s.botPortFellBack ? '  (its usual port was taken)' : ''}`,
    ],
    [
      'sandbox upstream',
      `${s.sandbox.baseUrl}  (token issuer ${s.sandbox.authUrl})${
        s.sandbox.fellBack ? `  — port ${s.sandbox.preferredPort} was taken, a free one is used instead` : ''
      }`,
    ],
    ['store', store],
    ['rate budget', `${budget}, ${formatRateLimit(s.rateLimit)} per upstream login`],
    ['credentials key', keyLine],
    ['workspace', `${s.workspace.name} (${s.workspace.id}): ${link}`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  return [
    'estoque-bot in local mode: no Slack and no upstream configured, everything runs on this machine.',
    '',
    `  Open ${s.url} — a page that plays Slack: channel #${s.workspace.channel}, you are ${s.workspace.userName} (workspace admin).`,
    '',
    ...rows.map(([label, value]) => `  ${label.padEnd(width)}${value}`),
    ...DEMO_LOGINS.map(
      (d, i) => `  ${(i === 0 ? 'demo logins' : '').padEnd(width)}${d.login} / ${d.password} — ${d.note}`,
    ),
    '',
    'Ctrl+C stops everything.',
    '',
  ].join('\n');
}

function linkLine(link: LocalModeSummary['link']): string {
  switch (link.state) {
    case 'failed':
      return `NOT linked (${link.reason}); link it from the page with /estoque vincular`;
    case 'unlinked':
      return 'NOT linked (unlinked from the page); link it from the page with /estoque vincular';
    case 'broken':
      return `link to the sandbox login ${link.login}, company ${link.empresaId ?? '—'} is BROKEN (the upstream refused it); the bot checks it again on its own, or link it again from the page with /estoque vincular`;
    default:
      return `${link.state === 'linked' ? 'linked now' : 'linked'} to the sandbox login ${link.login}, company ${link.empresaId ?? '—'}`;
  }
}

/** A Redis URL without its password. */
function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'redis';
  }
}
