import { type SecretBox, SecretBoxError } from './crypto.js';
import { CredentialsKeyCheck } from './key-check.js';
import type { Keys } from './keys.js';
import type { KeyValue } from './kv.js';

/** A workspace's link to an upstream login. `password` is a secret: it leaves this store only in memory. */
export interface WorkspaceLink {
  workspaceId: string;
  credentialId: string;
  login: string;
  password: string;
  empresaId: number | null;
  unidadeId: number | null;
  /** Slack user id of the admin who linked. */
  linkedBy: string;
  linkedAt: number;
  /** Set when neither refresh nor login could renew the token: an admin must link again. */
  brokenAt: number | null;
}

/** What LinkStore.markBroken did. */
export type BrokenMark = 'first' | 'again' | 'unlinked' | 'replaced';

interface StoredLink {
  credentialId: string;
  /** `{ login, password }` sealed with AES-256-GCM, bound to the workspace. */
  sealed: string;
  empresaId: number | null;
  unidadeId: number | null;
  linkedBy: string;
  linkedAt: number;
  brokenAt: number | null;
}

export class LinkStore {
  constructor(
    private readonly kv: KeyValue,
    private readonly keys: Keys,
    private readonly box: SecretBox | null,
  ) {}

  private requireBox(): SecretBox {
    if (!this.box) throw new Error('CREDENTIALS_KEY is required to store or read credentials');
    return this.box;
  }

  async get(workspaceId: string): Promise<WorkspaceLink | null> {
    const raw = await this.kv.get(this.keys.link(workspaceId));
    if (raw === null) return null;
    const stored = JSON.parse(raw) as StoredLink;
    const box = this.requireBox();
    let secret: { login: string; password: string };
    try {
      secret = JSON.parse(box.open(stored.sealed, `link:${workspaceId}`)) as typeof secret;
    } catch (error) {
      // The link exists: saying "not linked" would hide a key problem behind a wrong message (issue 12.8).
      if (error instanceof SecretBoxError) throw new LinkUnreadableError(workspaceId, { cause: error });
      throw error;
    }
    if (box.needsResealing(stored.sealed)) {
      // Key rotation: the value opened with an older key; seal it again with the current one, unless the link
      // changed since it was read (an unlink, a new link, a mark as broken): a plain write would undo that.
      await this.kv.replaceIfEquals(
        this.keys.link(workspaceId),
        raw,
        JSON.stringify({ ...stored, sealed: box.seal(JSON.stringify(secret), `link:${workspaceId}`) }),
      );
    }
    return {
      workspaceId,
      credentialId: stored.credentialId,
      login: secret.login,
      password: secret.password,
      empresaId: stored.empresaId,
      unidadeId: stored.unidadeId,
      linkedBy: stored.linkedBy,
      linkedAt: stored.linkedAt,
      brokenAt: stored.brokenAt,
    };
  }

  async save(link: WorkspaceLink): Promise<void> {
    const sealed = this.requireBox().seal(
      JSON.stringify({ login: link.login, password: link.password }),
      `link:${link.workspaceId}`,
    );
    const stored: StoredLink = {
      credentialId: link.credentialId,
      sealed,
      empresaId: link.empresaId,
      unidadeId: link.unidadeId,
      linkedBy: link.linkedBy,
      linkedAt: link.linkedAt,
      brokenAt: link.brokenAt,
    };
    await this.kv.set(this.keys.link(link.workspaceId), JSON.stringify(stored));
    await this.kv.del(this.keys.brokenLinkNotice(link.workspaceId));
    // The first link writes the key check; every link is remembered, so that one that vanishes is noticed.
    await new CredentialsKeyCheck(this.kv, this.keys, this.requireBox()).writeIfAbsent();
    await this.kv.hset(
      this.keys.linkedWorkspaces(),
      link.workspaceId,
      JSON.stringify({ linkedBy: link.linkedBy, linkedAt: link.linkedAt }),
    );
  }

  /** Ids of every linked workspace (for the token keeper and the digest scheduler). */
  async workspaceIds(): Promise<string[]> {
    const prefix = this.keys.link('');
    const found = await this.kv.keysWithPrefix(prefix);
    return found.map((key) => key.slice(prefix.length)).filter((id) => id !== '' && !id.includes(':'));
  }

  async delete(workspaceId: string): Promise<void> {
    // Forgotten first: between the two, a link check must not find it remembered and gone ("vanished").
    await this.kv.hdel(this.keys.linkedWorkspaces(), workspaceId);
    await this.kv.del(this.keys.link(workspaceId), this.keys.brokenLinkNotice(workspaceId));
  }

  /**
   * Workspaces remembered as linked whose link is gone although nobody unlinked them: Redis lost it (a restart
   * without persistence, an eviction). Each comes with the Slack user who linked it, to be told.
   */
  async vanished(): Promise<{ workspaceId: string; linkedBy: string; linkedAt: number }[]> {
    const remembered = await this.kv.hgetall(this.keys.linkedWorkspaces());
    const gone: { workspaceId: string; linkedBy: string; linkedAt: number }[] = [];
    for (const [workspaceId, raw] of Object.entries(remembered)) {
      if ((await this.kv.get(this.keys.link(workspaceId))) !== null) continue;
      try {
        const { linkedBy, linkedAt } = JSON.parse(raw) as { linkedBy: string; linkedAt: number };
        gone.push({ workspaceId, linkedBy: String(linkedBy), linkedAt: Number(linkedAt) });
      } catch {
        gone.push({ workspaceId, linkedBy: '', linkedAt: 0 });
      }
    }
    return gone;
  }

  /** Forgets a vanished link once its admins were told (the next link remembers it again). */
  async forgetVanished(workspaceId: string): Promise<void> {
    await this.kv.hdel(this.keys.linkedWorkspaces(), workspaceId);
  }

  /**
   * Marks broken the link made at `linkedAt` (its generation; any, when not given): `first` only for the first
   * caller, across processes (the admin gets one DM), `again` for the others. A link that is gone (`unlinked`), or
   * that is another one since (`replaced`: linked again, maybe to another login), is left as it is and nobody is to
   * be told: the credentials that failed were the old link's. The mark is written only over the value read (a
   * compare-and-set), so an unlink or a new link in between is never undone.
   */
  async markBroken(workspaceId: string, at: number, linkedAt?: number): Promise<BrokenMark> {
    const key = this.keys.link(workspaceId);
    for (let tries = 0; ; tries += 1) {
      const raw = await this.kv.get(key);
      if (raw === null) return 'unlinked';
      const stored = JSON.parse(raw) as StoredLink;
      if (linkedAt !== undefined && stored.linkedAt !== linkedAt) return 'replaced';
      if (stored.brokenAt !== null) break;
      if (await this.kv.replaceIfEquals(key, raw, JSON.stringify({ ...stored, brokenAt: at }))) break;
      // Changed in between (a key rotation's reseal, a new link): read it again.
      if (tries >= 2) return 'replaced';
    }
    const first = await this.kv.set(this.keys.brokenLinkNotice(workspaceId), String(at), {
      onlyIfAbsent: true,
    });
    return first ? 'first' : 'again';
  }
}

/** A stored link that the configured keys cannot open: a key problem (or a tampered value), never "not linked". */
export class LinkUnreadableError extends Error {
  override readonly name = 'LinkUnreadableError';
  readonly code = 'link_unreadable';
  constructor(
    readonly workspaceId: string,
    options?: ErrorOptions,
  ) {
    super(
      `the link of workspace ${workspaceId} cannot be opened with CREDENTIALS_KEY or CREDENTIALS_KEY_PREVIOUS`,
      options,
    );
  }
}
