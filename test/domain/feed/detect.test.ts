import { describe, expect, it } from 'vitest';
import { diffRequests } from '../../../src/domain/feed/detect.js';
import type { RequestSnapshot } from '../../../src/store/feed-snapshot-store.js';
import type { MaterialRequest } from '../../../src/upstream/schemas.js';

const WS = 'T1';

function row(id: number, status: number | null, name: string | null): MaterialRequest {
  return {
    solicitacaoMaterialId: id,
    almoxarifado: 1,
    site: 1,
    solicitante: 7,
    almoxarifado_Nome: 'Central',
    solicitante_Nome: 'Márcia',
    listaStatusAndamentoSolicitacao: null,
    statusAndamentoSolicitacao: status,
    statusAndamentoSolicitacao_Nome: name,
    ocorrencias: null,
    concluidoComRessalvas: false,
    rowNumber: 1,
    totalRows: 1,
  };
}

function entry(status: number | null, statusName: string | null): RequestSnapshot {
  return { status, statusName, stockroomId: 1, requesterId: 7, version: 0, seenAt: 0 };
}

describe('diffRequests: a status code that comes and goes', () => {
  it('is no change when the name stays the same (no "X → X")', () => {
    const options = { record: false, fromList: new Set([1, 2]) };
    const previous = new Map([
      [1, entry(null, 'Aguardando compra')],
      [2, entry(3, 'Aguardando compra')],
    ]);
    const diff = diffRequests(
      WS,
      previous,
      [row(1, 3, 'Aguardando compra'), row(2, null, 'Aguardando compra')],
      1_000,
      options,
    );
    expect(diff.status).toEqual([]);
    expect(diff.next.get(1)).toMatchObject({ status: 3, version: 0 });
    // With a code on both sides again, a change of code is a change.
    const again = diffRequests(WS, diff.next, [row(1, 4, 'Entregue')], 2_000, options);
    expect(again.status).toEqual([expect.objectContaining({ requestId: 1, toStatus: 'Entregue' })]);
  });
});

describe('diffRequests: followers already shown the new status', () => {
  it('names them in seenBy; a follower shown the old status is not named', () => {
    const follow = (userId: string, lastSeenStatus: string | null) => ({
      workspaceId: WS,
      userId,
      requestId: 1,
      lastSeenStatus,
      createdAt: 500,
    });
    const diff = diffRequests(WS, new Map([[1, entry(1, 'Aberta')]]), [row(1, 2, 'Em separação')], 1_000, {
      record: false,
      fromList: new Set([1]),
      follows: [follow('U2', 'em separação'), follow('U1', 'Aberta'), follow('U3', null)],
    });
    expect(diff.status).toEqual([
      expect.objectContaining({
        requestId: 1,
        fromStatus: 'Aberta',
        toStatus: 'Em separação',
        seenBy: ['U2'],
      }),
    ]);
    const none = diffRequests(WS, new Map([[1, entry(1, 'Aberta')]]), [row(1, 2, 'Em separação')], 1_000, {
      record: false,
      fromList: new Set([1]),
      follows: [follow('U1', 'Aberta')],
    });
    expect(none.status[0]).not.toHaveProperty('seenBy');
  });
});
