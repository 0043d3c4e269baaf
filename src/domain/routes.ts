import { z } from 'zod';

/**
 * A route names an answer the bot can show: which view, with which ids, page and filters. Buttons carry
 * routes (and nothing else: no state of one process, no secret); the workspace always comes from the signed
 * payload. The same route re-renders an answer for `Atualizar`, `Compartilhar no canal` and the retry button.
 * Keys are short because a button value holds at most 2,000 characters.
 */

const id = z.number().int().min(1).max(2_147_483_647);
const page = z.number().int().min(1).max(100_000);
const localDate = z.object({
  year: z.number().int().min(2000).max(2100),
  month: z.number().int().min(1).max(12),
  day: z.number().int().min(1).max(31),
});
const text = z.string().max(200);

const requestFilters = z.object({
  stockroomId: id.optional(),
  status: z.array(z.number().int().min(0).max(2_147_483_647)).max(20).optional(),
  purchaseId: id.optional(),
  from: localDate.optional(),
  to: localDate.optional(),
  text: text.optional(),
});

const purchaseFilters = z.object({
  stockroomId: id.optional(),
  status: z.array(z.number().int().min(0).max(2_147_483_647)).max(20).optional(),
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

export const routeSchema = z.discriminatedUnion('r', [
  z.object({ r: z.literal('help') }),
  z.object({ r: z.literal('stockrooms') }),
  z.object({ r: z.literal('types') }),
  z.object({ r: z.literal('categories') }),
  z.object({ r: z.literal('status') }),
  z.object({ r: z.literal('materials'), t: text.min(1), s: id.optional(), p: page }),
  z.object({ r: z.literal('request'), id, p: page }),
  z.object({ r: z.literal('history'), id, p: page }),
  z.object({ r: z.literal('requests'), f: requestFilters, p: page, mine: z.boolean().optional() }),
  z.object({ r: z.literal('pending'), s: id.optional(), p: page }),
  z.object({ r: z.literal('purchases'), f: purchaseFilters, p: page }),
  z.object({ r: z.literal('purchase'), id, p: page }),
  z.object({ r: z.literal('receipts'), f: receiptFilters, p: page }),
]);

export type Route = z.infer<typeof routeSchema>;

export function encodeRoute(route: Route): string {
  const value = JSON.stringify(route);
  if (value.length > 2000) throw new Error('route too long for a button value');
  return value;
}

/** Button values come from outside: anything that does not parse is refused (null). */
export function decodeRoute(value: string | undefined): Route | null {
  if (value === undefined || value.length > 2000) return null;
  try {
    const parsed = routeSchema.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The same route on another page (for `Anterior`/`Próxima`). */
export function withPage(route: Route, nextPage: number): Route {
  return 'p' in route ? { ...route, p: nextPage } : route;
}
