import type { RoundReport } from '../domain/feed/engine.js';
import type { SandboxChangeView } from '../render/sandbox.js';
import type { AdvanceRequest, SandboxChange } from '../sandbox/changes.js';
import { DEFAULT_EMPRESA } from '../sandbox/control.js';
import type { SandboxMotion } from '../slack/deps.js';

/** What the motion asks of the change feed (local-feed.ts): the playground's alerts follow its advances at once. */
export interface LocalFeedRounds {
  /** The requests someone in the workspace follows. */
  followedRequests(workspaceId: string): Promise<number[]>;
  /** True when the workspace has listeners and its feed never recorded what exists (its first round). */
  needsFirstRound(workspaceId: string): Promise<boolean>;
  /** Runs the workspace's round now (reading the pending purchases too when `receipts`); null when none could. */
  runNow(workspaceId: string, options: { receipts: boolean }): Promise<RoundReport | null>;
}

/**
 * `/estoque sandbox avancar` in local mode: the in-process sandbox moves the linked company's requests and
 * purchases along (the company of the workspace's link; the demo company when the link cannot be read), the requests
 * someone follows first, so that a follower gets a DM. The feed learns of it at once instead of at its place in
 * the interval (minutes in local mode, where the budget is 250 calls an hour): before the first advance a
 * workspace's feed records what exists (otherwise the first round would take the advance's changes as what
 * exists and report none), and after the reply its round runs now.
 */
export function sandboxMotion(
  sandbox: { advance(request: AdvanceRequest): SandboxChange[] | Promise<SandboxChange[]> },
  companyOf: (workspaceId: string) => Promise<number | null>,
  feedOf: () => LocalFeedRounds,
): SandboxMotion {
  return {
    async advance(workspaceId, changes) {
      const empresaId = (await companyOf(workspaceId).catch(() => null)) ?? DEFAULT_EMPRESA;
      const feed = feedOf();
      if (await feed.needsFirstRound(workspaceId)) await feed.runNow(workspaceId, { receipts: true });
      const requestIds = await feed.followedRequests(workspaceId);
      return (await sandbox.advance({ empresaId, changes, requestIds })).map(viewOf);
    },
    async announce(workspaceId, changes) {
      if (changes.length === 0) return;
      await feedOf().runNow(workspaceId, { receipts: changes.some((c) => c.kind === 'recebimentos') });
    },
  };
}

function viewOf(change: SandboxChange): SandboxChangeView {
  switch (change.kind) {
    case 'novas':
      return { kind: 'novas', requestId: change.solicitacaoMaterialId, stockroomId: change.almoxarifado };
    case 'status':
      return {
        kind: 'status',
        requestId: change.solicitacaoMaterialId,
        from: change.fromNome,
        to: change.toNome,
      };
    case 'recebimentos':
      return {
        kind: 'recebimentos',
        purchaseId: change.compraMaterialId,
        quantity: change.quantidade,
        pendingAfter: change.pendingAfter,
        requestIds: change.solicitacaoMaterialIds,
      };
  }
}
