import { type WorkspaceContext, workspaceContext } from '../../src/domain/workspace.js';
import type { Priority } from '../../src/upstream/budget.js';

/** The context of a linked workspace, as Workspaces.resolve hands it to the services. */
export function testWorkspace(workspaceId: string, priority: Priority = 'interactive'): WorkspaceContext {
  return workspaceContext(
    {
      workspaceId,
      credentialId: `cred-${workspaceId}`,
      login: `login-${workspaceId}`,
      password: 'not-a-real-password',
      empresaId: 1,
      unidadeId: null,
      linkedBy: 'U0ADMIN01',
      linkedAt: 0,
      brokenAt: null,
    },
    priority,
  );
}
