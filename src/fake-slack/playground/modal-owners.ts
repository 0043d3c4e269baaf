import type { FakeView } from '../types.js';

/**
 * Which open page (a Slack client) a modal belongs to. In Slack a modal opens in the client whose interaction gave
 * the trigger_id, not in every client of the user; the playground's pages are its clients, each naming itself with
 * a client id made up when it loads (`?client=` on its event stream, `client` in what it posts). A trigger the
 * playground issues for a page's request is noted with that page's id; the modal opened (or pushed) with it belongs
 * to that page, and so do the later views of its stack (views.update names no trigger). A modal whose trigger named
 * no client (a request that said none) belongs to no page in particular: every page of the user shows it.
 */

/** A client id as the page makes it up: letters, digits, `-` and `_`. */
const CLIENT_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Triggers live 3 s and a modal stack is short-lived: the newest few hundred of each are plenty. */
const MAX_TRACKED = 500;

export function clientIdOf(value: unknown): string | null {
  return typeof value === 'string' && CLIENT_ID.test(value) ? value : null;
}

export class ModalOwners {
  private readonly triggers = new Map<string, string>();
  private readonly stacks = new Map<string, string>();

  /** Notes that `triggerId` was issued for a request of `client` (null: a request that named none). */
  issued(triggerId: string, client: string | null): void {
    if (client !== null) remember(this.triggers, triggerId, client);
  }

  /** The page a modal view record belongs to (null: every page), noted for its stack's later views. */
  ownerOf(record: FakeView): string | null {
    const root = record.view.root_view_id ?? record.view.id;
    const byTrigger = record.triggerId === undefined ? undefined : this.triggers.get(record.triggerId);
    if (record.triggerId !== undefined) this.triggers.delete(record.triggerId);
    const owner = byTrigger ?? this.stacks.get(root) ?? null;
    if (owner !== null) remember(this.stacks, root, owner);
    return owner;
  }
}

function remember(map: Map<string, string>, key: string, value: string): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_TRACKED) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
