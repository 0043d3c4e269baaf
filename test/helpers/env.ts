/**
 * The one place the tests read the environment (Biome's noProcessEnv allows it here and in src/config.ts):
 * which Redis to use, and the PATH a child process needs to find its tools.
 */

/** The Redis the tests use, each under a random key prefix (redis.ts). */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** This process's PATH, for a child process that is otherwise given only the variables a test chooses. */
export const INHERITED_PATH = process.env.PATH ?? '';

/** `SCREENSHOTS=docs` asks the browser test to write the README's screenshots into docs/ (never set in CI). */
export const SCREENSHOTS_TO_DOCS = process.env.SCREENSHOTS === 'docs';
