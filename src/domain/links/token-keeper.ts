import { type Clock, systemClock, type TimerHandle } from '../../lib/clock.js';
import { errFields, type Logger } from '../../lib/logger.js';
import { credentialOfLink, type LinkStore } from '../../store/link-store.js';
import type { TokenManager } from '../../upstream/auth.js';
import type { LinkHealer } from './link-healer.js';

/** The keeper's pass over every link (keep-alive renewals, broken links entered in the checks' schedule). */
const PASS_EVERY_MS = 3_600_000;
/** Its tick: the broken links whose check is due are checked (one read of the schedule when none is). */
const TICK_MS = 60_000;

export interface TokenKeeperOptions {
  /** Checks broken links at each tick (absent: none are checked). */
  healer?: LinkHealer | null;
  now?: () => number;
  /** The timers of the loop (tests move them by hand). */
  clock?: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
}

/**
 * Keeps every linked credential's refresh chain alive while the bot runs: a workspace idle for a week would
 * otherwise need a login with the stored password (or, if it changed, an admin). Renewals run at background
 * priority, so they never take a slot an interactive user needs. Its loop also has the broken links checked again
 * (LinkHealer): every replica ticks, a claim in the store makes each check run once.
 */
export class TokenKeeper {
  private timer: TimerHandle | null = null;
  private stopped = true;
  /** When the next pass over every link is due (0: at the first tick). */
  private passAt = 0;
  private readonly now: () => number;
  private readonly clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>;

  constructor(
    private readonly links: LinkStore,
    private readonly tokens: TokenManager,
    private readonly logger: Logger,
    private readonly options: TokenKeeperOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.clock = options.clock ?? systemClock;
  }

  /**
   * The pass over every link: renews the refresh chains that die within `withinMs`, and enters each broken link in
   * the checks' schedule unless it is there. Returns how many chains it renewed.
   */
  async runOnce(withinMs = 24 * 3_600_000): Promise<number> {
    let renewed = 0;
    const seen = new Set<string>();
    for (const workspaceId of await this.links.workspaceIds()) {
      const link = await this.links.get(workspaceId).catch(() => null);
      if (!link) continue;
      if (link.brokenAt !== null) {
        await this.options.healer
          ?.enter(link)
          .catch((error: unknown) =>
            this.logger.warn(
              { workspaceId, ...errFields(error) },
              'could not schedule the broken link check',
            ),
          );
        continue;
      }
      if (seen.has(link.credentialId)) continue;
      seen.add(link.credentialId);
      try {
        const credential = credentialOfLink(link);
        if (await this.tokens.keepAlive(credential, withinMs)) renewed += 1;
      } catch (error) {
        this.logger.warn({ workspaceId, ...errFields(error) }, 'keep-alive renewal failed');
      }
    }
    return renewed;
  }

  /** One tick: the pass over every link when it is due (at the first tick, then each `passEveryMs`), then the due checks. */
  async tick(passEveryMs = PASS_EVERY_MS): Promise<void> {
    if (this.now() >= this.passAt) {
      this.passAt = this.now() + passEveryMs;
      await this.runOnce();
    }
    await this.options.healer?.tick();
  }

  /** Ticks every `tickMs` (never two at once), the pass over every link each `passEveryMs`. */
  start(passEveryMs = PASS_EVERY_MS, tickMs = TICK_MS): void {
    if (!this.stopped) return;
    this.stopped = false;
    const loop = async () => {
      this.timer = null;
      await this.tick(passEveryMs).catch((error: unknown) =>
        this.logger.warn(errFields(error), 'token keeper failed'),
      );
      if (!this.stopped) this.timer = unref(this.clock.setTimeout(() => void loop(), tickMs));
    };
    this.timer = unref(this.clock.setTimeout(() => void loop(), 0));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }
}

function unref(timer: TimerHandle): TimerHandle {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
