/** Failures the domain reports to the Slack layer, besides the upstream errors of src/upstream/errors.ts. */

export class NotLinkedError extends Error {
  override readonly name = 'NotLinkedError';
  readonly code = 'not_linked';
  constructor(readonly workspaceId: string) {
    super('workspace has no upstream credentials linked');
  }
}

/** The link exists but its tokens can no longer be renewed: an admin must link again. */
export class LinkBrokenError extends Error {
  override readonly name = 'LinkBrokenError';
  readonly code = 'link_broken';
  constructor(
    readonly workspaceId: string,
    readonly linkedBy: string,
    /** True for the one caller that should tell the admin who linked (across processes). */
    readonly firstNotice: boolean,
  ) {
    super('upstream credentials expired and could not be renewed');
  }
}

export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
  readonly code = 'not_found';
  constructor(
    readonly what: 'request' | 'purchase',
    readonly id: number,
  ) {
    super(`${what} ${id} not found`);
  }
}

/** `/solicitacao minhas` when no upstream user has the Slack user's e-mail. */
export class UserNotMatchedError extends Error {
  override readonly name = 'UserNotMatchedError';
  readonly code = 'user_not_matched';
  constructor(readonly email: string | null) {
    super('no upstream user matches the Slack user e-mail');
  }
}
