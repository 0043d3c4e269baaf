import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/upstream/errors.js';
import { validateRequestQuery } from '../../src/upstream/queries.js';

/**
 * Date-time parameters without a zone are the service's local wall time (src/domain/dates.ts): the 12-month check
 * must read them in that zone, whatever the process's own zone is (UTC in containers and CI).
 */
describe('validateRequestQuery: the 12-month period', () => {
  const SP = 'America/Sao_Paulo';
  // 21:02 on 23 Nov in São Paulo, already 24 Nov in UTC.
  const now = new Date('2026-11-24T00:02:00Z');

  it('reads a start without a zone as the service wall time: 364 days back at 21:02 in São Paulo is inside', () => {
    // The feed's followed-request read: the start of the local day 364 days ago.
    expect(() => validateRequestQuery({ dataInicial: '2025-11-24T00:00:00' }, now, SP)).not.toThrow();
    // One day further back is over 12 months.
    expect(() => validateRequestQuery({ dataInicial: '2025-11-23T00:00:00' }, now, SP)).toThrow(
      InvalidArgumentError,
    );
  });

  it('compares two wall times as such, and instants with a zone as instants', () => {
    expect(() =>
      validateRequestQuery({ dataInicial: '2025-11-24T00:00:00', dataFinal: '2026-11-24T00:00:00' }, now, SP),
    ).not.toThrow();
    expect(() =>
      validateRequestQuery({ dataInicial: '2025-11-24T00:00:00', dataFinal: '2026-11-24T00:00:01' }, now, SP),
    ).toThrow(InvalidArgumentError);
    // With an explicit offset the string is an instant: 2025-11-24T00:00:00Z + 12 months is before now.
    expect(() => validateRequestQuery({ dataInicial: '2025-11-24T00:00:00Z' }, now, SP)).toThrow(
      InvalidArgumentError,
    );
    expect(() => validateRequestQuery({ dataInicial: 'not a date' }, now, SP)).toThrow(InvalidArgumentError);
  });
});
