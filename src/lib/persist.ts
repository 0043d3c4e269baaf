/**
 * `write` until it succeeds, with waits from 100 ms doubling to 5 s, for at most `forMs`; then its last error. For
 * the record of something done outside that cannot be undone (a post Slack accepted): a store restarting for a
 * moment (ioredis refuses commands after about a second of reconnecting) must not make it forgotten, and done again.
 */
export async function persistently(
  write: () => Promise<unknown>,
  forMs: number,
  /** The waits and the clock they are measured on (a test's fake clock moves both). */
  time: { sleep: (ms: number) => Promise<void>; now: () => number } = {
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: Date.now,
  },
): Promise<void> {
  const until = time.now() + forMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await write();
      return;
    } catch (error) {
      const wait = Math.min(5_000, 100 * 2 ** (attempt - 1));
      if (time.now() + wait > until) throw error;
      await time.sleep(wait);
    }
  }
}
