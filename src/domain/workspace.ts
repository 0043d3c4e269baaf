import { credentialOfLink, type LinkStore, type WorkspaceLink } from '../store/link-store.js';
import type { MaterialScope } from '../store/stock-store.js';
import type { Priority } from '../upstream/budget.js';
import type { CallContext } from '../upstream/client.js';
import { CredentialsExpiredError } from '../upstream/errors.js';
import { LinkBrokenError, NotLinkedError } from './errors.js';
import { probeDelay } from './links/link-healer.js';
import type { LinkedCompany } from './views.js';

export interface WorkspaceContext {
  workspaceId: string;
  link: WorkspaceLink;
  call: CallContext;
  /** Every read answers with what is saved, never asking upstream (the first message of a waiting answer). */
  savedOnly?: boolean;
}

/** Whose materials a read under `ws` saw: the workspace as linked to its company (StockStore). */
export function materialScope(ws: Pick<WorkspaceContext, 'workspaceId' | 'link'>): MaterialScope {
  return { workspaceId: ws.workspaceId, empresaId: ws.link.empresaId };
}

/** The company and unit a workspace's reads are made for, as answers name them. */
export function linkedCompany(ws: Pick<WorkspaceContext, 'link'>): LinkedCompany {
  return { empresaId: ws.link.empresaId, unidadeId: ws.link.unidadeId };
}

/** What an interactive answer adds to its calls: its deadline, who watches them, and saved-only reads. */
export interface AnswerCallOptions extends Pick<CallContext, 'deadline' | 'observer'> {
  savedOnly?: boolean;
}

/** An upstream call of a workspace, made with the call context it is handed (credential, priority). */
export type Fetch<T> = (call: CallContext) => Promise<T>;

/**
 * Turns the workspace of a signed Slack payload into the credential its calls use. Every upstream call of a
 * workspace goes through `run` (the CachedReader makes them), which turns a credential that can no longer be
 * renewed into a broken link (marked once across processes, so the admin who linked gets one DM).
 */
export class Workspaces {
  constructor(
    private readonly links: LinkStore,
    private readonly now: () => number = Date.now,
    /**
     * Told whenever a broken link is met (the change feed's listeners pause until a new link). Idempotent on
     * the other side; its failure never hides the LinkBrokenError.
     */
    private readonly onBroken: (workspaceId: string) => Promise<unknown> = async () => undefined,
    /**
     * Told once per broken link, across processes, by whichever call meets it first (a command, a digest, a
     * feed round, the Home): the admin who linked is to be told, and whether the bot checks it again by itself
     * (LinkHealer). Must not throw or wait.
     */
    private readonly onFirstBroken: (
      workspaceId: string,
      linkedBy: string,
      checkedAgain: boolean,
    ) => void = () => undefined,
  ) {}

  async resolve(
    workspaceId: string,
    priority: Priority,
    correlationId?: string,
    answer: AnswerCallOptions = {},
  ): Promise<WorkspaceContext> {
    const link = await this.links.get(workspaceId);
    if (!link) throw new NotLinkedError(workspaceId, await this.links.lost(workspaceId).catch(() => false));
    if (link.brokenAt !== null) {
      await this.onBroken(workspaceId).catch(() => undefined);
      throw new LinkBrokenError(workspaceId, link.linkedBy, false);
    }
    const ws = workspaceContext(link, priority, correlationId);
    if (answer.deadline !== undefined) ws.call.deadline = answer.deadline;
    if (answer.observer !== undefined) ws.call.observer = answer.observer;
    if (answer.savedOnly) ws.savedOnly = true;
    return ws;
  }

  async run<T>(ws: WorkspaceContext, fetch: Fetch<T>): Promise<T> {
    try {
      return await fetch(ws.call);
    } catch (error) {
      if (error instanceof CredentialsExpiredError) {
        const mark = await this.links.markBroken(ws.workspaceId, this.now(), ws.link.linkedAt, error.why);
        // Unlinked, or linked again, while the call was under way: the credentials that failed are the old link's.
        // Nothing is marked, paused or told (a new link's feed must not pause, nor its admin hear it broke).
        if (mark === 'unlinked') throw new NotLinkedError(ws.workspaceId);
        if (mark === 'replaced') throw error;
        await this.onBroken(ws.workspaceId).catch(() => undefined);
        if (mark === 'first')
          this.onFirstBroken(ws.workspaceId, ws.link.linkedBy, probeDelay(error.why, 0) !== null);
        throw new LinkBrokenError(ws.workspaceId, ws.link.linkedBy, mark === 'first');
      }
      throw error;
    }
  }
}

/** The context of a workspace's calls: its link's credential, at a priority. */
export function workspaceContext(
  link: WorkspaceLink,
  priority: Priority,
  correlationId?: string,
): WorkspaceContext {
  return {
    workspaceId: link.workspaceId,
    link,
    call: {
      credential: credentialOfLink(link),
      priority,
      ...(correlationId !== undefined && { correlationId }),
    },
  };
}
