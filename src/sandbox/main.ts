import { ConfigError, loadConfig } from '../config.js';
import { formatRateLimit, parseRateLimit, type RateLimitSpec } from '../lib/rate-limit-spec.js';
import { DEMO_LOGINS } from './data.js';
import { startSandbox } from './server.js';

/** `npm run sandbox`: the sandbox upstream alone, on SANDBOX_PORT (default 4010), limited by SANDBOX_RATE_LIMIT. */

interface SandboxSettings {
  port: number;
  rateLimit: RateLimitSpec;
}

/**
 * Reads the two variables through the config schema. When the rest of the environment is invalid for the bot
 * (the sandbox does not care), reads just these two with the same rules.
 */
function settings(): SandboxSettings {
  try {
    const config = loadConfig();
    return { port: config.SANDBOX_PORT, rateLimit: config.SANDBOX_RATE_LIMIT };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
  }
  const problems: string[] = [];
  const rawPort = process.env.SANDBOX_PORT?.trim() || '4010';
  const port = Number(rawPort);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    problems.push(`SANDBOX_PORT: expected a port from 0 to 65535, got "${rawPort}"`);
  }
  const rateLimit = parseRateLimit(process.env.SANDBOX_RATE_LIMIT?.trim() || '250/1h');
  if (typeof rateLimit === 'string') problems.push(`SANDBOX_RATE_LIMIT: ${rateLimit}`);
  if (problems.length > 0 || typeof rateLimit === 'string') throw new ConfigError(problems);
  return { port, rateLimit };
}

async function main(): Promise<void> {
  const { port, rateLimit } = settings();
  const sandbox = await startSandbox({ port, rateLimit });
  const lines = [
    'Sandbox upstream running',
    `  UPSTREAM_BASE_URL=${sandbox.baseUrl}`,
    `  UPSTREAM_AUTH_URL=${sandbox.authUrl}`,
    `  rate limit: ${formatRateLimit(rateLimit)} per login`,
    '  demo logins:',
    ...DEMO_LOGINS.map((d) => `    ${d.login} / ${d.password}  — ${d.note}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);

  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    process.stdout.write(`\n${signal}: closing the sandbox\n`);
    sandbox.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
