import { loadSandboxConfig } from '../config.js';
import { formatRateLimit } from '../lib/rate-limit-spec.js';
import { DEMO_LOGINS } from './data.js';
import { startSandbox } from './server.js';

/** `npm run sandbox`: the sandbox upstream alone, on SANDBOX_PORT (default 4010), limited by SANDBOX_RATE_LIMIT. */

async function main(): Promise<void> {
  const { port, rateLimit } = loadSandboxConfig();
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
