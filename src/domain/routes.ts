import { z } from 'zod';

/**
 * A route names an answer the bot can show: which view, with which ids, page and filters. Buttons carry
 * routes (and nothing else: no state of one process, no secret); the workspace always comes from the signed
 * payload. The same route re-renders an answer for `Atualizar`, `Compartilhar no canal` and the retry button.
 *
 * In memory a route reads as words (`{ view: 'request', id, page }`). On a button its keys are short
 * (`{"r":"request","id":1234,"p":1}`), because a button value holds at most 2,000 characters; only
 * encodeRoute and decodeRoute know the short keys. Buttons already posted in Slack carry that form, so it
 * must not change.
 */

// What a route takes. The command parser reads these same constants, so that whatever a command accepts can go on
// its answer's buttons: a route the schema refuses gets no button (no `Próxima`, no `Compartilhar no canal`).

/** Ids are the upstream's int32. */
export const MAX_ID = 2_147_483_647;
/** Status filter values at most (`status:1,2,…`), distinct. */
export const MAX_STATUS_VALUES = 20;
/** The longest search text. */
export const MAX_ROUTE_TEXT = 200;
/** The years a date may name. */
export const MIN_YEAR = 2000;
export const MAX_YEAR = 2100;

const id = z.number().int().min(1).max(MAX_ID);
/**
 * The highest page a route or `pagina:` names (a million rows of 10). Past it no list is real, and the upstream page
 * it would become (times a page size of up to 100) nears the service's int32 offsets: a 500, retried, spending
 * budget on nothing.
 */
export const MAX_PAGE = 100_000;
const page = z.number().int().min(1).max(MAX_PAGE);
const localDate = z.object({
  year: z.number().int().min(MIN_YEAR).max(MAX_YEAR),
  month: z.number().int().min(1).max(12),
  day: z.number().int().min(1).max(31),
});
const text = z.string().max(MAX_ROUTE_TEXT);
const statuses = z.array(z.number().int().min(0).max(MAX_ID)).max(MAX_STATUS_VALUES);

const requestFilters = z.object({
  stockroomId: id.optional(),
  status: statuses.optional(),
  purchaseId: id.optional(),
  from: localDate.optional(),
  to: localDate.optional(),
  text: text.optional(),
});

const purchaseFilters = z.object({
  stockroomId: id.optional(),
  status: statuses.optional(),
  supplierId: id.optional(),
  from: localDate.optional(),
  to: localDate.optional(),
  text: text.optional(),
});

const receiptFilters = z.object({
  stockroomId: id.optional(),
  purchaseId: id.optional(),
  from: localDate.optional(),
  to: localDate.optional(),
});

export const routeSchema = z.discriminatedUnion('view', [
  z.object({ view: z.literal('help') }),
  // Buttons posted before these lists paged carry no page: they open the first.
  z.object({ view: z.literal('stockrooms'), page: page.default(1) }),
  z.object({ view: z.literal('types'), page: page.default(1) }),
  z.object({ view: z.literal('categories'), page: page.default(1) }),
  z.object({ view: z.literal('status') }),
  z.object({ view: z.literal('materials'), text: text.min(1), stockroomId: id.optional(), page }),
  z.object({ view: z.literal('request'), id, page }),
  z.object({ view: z.literal('history'), id, page }),
  z.object({ view: z.literal('requests'), filters: requestFilters, page, mine: z.boolean().optional() }),
  z.object({ view: z.literal('pending'), stockroomId: id.optional(), page }),
  z.object({ view: z.literal('purchases'), filters: purchaseFilters, page }),
  z.object({ view: z.literal('purchase'), id, page }),
  z.object({ view: z.literal('receipts'), filters: receiptFilters, page }),
  // The requests the person who asks (or clicks) follows: the button carries no user, the signed payload names them.
  z.object({ view: z.literal('following'), page }),
]);

export type Route = z.infer<typeof routeSchema>;

/**
 * The key a route field has on a button, in the order the encoded value lists them. Only the route's own keys
 * are short: the filters inside `f` keep their names.
 */
const WIRE_KEYS = [
  ['view', 'r'],
  ['text', 't'],
  ['id', 'id'],
  ['stockroomId', 's'],
  ['filters', 'f'],
  ['page', 'p'],
  ['mine', 'mine'],
] as const;

const MAX_VALUE_CHARS = 2000;

export function encodeRoute(route: Route): string {
  const fields = route as Partial<Record<(typeof WIRE_KEYS)[number][0], unknown>>;
  const wire: Record<string, unknown> = {};
  for (const [key, short] of WIRE_KEYS) if (fields[key] !== undefined) wire[short] = fields[key];
  const value = JSON.stringify(wire);
  if (value.length > MAX_VALUE_CHARS) throw new Error('route too long for a button value');
  return value;
}

/** Button values come from outside: anything that does not parse is refused (null). */
export function decodeRoute(value: string | undefined): Route | null {
  if (value === undefined || value.length > MAX_VALUE_CHARS) return null;
  let wire: unknown;
  try {
    wire = JSON.parse(value);
  } catch {
    return null;
  }
  if (typeof wire !== 'object' || wire === null || Array.isArray(wire)) return null;
  // Only the short keys are read: a value written with the long ones is not a button of ours.
  const fields: Record<string, unknown> = {};
  for (const [key, short] of WIRE_KEYS) {
    if (Object.hasOwn(wire, short)) fields[key] = (wire as Record<string, unknown>)[short];
  }
  const parsed = routeSchema.safeParse(fields);
  return parsed.success ? parsed.data : null;
}

/**
 * Whether `Compartilhar no canal` may post the route's answer. The follows of one person are theirs alone: a channel
 * has nothing to do with them, and whoever clicked a button on the shared copy would see their own list, not that one.
 */
export function isShareable(route: Route): boolean {
  return route.view !== 'following';
}

/** The same route on another page (for `Anterior`/`Próxima`). */
export function withPage(route: Route, nextPage: number): Route {
  return 'page' in route ? { ...route, page: nextPage } : route;
}
