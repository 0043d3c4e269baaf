import { errFields, type Logger } from '../../lib/logger.js';
import type { LinkStore } from '../../store/link-store.js';
import type { TokenManager } from '../../upstream/auth.js';

/**
 * Keeps every linked credential's refresh chain alive while the bot runs: a workspace idle for a week would
 * otherwise need a login with the stored password (or, if it changed, an admin). Renewals run at background
 * priority, so they never take a slot an interactive user needs.
 */
export class TokenKeeper {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly links: LinkStore,
    private readonly tokens: TokenManager,
    private readonly logger: Logger,
  ) {}

  async runOnce(withinMs = 24 * 3_600_000): Promise<number> {
    let renewed = 0;
    const seen = new Set<string>();
    for (const workspaceId of await this.links.workspaceIds()) {
      const link = await this.links.get(workspaceId).catch(() => null);
      if (!link || link.brokenAt !== null || seen.has(link.credentialId)) continue;
      seen.add(link.credentialId);
      try {
        const credential = {
          id: link.credentialId,
          login: link.login,
          password: link.password,
          empresaId: link.empresaId,
          unidadeId: link.unidadeId,
        };
        if (await this.tokens.keepAlive(credential, withinMs)) renewed += 1;
      } catch (error) {
        this.logger.warn({ workspaceId, ...errFields(error) }, 'keep-alive renewal failed');
      }
    }
    return renewed;
  }

  start(intervalMs = 3_600_000): void {
    this.timer = setInterval(() => {
      this.runOnce().catch((error: unknown) => this.logger.warn(errFields(error), 'token keeper failed'));
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
