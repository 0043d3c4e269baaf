/**
 * Failures the domain reports to the Slack layer, besides the upstream errors of src/upstream/errors.ts. Like
 * those, each has a stable `code`; slack/failures.ts maps every code to the message the user sees.
 */

export const DomainErrorCode = {
  NotLinked: 'not_linked',
  LinkBroken: 'link_broken',
  NotFound: 'not_found',
  UserNotMatched: 'user_not_matched',
  UserEmailUnavailable: 'user_email_unavailable',
} as const;

export type DomainErrorCode = (typeof DomainErrorCode)[keyof typeof DomainErrorCode];

export abstract class DomainError extends Error {
  abstract readonly code: DomainErrorCode;
}

export class NotLinkedError extends DomainError {
  override readonly name = 'NotLinkedError';
  readonly code = DomainErrorCode.NotLinked;
  constructor(
    readonly workspaceId: string,
    /** It had a link that Redis lost (nobody unlinked it): its members are told so (LinkStore.lost). */
    readonly lost = false,
  ) {
    super('workspace has no upstream credentials linked');
  }
}

/** The link exists but its tokens can no longer be renewed: an admin must link again. */
export class LinkBrokenError extends DomainError {
  override readonly name = 'LinkBrokenError';
  readonly code = DomainErrorCode.LinkBroken;
  constructor(
    readonly workspaceId: string,
    readonly linkedBy: string,
    /** True for the one caller that should tell the admin who linked (across processes). */
    readonly firstNotice: boolean,
  ) {
    super('upstream credentials expired and could not be renewed');
  }
}

export class NotFoundError extends DomainError {
  override readonly name = 'NotFoundError';
  readonly code = DomainErrorCode.NotFound;
  constructor(
    readonly what: 'request' | 'purchase',
    readonly id: number,
  ) {
    super(`${what} ${id} not found`);
  }
}

/** `/solicitacao minhas` when no upstream user has the Slack user's e-mail. */
export class UserNotMatchedError extends DomainError {
  override readonly name = 'UserNotMatchedError';
  readonly code = DomainErrorCode.UserNotMatched;
  constructor(readonly email: string | null) {
    super('no upstream user matches the Slack user e-mail');
  }
}

/**
 * `/solicitacao minhas` (and `minhas acompanhar`) when the user's e-mail, the key of the match, could not be read
 * now: Slack's users.info failed. Nothing is saved for the user; asked again, it is read again.
 */
export class UserEmailUnavailableError extends DomainError {
  override readonly name = 'UserEmailUnavailableError';
  readonly code = DomainErrorCode.UserEmailUnavailable;
  constructor(override readonly cause: unknown) {
    super('the Slack user e-mail could not be read now', { cause });
  }
}
