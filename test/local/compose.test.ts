import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ABANDON_NOTICE_MS } from '../../src/slack/background.js';

/** No Docker engine runs here: docker-compose.yml is checked for what the README promises of it. */
const ROOT = join(import.meta.dirname, '..', '..');
let compose: string;
let example: string;

beforeAll(async () => {
  compose = await readFile(join(ROOT, 'docker-compose.yml'), 'utf8');
  example = await readFile(join(ROOT, '.env.example'), 'utf8');
});

/** The uncommented lines of one top-level service block. */
function service(name: string): string {
  const lines = compose.split('\n');
  const start = lines.indexOf(`  ${name}:`);
  if (start < 0) return '';
  const block: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^ {2}\S/.test(line) || /^\S/.test(line)) break;
    if (!line.trim().startsWith('#')) block.push(line);
  }
  return block.join('\n');
}

describe('docker-compose.yml', () => {
  it('runs Redis with AOF on and noeviction, on a volume, with a healthcheck', () => {
    const redis = service('redis');
    expect(redis).toMatch(/"--appendonly", "yes"/);
    expect(redis).toMatch(/"--maxmemory-policy", "noeviction"/);
    expect(redis).toMatch(/redis-data:\/data/);
    expect(redis).toMatch(/healthcheck:\s*\n\s*test: \["CMD", "redis-cli", "ping"\]/);
  });

  it('points the bot at that Redis by service name, waits for it healthy, and gives SIGTERM its grace', () => {
    const bot = service('bot');
    expect(bot).toMatch(/REDIS_URL: redis:\/\/redis:6379/);
    expect(bot).toMatch(/condition: service_healthy/);
    const grace = Number(/stop_grace_period: (\d+)s/.exec(bot)?.[1]) * 1000;
    expect(grace).toBeGreaterThanOrEqual(loadConfig({}).SHUTDOWN_GRACE + ABANDON_NOTICE_MS);
  });

  it('has a commented second replica and no docker run --link', () => {
    expect(compose).toMatch(/^ {2}# bot-2:$/m);
    expect(compose).not.toMatch(/--link/);
  });

  it(".env.example copied as is runs local mode (no REDIS_URL of compose's to reach outside it)", () => {
    // compose sets REDIS_URL for its bot service; a .env copied for `npm start` must not point at that host.
    expect(example).not.toMatch(/^REDIS_URL=/m);
    expect(example).toMatch(/^# REDIS_URL=/m);
    expect(example).toMatch(/^REDIS_KEY_PREFIX=estoque:$/m);
    expect(example).toMatch(/^SHUTDOWN_GRACE=25s$/m);
    const env = Object.fromEntries(
      example
        .split('\n')
        .map((line) => /^([A-Z0-9_]+)=(.*)$/.exec(line))
        .filter((match): match is RegExpExecArray => match !== null)
        .map((match) => [match[1], match[2]]),
    );
    expect(loadConfig(env).localMode).toBe(true);
  });

  it('npm start hands the process over to node (exec), so a SIGTERM to npm reaches the bot', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    };
    expect(pkg.scripts.start).toMatch(/&& exec node dist\/main\.js$/);
  });

  it('publishes the PORT the bot listens on', () => {
    expect(service('bot')).toMatch(/- "\$\{PORT:-3000\}:\$\{PORT:-3000\}"/);
  });
});
