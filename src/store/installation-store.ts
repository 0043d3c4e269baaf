import type { Installation, InstallationQuery, InstallationStore } from '@slack/oauth';
import type { SecretBox } from './crypto.js';
import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

/**
 * Slack installations for multi-workspace OAuth, sealed (they hold bot tokens). Org-wide installs are kept
 * under the enterprise id, other installs under the team id, as Bolt's own stores do.
 */
export class SlackInstallationStore implements InstallationStore {
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
    await this.kv.set(
      this.keys.installation(id),
      this.box.seal(JSON.stringify(installation), `installation:${id}`),
    );
    const workspaceId = installation.team?.id ?? installation.enterprise?.id;
    if (workspaceId && this.onStored) await this.onStored(workspaceId);
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation<'v1' | 'v2', boolean>> {
    // An org-wide install answers for every team of the enterprise.
    const candidates = [this.idOf(query)];
    if (!query.isEnterpriseInstall && query.enterpriseId) candidates.push(`E-${query.enterpriseId}`);
    for (const id of candidates) {
      const sealed = await this.kv.get(this.keys.installation(id));
      if (sealed !== null)
        return JSON.parse(this.box.open(sealed, `installation:${id}`)) as Installation<'v1' | 'v2', boolean>;
    }
    throw new Error('no installation for this workspace');
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    await this.kv.del(this.keys.installation(this.idOf(query)));
  }
}
