import type { Installation, InstallationQuery, InstallationStore } from '@slack/oauth';
import type { SecretBox } from './crypto.js';
import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

/**
 * Slack installations for multi-workspace OAuth, sealed (they hold bot tokens). Org-wide installs are kept
 * under the enterprise id, other installs under the team id, as Bolt's own stores do.
 */
export class SlackInstallationStore implements InstallationStore {
  /**
   * Reads under way, by installation id: Bolt looks the installation up before every ack, so a burst of
   * commands from one workspace would read and decrypt the same value once per command. Concurrent lookups
   * share one read; nothing is kept once it settles (a later lookup reads again, so an uninstall or a new
   * token is seen at once, by every replica), and a write or delete drops the read under way.
   */
  private readonly reading = new Map<string, Promise<string | null>>();
  /** Workspaces this process has already recorded as served by an org-wide install (one write each). */
  private readonly recorded = new Set<string>();

  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
    private readonly box: SecretBox,
    /** Called with the workspace id after an install is stored (digests paused by a revoked token resume). */
    private readonly onStored?: (workspaceId: string) => Promise<unknown>,
  ) {}

  private idOf(query: {
    isEnterpriseInstall?: boolean;
    enterpriseId?: string | undefined;
    teamId?: string | undefined;
  }): string {
    if (query.isEnterpriseInstall && query.enterpriseId) return `E-${query.enterpriseId}`;
    if (query.teamId) return `T-${query.teamId}`;
    if (query.enterpriseId) return `E-${query.enterpriseId}`;
    throw new Error('installation query without team or enterprise id');
  }

  async storeInstallation<AuthVersion extends 'v1' | 'v2'>(
    installation: Installation<AuthVersion, boolean>,
  ): Promise<void> {
    const id = this.idOf({
      isEnterpriseInstall: installation.isEnterpriseInstall,
      enterpriseId: installation.enterprise?.id,
      teamId: installation.team?.id,
    });
    this.reading.delete(id);
    await this.kv.set(
      this.keys.installation(id),
      this.box.seal(JSON.stringify(installation), `installation:${id}`),
    );
    this.reading.delete(id);
    const workspaceId = installation.team?.id ?? installation.enterprise?.id;
    if (workspaceId && this.onStored) await this.onStored(workspaceId);
    // An org-wide install answers the organisation's workspaces: those it has served resume too.
    const enterpriseId = installation.enterprise?.id;
    if (installation.isEnterpriseInstall && enterpriseId && this.onStored) {
      const teams = Object.keys(await this.kv.hgetall(this.keys.enterpriseWorkspaces(enterpriseId)));
      for (const teamId of teams.sort()) await this.onStored(teamId);
    }
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation<'v1' | 'v2', boolean>> {
    // Each caller gets its own object: Bolt's authorize may keep or change what it is handed.
    const parse = (opened: string) => JSON.parse(opened) as Installation<'v1' | 'v2', boolean>;
    const own = await this.read(this.idOf(query));
    if (own !== null) return parse(own);
    // An org-wide install answers for every team of the enterprise. Bolt's requests name the enterprise; the
    // digests and alerts ask by team id alone, and find the enterprise a request of that team was served by
    // (looked up only here, after the team's own install was not found: nothing more on the ack path).
    if (!query.isEnterpriseInstall && query.teamId) {
      const enterpriseId =
        query.enterpriseId ?? (await this.kv.get(this.keys.workspaceEnterprise(query.teamId))) ?? undefined;
      if (enterpriseId) {
        const org = await this.read(`E-${enterpriseId}`);
        if (org !== null) {
          await this.recordServed(query.teamId, enterpriseId);
          return parse(org);
        }
      }
    }
    throw new Error('no installation for this workspace');
  }

  /** Notes once per process that the enterprise's org-wide install serves this workspace (team). */
  private async recordServed(teamId: string, enterpriseId: string): Promise<void> {
    const entry = `${teamId}:${enterpriseId}`;
    if (this.recorded.has(entry)) return;
    await this.kv.set(this.keys.workspaceEnterprise(teamId), enterpriseId);
    await this.kv.hset(this.keys.enterpriseWorkspaces(enterpriseId), teamId, '1');
    this.recorded.add(entry);
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    const id = this.idOf(query);
    this.reading.delete(id);
    await this.kv.del(this.keys.installation(id));
    this.reading.delete(id);
  }

  /** The installation's JSON, decrypted, or null; one read at a time per id (see `reading`). */
  private read(id: string): Promise<string | null> {
    const under = this.reading.get(id);
    if (under) return under;
    const read = this.kv
      .get(this.keys.installation(id))
      .then((sealed) => (sealed === null ? null : this.box.open(sealed, `installation:${id}`)))
      .finally(() => {
        if (this.reading.get(id) === read) this.reading.delete(id);
      });
    this.reading.set(id, read);
    return read;
  }
}
