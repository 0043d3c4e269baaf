import { randomUUID } from 'node:crypto';
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
  /**
   * Set when the credentials stopped working (neither refresh nor login could renew the token, or the service kept
   * refusing renewed ones). The sealed login and password stay: the link is checked again (LinkHealer), and an admin
   * may link again.
   */
  brokenAt: number | null;
  /** Why it broke; absent when it is not broken, or broke before the reason was kept. */
  brokenWhy?: LinkBreak;
  /** The automatic checks of the broken link so far; absent before the first. */
  probes?: LinkProbes;
}

/**
 * Why a link broke: the service kept refusing (401) the tokens renewals handed out (`tokens_refused`); the issuer
 * refused the stored password saying the credentials are wrong (`password_refused`); or it refused it otherwise
 * (`login_refused`: a message of another kind, or none).
 */
export type LinkBreak = 'tokens_refused' | 'login_refused' | 'password_refused';

/** A broken link's automatic checks (domain/links/link-healer.ts). */
export interface LinkProbes {
  /** Checks made (one the budget had no slot for is not counted). */
  count: number;
  /** When the next is due (epoch ms); null: the checks ended. */
  nextAt: number | null;
}

/** What LinkStore.markBroken did. */
export type BrokenMark = 'first' | 'again' | 'unlinked' | 'replaced';

/** What LinkStore.restore did: only `restored` restored it (once, across processes). */
export type RestoredMark = 'restored' | 'unlinked' | 'replaced' | 'not-broken';

interface StoredLink {
  credentialId: string;
  /** `{ login, password }` sealed with AES-256-GCM, bound to the workspace. */
  sealed: string;
  empresaId: number | null;
  unidadeId: number | null;
  linkedBy: string;
  linkedAt: number;
  brokenAt: number | null;
  brokenWhy?: LinkBreak | null;
  probes?: LinkProbes | null;
}

/** The upstream login a link holds, as the upstream client takes it (UpstreamCredential). */
export function credentialOfLink(link: WorkspaceLink): {
  id: string;
  login: string;
  password: string;
  empresaId: number | null;
  unidadeId: number | null;
} {
  return {
    id: link.credentialId,
    login: link.login,
    password: link.password,
    empresaId: link.empresaId,
    unidadeId: link.unidadeId,
  };
}

/** A link remembered as made, found gone although nobody unlinked it (LinkStore.vanished). */
export interface VanishedLink {
  workspaceId: string;
  /** Slack user id of the admin who linked ('' when not known). */
  linkedBy: string;
  linkedAt: number;
  /**
   * Set when Redis lost everything it held since this process saw the link (the links' generation changed): the
   * generation lost. Absent when the link alone went (an eviction) and the list of linked workspaces still named it.
   */
  lostGeneration?: string;
}

/** What a process saw of a link: who made it and when, under which generation of the store. Never a secret. */
interface SeenLink {
  linkedBy: string;
  linkedAt: number;
  generation: string;
}

/** How long the claims of a vanished link's notice and of a loss's error line live (one day). */
const VANISHED_NOTICE_TTL_MS = 86_400_000;

/** Tries of a compare-and-set on a link before giving up (each failure is another write landing in between). */
const LINK_WRITE_TRIES = 5;

export class LinkStore {
  /**
   * The links this process saw (the list of linked workspaces read at each check, the links it made), by workspace:
   * when Redis loses everything, that list goes with the links, and only this memory still knows whom to tell.
   */
  private readonly seen = new Map<string, SeenLink>();

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
      ...(stored.brokenAt !== null && stored.brokenWhy && { brokenWhy: stored.brokenWhy }),
      ...(stored.brokenAt !== null && stored.probes && { probes: stored.probes }),
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
      brokenWhy: link.brokenWhy ?? null,
      probes: link.probes ?? null,
    };
    await this.kv.set(this.keys.link(link.workspaceId), JSON.stringify(stored));
    await this.kv.del(this.keys.brokenLinkNotice(link.workspaceId));
    // A new link is not broken: nothing to check (a broken one, as tests write it, is looked at from its break on).
    if (link.brokenAt === null) await this.kv.zrem(this.keys.linkProbeSchedule(), link.workspaceId);
    else await this.kv.zadd(this.keys.linkProbeSchedule(), link.workspaceId, link.brokenAt, 'nx');
    // The first link writes the key check; every link is remembered, so that one that vanishes is noticed.
    await new CredentialsKeyCheck(this.kv, this.keys, this.requireBox()).writeIfAbsent();
    await this.kv.hset(
      this.keys.linkedWorkspaces(),
      link.workspaceId,
      JSON.stringify({ linkedBy: link.linkedBy, linkedAt: link.linkedAt }),
    );
    this.seen.set(link.workspaceId, {
      linkedBy: link.linkedBy,
      linkedAt: link.linkedAt,
      generation: await this.generation(),
    });
  }

  /** Ids of every linked workspace (for the token keeper and the digest scheduler). */
  async workspaceIds(): Promise<string[]> {
    const prefix = this.keys.link('');
    const found = await this.kv.keysWithPrefix(prefix);
    return found.map((key) => key.slice(prefix.length)).filter((id) => id !== '' && !id.includes(':'));
  }

  async delete(workspaceId: string): Promise<void> {
    // Forgotten first: between the two, a link check must not find it remembered and gone ("vanished").
    this.seen.delete(workspaceId);
    await this.kv.hdel(this.keys.linkedWorkspaces(), workspaceId);
    await this.kv.del(this.keys.link(workspaceId), this.keys.brokenLinkNotice(workspaceId));
    await this.kv.zrem(this.keys.linkProbeSchedule(), workspaceId);
  }

  /**
   * Workspaces remembered as linked whose link is gone although nobody unlinked them: Redis lost it. Either the link
   * alone (an eviction: the list of linked workspaces still names it), or everything Redis held (a restart without
   * persistence, a failover to an empty replica, FLUSHALL: the links' generation changed, and the list went with
   * the links), when only what this process saw still names them (`lostGeneration` set). Each comes with the Slack
   * user who linked it, to be told. A link made again since is not vanished; one unlinked by another process is
   * not either (it left the list of a generation this process saw).
   */
  async vanished(): Promise<VanishedLink[]> {
    const generation = await this.generation();
    const listed = await this.kv.hgetall(this.keys.linkedWorkspaces());
    const gone = new Map<string, VanishedLink>();
    for (const [workspaceId, seen] of this.seen) {
      if (seen.generation === generation || workspaceId in listed) continue;
      if ((await this.kv.get(this.keys.link(workspaceId))) !== null) continue;
      gone.set(workspaceId, {
        workspaceId,
        linkedBy: seen.linkedBy,
        linkedAt: seen.linkedAt,
        lostGeneration: seen.generation,
      });
    }
    const known = new Map<string, SeenLink>();
    for (const [workspaceId, raw] of Object.entries(listed)) {
      const { linkedBy, linkedAt } = parseListed(raw);
      known.set(workspaceId, { linkedBy, linkedAt, generation });
      if (gone.has(workspaceId) || (await this.kv.get(this.keys.link(workspaceId))) !== null) continue;
      gone.set(workspaceId, { workspaceId, linkedBy, linkedAt });
    }
    // From now on this process knows the list as it is (what another process unlinked left it) and, until they are
    // forgotten, the links that vanished.
    this.seen.clear();
    for (const [workspaceId, seen] of known) this.seen.set(workspaceId, seen);
    for (const link of gone.values())
      if (link.lostGeneration !== undefined)
        this.seen.set(link.workspaceId, {
          linkedBy: link.linkedBy,
          linkedAt: link.linkedAt,
          generation: link.lostGeneration,
        });
    return [...gone.values()];
  }

  /** Forgets a vanished link once its admins were told, or another process claimed to tell them (the next link remembers it again). */
  async forgetVanished(workspaceId: string): Promise<void> {
    this.seen.delete(workspaceId);
    await this.kv.hdel(this.keys.linkedWorkspaces(), workspaceId);
  }

  /** True for the one caller, across processes, that is to tell the linking admin the link vanished (for a day). */
  claimVanishedNotice(workspaceId: string, at: number): Promise<boolean> {
    return this.kv.set(this.keys.vanishedLinkNotice(workspaceId), String(at), {
      onlyIfAbsent: true,
      ttlMs: VANISHED_NOTICE_TTL_MS,
    });
  }

  /** True for the one caller, across processes, that is to log that Redis lost the generation `generation`. */
  claimLossNotice(generation: string, at: number): Promise<boolean> {
    return this.kv.set(this.keys.linksLostNotice(generation), String(at), {
      onlyIfAbsent: true,
      ttlMs: VANISHED_NOTICE_TTL_MS,
    });
  }

  /**
   * Whether the workspace, found without a link, had one that Redis lost rather than none (never linked, unlinked):
   * its admin was told it vanished (within the last day), the list of linked workspaces still names it, or this
   * process saw it before Redis lost what it held. What "not linked" says to its members.
   */
  async lost(workspaceId: string): Promise<boolean> {
    if ((await this.kv.get(this.keys.vanishedLinkNotice(workspaceId))) !== null) return true;
    if ((await this.kv.hget(this.keys.linkedWorkspaces(), workspaceId)) !== null) return true;
    const seen = this.seen.get(workspaceId);
    return seen !== undefined && (await this.kv.get(this.keys.linksGeneration())) !== seen.generation;
  }

  /** The links' generation (Keys.linksGeneration), written now when Redis has none. */
  private async generation(): Promise<string> {
    const fresh = randomUUID();
    if (await this.kv.set(this.keys.linksGeneration(), fresh, { onlyIfAbsent: true })) return fresh;
    return (await this.kv.get(this.keys.linksGeneration())) ?? fresh;
  }

  /**
   * Marks broken the link made at `linkedAt` (its generation; any, when not given), for `why`: `first` only for the
   * first caller, across processes (the admin gets one DM), `again` for the others. A link that is gone
   * (`unlinked`), or that is another one since (`replaced`: linked again, maybe to another login), is left as it is
   * and nobody is to be told: the credentials that failed were the old link's. The mark is written only over the
   * value read (a compare-and-set), so an unlink or a new link in between is never undone. The login and password
   * stay sealed in the link; it enters the schedule of automatic checks.
   */
  async markBroken(workspaceId: string, at: number, linkedAt?: number, why?: LinkBreak): Promise<BrokenMark> {
    const key = this.keys.link(workspaceId);
    let brokenAt: number;
    for (let tries = 0; ; tries += 1) {
      const raw = await this.kv.get(key);
      if (raw === null) return 'unlinked';
      const stored = JSON.parse(raw) as StoredLink;
      if (linkedAt !== undefined && stored.linkedAt !== linkedAt) return 'replaced';
      if (stored.brokenAt !== null) {
        brokenAt = stored.brokenAt;
        break;
      }
      const broken: StoredLink = { ...stored, brokenAt: at, brokenWhy: why ?? null, probes: null };
      if (await this.kv.replaceIfEquals(key, raw, JSON.stringify(broken))) {
        brokenAt = at;
        await this.kv.zadd(this.keys.linkProbeSchedule(), workspaceId, at, 'nx');
        break;
      }
      // Changed in between (a key rotation's reseal, a new link): read it again.
      if (tries >= 2) return 'replaced';
    }
    // The notice names the break it tells of: one left by an earlier break, healed since (restore takes its own
    // away, but a break may land in between), does not keep this one from being told.
    const notice = this.keys.brokenLinkNotice(workspaceId);
    if (await this.kv.set(notice, String(brokenAt), { onlyIfAbsent: true })) return 'first';
    const told = await this.kv.get(notice);
    if (told === null || told === String(brokenAt)) return 'again';
    return (await this.kv.replaceIfEquals(notice, told, String(brokenAt))) ? 'first' : 'again';
  }

  /**
   * Restores the link made at `linkedAt` and broken at `brokenAt` as it was (same login, linker and `linkedAt`): a
   * check found its credentials working again. `restored` for one caller only, across processes; a link unlinked,
   * linked again or restored meanwhile is left as it is (a compare-and-set, as markBroken). Its notice and its place
   * in the checks' schedule go: a later break is told again.
   */
  async restore(workspaceId: string, linkedAt: number, brokenAt: number): Promise<RestoredMark> {
    const outcome = await this.rewrite(workspaceId, linkedAt, brokenAt, (stored) => ({
      ...stored,
      brokenAt: null,
      brokenWhy: null,
      probes: null,
    }));
    if (outcome !== 'written') return outcome;
    await this.kv.delIfEquals(this.keys.brokenLinkNotice(workspaceId), String(brokenAt));
    await this.kv.zrem(this.keys.linkProbeSchedule(), workspaceId);
    return 'restored';
  }

  /**
   * Records a check of the link made at `linkedAt` and broken at `brokenAt` (and a new reason for the break, when the
   * check learnt one), and moves it in the schedule to the next check (out of it when none is due). False when the
   * link is another one, unlinked or restored since: nothing is written.
   */
  async recordProbe(
    workspaceId: string,
    linkedAt: number,
    brokenAt: number,
    probes: LinkProbes,
    why?: LinkBreak,
  ): Promise<boolean> {
    const outcome = await this.rewrite(workspaceId, linkedAt, brokenAt, (stored) => ({
      ...stored,
      probes,
      brokenWhy: why ?? stored.brokenWhy ?? null,
    }));
    if (outcome !== 'written') return false;
    if (probes.nextAt === null) await this.kv.zrem(this.keys.linkProbeSchedule(), workspaceId);
    else await this.kv.zadd(this.keys.linkProbeSchedule(), workspaceId, probes.nextAt);
    return true;
  }

  /** Puts the workspace in the checks' schedule at `at`, or moves it there (its link says whether a check is due). */
  async scheduleProbe(workspaceId: string, at: number, onlyIfAbsent = false): Promise<void> {
    await this.kv.zadd(this.keys.linkProbeSchedule(), workspaceId, at, onlyIfAbsent ? 'nx' : undefined);
  }

  /** Takes the workspace out of the checks' schedule (its link is not broken, or no check is due any more). */
  async unscheduleProbe(workspaceId: string): Promise<void> {
    await this.kv.zrem(this.keys.linkProbeSchedule(), workspaceId);
  }

  /** Workspaces whose place in the checks' schedule is at or before `at`, earliest first, at most `limit`. */
  async probesDue(at: number, limit: number): Promise<string[]> {
    const due = await this.kv.zrangeByScore(this.keys.linkProbeSchedule(), at, limit);
    return due.map((entry) => entry.member);
  }

  /** Claims the check of the workspace's link for `owner` for `ttlMs` (one check at a time across processes). */
  async claimProbe(workspaceId: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.kv.set(this.keys.linkProbeClaim(workspaceId), owner, { ttlMs, onlyIfAbsent: true });
  }

  async releaseProbe(workspaceId: string, owner: string): Promise<void> {
    await this.kv.delIfEquals(this.keys.linkProbeClaim(workspaceId), owner);
  }

  /** `change` written over the link of that generation and break, only over the value read (compare-and-set). */
  private async rewrite(
    workspaceId: string,
    linkedAt: number,
    brokenAt: number,
    change: (stored: StoredLink) => StoredLink,
  ): Promise<'written' | 'unlinked' | 'replaced' | 'not-broken'> {
    const key = this.keys.link(workspaceId);
    for (let tries = 0; tries < LINK_WRITE_TRIES; tries += 1) {
      const raw = await this.kv.get(key);
      if (raw === null) return 'unlinked';
      const stored = JSON.parse(raw) as StoredLink;
      if (stored.linkedAt !== linkedAt) return 'replaced';
      if (stored.brokenAt !== brokenAt) return 'not-broken';
      if (await this.kv.replaceIfEquals(key, raw, JSON.stringify(change(stored)))) return 'written';
      // Changed in between without changing generation or break (a key rotation's reseal): read it again.
    }
    throw new Error(`the link of workspace ${workspaceId} kept changing while it was written`);
  }
}

/** An entry of the list of linked workspaces: who linked and when ('' and 0 when it cannot be read). */
function parseListed(raw: string): { linkedBy: string; linkedAt: number } {
  try {
    const { linkedBy, linkedAt } = JSON.parse(raw) as { linkedBy: unknown; linkedAt: unknown };
    return { linkedBy: String(linkedBy ?? ''), linkedAt: Number(linkedAt ?? 0) };
  } catch {
    return { linkedBy: '', linkedAt: 0 };
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
