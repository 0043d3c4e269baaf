import { describe, expect, it } from 'vitest';
import type { ReceiptEvent } from '../../../src/domain/feed/types.js';
import { feedHarnessPerTest, INTERVAL_MS, recorded, WS } from '../../helpers/feed-harness.js';

/** Receipts of one purchase that come more than once: the same fall twice, leaving the pending list twice. */
const start = feedHarnessPerTest();
const PURCHASE = 990_001;

describe('FeedRound: a purchase received more than once', () => {
  it('reports every receipt: a balance that falls to a value it fell to before, a purchase that leaves the list again', async () => {
    const h = await start();
    const stockroom = h.sandbox.data.company(1)?.stockrooms[0]?.record.almoxarifado ?? 0;
    // The pending list of that stockroom, as the next receipts read gets it: the purchase with this balance, or
    // not there (null).
    const pending = (balance: number | null) =>
      h.sandbox.faults.next({
        path: new RegExp(`/v1/entradas-materiais/compras\\?.*almoxarifadoId=${stockroom}(&|$)`),
        status: 200,
        body:
          balance === null
            ? []
            : [
                {
                  compraMaterialId: PURCHASE,
                  quantidadePendente: balance,
                  fornecedor_Nome: 'Hidráulica São Jorge',
                },
              ],
      });
    await h.listeners.upsertChannel({
      workspaceId: WS,
      channelId: 'C-RECEIPTS',
      stockroomId: null,
      kinds: ['recebimentos'],
      subscribedBy: 'U1',
    });
    pending(10);
    const a = h.feedReplica();
    await recorded(h, a.engine);

    const receipts = () =>
      a.poster.posts
        .flatMap((p) => p.events)
        .filter((e): e is ReceiptEvent => e.kind === 'recebimentos' && e.purchaseId === PURCHASE);
    const round = async (balance: number | null) => {
      pending(balance);
      h.clock.advance(3 * INTERVAL_MS);
      expect(await a.engine.runIfDue(WS)).toMatchObject({ ran: true });
      expect(h.sandbox.faults.pending).toBe(0);
    };
    await round(4); // 10 → 4
    await round(10); // up again (a correction): no receipt
    await round(4); // 10 → 4 again
    await round(null); // received in full
    await round(3); // back in the list
    await round(null); // received in full again
    expect(receipts().map((e) => (e.complete ? 'done' : 'partial'))).toEqual([
      'partial',
      'partial',
      'done',
      'done',
    ]);
    expect(new Set(receipts().map((e) => e.id)).size).toBe(4);
    // The first receipt of a purchase keeps the id it had before versions (replicas of the older version during a
    // rolling upgrade name it the same way); the later ones carry their version.
    expect(receipts()[0]?.id).toBe(`${WS}:recebimentos:${PURCHASE}:4`);
    expect(receipts()[1]?.id).toBe(`${WS}:recebimentos:${PURCHASE}:v1:4`);
  });
});
