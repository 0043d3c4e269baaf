import type { SandboxChangeView } from '../render/sandbox.js';
import type { SandboxChange } from '../sandbox/changes.js';
import { DEFAULT_EMPRESA } from '../sandbox/control.js';
import type { Sandbox } from '../sandbox/server.js';
import type { SandboxMotion } from '../slack/deps.js';

/**
 * `/estoque sandbox avancar` in local mode: the in-process sandbox moves the linked company's requests and
 * purchases along (the company of the workspace's link; the demo company when the link cannot be read).
 */
export function sandboxMotion(
  sandbox: Pick<Sandbox, 'advance'>,
  companyOf: (workspaceId: string) => Promise<number | null>,
): SandboxMotion {
  return {
    async advance(workspaceId, changes) {
      const empresaId = (await companyOf(workspaceId).catch(() => null)) ?? DEFAULT_EMPRESA;
      return sandbox.advance({ empresaId, changes }).map(viewOf);
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
