import type { Installation, InstallationQuery, InstallationStore } from '@slack/oauth';
import { orAfter } from '../lib/deadline.js';
import type { SecretBox } from './crypto.js';
import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

/** How long a process trusts its own record that an org-wide install serves a workspace (see `recorded`). */
const RECORD_AGAIN_MS = 10 * 60_000;

/**
 * How long a lookup waits for the store before it answers with the installation this process last read (see
 * `lastRead`): Bolt's authorize runs before every ack, and Slack's limit is 3 s for the whole exchange.
 */
export const INSTALLATION_STORE_WAIT_MS = 300;

/** The store did not answer within the wait. */
const NO_ANSWER = Symbol('no answer');

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
  /**
   * When this process last recorded that an org-wide install served a workspace (team:enterprise). The record
   * is written again after `RECORD_AGAIN_MS`: another replica may have removed it (an uninstall), and an
   * organisation that installs again must be found by its workspaces' digests and alerts.
   */
  private readonly recorded = new Map<string, number>();
  /**
   * The sealed value this process last read or wrote, by installation id: the answer when the store does not
   * answer within `storeWaitMs` or fails (a Redis outage or a slow Redis must not fail every ack, `/estoque
   * ajuda` included). Only then: whenever the store answers, its answer stands (an install removed by another
   * replica is gone at the next read that reaches the store). One value per install, sealed as stored.
   */
  private readonly lastRead = new Map<string, string>();
  /** Lookups under way (readInTime), by installation id; a write or delete drops them, as `reading`. */
  private readonly readingInTime = new Map<string, Promise<{ opened: string | null; remembered: boolean }>>();

  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
    private readonly box: SecretBox,
    /** Called with the workspace id after an install is stored (digests paused by a revoked token resume). */
    private readonly onStored?: (workspaceId: string) => Promise<unknown>,
    private readonly now: () => number = Date.now,
    private readonly storeWaitMs = INSTALLATION_STORE_WAIT_MS,
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
    this.readingInTime.delete(id);
    const sealed = this.box.seal(JSON.stringify(installation), `installation:${id}`);
    await this.kv.set(this.keys.installation(id), sealed);
    this.reading.delete(id);
    this.readingInTime.delete(id);
    this.lastRead.set(id, sealed);
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
    const { opened: own, remembered } = await this.readInTime(this.idOf(query));
    if (own !== null) {
      // A request from a workspace an org-wide install serves names the workspace beside the enterprise
      // (`is_enterprise_install` true: Bolt asks for the enterprise's install, found at once): note that it
      // serves that workspace, so its digests and alerts find the install by team id and an uninstall reaches
      // its link. Once per process and RECORD_AGAIN_MS.
      const { teamId, enterpriseId } = query;
      // Not while the store does not answer: the record waits for a lookup that reaches it.
      if (!remembered && query.isEnterpriseInstall && enterpriseId && teamId && teamId !== enterpriseId)
        await this.recordServed(teamId, enterpriseId);
      return parse(own);
    }
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

  /**
   * The organisation whose org-wide install serves this workspace (team), when it has no install of its own: how a
   * request of it names it (the enterprise, as an org-wide install). Null for a workspace with its own install, or
   * none known.
   */
  async enterpriseServing(teamId: string): Promise<string | null> {
    if ((await this.read(this.idOf({ teamId }))) !== null) return null;
    const enterpriseId = await this.kv.get(this.keys.workspaceEnterprise(teamId));
    if (enterpriseId === null) return null;
    return (await this.read(this.idOf({ enterpriseId, isEnterpriseInstall: true }))) !== null
      ? enterpriseId
      : null;
  }

  /** Notes once per process that the enterprise's org-wide install serves this workspace (team). */
  private async recordServed(teamId: string, enterpriseId: string): Promise<void> {
    const entry = `${teamId}:${enterpriseId}`;
    const at = this.recorded.get(entry);
    if (at !== undefined && this.now() - at < RECORD_AGAIN_MS) return;
    await this.kv.set(this.keys.workspaceEnterprise(teamId), enterpriseId);
    await this.kv.hset(this.keys.enterpriseWorkspaces(enterpriseId), teamId, '1');
    this.recorded.set(entry, this.now());
  }

  /**
   * The workspaces an uninstall or a revoked token concerns. A team install: its team. An org-wide install:
   * every workspace of the organisation it has served (links, digests and alerts are kept per workspace).
   */
  async workspacesOf(query: {
    isEnterpriseInstall?: boolean;
    enterpriseId?: string | undefined;
    teamId?: string | undefined;
  }): Promise<string[]> {
    if (query.isEnterpriseInstall && query.enterpriseId) {
      return Object.keys(await this.kv.hgetall(this.keys.enterpriseWorkspaces(query.enterpriseId))).sort();
    }
    const own = query.teamId ?? query.enterpriseId;
    return own ? [own] : [];
  }

  /**
   * The organisation's install no longer serves these workspaces (`team_access_revoked`), or any of them
   * (`enterpriseId` alone: the org-wide install was removed): their records go.
   */
  async forgetServed(enterpriseId: string, teamIds?: readonly string[]): Promise<void> {
    const teams = teamIds ?? (await this.workspacesOf({ isEnterpriseInstall: true, enterpriseId }));
    for (const teamId of teams) {
      // Only a record that names this enterprise: the team may have moved to another organisation since.
      if ((await this.kv.get(this.keys.workspaceEnterprise(teamId))) === enterpriseId) {
        await this.kv.del(this.keys.workspaceEnterprise(teamId));
      }
      await this.kv.hdel(this.keys.enterpriseWorkspaces(enterpriseId), teamId);
      this.recorded.delete(`${teamId}:${enterpriseId}`);
    }
  }

  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    const id = this.idOf(query);
    this.reading.delete(id);
    this.readingInTime.delete(id);
    this.lastRead.delete(id);
    await this.kv.del(this.keys.installation(id));
    this.reading.delete(id);
    this.readingInTime.delete(id);
    this.lastRead.delete(id);
  }

  /**
   * The installation's JSON as `read` gives it; when the store has not answered within `storeWaitMs`, or failed,
   * the value this process last read of it (`remembered`). With none remembered, the store's own answer or failure.
   */
  private readInTime(id: string): Promise<{ opened: string | null; remembered: boolean }> {
    // Concurrent lookups (a burst) share one wait, as they share one read: one timer, not one per ack.
    const under = this.readingInTime.get(id);
    if (under) return under;
    const answer = this.readOrRemembered(id).finally(() => {
      if (this.readingInTime.get(id) === answer) this.readingInTime.delete(id);
    });
    this.readingInTime.set(id, answer);
    return answer;
  }

  private async readOrRemembered(id: string): Promise<{ opened: string | null; remembered: boolean }> {
    const read = this.read(id);
    const known = this.lastRead.get(id);
    if (known === undefined) return { opened: await read, remembered: false };
    const answer = await orAfter<string | null | typeof NO_ANSWER>(
      read.catch(() => NO_ANSWER),
      this.storeWaitMs,
      () => NO_ANSWER,
    );
    if (answer !== NO_ANSWER) return { opened: answer, remembered: false };
    // Read again at the fallback: a write or delete of this process meanwhile has replaced or dropped it.
    const latest = this.lastRead.get(id);
    return latest === undefined
      ? { opened: await read, remembered: false }
      : { opened: this.box.open(latest, `installation:${id}`), remembered: true };
  }

  /** The installation's JSON, decrypted, or null; one read at a time per id (see `reading`). */
  private read(id: string): Promise<string | null> {
    const under = this.reading.get(id);
    if (under) return under;
    const read: Promise<string | null> = this.kv
      .get(this.keys.installation(id))
      .then((sealed) => {
        // Only the read still current: a write or delete of this process since has set or dropped the value.
        if (this.reading.get(id) === read) {
          if (sealed === null) this.lastRead.delete(id);
          else this.lastRead.set(id, sealed);
        }
        return sealed === null ? null : this.box.open(sealed, `installation:${id}`);
      })
      .finally(() => {
        if (this.reading.get(id) === read) this.reading.delete(id);
      });
    this.reading.set(id, read);
    return read;
  }
}
