import { pino } from 'pino';
import { expect, it } from 'vitest';
import { type AnswerReader, NoSavedDataError } from '../../../src/domain/cached-reader.js';
import type { DomainDeps } from '../../../src/domain/deps.js';
import { RequestService } from '../../../src/domain/requests/request-service.js';
import type { WorkspaceContext } from '../../../src/domain/workspace.js';

/**
 * The list of the last 30 days is saved under the day its period starts on. Read from the saved data alone (the
 * Home's `Minhas solicitações`), past midnight the day's entry is not there yet: yesterday's, whose period starts a
 * day earlier, is shown with its age. Until 2026-11-27 every Home said "ainda não foram lidas" from midnight on.
 */

const ROW = {
  solicitacaoMaterialId: 1312,
  almoxarifado: 1,
  site: 1,
  solicitante: 7,
  almoxarifado_Nome: 'Central',
  solicitante_Nome: 'Ana',
  listaStatusAndamentoSolicitacao: null,
  statusAndamentoSolicitacao: 1,
  statusAndamentoSolicitacao_Nome: 'Aberta',
  ocorrencias: null,
  concluidoComRessalvas: false,
  rowNumber: 1,
  totalRows: 1,
};

function service(savedFrom: string) {
  const asked: string[] = [];
  const reader: AnswerReader = {
    async read<T>(
      _ws: WorkspaceContext,
      _endpoint: string,
      params: unknown,
      _fetch: unknown,
      options?: { savedOnly?: boolean },
    ) {
      const from = String((params as { dataInicial?: string }).dataInicial);
      asked.push(from);
      if (options?.savedOnly && from !== savedFrom) throw new NoSavedDataError('requestList');
      const page = { rows: [ROW], page: 1, pageSize: 100, totalRows: 1, totalPages: 1 };
      return { data: page as T, freshness: { fetchedAt: 1, fromCache: true, degraded: null } };
    },
  } as unknown as AnswerReader;
  const deps = {
    reader,
    logger: pino({ level: 'silent' }),
    // 2026-11-27 00:10 in São Paulo.
    now: () => Date.UTC(2026, 10, 27, 3, 10),
    timeZone: 'America/Sao_Paulo',
  } as unknown as DomainDeps;
  const ws = {
    workspaceId: 'T1',
    link: {},
    call: { priority: 'interactive' },
  } as unknown as WorkspaceContext;
  return { requests: new RequestService(deps), ws, asked };
}

it("reads yesterday's saved list when today's is not saved yet, from saved data alone", async () => {
  const { requests, ws, asked } = service('2026-10-27T00:00:00');
  const answer = await requests.list(ws, {}, 1, { savedOnly: true }, 7);
  expect(answer.data.list.rows.map((row) => row.solicitacaoMaterialId)).toEqual([1312]);
  expect(asked).toEqual(['2026-10-28T00:00:00', '2026-10-27T00:00:00']);
});

it('still says nothing is saved when neither day is, and never looks back when it may ask upstream', async () => {
  const none = service('2026-10-01T00:00:00');
  await expect(none.requests.list(none.ws, {}, 1, { savedOnly: true }, 7)).rejects.toBeInstanceOf(
    NoSavedDataError,
  );
  const fresh = service('none');
  await fresh.requests.list(fresh.ws, {}, 1, undefined, 7);
  expect(fresh.asked).toEqual(['2026-10-28T00:00:00']);
});
