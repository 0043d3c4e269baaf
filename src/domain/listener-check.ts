import type { PauseReason } from '../store/subscription-store.js';
import type { DomainDeps } from './deps.js';
import { LinkBrokenError, NotLinkedError } from './errors.js';
import { checkStockroom } from './stock/catalog-service.js';
import type { AnswerCallOptions } from './workspace.js';

/**
 * What a channel's new listener (`/estoque alertas assinar`, `/estoque resumo assinar`) is checked against before it
 * is confirmed: whether the workspace's link lets it run, and whether its `almox:N` is one of the company's active
 * stockrooms. Until 2026-11-27 neither was looked at: `almox:999` and a subscription while unlinked were confirmed
 * as if they would work, and the channel never got anything.
 */

export type ListenerLink = { kind: 'linked' } | { kind: 'not_linked'; lost: boolean } | { kind: 'broken' };

export interface ListenerCheck {
  link: ListenerLink;
  /**
   * Of `almox:N` (null when none was asked): `inactive` only when the list read now lacks N; `unchecked` when the list
   * was empty, could not be read now (a spent budget, upstream down) or not at all (no working link).
   */
  stockroom: 'active' | 'inactive' | 'unchecked' | null;
}

/** Why a confirmed listener will not run yet, as the confirmation says it. */
export type ListenerHold =
  | { kind: 'not_linked'; lost: boolean }
  | { kind: 'broken' }
  | { kind: 'paused'; reason: PauseReason };

export type CheckListener = (
  workspaceId: string,
  stockroomId: number | null,
  correlationId?: string,
  calls?: AnswerCallOptions,
) => Promise<ListenerCheck>;

/**
 * The link, then N against the active stockroom list (checkStockroom, as `/estoque x almox:N` does: the saved list,
 * else at most one call through the cache). A saved list that lacks N while the list cannot be read now does not
 * refuse N: it may be older than N.
 */
export async function checkListener(
  deps: DomainDeps,
  workspaceId: string,
  stockroomId: number | null,
  correlationId?: string,
  calls?: AnswerCallOptions,
): Promise<ListenerCheck> {
  let ws: Awaited<ReturnType<DomainDeps['workspaces']['resolve']>>;
  try {
    ws = await deps.workspaces.resolve(workspaceId, 'interactive', correlationId, calls);
  } catch (error) {
    const link = linkStateOf(error);
    if (link === null) throw error;
    return { link, stockroom: stockroomId === null ? null : 'unchecked' };
  }
  if (stockroomId === null) return { link: { kind: 'linked' }, stockroom: null };
  const checked = await checkStockroom(deps, ws, stockroomId);
  const failed = checked.readFailure !== undefined;
  return {
    link: (failed ? linkStateOf(checked.readFailure) : null) ?? { kind: 'linked' },
    stockroom: failed && checked.state === 'inactive' ? 'unchecked' : checked.state,
  };
}

/**
 * Why the listener will not run yet: no link, a broken one, or the pause its kind of listener is under (`paused`:
 * the feed's workspace pause, or the existing digest subscription's).
 */
export function listenerHold(link: ListenerLink, paused: PauseReason | null): ListenerHold | null {
  if (link.kind !== 'linked') return link;
  return paused === null ? null : { kind: 'paused', reason: paused };
}

function linkStateOf(error: unknown): ListenerLink | null {
  if (error instanceof NotLinkedError) return { kind: 'not_linked', lost: error.lost };
  if (error instanceof LinkBrokenError) return { kind: 'broken' };
  return null;
}
