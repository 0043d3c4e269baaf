import { receivablePurchases, receive } from './advance-receipts.js';
import { addRequest, movableRequests, moveByItself, newRequestStockrooms } from './advance-requests.js';
import type { Step } from './advance-step.js';
import { CHANGE_KINDS, type ChangeKind, type UnloggedChange } from './changes.js';
import { ID_KINDS, IdAllocator } from './id-blocks.js';
import type { CompanyData } from './model.js';
import { Random } from './random.js';

/**
 * Moves one company's data along: new requests, requests moving by themselves, purchases receiving goods.
 * Every choice comes from the company's own PRNG, seeded from the sandbox's seed and the company, so the
 * same seed and the same sequence of advances on a company give the same changes whatever other companies
 * do and whatever the clock says (the clock only dates them).
 */

export const MAX_CHANGES_PER_ADVANCE = 100;
/** Ids one change can take at most (a receipt moves up to 50 linked requests). */
const IDS_PER_CHANGE = 64;
const WEIGHT: Record<ChangeKind, number> = { novas: 1, status: 2, recebimentos: 1 };

export function companySeed(seed: number, empresa: number): number {
  return (Math.imul(seed >>> 0, 0x85eb_ca6b) ^ Math.imul(empresa, 0xc2b2_ae35)) >>> 0;
}

export class CompanyMotion {
  private readonly rng: Random;
  private readonly ids: IdAllocator;

  constructor(
    private readonly company: CompanyData,
    seed: number,
  ) {
    this.rng = new Random(companySeed(seed, company.empresa));
    this.ids = new IdAllocator(company);
  }

  /**
   * Makes up to `count` changes of the given kinds at time `now`; a change may bring others along. The requests of
   * `first` that can move by themselves move first (one step each), when `status` is among the kinds.
   */
  advance(
    count: number,
    kinds: readonly ChangeKind[] = CHANGE_KINDS,
    now: number,
    first: readonly number[] = [],
  ): UnloggedChange[] {
    const step: Step = {
      company: this.company,
      rng: this.rng,
      at: Math.floor(now / 1000) * 1000,
      ids: this.ids,
      touchedRequests: new Set(),
      touchedPurchases: new Set(),
    };
    const out: UnloggedChange[] = [];
    let n = 0;
    if (kinds.includes('status')) {
      const wanted = new Set(first);
      for (const request of movableRequests(step)) {
        if (n >= count || ID_KINDS.some((kind) => this.ids.room(kind) < IDS_PER_CHANGE)) break;
        const id = request.record.solicitacaoMaterialId;
        if (!wanted.has(id) || step.touchedRequests.has(id)) continue;
        out.push(moveByItself(step, request));
        n += 1;
      }
    }
    for (; n < count; n++) {
      if (ID_KINDS.some((kind) => this.ids.room(kind) < IDS_PER_CHANGE)) break;
      const options = kinds.map((kind) => this.option(step, kind)).filter((o) => o !== null);
      if (options.length === 0) break;
      const chosen = this.rng.weighted(options, (o) => WEIGHT[o.kind]);
      out.push(...chosen.apply());
    }
    return out;
  }

  /** How to make a change of this kind now, or null when nothing can change that way. */
  private option(step: Step, kind: ChangeKind): { kind: ChangeKind; apply: () => UnloggedChange[] } | null {
    const { rng } = this;
    if (kind === 'novas') {
      const stockrooms = newRequestStockrooms(step);
      return stockrooms.length === 0 ? null : { kind, apply: () => [addRequest(step, stockrooms)] };
    }
    if (kind === 'status') {
      const requests = movableRequests(step);
      return requests.length === 0 ? null : { kind, apply: () => [moveByItself(step, rng.pick(requests))] };
    }
    const purchases = receivablePurchases(step);
    return purchases.length === 0 ? null : { kind, apply: () => receive(step, rng.pick(purchases)) };
  }
}
